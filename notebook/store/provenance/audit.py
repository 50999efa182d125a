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
from dataclasses import dataclass
from typing import Any

from ..index import ADAPTERS, Index, refresh
from ..layout import Layout

#: What an item's last word makes it.
STATUS_OF = {
    "added": "archived",  # `active` when the notebook holds it
    "pruned": "archived",
    "recurred": "archived",
    "promoted": "promoted",
    "obsolete": "obsolete",
    "redacted": "redacted",
}
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
        }


@dataclass(frozen=True, slots=True)
class AuditFilters:
    """Which writes an audit lists (None: any)."""

    session: str | None = None
    roles: tuple[str, ...] = ()
    since: str | None = None
    until: str | None = None
    source: str | None = None  # a source (`cli`, `xmem`) or a kind (`import`, `unknown`)


def audit_writes(layout: Layout, filters: AuditFilters) -> list[Written]:
    """Every item the root's archives say was made, oldest write first, as the filters ask."""
    with Index(layout) as index:
        refresh(layout, index)
        return _rows(index, filters)


_SQL = (
    "SELECT o.id, o.role, o.op, o.source, o.by, o.session, o.at, d.op, d.section, d.date, d.text, "
    "a.id IS NOT NULL, o.flag FROM origins o JOIN docs d ON d.id = o.id "
    "LEFT JOIN active a ON a.role = o.role AND a.id = o.id WHERE 1"
)


def _rows(index: Index, f: AuditFilters) -> list[Written]:
    sql, args = _SQL, []
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
    out = []
    for rid, role, op, source, by, session, at, last, section, date, text, active, flag in index.db.execute(
        sql + " ORDER BY o.at, d.date, o.rowid", args
    ):
        if last == op and op != "added":  # a long-term item (stored, logged, shared) as it was kept
            status = "active"
        else:
            status = "active" if active and last == "added" else STATUS_OF.get(last, "archived")
        out.append(
            Written(rid, role, op, section or "", date or "", text or "", at, by, session, source, status, last, flag)
        )
    return out


def audit_summary(rows: list[Written]) -> str:
    """`12 written: 9 active, 2 archived, 1 obsolete`."""
    counts = {s: sum(1 for r in rows if r.status == s) for s in STATUSES}
    said = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    return f"{len(rows)} written" + (f": {said}" if said else "")


_ACTIVE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u2028\u2029\u061c]")


def _shown(text: str) -> str:
    # as search shows a hit (notebook/search/render.shown): nothing a terminal would act on
    return _ACTIVE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
