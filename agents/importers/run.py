"""`rolebook import`: check a source whole, then write it role by role through the one
write path (notebook entries as a session's end, recurrence and all; the rest appended
to the archive).
Also the markdown form of `rolebook export`."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from rolebook.notebook import Entry, InputError
from rolebook.notebook.errors import RoleError
from rolebook.notebook.model import entry_id
from rolebook.notebook.store import (
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
from .job import Progress, Report, RoleReport, writing_session

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
        from .restore import run_export

        return run_export(session, path, role, dry_run, skip_bad, BATCH)
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
        session = writing_session(session, sorted(tally.roles), role, dry_run)
        work = Progress(tally.counts)
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
    """`writing_session`'s refusals said before a line is read (100k records took 9-16 s of CPU)."""
    here = session.layout
    if not dry_run and role is not None:
        session.writable(role)
    elif not dry_run and not (session.configured or here.memory.exists() or here.archive.exists()):
        raise RoleError(f"no rolebook project at {here.root} (`rolebook init` makes one); nothing was written")


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
