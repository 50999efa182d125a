"""Provenance in the index: each item's first making record (who, in which session,
through what, citing what code) and the redactions the archives record. What `audit`,
`obsolete --session`, promotion's confirmation and the drift checks ask."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..archive import ArchiveRecord
from ..provenance.marks import Marks, scrub_text

if TYPE_CHECKING:
    import sqlite3


class Index(Protocol):
    """The index these queries read (`database.Index`; named here so neither imports the other)."""

    @property
    def db(self) -> sqlite3.Connection: ...


#: The sources rolebook's own adapters write; any other named source is an import's format.
ADAPTERS = {
    "cli": "a rolebook command",
    "mcp": "the MCP server",
    "memory-tool": "the API memory tool",
    "hook": "an agent CLI hook",
    "share": "a shared root",
    "hand-edit": "typed into the notebook by hand",
}

#: The ops that make an item (its first such record says who made it, and through what).
MAKING_OPS = frozenset({"added", "stored", "logged", "shared"})
_ORIGIN = "role, id, op, source, by, session, at, cite, flag"


@dataclass(frozen=True, slots=True)
class Origin:
    """Who made an item and through what: its first making record's provenance."""

    role: str
    id: str
    op: str
    source: str | None
    by: str | None
    session: str | None
    at: str
    cite: list[dict[str, Any]] | None = None
    flag: str | None = None

    @property
    def foreign(self) -> str | None:
        """Where it came from when not written in this root by one of its own writers: an
        import (its format) or another root; None for this root's own."""
        if self.op == "shared" or self.source == "share":
            return "another root"
        if self.source is not None and self.source not in ADAPTERS:
            return f"an import ({self.source})"
        return None

    @classmethod
    def of(cls, row: tuple[Any, ...]) -> Origin:
        cite = json.loads(row[7]) if row[7] else None
        return cls(row[0], row[1], row[2], row[3], row[4], row[5], row[6] or "", cite, row[8])


def origin_row(role: str, r: ArchiveRecord) -> tuple[object, ...]:
    """The `origins` row of a making record: its source as written, `hand-edit` for an
    entry typed into the notebook (journalled when rolebook first met it), `share` for a
    shared copy written before copies said so."""
    source = r.extra.get("source")
    source = source if isinstance(source, str) else None
    if r.extra.get("origin") == "notebook":
        source = "hand-edit"
    elif r.op == "shared" and source is None:
        source = "share"
    cite = r.extra.get("cite")
    flag = r.extra.get("flag")
    return (
        role,
        r.id,
        r.op,
        source,
        r.by if isinstance(r.by, str) else None,
        r.session if isinstance(r.session, str) else None,
        r.at,
        json.dumps(cite) if isinstance(cite, list) and cite else None,
        flag if isinstance(flag, str) else None,
    )


def origins(index: Index, ids: Iterable[str]) -> dict[str, Origin]:
    """Who made each of these ids, and through what."""
    wanted = list(dict.fromkeys(ids))
    out: dict[str, Origin] = {}
    for i in range(0, len(wanted), 500):
        chunk = wanted[i : i + 500]
        marks = ",".join("?" * len(chunk))
        for row in index.db.execute(f"SELECT {_ORIGIN} FROM origins WHERE id IN ({marks})", chunk):
            out[row[1]] = Origin.of(row)
    return out


def made_in_session(index: Index, role: str, session: str) -> list[Origin]:
    """What one session made in a role, oldest first."""
    rows = index.db.execute(
        f"SELECT {_ORIGIN} FROM origins WHERE session = ? AND role = ? ORDER BY at, rowid", (session, role)
    )
    return [Origin.of(row) for row in rows]


def cited(index: Index, role: str) -> list[dict[str, Any]]:
    """The role's items that cite code and still stand (active entries, kept long-term
    items): id, section, date and each citation, what a read checks the code against."""
    rows = index.db.execute(
        "SELECT o.id, d.section, d.date, o.cite FROM origins o JOIN docs d ON d.id = o.id "
        "LEFT JOIN active a ON a.role = o.role AND a.id = o.id WHERE o.role = ? AND o.cite IS NOT NULL "
        "AND ((d.op = 'added' AND a.id IS NOT NULL) OR (d.op = o.op AND d.op != 'added')) ORDER BY o.rowid",
        (role,),
    )
    return [
        {"id": rid, "section": section, "date": date, "cite": cite}
        for rid, section, date, cites in rows
        for cite in json.loads(cites)
        if isinstance(cite, dict)
    ]


def redactions(index: Index, role: str | None = None) -> Marks:
    """The redactions the archives (of one role, or every one) record."""
    marks = Marks.empty()
    sql = "SELECT data FROM redactions"
    args: tuple[str, ...] = ()
    if role is not None:
        sql, args = sql + " WHERE role=?", (role,)
    for (data,) in index.db.execute(sql, args):
        with contextlib.suppress(ValueError):
            marks.add(json.loads(data))
    return marks


def take_redaction(index: Index, role: str, record: ArchiveRecord, raw: bytes, marks: Marks) -> None:
    """Take a redaction record in as the index syncs: remembered, and applied to what the
    index holds of the ids it names."""
    line = raw.decode("utf-8").rstrip("\r\n")
    index.db.execute("INSERT INTO redactions VALUES (?,?,?)", (role, record.id, line))
    marks.add(record.to_dict())
    named = record.extra.get("ids")
    for i in {record.id, *(x for x in named if isinstance(x, str))} if isinstance(named, list) else {record.id}:
        if i not in marks.by_id:
            continue
        row = index.db.execute("SELECT text, search, data FROM docs WHERE id=?", (i,)).fetchone()
        if row is None:
            continue
        text, search, data = (scrub_text(v, marks.by_id[i]) if isinstance(v, str) else v for v in row)
        if (text, search, data) != tuple(row):
            index.db.execute("UPDATE docs SET text=?, search=?, data=? WHERE id=?", (text, search, data, i))
