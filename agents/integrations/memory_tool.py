"""The Anthropic API's client-side memory tool (`memory_20250818`), backed by rolebook.

    /memories                the role notebooks, listed as the SDK's own backend lists a folder
    /memories/<role>.md      a role's notebook: `view` numbers its lines as the SDK does;
                             `create`, `str_replace` and `insert` write the dated entries the
                             edit adds or changes through the one write path (caps, newest
                             first, pruning to the archive, redaction, the lock); `delete`
                             retires the notebook's entries to the archive; `rename` is refused
    anything else            refused, with a one-line pointer to the notebook

An edit is read as a change of entries, never as new bytes for the file: the entries it
adds are written as a session's end writes them, the entries it drops or changes leave
as obsolete, and an edit of anything else (the title, prose, a heading) is refused whole,
so concurrent writers lose nothing and what the archive holds never disagrees with the
notebook. Other files are refused rather than kept as stored items: a stored item is
append-only and capped at 1,000 characters, so a "file" that view could not show as it
was written, that str_replace could only pile copies onto and that delete could not
remove would mislead the model more than a refusal does.

Needs the `anthropic` extra; `import rolebook` does not import it (the class loads on
first use of `rolebook.RolebookMemoryTool`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from anthropic.lib.tools import BetaAbstractMemoryTool, BetaFunctionToolResultType, ToolError
from rolebook.notebook import Entry, NoMatch, RolebookError, parse
from rolebook.notebook.model import normalize
from rolebook.notebook.store import Writer, check_role, check_scope, load_text, new_entry

from ..config import find_root, load_config
from ..session import Session, open_session
from .memory_edit import ROOT, file_size, notebook_role, numbered, plan_edit, snippet

if TYPE_CHECKING:
    from anthropic.types.beta import (
        BetaCacheControlEphemeralParam,
        BetaMemoryTool20250818Command,
        BetaMemoryTool20250818CreateCommand,
        BetaMemoryTool20250818DeleteCommand,
        BetaMemoryTool20250818InsertCommand,
        BetaMemoryTool20250818RenameCommand,
        BetaMemoryTool20250818StrReplaceCommand,
        BetaMemoryTool20250818ViewCommand,
    )

#: Provenance on every entry the tool adds (the `source` field of its `added` record).
SOURCE = "memory-tool"


class RolebookMemoryTool(BetaAbstractMemoryTool):
    """The memory tool over a rolebook root: `/memories/<role>.md` is the role's notebook.

    `root`: the project (default: found from the working directory, as the CLI finds it);
    `role`: the one role this tool may write (default `ROLEBOOK_ROLE`; None: any role);
    `session`: the session id its records carry (default `ROLEBOOK_SESSION`).
    """

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        role: str | None = None,
        session: str | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        role = role if role is not None else os.environ.get("ROLEBOOK_ROLE") or None
        session = session if session is not None else os.environ.get("ROLEBOOK_SESSION") or None
        writer = Writer(check_role(role) if role else None, session, SOURCE)
        self.session: Session = open_session(load_config(Path(root) if root else find_root()), writer)
        self.role = role

    def execute(self, command: BetaMemoryTool20250818Command) -> BetaFunctionToolResultType:
        """Run one command; what rolebook refuses goes back to the model as the tool's error."""
        try:
            return super().execute(command)
        except RolebookError as exc:
            raise ToolError(str(exc)) from None

    # -- the six commands ------------------------------------------------------------------

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        role = self._role(command.path)
        if role is None:
            return self._listing(command.path)
        return numbered(self._existing(role, command.path), command.path, command.view_range)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        role = self._writable(command.path)
        if self._text(role) is not None:
            raise ToolError(f"File {command.path} already exists: view it, then add entries with str_replace or insert")
        lines = self._write(role, "", command.file_text, creating=True)
        return "\n".join([f"File created successfully at: {command.path}", *lines])

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        role = self._writable(command.path)
        content = self._existing(role, command.path)
        count = content.count(command.old_str)
        if count == 0:
            raise ToolError(
                f"No replacement was performed, old_str `{command.old_str}` did not appear verbatim in "
                f"{command.path}. It may have changed since you viewed it (a full section sends its oldest "
                f"entries to the archive); here it is now. " + numbered(content, command.path)
            )
        if count > 1:
            at, start = [], 0
            while (pos := content.find(command.old_str, start)) != -1:
                at.append(content[:pos].count("\n") + 1)
                start = pos + 1
            raise ToolError(
                f"No replacement was performed. Multiple occurrences of old_str `{command.old_str}` in lines: "
                f"{', '.join(map(str, at))}. Please ensure it is unique"
            )
        lines = self._write(role, content, content.replace(command.old_str, command.new_str))
        return "\n".join(lines)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        role = self._writable(command.path)
        content = self._existing(role, command.path)
        lines = content.split("\n")
        if lines[-1] == "":
            lines.pop()
        if not 0 <= command.insert_line <= len(lines):
            raise ToolError(
                f"Invalid `insert_line` parameter: {command.insert_line}. It should be within the range "
                f"[0, {len(lines)}]. It may have changed since you viewed it; here it is now. "
                + numbered(content, command.path)
            )
        lines.insert(command.insert_line, command.insert_text.rstrip("\n"))
        new = "\n".join(lines)
        return "\n".join(self._write(role, content, new if new.endswith("\n") else new + "\n"))

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        role = self._role(command.path)
        if role is None:
            raise ToolError("Cannot delete the /memories directory itself")
        self._scoped(role, command.path)
        content = self._text(role)
        if content is None:
            raise ToolError(f"The path {command.path} does not exist")
        retired = self._retire(role, parse(content).entries())
        return (
            f"Retired {command.path}: {retired} {_entries(retired)} left for the archive (archived as obsolete, "
            "still searchable); the file stays, with its headings and any text rolebook does not manage"
        )

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        old, new = self._role(command.old_path), self._role(command.new_path)
        if old is None:
            raise ToolError("Cannot rename the /memories directory itself")
        raise ToolError(
            f"rolebook does not rename notebooks: {command.old_path} is the notebook of role {old!r}; "
            f"to move entries, add them to {command.new_path if new else 'another role notebook'} and delete them here"
        )

    def clear_all_memory(self) -> str:
        raise NotImplementedError(
            "rolebook never erases memory: delete /memories/<role>.md to retire a notebook's entries to the archive"
        )

    # -- paths -----------------------------------------------------------------------------

    def _role(self, path: str) -> str | None:
        """The role a `/memories` path names (None: the folder itself); refuses the rest."""
        role = notebook_role(path)
        if role is None:
            return None
        layout = self.session.layout
        try:
            layout.check_inside(layout.memory)
            real = layout.check_inside(layout.notebook_path(role)).resolve()
        except RolebookError:
            real = None
        if real is None or not real.is_relative_to(layout.memory.resolve()):
            raise ToolError(f"Path {path} would escape /memories directory via symlink")
        return role

    def _writable(self, path: str) -> str:
        role = self._role(path)
        if role is None:
            raise ToolError(f"The path {path} is not a file.")
        return self._scoped(role, path)

    def _scoped(self, role: str, path: str) -> str:
        if self.role is not None and role != self.role:
            raise ToolError(
                f"{path}: this memory writes only role {self.role!r}'s notebook, {ROOT}/{self.role}.md "
                "(other notebooks can be viewed)"
            )
        return role

    def _text(self, role: str) -> str | None:
        return load_text(self.session.layout, self.session.layout.notebook_path(role))

    def _existing(self, role: str, path: str) -> str:
        text = self._text(role)
        if text is None:
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        return text

    def _listing(self, path: str) -> str:
        """The notebooks, as the SDK lists a folder (its header, sizes, one path a line)."""
        memory = self.session.layout.memory
        try:
            self.session.layout.check_inside(memory)
            leaf = os.lstat(memory)
        except FileNotFoundError:
            leaf = None
        except RolebookError as exc:
            raise ToolError(f"Path {path} would escape /memories directory via symlink ({exc})") from None
        lines = [f"{file_size(leaf.st_size if leaf else 0)}\t{path}"]
        for role in self.session.layout.roles():
            file = memory / f"{role}.md"
            try:
                if file.is_symlink() and not file.resolve().is_relative_to(memory.resolve()):
                    continue  # as the SDK does: a link out of the folder is not listed
                st = file.stat()
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                lines.append(f"{file_size(st.st_size)}\t{path}/{role}.md")
        header = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
        return header + "\n" + "\n".join(lines)

    # -- writing -----------------------------------------------------------------------------

    def _write(self, role: str, old: str, new: str, creating: bool = False) -> list[str]:
        """Write what an edit did to the entries of `old` (now `new`); the answer's lines.

        The whole edit is checked before anything is written; then the entries it drops or
        changes leave as obsolete (first: an edit of a full section pushes nothing out), and
        the entries it adds or changes are written as a session's end writes them.
        """
        edit = plan_edit(role, old, new, dt.date.today().isoformat(), creating)
        adds = [dataclasses.replace(new_entry(e.section, e.text, e.date), count=e.count) for e in edit.adds]
        check_scope(role, self.session.who)
        if not adds and not edit.retires:
            raise ToolError(
                "No change was written: the edit adds, changes or removes no dated entry (rolebook keeps "
                "entries newest first and counts a recurring mistake itself). " + numbered(old, f"{ROOT}/{role}.md")
            )
        retired = self._retire(role, edit.retires)
        lines = []
        if adds:
            # an entry the edit changed is not a recurrence of what it was before the edit
            gone = {normalize(e.text) for e in edit.retires if e.section == "mistakes"}
            session = self.session
            if gone:
                base = session.recurrence
                session = dataclasses.replace(session, recurrence=lambda a, b: normalize(b) not in gone and base(a, b))
            fields = {e.id(role): {"source": SOURCE} for e in adds}
            recorded = session.end(role, adds, [e.text for e in edit.adds], fields)
            if recorded.result.added:
                written = self._text(role) or ""
                lines += snippet(written, role, {e.id(role) for e in recorded.result.added})
            else:
                lines.append(
                    "No entry was added: rolebook already holds them "
                    "(an entry that left the notebook is not written again)"
                )
            lines += [f"rolebook: {line}" for line in recorded.lines()]
            if recorded.redacted:
                lines.append(f"rolebook: redacted before writing: {', '.join(recorded.redacted)}")
            lines += [f"rolebook: warning: {w}" for w in (*recorded.result.warnings, *recorded.warnings)]
        if retired:
            lines.append(f"rolebook: {role}: {retired} {_entries(retired)} left for the archive (obsolete)")
        return lines

    def _retire(self, role: str, entries: list[Entry]) -> int:
        """Retire entries (archived as obsolete); one already gone (pruned since) counts not."""
        done = 0
        for entry in {e.id(role): e for e in entries}:
            try:
                done += len(self.session.obsolete(role, f"#{entry}").left)
            except NoMatch:
                continue
        return done


def _entries(n: int) -> str:
    return "entry" if n == 1 else "entries"


__all__ = ["SOURCE", "RolebookMemoryTool"]
