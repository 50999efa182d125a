"""The one write path: everything that changes a notebook goes through `transact`.

    take the role's lock
    -> read the notebook, bring the derived index up to the archive
    -> finish a write a crash cut short (the pending file), journal hand-typed entries
    -> apply the change, then the limits
    -> note the pending change, append every record to the archive and fsync
    -> replace the notebook atomically (temp, fsync, rename, fsync folder)

A crash at any instant leaves every entry in the notebook or in the archive, or both;
the pending file lets the next writer finish the interrupted change.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import progress
from ..errors import InputError, ScopeError, StorageError
from ..limits import Limits, frontmatter_limits, prune
from ..lookalikes import broken_headings
from ..markdown import (
    add_entries,
    entry_positions,
    hidden_entry_line,
    new_notebook_text,
    parse,
    remove_parts,
    render,
)
from ..model import SECTIONS, TITLES, Entry, Notebook, count_lines
from . import read as readpath
from .archive import LEAVING_OPS, ArchiveRecord, append_lines, append_records
from .fsutil import Replacement, read_file, role_lock
from .index import Index, rebuilt_on_failure
from .layout import Layout, check_role

TOO_DEEP = (
    "lists or quotes nested over 100 levels deep from here: rolebook cannot tell where entries end, "
    "so it will not write this notebook; flatten them (nothing was written)"
)


@dataclass(frozen=True, slots=True)
class Writer:
    """Who writes: provenance on every record, and the role a scoped writer may touch.
    `source` says through what: a command (`cli`), the MCP server (`mcp`), the API memory
    tool (`memory-tool`), a hook; an import names its format on its records itself."""

    by: str | None = None
    session: str | None = None
    source: str | None = None

    def stamp(self) -> str:
        return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What one write did to one role."""

    role: str
    path: Path
    added: tuple[Entry, ...] = ()
    duplicates: tuple[Entry, ...] = ()
    left: tuple[tuple[str, Entry], ...] = ()
    journalled: int = 0
    lines: int = 0
    cap: int | None = None
    changed: bool = False
    warnings: tuple[str, ...] = ()

    def count(self, op: str) -> int:
        return sum(1 for o, _ in self.left if o == op)

    def summary(self) -> str:
        """One line: `coder: +3 entries, 2 pruned to the archive, 61/80 lines`."""
        bits = [f"+{len(self.added)} {'entry' if len(self.added) == 1 else 'entries'}"]
        if self.duplicates:
            bits.append(f"{len(self.duplicates)} already recorded")
        for e in self.added:
            if e.count > 1:
                bits.append(f"a mistake that recurs (x{e.count})")
        for op, said in (
            ("recurred", "earlier occurrence archived"),
            ("promoted", "promoted to a rule"),
            ("obsolete", "made obsolete"),
            ("pruned", "pruned to the archive"),
        ):
            if n := self.count(op):
                bits.append(f"{n} {said}" + ("s" if n > 1 and op == "recurred" else ""))
        if self.journalled:
            bits.append(f"{self.journalled} hand-written journalled")
        cap = f"/{self.cap}" if self.cap is not None else ""
        bits.append(f"{self.lines}{cap} lines")
        return f"{self.role}: " + ", ".join(bits)

    def to_dict(self) -> dict[str, Any]:
        def entry(e: Entry) -> dict[str, Any]:
            return {"id": e.id(self.role), "section": e.section, "date": e.date, "text": e.text, "count": e.count}

        return {
            "role": self.role,
            "path": str(self.path),
            "added": [entry(e) for e in self.added],
            "duplicates": [entry(e) for e in self.duplicates],
            "left": [dict(entry(e), op=op) for op, e in self.left],
            "journalled": self.journalled,
            "lines": self.lines,
            "cap": self.cap,
            "changed": self.changed,
            "warnings": list(self.warnings),
        }


@dataclass(slots=True)
class Change:
    notebook: Notebook
    records: list[ArchiveRecord] = field(default_factory=list)
    added: list[Entry] = field(default_factory=list)
    duplicates: list[Entry] = field(default_factory=list)
    left: list[tuple[str, Entry]] = field(default_factory=list)
    lines: list[bytes] = field(default_factory=list)  # archive lines kept byte for byte (a restore)


