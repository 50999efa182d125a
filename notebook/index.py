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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from . import progress
from .archive import ArchiveRecord, MalformedLine, read_lines
from .errors import StorageError
from .index_sql import SCHEMA, SCHEMA_VERSION, TOKENIZER, UPSERT
from .layout import Layout
from .lookups import Lookups
from .model import Entry
from .vocabulary import identifier_words

__all__ = ["SCHEMA_VERSION", "TOKENIZER", "EntryState", "Index", "Mistake"]
_PROBE = 256  # bytes compared at the start and just before the offset


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


@dataclass(frozen=True, slots=True)
class Mistake:
    """A mistake as the index knows it: where it stands and which group it recurs in."""

    id: str
    date: str
    text: str
    count: int
    op: str
    active: bool
    group: str | None
    rule: str | None = None
    repo: str | None = None  # in a shared root: the repository it was shared from


def _mistake(row: Sequence[Any], group: str | None) -> Mistake:
    """A Mistake from (id, date, text, count, op, active, ..., data) columns."""
    data = row[-1]
    extra = json.loads(data) if data and ('"rule"' in data or '"origin"' in data) else {}
    rule, origin = extra.get("rule"), extra.get("origin")
    repo = origin.get("repo") if isinstance(origin, dict) else None
    return Mistake(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        bool(row[5]),
        group,
        rule if isinstance(rule, str) else None,
        repo if isinstance(repo, str) else None,
    )


class Index(Lookups):
    """The derived SQLite file of one root. Use as a context manager."""

    def __init__(self, layout: Layout):
        self.layout = layout
        self.path = layout.index_path
        self.db = self._open()

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

    @staticmethod
    def remove(path: Path) -> None:
        """Delete an index file with its WAL; a corrupt one is thrown away and rebuilt."""
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(str(path) + suffix).unlink()

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
                db.execute("DELETE FROM docs WHERE role=? AND journalled=1", (role,))
                db.execute("DELETE FROM outcomes WHERE role=?", (role,))
                db.execute("DELETE FROM groups WHERE role=?", (role,))
                db.execute("DELETE FROM malformed WHERE role=?", (role,))
            if size - offset > progress.BIG_ARCHIVE_BYTES:
                progress.notice(f"indexing {(size - offset) / 1e6:.0f} MB of {path.name} (once; later reads are quick)")
            bad: list[MalformedLine] = []
            rows: list[tuple[object, ...]] = []
            outcomes: dict[str, list[int]] = {}
            groups: list[tuple[str, str, str]] = []
            for end, lineno, raw, item in read_lines(path, offset, lines + 1):
                offset, lines = end, lineno
                if isinstance(item, MalformedLine):
                    bad.append(item)
                else:
                    rows.append(_doc_row(role, item, raw, outcomes))
                    if isinstance(item.extra.get("group"), str):
                        groups.append((role, item.id, item.extra["group"]))
                if len(rows) >= 5000:
                    db.executemany(UPSERT, rows)
                    rows.clear()
            db.executemany(UPSERT, rows)
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
            db.execute("ROLLBACK")
            raise

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
                eid, search = e.id(role), _search_text(e.section, text=e.text)
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

    def groups_of(self, role: str, ids: Iterable[str]) -> dict[str, str]:
        """The recurrence group of each of these ids that has one."""
        ids = list(ids)
        marks = ",".join("?" * len(ids))
        return dict(self.db.execute(f"SELECT id, grp FROM groups WHERE role=? AND id IN ({marks})", (role, *ids)))

    def group_members(self, role: str, groups: Iterable[str]) -> list[tuple[str, Mistake]]:
        """(group, mistake) for every recorded member of these recurrence groups."""
        groups = list(groups)
        marks = ",".join("?" * len(groups))
        rows = self.db.execute(
            "SELECT g.grp, d.id, d.date, d.text, d.count, d.op, a.id IS NOT NULL, d.data FROM groups g "
            "JOIN docs d ON d.id = g.id LEFT JOIN active a ON a.role = d.role AND a.id = d.id "
            f"WHERE g.role = ? AND g.grp IN ({marks})",
            (role, *groups),
        ).fetchall()
        return [(r[0], _mistake(r[1:], r[0])) for r in rows]

    def groups_due(self, role: str, min_dates: int) -> list[str]:
        """Recurrence groups with members on at least `min_dates` distinct dates."""
        return [
            g
            for (g,) in self.db.execute(
                "SELECT g.grp FROM groups g JOIN docs d ON d.id = g.id WHERE g.role = ? AND d.section = 'mistakes' "
                "GROUP BY g.grp HAVING count(DISTINCT d.date) >= ?",
                (role, min_dates),
            )
        ]

    def rule_records(self, role: str) -> list[dict[str, Any]]:
        """The archive's records of the role's promoted rules (few: one per rule)."""
        rows = self.db.execute(
            "SELECT data FROM docs WHERE role = ? AND section = 'rules' AND op = 'promoted'", (role,)
        ).fetchall()
        return [json.loads(data) for (data,) in rows if data]

    def review_records(self, role: str) -> list[dict[str, Any]]:
        """The archive's records of the promote review's decisions for a role (`split`, `skipped`)."""
        rows = self.db.execute(  # by (role, op): the docs_role index, not a scan of the role's archive
            "SELECT data FROM docs WHERE role = ? AND op IN ('split', 'skipped') AND section = 'review'", (role,)
        ).fetchall()
        return [json.loads(data) for (data,) in rows if data]

    def mistakes(self, role: str) -> list[Mistake]:
        """Every mistake of a role the archive or notebook knows, with its group if any."""
        rows = self.db.execute(
            "SELECT d.id, d.date, d.text, d.count, d.op, a.id IS NOT NULL, g.grp, d.data FROM docs d "
            "LEFT JOIN active a ON a.role = d.role AND a.id = d.id "
            "LEFT JOIN groups g ON g.role = d.role AND g.id = d.id "
            "WHERE d.role = ? AND d.section = 'mistakes' ORDER BY d.date, d.id",
            (role,),
        ).fetchall()
        return [_mistake(r, r[6]) for r in rows]

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
            for table in ("docs", "active", "outcomes", "malformed", "sources", "notebooks"):
                self.db.execute(f"DELETE FROM {table} WHERE role=?", (role,))

    def archive_signature(self, role: str) -> tuple[int, int] | None:
        """(size, mtime) of the role's archive when the index last read it."""
        row = self.db.execute("SELECT size, mtime_ns FROM sources WHERE role=?", (role,)).fetchone()
        return (int(row[0]), int(row[1])) if row is not None else None


