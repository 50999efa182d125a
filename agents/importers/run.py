"""`rolebook import`: check a source whole, then write it role by role through the one
write path (notebook entries as a session's end, recurrence and all; the rest appended
to the archive).
Also the markdown form of `rolebook export`."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from rolebook.notebook import Entry, InputError, progress
from rolebook.notebook.errors import RoleError
from rolebook.notebook.model import entry_id
from rolebook.notebook.store import (
    Held,
    Keep,
    Layout,
    check_scope,
    keep,
    known,
    redact_value,
)

from ..session import Session
from . import READERS, Item, Source
from .common import folder_of, not_a_source


@dataclass(slots=True)
class RoleReport:
    role: str
    entries: int = 0
    items: int = 0
    already: int = 0
    pruned: int = 0
    notebook: str = ""

    def line(self, dry_run: bool) -> str:
        verb = "would add" if dry_run else "added"
        bits = [f"{self.entries} notebook {'entry' if self.entries == 1 else 'entries'}", f"{self.items} archived"]
        tail = []
        if self.pruned:
            tail.append(f"{self.pruned} pruned to the archive by the notebook's limits")
        if self.already:
            tail.append(f"{self.already} already there")
        if self.notebook:
            tail.append(self.notebook)
        return f"{self.role}: {verb} " + ", ".join(bits) + ("; " + ", ".join(tail) if tail else "")


@dataclass(slots=True)
class Report:
    fmt: str
    path: Path
    dry_run: bool
    roles: list[RoleReport] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: bool = False
    redacted: list[str] = field(default_factory=list)  # kinds of secret redacted on the way in

    def lines(self) -> list[str]:
        out = [r.line(self.dry_run) for r in self.roles] or ["nothing to import"]
        if self.problems:
            out.append(f"{len(self.problems)} bad line(s) skipped")
        if self.dry_run:
            out.append("dry run: nothing was written")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.fmt,
            "path": str(self.path),
            "dry_run": self.dry_run,
            "written": self.written,
            "roles": [
                {
                    "role": r.role,
                    "entries": r.entries,
                    "items": r.items,
                    "already": r.already,
                    "pruned": r.pruned,
                    "notebook": r.notebook or None,
                }
                for r in self.roles
            ],
            "problems": self.problems,
            "notes": self.notes,
            "redacted": self.redacted,
        }


#: Items written per transaction: an import holds at most this many at once, whatever the
#: size of its source (a notebook's entries are judged together up to this many).
BATCH = 5000


def run(session: Session, fmt: str, path: Path, role: str | None, dry_run: bool, skip_bad: bool) -> Report:
    """Read and check the whole source, keeping each item (redacted) in an unnamed
    temporary file; then (unless a dry run, or bad lines without `skip_bad`) write them
    from there, `BATCH` items at a time: memory stays flat whatever the size of the source.

    The roles a source names are started on purpose; a `role` given outright must be one
    the project knows (or the session allows new roles: --new-role): a typo is refused.

    Raises:
        InputError: no such source, a source that is not of this format, no role to import into.
        RoleError: `role` is unknown here, or there is no rolebook project (nothing written).
        ScopeError: a writer scoped to one role importing into another.
    """
    import tempfile

    if not (path.is_file() or path.is_dir()):
        raise not_a_source(path)
    _before_reading(session, role, dry_run)
    if fmt == "rolebook":
        return _run_export(session, path, role, dry_run, skip_bad)
    with tempfile.TemporaryFile() as spool:
        tally = _Tally(role, session.layout if dry_run else None, None if dry_run else spool)
        checked = READERS[fmt](path, Source(sink=tally.add, within=folder_of(path)))
        tally.close()
        report = Report(fmt, path, dry_run, problems=[str(p) for p in checked.problems], notes=checked.notes)
        report.redacted = tally.redacted
        if tally.nameless:
            raise InputError(
                f"{tally.nameless} item(s) of this {fmt} source name no role (first: {tally.first_nameless}): "
                "pass --role ROLE, e.g. --role coder"
            )
        for name in tally.roles:
            check_scope(name, session.who)
        if (report.problems and not skip_bad) or not tally.roles:
            return report
        if dry_run:
            report.roles = [tally.roles[name] for name in sorted(tally.roles)]
            return report
        session = _writing(session, sorted(tally.roles), role, dry_run)
        work = _Progress(tally.counts)
        writing = _Writer(session, role, work.written)
        spool.seek(0)
        for item in _unspooled(spool):
            writing.add(item)
        writing.close()
        work.finish()
    report.roles = [writing.roles[name] for name in sorted(writing.roles)]
    report.written = True
    return report


def _before_reading(session: Session, role: str | None, dry_run: bool) -> None:
    """`_writing`'s refusals said before a line is read (100k records took 9-16 s of CPU)."""
    here = session.layout
    if not dry_run and role is not None:
        session.writable(role)
    elif not dry_run and not (session.configured or here.memory.exists() or here.archive.exists()):
        raise RoleError(f"no rolebook project at {here.root} (`rolebook init` makes one); nothing was written")


