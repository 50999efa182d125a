"""Derived state in SQLite: what each archive record says, kept up to date by offset.

Archives are append-only, so the index remembers how far into each one it has read
and reads only what was appended since: looking up the last op of an entry stays flat
in archive size. A rewritten archive (a git merge, a hand edit) is noticed by its
first and last bytes read and read again from the start. The file can be deleted at
any time; it is rebuilt from the archives, never the other way round.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .archive import ArchiveRecord, MalformedLine, read_records
from .layout import Layout

SCHEMA_VERSION = 2
_PROBE = 256  # bytes compared at the start and just before the offset

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources(
    role TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, offset INTEGER, lines INTEGER, head BLOB, tail BLOB);
CREATE TABLE IF NOT EXISTS state(
    id TEXT PRIMARY KEY, role TEXT, op TEXT, section TEXT, date TEXT, text TEXT, count INTEGER);
CREATE INDEX IF NOT EXISTS state_role ON state(role, op);
CREATE TABLE IF NOT EXISTS malformed(role TEXT, path TEXT, line INTEGER, reason TEXT);
"""


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

    def __init__(self, layout: Layout):
        self.layout = layout
        self.path = layout.derived / "index.sqlite"
        self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for attempt in range(2):
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=OFF")  # derived: a torn write is rebuilt
                if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                    db.execute("BEGIN IMMEDIATE")
                    if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                        for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
                            db.execute(f'DROP TABLE IF EXISTS "{name}"')
                        for statement in _SCHEMA.split(";"):
                            if statement.strip():
                                db.execute(statement)
                        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                    db.execute("COMMIT")
                return db
            except sqlite3.DatabaseError:
                db.close()
                if attempt:
                    raise
                # a corrupt derived file is thrown away and rebuilt from the archives
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(FileNotFoundError):
                        Path(str(self.path) + suffix).unlink()
        raise AssertionError("unreachable")

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.db.close()

    def sync(self, role: str) -> list[MalformedLine]:
        """Read what was appended to the role's archive since the last sync.

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
                db.execute("DELETE FROM state WHERE role=?", (role,))
                db.execute("DELETE FROM malformed WHERE role=?", (role,))
            rows: list[tuple[object, ...]] = []
            bad: list[MalformedLine] = []
            for end, lineno, item in read_records(path, offset, lines + 1):
                offset, lines = end, lineno
                if isinstance(item, MalformedLine):
                    bad.append(item)
                else:
                    rows.append(_state_row(role, item))
            db.executemany("INSERT OR REPLACE INTO state VALUES (?,?,?,?,?,?,?)", rows)
            db.executemany("INSERT INTO malformed VALUES (?,?,?,?)", [(role, b.path, b.line, b.reason) for b in bad])
            head, tail = _probe(path, offset)
            db.execute(
                "INSERT OR REPLACE INTO sources VALUES (?,?,?,?,?,?,?)",
                (role, size, mtime, offset, lines, head, tail),
            )
            db.execute("COMMIT")
            return bad
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def states(self, ids: Iterable[str]) -> dict[str, EntryState]:
        """The archive's last word on each of these ids that it knows."""
        ids = list(dict.fromkeys(ids))
        out: dict[str, EntryState] = {}
        for chunk in _chunks(ids, 500):
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(f"SELECT * FROM state WHERE id IN ({marks})", chunk):
                out[row[0]] = EntryState(*row)
        return out

    def malformed(self, role: str | None = None) -> list[MalformedLine]:
        sql = "SELECT path, line, reason FROM malformed"
        args: tuple[str, ...] = ()
        if role is not None:
            sql, args = sql + " WHERE role=?", (role,)
        return [MalformedLine(*row) for row in self.db.execute(sql + " ORDER BY path, line", args)]


def _state_row(role: str, r: ArchiveRecord) -> tuple[object, ...]:
    return (r.id, role, r.op, r.section, r.date, r.text, r.count)


def _probe(path: Path, offset: int) -> tuple[bytes, bytes]:
    if offset <= 0:
        return b"", b""
    with open(path, "rb") as f:
        head = f.read(min(_PROBE, offset))
        f.seek(max(0, offset - _PROBE))
        tail = f.read(min(_PROBE, offset))
    return head, tail


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