def _search_text(*parts: object, text: str | None) -> str:
    """What a document is found by besides its text: its section, tags and context, and
    the parts of the identifiers in its text (`identifier_words`)."""
    return " ".join(str(v) for v in (*parts, identifier_words(text or "")) if v)


def _doc_row(role: str, r: ArchiveRecord, raw: bytes, outcomes: dict[str, list[int]]) -> tuple[object, ...]:
    ctx_hash = r.extra.get("ctx_hash")
    ctx_hash = ctx_hash if isinstance(ctx_hash, str) else None
    parts = (
        r.section,
        " ".join(r.tags),
        r.extra.get("context"),
        r.extra.get("command"),
        (ctx_hash or "").replace("-", " "),
    )
    search = _search_text(*parts, text=r.text)
    outcome = r.extra.get("outcome")
    if r.op == "logged" and ctx_hash and isinstance(outcome, str):
        k, _, n = outcome.partition("/")
        if k.isdigit() and n.isdigit():
            total = outcomes.setdefault(ctx_hash, [0, 0])
            total[0] += int(k)
            total[1] += int(n)
    return (
        r.id,
        role,
        r.op,
        r.section,
        r.date,
        r.text,
        r.count,
        " ".join(r.tags),
        ctx_hash,
        1,
        search,
        raw.decode("utf-8").rstrip("\r\n"),
    )


T = TypeVar("T")


def rebuilt_on_failure(layout: Layout, work: Callable[[], T], attempts: int = 5) -> T:
    """`work`, done again on a fresh index if the index failed under it.

    The derived folder may be deleted at any moment (`git clean -fdX`), even while
    another process has the index open, and what is left can be half a database. Safe
    for writers: an index error can only come before their archive append (after it,
    they leave the index to the next reader), so doing the work again writes once.
    """
    for attempt in range(attempts):
        try:
            return work()
        except sqlite3.DatabaseError as exc:
            if attempt == attempts - 1:
                raise
            if not isinstance(exc, sqlite3.OperationalError) or "no such table" in str(exc):
                Index.remove(layout.index_path)  # a corrupt or half-made file: start over
    raise AssertionError("unreachable")


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
    with open(path, "rb") as f:
        head = f.read(min(_PROBE, offset))
        f.seek(max(0, offset - _PROBE))
        tail = f.read(min(_PROBE, offset))
    return head, tail


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