def _writing(session: Session, names: list[str], role: str | None, dry_run: bool) -> Session:
    """The session that writes the import, once the source is read and checked: the roles
    the source names are started on purpose; a `role` given outright must be one the
    project knows (or --new-role); and nothing is written outside a rolebook project.

    Raises:
        RoleError: an unknown `role`, or no project here (nothing written).
    """
    if dry_run:
        return session
    if role is not None:
        session.writable(role)
    session = replace(session, new_roles=True)
    for name in names:
        session.writable(name)
    return session


def _unspooled(spool: IO[bytes]) -> Iterator[Item]:
    """The items the first pass kept, in order (this import's own file: safe to unpickle)."""
    while True:
        try:
            yield pickle.load(spool)
        except EOFError:
            return


class _Tally:
    """The first pass: what each role would get, the kinds of secret on the way in, and
    items that name no role. For a dry run, which items the roles hold already."""

    def __init__(self, role: str | None, layout: Layout | None, spool: IO[bytes] | None = None) -> None:
        self.role, self.layout, self.spool = role, layout, spool
        self.roles: dict[str, RoleReport] = {}
        self.counts: dict[str, int] = {}  # items per role: what a progress display counts to
        self.redacted: list[str] = []
        self.nameless, self.first_nameless = 0, ""
        self._seen: dict[str, set[str]] = {}
        self._ids: dict[str, list[tuple[str, str]]] = {}  # role -> (id, kind) waiting for `known`

    def add(self, item: Item) -> None:
        # the key (a source record's JSON, the import's identity) too: it holds what the text held
        clean, found = redact_value([item.text, dict(item.fields), item.key])
        item = replace(item, key=clean[2])  # the id the write gives it: the dry run counts the same
        self.redacted += [k for k in found if k not in self.redacted]
        name = self.role or item.role
        if name is None:
            self.nameless += 1
            self.first_nameless = self.first_nameless or item.where
            return
        self.roles.setdefault(name, RoleReport(name))
        self.counts[name] = self.counts.get(name, 0) + 1
        if self.spool is not None:  # kept redacted: no secret reaches the disk on the way in
            pickle.dump(replace(item, text=clean[0], fields=clean[1]), self.spool, pickle.HIGHEST_PROTOCOL)
        if self.layout is None:
            return
        rid = Entry(item.section, item.date, item.text).id(name) if item.kind == "entry" else _keep(name, item).id
        seen = self._seen.setdefault(name, set())
        if rid in seen:
            self.roles[name].already += 1
            return
        seen.add(rid)
        waiting = self._ids.setdefault(name, [])
        waiting.append((rid, item.kind))
        if len(waiting) >= BATCH:
            self._count(name)

    def close(self) -> None:
        for name in list(self._ids):
            self._count(name)

    def _count(self, name: str) -> None:
        assert self.layout is not None
        waiting, self._ids[name] = self._ids[name], []
        have = known(self.layout, name, [rid for rid, _ in waiting])
        rr = self.roles[name]
        for rid, kind in waiting:
            if rid in have:
                rr.already += 1
            elif kind == "entry":
                rr.entries += 1
            else:
                rr.items += 1