Plan = Callable[[Notebook, Index, "Recorder"], Change]


@dataclass(frozen=True, slots=True)
class Recorder:
    role: str
    writer: Writer
    at: str

    def record(
        self, op: str, rid: str, section: str, date: str, text: str, tags: tuple[str, ...] = (), **extra: Any
    ) -> ArchiveRecord:
        """A record of something that is not a notebook entry (a stored item, an event)."""
        return ArchiveRecord(
            id=rid,
            op=op,
            role=self.role,
            section=section,
            date=date,
            text=text,
            tags=tags,
            at=self.at,
            by=self.writer.by,
            session=self.writer.session,
            extra=self._stamped(extra),
        )

    def _stamped(self, extra: dict[str, Any]) -> dict[str, Any]:
        """The record's fields with the writer's source, unless they name their own (an import's)."""
        if self.writer.source is None or "source" in extra:
            return extra
        return {"source": self.writer.source, **extra}

    def __call__(self, op: str, entry: Entry, **extra: Any) -> ArchiveRecord:
        return ArchiveRecord(
            id=entry.id(self.role),
            op=op,
            role=self.role,
            section=entry.section,
            date=entry.date,
            text=entry.text,
            count=entry.count,
            at=self.at,
            by=self.writer.by,
            session=self.writer.session,
            extra=self._stamped(extra),
        )


@contextlib.contextmanager
def storage_errors(folder: Path) -> Iterator[None]:
    """Whatever the file system refuses inside a write becomes one clear StorageError."""
    try:
        yield
    except OSError as exc:
        raise StorageError(getattr(exc, "filename", None) or folder, "write", exc, _NOTHING_LOST) from None
    except sqlite3.OperationalError as exc:
        raise StorageError(folder, "write the derived index", OSError(0, str(exc)), _NOTHING_LOST) from None


_NOTHING_LOST = "nothing is lost: the next write finishes or retries this one"
_ARCHIVED_FIRST = "the archive already holds this change: the next write to the role finishes it"


def transact(layout: Layout, role: str, base: Limits, writer: Writer, plan: Plan) -> WriteResult:
    check_scope(role, writer)
    with storage_errors(layout.derived):
        return rebuilt_on_failure(layout, lambda: _locked_transact(layout, role, base, writer, plan))


