"""Derived state in SQLite: every archive record's last word, the notebooks' live entries,
and an FTS5 index over both. Deleting the file loses nothing: it is rebuilt from the
archives and notebooks, never the other way round.

Archives are append-only, so the index remembers how far into each one it has read
and reads only what was appended since: a write or a lookup stays flat in archive
size. A rewritten archive (a git merge, a hand edit) is noticed by its first and last
bytes read and read again from the start. Notebooks are re-read when their size or
mtime changes.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import progress
from ...errors import StorageError
from ...model import Entry
from ..archive import ArchiveRecord, MalformedLine, parse_line, read_lines
from ..layout import Layout
from ..provenance.marks import Marks
from .documents import doc_row, search_text
from .origins import MAKING_OPS, origin_row, redactions, take_redaction
from .schema import SCHEMA, SCHEMA_VERSION, UPSERT

__all__ = ["EntryState", "Index"]
_PROBE = 256  # bytes compared at the start and just before the offset
_IN_MEMORY: dict[str, sqlite3.Connection] = {}  # indexes of roots whose derived folder is read-only


def _scrubbed(raw: bytes, item: ArchiveRecord, marks: Marks, path: Path, lineno: int) -> tuple[bytes, ArchiveRecord]:
    """A line of a redacted record that came back, with the removed text taken out again."""
    clean = marks.line(raw)
    if clean == raw:
        return raw, item
    parsed = parse_line(clean, str(path), lineno)
    return (clean, parsed) if isinstance(parsed, ArchiveRecord) else (raw, item)


@dataclass(frozen=True, slots=True)
class EntryState:
    """What the archive last said of an entry id."""

    id: str
    role: str
    op: str
    section: str
    date: str
    text: str
    count: int


class Index:
    """The derived SQLite file of one root. Use as a context manager."""

    def __init__(self, layout: Layout, readers_only: bool = False):
        """Open the root's index, made or brought up to this schema.

        `readers_only`: for a search, which must work in a read-only checkout too: when
        the derived folder cannot be written (a read-only file system, no permission),
        the index is built in memory from the archives and notebooks instead, once per
        process, and one line says so. The same SQL ranks the same way; it costs one
        read of the archives, which is what a first search costs anyway. A writer is never
        given one: what it does goes to the canonical files, and its index must last.

        Raises:
            StorageError: the derived folder cannot be written (and not `readers_only`).
        """
        self.layout = layout
        self.path = layout.index_path
        self.in_memory = False
        try:
            self.db = self._open()
        except StorageError as exc:
            if not readers_only:
                raise
            self.db = self._memory(exc)

    def _open(self) -> sqlite3.Connection:
        for attempt in range(3):
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                break
            except FileExistsError:  # made and deleted again by others while we looked
                if attempt == 2:
                    raise StorageError(
                        self.path.parent, "create the derived folder", OSError(17, "File exists")
                    ) from None
            except OSError as exc:
                raise StorageError(self.path.parent, "create the derived folder", exc) from None
        for attempt in range(4):
            try:
                db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            except sqlite3.OperationalError as exc:
                if attempt < 3:  # the derived folder was deleted under us: make it again
                    with contextlib.suppress(OSError):
                        self.path.parent.mkdir(parents=True, exist_ok=True)
                    continue
                raise StorageError(self.path, "write the derived index", _why_unwritable(self.path, exc)) from None
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=OFF")  # derived: a torn write is rebuilt
                # pages are cached as they are touched, up to 64 MB: a 100k-record build
                # 5.36 -> 5.09 s (tests/bench/bench_search.py); small roots use what they need
                db.execute("PRAGMA cache_size=-65536")
                db.execute("PRAGMA temp_store=MEMORY")
                if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                    db.execute("BEGIN IMMEDIATE")
                    if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                        for kind, name in db.execute(
                            "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') "
                            "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'docs_fts_%'"
                        ).fetchall():
                            db.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
                        for statement in SCHEMA:
                            db.execute(statement)
                        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                    db.execute("COMMIT")
                return db
            except sqlite3.OperationalError as exc:
                db.close()
                transient = ("unable to open", "disk I/O", "readonly database")
                if any(t in str(exc) for t in transient) and attempt < 3:
                    # the derived folder, or the file, was deleted under us (git clean -fdX;
                    # SQLite says "readonly database" of a file unlinked while open): again
                    with contextlib.suppress(OSError):
                        self.path.parent.mkdir(parents=True, exist_ok=True)
                    continue
                if "readonly" in str(exc) or "unable to open" in str(exc) or "disk" in str(exc):
                    raise StorageError(self.path, "write the derived index", _why_unwritable(self.path, exc)) from None
                if attempt:
                    raise
                self.remove(self.path)
            except sqlite3.DatabaseError:
                db.close()
                if attempt:
                    raise
                self.remove(self.path)
        raise AssertionError("unreachable")

    def _memory(self, why: StorageError) -> sqlite3.Connection:
        """The in-memory index of this root for this process (made on first use)."""
        self.in_memory = True
        key = str(self.path)
        db = _IN_MEMORY.get(key)
        if db is None:
            db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            for statement in SCHEMA:
                db.execute(statement)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            _IN_MEMORY[key] = db
            reason = str(why.cause.strerror or why.cause) if why.cause else str(why)
            progress.notice(
                f"the derived folder {self.path.parent} cannot be written ({reason}): "
                "searching an index built in memory for this run"
            )
        return db

    @staticmethod
    def remove(path: Path) -> None:
        """Delete an index file with its WAL; a corrupt one is thrown away and rebuilt."""
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(str(path) + suffix).unlink()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.in_memory:  # kept for the process's next search
            self.db.close()

    def sync(self, role: str, stage: progress.Stage | None = None) -> list[MalformedLine]:
        """Read what was appended to the role's archive since the last sync (counted on
        `stage` in bytes as it goes).

        Returns the malformed lines met for the first time, to be reported once.
        """
        path = self.layout.archive_path(role)
        try:
            st = path.stat()
            size, mtime = st.st_size, st.st_mtime_ns
        except FileNotFoundError:
            size, mtime = 0, 0
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute(
                "SELECT size, mtime_ns, offset, lines, head, tail FROM sources WHERE role=?", (role,)
            ).fetchone()
            offset, lines = (row[2], row[3]) if row else (0, 0)
            if row and row[0] == size == offset and row[1] == mtime:
                db.execute("COMMIT")
                return []
            if row and (size < offset or _probe(path, offset) != (row[4], row[5])):
                offset = lines = 0  # rewritten, not appended to: read it again
            if offset == 0:
                for table in ("outcomes", "groups", "malformed", "origins", "redactions"):
                    db.execute(f"DELETE FROM {table} WHERE role=?", (role,))
                db.execute("DELETE FROM docs WHERE role=? AND journalled=1", (role,))
            read_from = offset
            bad: list[MalformedLine] = []
            rows: list[tuple[object, ...]] = []
            outcomes: dict[str, list[int]] = {}
            groups: list[tuple[str, str, str]] = []
            made: list[tuple[object, ...]] = []
            marks = redactions(self, role)
            for end, lineno, raw, item in read_lines(path, offset, lines + 1):
                offset, lines = end, lineno
                if isinstance(item, MalformedLine):
                    bad.append(item)
                    continue
                if item.op == "redacted":
                    db.executemany(UPSERT, rows)  # what came before it is scrubbed in place
                    rows.clear()
                    take_redaction(self, role, item, raw, marks)
                elif item.id in marks.by_id:
                    if item.id in marks.redacted:
                        continue  # a line of a redacted id that came back: the redaction stays its last word
                    raw, item = _scrubbed(raw, item, marks, path, lineno)
                rows.append(doc_row(role, item, raw, outcomes))
                if isinstance(item.extra.get("group"), str):
                    groups.append((role, item.id, item.extra["group"]))
                if item.op in MAKING_OPS:
                    made.append(origin_row(role, item))
                if len(rows) >= 5000:
                    db.executemany(UPSERT, rows)
                    rows.clear()
                    if stage is not None:
                        stage.advance(offset - read_from)
                        read_from = offset
            db.executemany(UPSERT, rows)
            db.executemany("INSERT OR IGNORE INTO origins VALUES (?,?,?,?,?,?,?,?,?)", made)
            db.executemany("INSERT OR IGNORE INTO groups VALUES (?,?,?)", groups)
            db.executemany(
                "INSERT INTO outcomes VALUES (?,?,?,?) ON CONFLICT(role, ctx_hash) DO UPDATE SET "
                "successes = successes + excluded.successes, trials = trials + excluded.trials",
                [(role, h, k, n) for h, (k, n) in outcomes.items()],
            )
            db.executemany("INSERT INTO malformed VALUES (?,?,?,?)", [(role, b.path, b.line, b.reason) for b in bad])
            head, tail = _probe(path, offset)
            db.execute(
                "INSERT OR REPLACE INTO sources VALUES (?,?,?,?,?,?,?)",
                (role, size, mtime, offset, lines, head, tail),
            )
            db.execute("COMMIT")
            return bad
        except BaseException:
            # a COMMIT that failed (a full disk) has rolled back already: a second ROLLBACK
            # would raise over the error that says what happened
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def pending(self, roles: Iterable[str]) -> dict[str, int]:
        """Bytes of each role's archive not read yet (all of it when it was rewritten,
        which sync tells apart later: this is an estimate for progress)."""
        read = {r: (o, s) for r, o, s in self.db.execute("SELECT role, offset, size FROM sources")}
        out = {}
        for role in roles:
            try:
                size = self.layout.archive_path(role).stat().st_size
            except FileNotFoundError:
                continue
            offset = read.get(role, (0, 0))[0]
            out[role] = size - offset if size >= offset else size
        return out

    def notebook_fresh(self, role: str, sig: tuple[int, int]) -> bool:
        row = self.db.execute("SELECT size, mtime_ns FROM notebooks WHERE role=?", (role,)).fetchone()
        return row is not None and tuple(row) == sig

    def set_active(self, role: str, entries: Iterable[Entry], sig: tuple[int, int] | None) -> None:
        """Record the entries now in the role's notebook (and the notebook's signature).

        Entries not journalled yet (typed by hand) are indexed from the notebook itself.
        """
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("DELETE FROM active WHERE role=?", (role,))
            db.execute("DELETE FROM docs WHERE role=? AND journalled=0", (role,))
            for e in entries:
                eid, search = e.id(role), search_text(e.section, text=e.text)
                db.execute("INSERT OR IGNORE INTO active VALUES (?,?)", (role, eid))
                db.execute(
                    "INSERT OR IGNORE INTO docs(id, role, op, section, date, text, count, tags, ctx_hash, "
                    "journalled, search, data) VALUES (?,?,?,?,?,?,?,?,?,0,?,NULL)",
                    (eid, role, "added", e.section, e.date, e.text, e.count, "", None, search),
                )
            if sig is None:
                db.execute("DELETE FROM notebooks WHERE role=?", (role,))
            else:
                db.execute("INSERT OR REPLACE INTO notebooks VALUES (?,?,?)", (role, *sig))
            db.execute("COMMIT")
        except BaseException:
            # a COMMIT that failed (a full disk) has rolled back already: a second ROLLBACK
            # would raise over the error that says what happened
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def states(self, ids: Iterable[str]) -> dict[str, EntryState]:
        """The archive's last word on each of these ids that it knows."""
        ids = list(dict.fromkeys(ids))
        out: dict[str, EntryState] = {}
        for chunk in _chunks(ids, 500):
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT id, role, op, section, date, text, count FROM docs WHERE journalled=1 AND id IN ({marks})"
            for row in self.db.execute(sql, chunk):
                out[row[0]] = EntryState(*row)
        return out

    def ids_with_ctx_hash(self, ctx_hash: str) -> set[str]:
        """The ids of the logged events of this context hash."""
        return {row[0] for row in self.db.execute("SELECT id FROM docs WHERE ctx_hash = ?", (ctx_hash,))}

    def malformed(self, role: str | None = None) -> list[MalformedLine]:
        sql = "SELECT path, line, reason FROM malformed"
        args: tuple[str, ...] = ()
        if role is not None:
            sql, args = sql + " WHERE role=?", (role,)
        return [MalformedLine(*row) for row in self.db.execute(sql + " ORDER BY path, line", args)]

    def forget_roles(self, keep: Iterable[str]) -> None:
        """Drop what the index holds for roles whose files are gone."""
        keep = set(keep)
        known = {r for (r,) in self.db.execute("SELECT role FROM sources UNION SELECT role FROM notebooks")}
        for role in known - keep:
            for table in ("docs", "active", "outcomes", "malformed", "sources", "notebooks", "origins", "redactions"):
                self.db.execute(f"DELETE FROM {table} WHERE role=?", (role,))

    def newest(self, role: str, section: str, limit: int) -> list[tuple[str, str, str, int]]:
        """(id, date, text, count) of a role's newest items in one section or category."""
        return self.db.execute(
            "SELECT id, date, text, count FROM docs WHERE role = ? AND section = ? "
            "ORDER BY date DESC, rowid DESC LIMIT ?",
            (role, section, limit),
        ).fetchall()

    def with_id_prefix(self, prefix: str) -> list[tuple[Any, ...]]:
        """(id, role, op, section, date, text, count, tags, data) of the items whose id starts
        with `prefix` (lowercase letters and digits), the promote review's decisions aside."""
        assert prefix.isalnum()
        return self.db.execute(
            "SELECT id, role, op, section, date, text, count, tags, data FROM docs "
            "WHERE id >= ? AND id < ? AND section != 'review' LIMIT 20",
            (prefix, prefix + "\U0010ffff"),
        ).fetchall()

    def shared_record(self, rid: str) -> dict[str, Any] | None:
        """The record a shared root holds for an item shared under this id, if any."""
        row = self.db.execute("SELECT data FROM docs WHERE id = ? AND journalled = 1", (rid,)).fetchone()
        data = json.loads(row[0]) if row is not None and row[0] else None
        return data if isinstance(data, dict) else None

    def added_ids(self, role: str) -> list[str]:
        """Ids of notebook entries whose last word in the archive is `added`."""
        return [
            i
            for (i,) in self.db.execute(
                "SELECT id FROM docs WHERE role = ? AND journalled = 1 AND op = 'added' "
                "AND section IN ('mistakes', 'learnings', 'feedback', 'session_log')",
                (role,),
            )
        ]

    def archive_signature(self, role: str) -> tuple[int, int] | None:
        """(size, mtime) of the role's archive when the index last read it."""
        row = self.db.execute("SELECT size, mtime_ns FROM sources WHERE role=?", (role,)).fetchone()
        return (int(row[0]), int(row[1])) if row is not None else None


def _why_unwritable(path: Path, exc: sqlite3.Error) -> OSError:
    """The file system's own reason a database cannot be written (a read-only file system,
    no permission, a full disk), which says more than SQLite's."""
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as reason:
        return reason
    return OSError(0, str(exc))


def _probe(path: Path, offset: int) -> tuple[bytes, bytes]:
    if offset <= 0:
        return b"", b""
    from ..fsutil import open_file

    with open_file(path) as f:
        head = f.read(min(_PROBE, offset))
        f.seek(max(0, offset - _PROBE))
        tail = f.read(min(_PROBE, offset))
    return head, tail


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