class _Writer:
    """The second pass: notebook entries through a session's end (recurrence, limits), the
    rest appended to the archive, a batch at a time per role; `written(role, n)` after each."""

    def __init__(self, session: Session, role: str | None, written: Callable[[str, int], None] | None = None) -> None:
        self.session, self.role, self.written = session, role, written
        self.roles: dict[str, RoleReport] = {}
        self._entries: dict[str, list[Entry]] = {}
        self._fields: dict[str, dict[str, dict[str, Any]]] = {}
        self._keeps: dict[str, list[Keep]] = {}

    def add(self, item: Item) -> None:
        name = self.role or item.role
        assert name is not None  # the first pass refused items that name no role
        self.roles.setdefault(name, RoleReport(name))
        if item.kind == "entry":
            entry = Entry(item.section, item.date, item.text, item.count)
            self._entries.setdefault(name, []).append(entry)
            self._fields.setdefault(name, {}).setdefault(entry.id(name), item.fields)
            if len(self._entries[name]) >= BATCH:
                self._write_entries(name)
        else:
            self._keeps.setdefault(name, []).append(_keep(name, item))
            if len(self._keeps[name]) >= BATCH:
                self._write_keeps(name)

    def close(self) -> None:
        for name in sorted(self.roles):
            self._write_entries(name)
            self._write_keeps(name)

    def _write_entries(self, name: str) -> None:
        entries, self._entries[name] = self._entries.get(name, []), []
        fields, self._fields[name] = self._fields.get(name, {}), {}
        if entries:
            result = self.session.end(name, entries, fields=fields).result
            rr = self.roles[name]
            rr.entries += len(result.added)
            rr.pruned += result.count("pruned")
            rr.already += len(result.duplicates)
            if self.written is not None:
                self.written(name, len(entries))

    def _write_keeps(self, name: str) -> None:
        keeps, self._keeps[name] = self._keeps.get(name, []), []
        if keeps:
            records, already = keep(self.session.layout, name, keeps, self.session.who)
            self.roles[name].items += len(records)
            self.roles[name].already += already
            if self.written is not None:
                self.written(name, len(keeps))


def _keep(role: str, item: Item) -> Keep:
    op = "logged" if item.kind == "logged" else "stored"
    rid = entry_id(role, f"import/{item.section}", item.date, item.key or item.text)
    fields = dict(item.fields)
    if op == "stored":
        fields.setdefault("category", item.section)
    return Keep(op, rid, item.section, item.date, item.text, item.tags, fields)


def _run_export(session: Session, path: Path, role: str | None, dry_run: bool, skip_bad: bool) -> Report:
    """A rolebook export: checked whole (its archive lines counted, not held), then read
    again and restored role by role, `BATCH` lines a transaction."""
    from rolebook.notebook.store import read_export

    redacted: list[str] = []

    def tally(_: str, line: bytes) -> None:
        found = redact_value(line.decode("utf-8", "replace"))[1]
        redacted.extend(k for k in found if k not in redacted)

    bundle = read_export(path, tally)
    from rolebook.rules import bad_rule_lines

    report = Report("rolebook", path, dry_run, problems=bundle.problems + bad_rule_lines(bundle.rules, str(path)))
    found = redact_value(list(bundle.notebooks.values()))[1]
    report.redacted = redacted + [k for k in found if k not in redacted]
    roles = bundle.roles()
    if role is not None:
        if role not in roles:
            raise InputError(f"{path} holds no role {role!r} (it holds: {', '.join(roles) or 'none'})")
        roles = [role]
    for name in roles:
        check_scope(name, session.who)
    if not (report.problems and not skip_bad):
        session = _writing(session, roles, role, dry_run)
    if (report.problems and not skip_bad) or dry_run:
        for name in roles:
            report.roles.append(RoleReport(name, items=bundle.counts.get(name, 0)))
        if dry_run:
            report.notes.append("a dry run of a rolebook export counts its archive lines; none are compared")
        return report
    work = _Progress({name: bundle.counts.get(name, 0) for name in roles})
    restoring = _Restore(session, bundle.notebooks, set(roles), work.written)
    read_export(path, restoring.add)
    report.roles = [restoring.finish(name) for name in roles]
    _restore_rules(session, bundle, roles, report)
    work.finish()
    report.written = True
    return report