def _locked_transact(layout: Layout, role: str, base: Limits, writer: Writer, plan: Plan) -> WriteResult:
    path = layout.notebook_path(role)
    pending = layout.pending_path(role)
    with role_lock(layout.lock_path(role)):
        text = readpath.load_text(layout, path)
        if text is not None and len(text) > progress.BIG_NOTEBOOK_BYTES:
            progress.notice(
                f"{path.name} is {len(text) / 1e6:.0f} MB: reading, journalling and pruning it takes a while"
            )
        nb = parse(text if text is not None else new_notebook_text(role))
        if nb.too_deep is not None:
            raise InputError(TOO_DEEP, path, nb.too_deep)
        if text is not None and (broken := broken_headings(nb)):  # entries would change kind
            raise InputError(f"{broken[0].why} (nothing was written)", path, broken[0].line)
        limits = frontmatter_limits(nb, base, str(path))
        record = Recorder(role, writer, writer.stamp())
        with Index(layout) as index:
            warnings = [f"{bad}; skipped, and left in the archive as it is" for bad in index.sync(role)]
            nb = _finish_pending(nb, role, pending, index)
            if text is not None and (moved := _moved_entry(nb, role, index)) is not None:
                raise InputError(moved[1], path, moved[0])
            nb = _drop_redacted(nb, role, index)
            records = _journal_hand_entries(nb, role, index, record)
            change = plan(nb, index, record)
            records += change.records
            after, pruned = prune(change.notebook, limits)
            records += [record("pruned", e) for e in pruned]
            change.left += [("pruned", e) for e in pruned]
            records += _still_active(after, role, records, record)
            new_text = render(after)
            # no notebook, and none wanted (a restore of archive lines only): none made
            untouched = text is None and change.notebook is nb and not pruned
            changed = new_text != text and not untouched
            if changed and (line := hidden_entry_line(after, new_text)) is not None:
                raise InputError(
                    "an unclosed code fence or HTML block above this line would hide the entries "
                    "written here; close it by hand (nothing was written)",
                    path,
                    line,
                )
            if changed or records or change.lines:
                # the notebook's replacement is written first: a folder that refuses it
                # refuses the write before anything is appended to the archive
                with contextlib.ExitStack() as stack:
                    new = (
                        stack.enter_context(
                            Replacement(
                                layout.check_inside(path),
                                new_text.encode("utf-8"),
                                "nothing was written",
                                spare=layout.spare(),
                            )
                        )
                        if changed
                        else None
                    )
                    archive = layout.check_inside(layout.archive_path(role))
                    _write_pending(pending, change, role)
                    before = _size(archive)
                    try:
                        append_lines(archive, change.lines)
                        append_records(archive, records)
                    except BaseException:
                        if _size(archive) == before:  # refused, nothing appended: there is nothing to finish
                            with contextlib.suppress(OSError):
                                pending.unlink()
                        raise
                    if new is not None:
                        new.commit(_ARCHIVED_FIRST)
            # The change is durable from here on. What follows is derived: if the derived
            # folder goes from under us (git clean -fdX), the next reader rebuilds it.
            with contextlib.suppress(sqlite3.Error, OSError):
                if changed or records or change.lines:
                    index.sync(role)
                st = path.stat()
                index.set_active(role, after.entries(), (st.st_size, st.st_mtime_ns))
            readpath.store_alerts(layout, role, after, base, limits)
            with contextlib.suppress(OSError):
                pending.unlink()
    return WriteResult(
        role,
        path,
        tuple(change.added),
        tuple(change.duplicates),
        tuple(change.left),
        journalled=sum(1 for r in records if r.extra.get("origin") == "notebook"),
        lines=count_lines(new_text),
        cap=limits.lines,
        changed=changed,
        warnings=tuple(warnings),
    )


def append(
    layout: Layout, role: str, writer: Writer, build: Callable[[Index, Recorder], list[ArchiveRecord]]
) -> list[ArchiveRecord]:
    """The write path for records that do not touch the notebook (stored items, events).

    Under the role's lock, with the index brought up to the archive, `build` decides
    what to append (nothing, for a duplicate); the records are appended and fsynced.
    """
    check_scope(role, writer)

    def locked() -> list[ArchiveRecord]:
        with role_lock(layout.lock_path(role)), Index(layout) as index:
            index.sync(role)
            records = build(index, Recorder(role, writer, writer.stamp()))
            if records:
                append_records(layout.check_inside(layout.archive_path(role)), records)
                with contextlib.suppress(sqlite3.Error, OSError):  # derived: caught up by the next reader
                    index.sync(role)
        return records

    with storage_errors(layout.derived):
        return rebuilt_on_failure(layout, locked)


def check_scope(role: str, writer: Writer) -> None:
    """Raises ScopeError when a writer scoped to one role would write another (RoleError for a bad name)."""
    check_role(role)
    if writer.by is not None and writer.by != role:
        raise ScopeError(f"writer is scoped to role {writer.by!r} and may not write to {role!r}")


def _journal_hand_entries(nb: Notebook, role: str, index: Index, record: Recorder) -> list[ArchiveRecord]:
    # Entries typed into the notebook by hand (or put back by hand after they left)
    # are journalled the first time rolebook meets them, before they can be pruned.
    active = {e.id(role): e for e in nb.entries()}
    states = index.states(active)
    return [
        record("added", e, origin="notebook")
        for i, e in active.items()
        if (s := states.get(i)) is None or s.op != "added"
    ]


