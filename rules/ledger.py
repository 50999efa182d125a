"""What the derived index knows of mistakes, their recurrence groups, the rules they
became and the promote review's decisions: the questions the rules layer asks of it.

The index (`rolebook.notebook.store.Index`) keeps these tables up to the archive; the
SQL that reads them for recurrence and promotion lives here, with the layer that asks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rolebook.notebook.store import Index

from .block import Rule


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
    repos: tuple[str, ...] = ()  # in a shared root: every repository that shared it (the same item)


def _mistake(row: Sequence[Any], group: str | None) -> Mistake:
    """A Mistake from (id, date, text, count, op, active, ..., data) columns."""
    data = row[-1]
    extra = json.loads(data) if data and ('"rule"' in data or '"origin"' in data) else {}
    rule, origin = extra.get("rule"), extra.get("origin")
    repo = origin.get("repo") if isinstance(origin, dict) else None
    many = origin.get("repos") if isinstance(origin, dict) else None
    repos = tuple(r for r in many if isinstance(r, str)) if isinstance(many, list) else ()
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
        repos or ((repo,) if isinstance(repo, str) else ()),
    )


def groups_of(index: Index, role: str, ids: Iterable[str]) -> dict[str, str]:
    """The recurrence group of each of these ids that has one."""
    ids = list(ids)
    marks = ",".join("?" * len(ids))
    return dict(index.db.execute(f"SELECT id, grp FROM groups WHERE role=? AND id IN ({marks})", (role, *ids)))


def group_members(index: Index, role: str, groups: Iterable[str]) -> list[tuple[str, Mistake]]:
    """(group, mistake) for every recorded member of these recurrence groups."""
    groups = list(groups)
    marks = ",".join("?" * len(groups))
    rows = index.db.execute(
        "SELECT g.grp, d.id, d.date, d.text, d.count, d.op, a.id IS NOT NULL, d.data FROM groups g "
        "JOIN docs d ON d.id = g.id LEFT JOIN active a ON a.role = d.role AND a.id = d.id "
        f"WHERE g.role = ? AND g.grp IN ({marks})",
        (role, *groups),
    ).fetchall()
    return [(r[0], _mistake(r[1:], r[0])) for r in rows]


def groups_due(index: Index, role: str, min_dates: int) -> list[str]:
    """Recurrence groups with members on at least `min_dates` distinct dates."""
    return [
        g
        for (g,) in index.db.execute(
            "SELECT g.grp FROM groups g JOIN docs d ON d.id = g.id WHERE g.role = ? AND d.section = 'mistakes' "
            "GROUP BY g.grp HAVING count(DISTINCT d.date) >= ?",
            (role, min_dates),
        )
    ]


def mistakes_with_ids(index: Index, role: str, ids: Iterable[str]) -> list[Mistake]:
    """These mistakes of the role, as the index knows them, with their recorded group if any."""
    ids = list(dict.fromkeys(ids))
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = index.db.execute(
        "SELECT d.id, d.date, d.text, d.count, d.op, a.id IS NOT NULL, g.grp, d.data FROM docs d "
        "LEFT JOIN active a ON a.role = d.role AND a.id = d.id "
        "LEFT JOIN groups g ON g.role = d.role AND g.id = d.id "
        f"WHERE d.role = ? AND d.section = 'mistakes' AND d.id IN ({marks})",
        (role, *ids),
    ).fetchall()
    return [_mistake(r, r[6]) for r in rows]


def mistake_texts(index: Index, role: str) -> list[tuple[str, str]]:
    """(id, text) of every mistake of a role, active or archived."""
    return index.db.execute("SELECT id, text FROM docs WHERE role = ? AND section = 'mistakes'", (role,)).fetchall()


def links(index: Index, role: str) -> list[tuple[str, str]]:
    """(mistake, earlier mistake) of every recurrence a writer confirmed (`update --same-as`),
    as the archive's `linked` records say (few: one per confirmation)."""
    rows = index.db.execute(  # by (role, op): the docs_role index
        "SELECT data FROM docs WHERE role = ? AND op = 'linked' AND section = 'review'", (role,)
    ).fetchall()
    out = []
    for (data,) in rows:
        record = json.loads(data) if data else {}
        entry, earlier = record.get("entry"), record.get("same_as")
        if isinstance(entry, str) and isinstance(earlier, str):
            out.append((entry, earlier))
    return sorted(out)


