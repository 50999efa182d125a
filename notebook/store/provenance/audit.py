"""`rolebook audit`: what was written, by whom, through what, when, and what became of it.

Every item's first making record (added, stored, logged, shared) carries its provenance:
the role that wrote it (`by`), the session, the source (a command: `cli`; the MCP server:
`mcp`; the API memory tool: `memory-tool`; a hook; an import: its format; a shared root:
`share`) and the time. The index keeps that first record per id (`origins`) beside each
id's last word, so an audit is one query, flat in archive size but for the rows it lists.
A record from before provenance had a source shows as `unknown`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..index import ADAPTERS, Index, refresh
from ..layout import Layout

STATUSES = ("active", "archived", "promoted", "obsolete", "redacted")


def kind(source: str | None) -> str:
    """What kind of writer a source names: an adapter's own name, `import`, or `unknown`."""
    if source is None:
        return "unknown"
    return source if source in ADAPTERS else "import"


@dataclass(frozen=True, slots=True)
class Written:
    """One item as written, and what became of it."""

    id: str
    role: str
    op: str  # how it was made: added, stored, logged, shared
    section: str
    date: str
    text: str
    at: str
    by: str | None
    session: str | None
    source: str | None
    status: str
    last: str  # the archive's last word on it
    flag: str | None = None  # "order": it read like an order to the agent when written
    waits: bool = False  # flagged, and not confirmed since: not shown unasked, not promoted

    @property
    def kind(self) -> str:
        return kind(self.source)

    def line(self) -> str:
        """`2026-03-02T09:12:00Z coder/learnings #id by coder, session s1, via cli: text [active]`."""
        who = ", ".join(
            [f"by {self.by or 'unscoped'}"]
            + ([f"session {self.session}"] if self.session else [])
            + [f"via {self.source or 'unknown'}"]
        )
        text = _shown(" ".join(self.text.split())) if self.text else "(no text)"
        if len(text) > 120:
            text = text[:117] + "..."
        flagged = " [flagged: reads like an order]" if self.flag else ""
        if self.waits:
            flagged = f" [reads like an order: waits for confirmation, `rolebook confirm #{self.id}`]"
        return f"{self.at or self.date} {self.role}/{self.section} #{self.id} {who}: {text} [{self.status}]{flagged}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "role": self.role,
            "op": self.op,
            "section": self.section,
            "date": self.date,
            "text": self.text,
            "at": self.at,
            "by": self.by,
            "session": self.session,
            "source": self.source or "unknown",
            "kind": self.kind,
            "status": self.status,
            "last": self.last,
            "flag": self.flag,
            "waits_for_confirmation": self.waits,
        }


@dataclass(frozen=True, slots=True)
class AuditFilters:
    """Which writes an audit lists (None: any)."""

    session: str | None = None
    roles: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None
    source: str | None = None  # a source (`cli`, `xmem`) or a kind (`import`, `unknown`)


@dataclass(frozen=True, slots=True)
class Audit:
    """What an audit found: the writes it lists (oldest first; the newest `n` of them when
    asked so), and how many writes there are in all, by status."""

    rows: list[Written]
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> str:
        """`12 written: 9 active, 2 archived, 1 obsolete`."""
        said = ", ".join(f"{self.counts[s]} {s}" for s in STATUSES if self.counts.get(s))
        return f"{self.total} written" + (f": {said}" if said else "")


def audit_writes(layout: Layout, filters: AuditFilters, newest: int | None = None) -> Audit:
    """The items the root's archives say were made, as the filters ask: all of them, or the
    `newest` n (the counts are of all). One query each, in SQL, flat in archive size but
    for the rows listed."""
    with Index(layout) as index:
        refresh(layout, index)
        where, args = _where(filters)
        counts = dict(index.db.execute(f"SELECT {_STATUS}, count(*) {_FROM} {where} GROUP BY 1", args).fetchall())
        order = " ORDER BY o.at DESC, o.rowid DESC" + (" LIMIT ?" if newest is not None else "")
        found = index.db.execute(
            f"SELECT {_COLUMNS} {_FROM} {where}{order}", [*args, newest] if newest is not None else args
        )
        rows = [
            Written(rid, role, op, section or "", date or "", text or "", at, by, session, source, status, last, flag)
            for rid, role, op, source, by, session, at, last, section, date, text, status, flag in found
        ]
    rows.reverse()
    from .orders import waiting

    held = {role: waiting(layout, role) for role in {r.role for r in rows if r.flag}}
    rows = [replace(r, waits=True) if r.flag and r.id in held[r.role] else r for r in rows]
    return Audit(rows, counts)


#: What an item's last word makes it: a long-term item (stored, logged, shared) is active
#: while its last record is the one that made it; an entry while the notebook holds it.
_STATUS = (
    "CASE WHEN d.op = o.op AND o.op != 'added' THEN 'active' "
    "WHEN d.op = 'added' AND a.id IS NOT NULL THEN 'active' "
    "WHEN d.op IN ('promoted', 'obsolete', 'redacted') THEN d.op ELSE 'archived' END"
)
_COLUMNS = (
    "o.id, o.role, o.op, o.source, o.by, o.session, o.at, d.op, d.section, d.date, d.text, " + _STATUS + ", o.flag"
)
_FROM = "FROM origins o JOIN docs d ON d.id = o.id LEFT JOIN active a ON a.role = o.role AND a.id = o.id"


def _where(f: AuditFilters) -> tuple[str, list[object]]:
    sql, args = "WHERE 1", list[object]()
    if f.session is not None:
        sql += " AND o.session = ?"
        args.append(f.session)
    if f.roles:
        sql += f" AND o.role IN ({','.join('?' * len(f.roles))})"
        args += f.roles
    day = "substr(CASE WHEN o.at != '' THEN o.at ELSE d.date END, 1, 10)"
    if f.since:
        sql += f" AND {day} >= ?"
        args.append(f.since)
    if f.until:
        sql += f" AND {day} <= ?"
        args.append(f.until)
    if f.source is not None and f.source not in ("import", "unknown"):
        sql += " AND o.source = ?"
        args.append(f.source)
    elif f.source == "unknown":
        sql += " AND o.source IS NULL"
    elif f.source == "import":
        sql += f" AND o.source IS NOT NULL AND o.source NOT IN ({','.join('?' * len(ADAPTERS))})"
        args += list(ADAPTERS)
    return sql, args


_ACTIVE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u2028\u2029\u061c]")


def _shown(text: str) -> str:
    # as search shows a hit (notebook/search/render.shown): nothing a terminal would act on
    return _ACTIVE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