def _moved_entry(nb: Notebook, role: str, index: Index) -> tuple[int, str] | None:
    """(line, why) of the first entry the archive holds, active, as another kind: a heading
    above it deleted or moved by hand put it in another section. Written as it stands, it
    would be journalled as a new entry of the wrong kind, and the old one said to have left.
    Two index lookups, whatever the notebook holds."""
    placed: list[tuple[int, Entry]] = []
    line = count_lines(nb.head) + 1
    for section in nb.sections:
        line += count_lines(section.heading)
        for part in section.parts:
            if isinstance(part, Entry):
                placed.append((line, part))
            line += count_lines(part.raw)
    known = index.states(e.id(role) for _, e in placed)
    unknown = [(n, e) for n, e in placed if e.id(role) not in known]
    if not unknown:
        return None
    here = {e.id(role) for _, e in placed}  # its twin of the other kind still there: two entries
    others = {(n, o): dataclasses.replace(e, section=o).id(role) for n, e in unknown for o in SECTIONS}
    states = index.states(others.values())
    for n, e in unknown:
        for o in SECTIONS:
            if others[(n, o)] not in here and (st := states.get(others[(n, o)])) is not None and st.op == "added":
                return n, (
                    f"this entry was written under ## {TITLES[o]} and now stands under ## {TITLES[e.section]}: "
                    f"a heading above it was deleted or moved by hand; put `## {TITLES[o]}` back above it "
                    "(nothing was written)"
                )
    return None


def _drop_redacted(nb: Notebook, role: str, index: Index) -> Notebook:
    # An entry a redaction took out, back in the notebook (a merge without the driver
    # brought it): it leaves again, and is never journalled as typed by hand.
    states = index.states(e.id(role) for e in nb.entries())
    gone = {
        (si, pi)
        for si, pi, e in entry_positions(nb)
        if (s := states.get(e.id(role))) is not None and s.op == "redacted"
    }
    return remove_parts(nb, gone)


def _still_active(nb: Notebook, role: str, records: list[ArchiveRecord], record: Recorder) -> list[ArchiveRecord]:
    # The journal's last word on every entry still in the notebook must be `added`; a
    # copy of an entry typed twice can leave while the other copy stays.
    last = {r.id: r.op for r in records}
    return [record("added", e, origin="notebook") for e in nb.entries() if last.get(e.id(role)) in LEAVING_OPS]


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None


def _write_pending(pending: Path, change: Change, role: str) -> None:
    data = {
        "add": [{"section": e.section, "date": e.date, "text": e.text, "count": e.count} for e in change.added],
        "remove": [e.id(role) for _, e in change.left],
    }
    for attempt in range(3):  # the derived folder may be deleted under us: make it again
        pending.parent.mkdir(parents=True, exist_ok=True)
        try:
            pending.write_text(json.dumps(data), encoding="utf-8")
            return
        except FileNotFoundError:
            if attempt == 2:
                raise


def _finish_pending(nb: Notebook, role: str, pending: Path, index: Index) -> Notebook:
    """Finish a write that a crash cut short between the archive and the notebook."""
    try:
        data = json.loads(read_file(pending).decode("utf-8"))  # never a planted pipe
        adds = [Entry(a["section"], a["date"], a["text"], int(a["count"])) for a in data["add"]]
        removes = set(data["remove"])
    except FileNotFoundError:
        return nb
    except (ValueError, KeyError, TypeError, OSError, InputError):
        return nb  # unreadable: the archive still holds everything, nothing to finish
    states = index.states([*removes, *(e.id(role) for e in adds)])
    gone = {
        (si, pi)
        for si, pi, e in entry_positions(nb)
        if e.id(role) in removes and (s := states.get(e.id(role))) is not None and s.op in LEAVING_OPS
    }
    nb = remove_parts(nb, gone)
    active = {e.id(role) for e in nb.entries()}
    back = [
        e for e in adds if e.id(role) not in active and (s := states.get(e.id(role))) is not None and s.op == "added"
    ]
    return add_entries(nb, back)


__all__ = [
    "TOO_DEEP",
    "Change",
    "Plan",
    "Recorder",
    "WriteResult",
    "Writer",
    "append",
    "check_scope",
    "storage_errors",
    "transact",
]