def rule_records(index: Index, role: str) -> list[dict[str, Any]]:
    """The archive's records of the role's promoted rules (few: one per rule)."""
    rows = index.db.execute(
        "SELECT data FROM docs WHERE role = ? AND section = 'rules' AND op = 'promoted'", (role,)
    ).fetchall()
    return [json.loads(data) for (data,) in rows if data]


def standing(records: Iterable[dict[str, Any]], lines: Iterable[Rule]) -> dict[str, str]:
    """archived rule id -> the id of its line in the rules block as the block stands now:
    its own line, else one line of the same role and incidents that no record names (the
    rule reworded by hand: its wording, and so its id, changed; what it came from did
    not). A rule with neither has no line: taken out by hand, or a promotion cut short.

    Everything that asks which rule a promotion made asks through this, so a block edited
    by hand is read back as it stands, never duplicated or revived."""
    lines = list(lines)
    records = [r for r in records if isinstance(r.get("id"), str)]
    present = {line.id for line in lines}
    out = {r["id"]: r["id"] for r in records if r["id"] in present}
    unclaimed = [line for line in lines if line.id not in out]
    for record in records:
        if record["id"] in out:
            continue
        incidents = tuple(d for d in record.get("incidents") or () if isinstance(d, str))
        role = record.get("role")
        match = next((x for x in unclaimed if x.incidents == incidents and (role is None or x.role == role)), None)
        if match is not None and incidents:
            out[record["id"]] = match.id
            unclaimed.remove(match)
    return out


def rule_aliases(index: Index, role: str, lines: Iterable[Rule]) -> dict[str, str]:
    """`standing` for the role's promotions the archive records (`rule_records`)."""
    return standing(rule_records(index, role), [line for line in lines if line.role == role])


def written_rules(index: Index, role: str) -> set[str]:
    """The ids of the role's rules whose line reached the rules file (`written` marks)."""
    rows = index.db.execute(  # by (role, op): the docs_role index
        "SELECT data FROM docs WHERE role = ? AND op = 'written' AND section = 'review'", (role,)
    ).fetchall()
    return {rule for (data,) in rows if data and isinstance(rule := json.loads(data).get("rule"), str)}


def review_records(index: Index, role: str) -> list[dict[str, Any]]:
    """The archive's records of the promote review's decisions for a role (`split`, `skipped`)."""
    rows = index.db.execute(  # by (role, op): the docs_role index, not a scan of the role's archive
        "SELECT data FROM docs WHERE role = ? AND op IN ('split', 'skipped') AND section = 'review'", (role,)
    ).fetchall()
    return [json.loads(data) for (data,) in rows if data]


def mistakes_of(index: Index, role: str) -> list[Mistake]:
    """Every mistake of a role the archive or notebook knows, with its group if any."""
    rows = index.db.execute(
        "SELECT d.id, d.date, d.text, d.count, d.op, a.id IS NOT NULL, g.grp, d.data FROM docs d "
        "LEFT JOIN active a ON a.role = d.role AND a.id = d.id "
        "LEFT JOIN groups g ON g.role = d.role AND g.id = d.id "
        "WHERE d.role = ? AND d.section = 'mistakes' ORDER BY d.date, d.id",
        (role,),
    ).fetchall()
    return [_mistake(r, r[6]) for r in rows]


def promotion_record(index: Index, rule_id: str) -> dict[str, Any] | None:
    """The archive record of a rule's promotion, if it has one."""
    row = index.db.execute("SELECT data FROM docs WHERE id = ? AND op = 'promoted'", (rule_id,)).fetchone()
    data = json.loads(row[0]) if row is not None and row[0] else None
    return data if isinstance(data, dict) else None


def active_mistakes(index: Index, role: str) -> list[tuple[str, str]]:
    """(id, text) of the mistakes in the role's notebook."""
    return index.db.execute(
        "SELECT d.id, d.text FROM active a JOIN docs d ON d.id = a.id WHERE a.role = ? AND d.section = 'mistakes'",
        (role,),
    ).fetchall()