def _restore_rules(session: Session, bundle: Any, roles: list[str], report: Report) -> None:
    """The export's rule lines of these roles into the rules block, as they were written;
    a rule the block holds already is not written twice (edgesb: export carries the rules)."""
    from functools import partial

    from rolebook.rules import add_lines, bad_rule_lines, list_rules, write_rules

    good = [line for n, role, line in bundle.rules if role in roles and not bad_rule_lines([(n, role, line)], "")]
    if not good:
        return
    before = len(list_rules(session.rules_path))
    write_rules(session.layout, session.rules_path, partial(add_lines, lines=good))
    if added := len(list_rules(session.rules_path)) - before:
        report.notes.append(f"{added} rule line(s) written to {session.rules_path}")


class _Progress:
    """An import as a job of one stage a role (`notebook.progress`: a bar on a terminal, a
    line a stage elsewhere, and what was written when Ctrl-C stops it), counted in records
    as each batch is written."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self.job = progress.job(
            "import",
            sorted(counts.items()),
            unit="records",
            verb="written",
            then="run the import again to finish, it is idempotent",
            shown=sum(counts.values()) >= progress.BIG_IMPORT_RECORDS,
        )
        self.stages: dict[str, progress.Stage] = {}

    def written(self, role: str, n: int) -> None:
        if role not in self.stages:
            says = f"importing {self.counts.get(role, 0):,} records into {role}"
            self.stages[role] = self.job.start(role, says)
        stage = self.stages[role]
        stage.advance(n)
        if stage.done >= self.counts.get(role, 0):
            stage.finish()

    def finish(self) -> None:
        for stage in self.stages.values():
            if stage.state != "done":
                stage.finish()
        self.job.finish()


class _Restore:
    """An export's archive lines appended role by role, `BATCH` at a time; the last batch
    carries the notebook (written after the records of its entries, as one restore would)."""

    def __init__(
        self,
        session: Session,
        notebooks: dict[str, str],
        roles: set[str],
        written: Callable[[str, int], None] | None = None,
    ) -> None:
        self.session, self.notebooks, self.wanted, self.written = session, notebooks, roles, written
        self.pending: dict[str, list[bytes]] = {}
        self.reports: dict[str, RoleReport] = {}
        self.held: dict[str, Held] = {}

    def add(self, role: str, line: bytes) -> None:
        if role in self.wanted:
            self.pending.setdefault(role, []).append(line)
            if len(self.pending[role]) >= BATCH:
                self._flush(role, None)

    def _flush(self, role: str, text: str | None) -> str:
        from rolebook.notebook.store import restore

        lines, self.pending[role] = self.pending.get(role, []), []
        held = self.held.setdefault(role, Held())
        done = restore(self.session.layout, role, text, lines, self.session.who, held)
        rr = self.reports.setdefault(role, RoleReport(role))
        rr.items += done.appended
        rr.already += done.already
        if self.written is not None and lines:
            self.written(role, len(lines))
        return done.notebook

    def finish(self, role: str) -> RoleReport:
        from rolebook.notebook import parse

        text = self.notebooks.get(role)
        state = self._flush(role, text)
        rr = self.reports[role]
        if state == "written":
            rr.notebook = "notebook restored"
            assert text is not None
            rr.entries = len(parse(text).entries())
        elif state == "merge":
            assert text is not None
            result = self.session.end(role, list(parse(text).entries())).result
            rr.entries, rr.pruned = len(result.added), result.count("pruned")
            rr.already += len(result.duplicates)
            rr.notebook = "entries merged into the notebook there"
        return rr
