"""Grouping: which mistakes are one mistake, and which groups are due to become rules.

Groups are the recurrence chains `update` recorded, joined with any other mistakes the
similarity judges the same (hand-typed ones, imported ones), never joining what the
reviewer split. A group with incidents on at least `min_dates` distinct dates that no
rule covers yet is a candidate (DESIGN.md section 6).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError, NoMatch
from rolebook.notebook.store import Index, Layout, check_role, refresh

from . import ledger, similarity
from .block import Rule, load, rule_text
from .ledger import Mistake
from .similarity import Judge, keyword_same_mistake

_BLOCKING_LIMIT = 200  # a word in more mistakes than this says too little to pair them by


@dataclass(frozen=True, slots=True)
class Candidate:
    """A group of occurrences of one mistake, and the rule it would become."""

    id: str
    role: str
    count: int
    dates: tuple[str, ...]
    members: tuple[str, ...]
    active: tuple[str, ...]
    phrasing: str
    incidents: tuple[tuple[str, str], ...] = ()  # (date, text) of every occurrence, oldest first
    repos: tuple[str, ...] = ()  # in a shared root: the repository of each incident ("" unknown)

    def incident_lines(self) -> list[str]:
        """`[date] text`, one per incident, oldest first, with its repository if known."""
        repos = self.repos or ("",) * len(self.incidents)
        return [
            f"[{day}] {' '.join(said.split())}" + (f" (from {repo})" if repo else "")
            for (day, said), repo in zip(self.incidents, repos, strict=True)
        ]

    def rule(self, text: str | None = None) -> Rule:
        """The rule it would become: `text`, else the instruction in the latest wording."""
        return Rule(rule_text(text or instruction(self.phrasing)), self.role, self.dates)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "role": self.role,
            "count": self.count,
            "dates": list(self.dates),
            "members": list(self.members),
            "active": list(self.active),
            "phrasing": self.phrasing,
            "incidents": [
                {"date": d, "role": self.role, "text": t, **({"repo": r} if r else {})}
                for (d, t), r in zip(self.incidents, self.repos or ("",) * len(self.incidents), strict=True)
            ],
            "rule": self.rule().line(),
            "rule_id": self.rule().id,
        }


@dataclass(frozen=True, slots=True)
class Decisions:
    """What the reviewer said of a role's groups, as the archive keeps it: `apart`, sets of
    mistakes that are never grouped together again (`promote --split`); `skipped`, member
    sets not to be asked about again until a new incident joins them (`promote --skip`)."""

    apart: tuple[frozenset[str], ...] = ()
    skipped: tuple[frozenset[str], ...] = ()

    def is_skipped(self, members: tuple[str, ...]) -> bool:
        return any(set(members) <= s for s in self.skipped)


def decisions(index: Index, role: str) -> Decisions:
    """The split and skip decisions the role's archive records."""
    apart: list[frozenset[str]] = []
    skipped: list[frozenset[str]] = []
    for record in ledger.review_records(index, role):
        members = frozenset(m for m in record.get("members") or [] if isinstance(m, str))
        if len(members) < 2 and record.get("op") == "split":
            continue
        {"split": apart, "skipped": skipped}.get(str(record.get("op")), []).append(members)
    return Decisions(tuple(apart), tuple(skipped))


def groups(
    mistakes: list[Mistake], same: Judge = keyword_same_mistake, apart: tuple[frozenset[str], ...] = ()
) -> list[list[Mistake]]:
    """Mistakes joined by their recorded groups and by the similarity judgement, never
    joining two mistakes that one set of `apart` holds (a group the reviewer split)."""
    parent = list(range(len(mistakes)))
    # per group root: for each split set a member of it belongs to, that member's id
    marks: list[dict[int, str]] = [{k: m.id for k, ids in enumerate(apart) if m.id in ids} for m in mistakes]

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(i: int, j: int) -> None:
        ri, rj = find(i), find(j)
        if ri == rj or marks[ri].keys() & marks[rj].keys():
            return
        parent[ri] = rj
        marks[rj] |= marks[ri]

    first_of: dict[str, int] = {}
    postings: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(mistakes):
        if m.group:
            union(i, first_of.setdefault(m.group, i))
        for word in similarity.content_words(m.text):
            postings[word].append(i)
    for i, m in enumerate(mistakes):
        near = {
            j
            for w in similarity.content_words(m.text)
            if len(postings[w]) <= _BLOCKING_LIMIT
            for j in postings[w]
            if j > i
        }
        for j in sorted(near):
            if find(i) != find(j) and same(m.text, mistakes[j].text):
                union(i, j)
    out: dict[int, list[Mistake]] = defaultdict(list)
    for i, m in enumerate(mistakes):
        out[find(i)].append(m)
    return list(out.values())


def candidates(
    layout: Layout,
    rules_path: Path,
    role: str | None = None,
    min_dates: int = 3,
    same: Judge = keyword_same_mistake,
    skipped: bool = False,
    min_repos: int = 0,
) -> list[Candidate]:
    """Groups with incidents on at least `min_dates` distinct dates (and, in a shared
    root, from at least `min_repos` repositories), not yet a rule, and not skipped
    (unless `skipped`) since their last incident."""
    if not layout.memory.exists() and not layout.archive.exists():
        return []  # no memory here (outside any project): no index is made either
    rules_file, _ = load(rules_path)
    rules = rules_file.rules
    out = []
    with Index(layout) as index:
        refresh(layout, index)
        roles = [check_role(role)] if role else layout.roles()
        for r in roles:
            mine = [rule for rule in rules if rule.role == r]
            said = decisions(index, r)
            for group in groups(ledger.mistakes_of(index, r), same, said.apart):
                candidate = _candidate(r, group)
                if len(candidate.dates) < min_dates or covered_by_rule(group, mine, same):
                    continue
                if not skipped and said.is_skipped(candidate.members):
                    continue
                if min_repos and len({m.repo for m in group if m.repo}) < min_repos:
                    continue
                out.append(candidate)
    out.sort(key=lambda c: (-len(c.dates), -c.count, c.id))
    return out


def _candidate(role: str, group: list[Mistake]) -> Candidate:
    group = sorted(group, key=lambda m: (m.date, m.id))
    latest = max(group, key=lambda m: (m.date, m.count, m.id))
    gid = "g" + hashlib.sha256(f"{role}\x1f{group[0].id}".encode()).hexdigest()[:8]
    return Candidate(
        gid,
        role,
        max(len(group), max(m.count for m in group)),
        tuple(sorted({m.date for m in group})),
        tuple(m.id for m in group),
        tuple(m.id for m in group if m.active),
        latest.text,
        tuple((m.date, m.text) for m in group),
        tuple(m.repo or "" for m in group) if any(m.repo for m in group) else (),
    )


def never_same(a: str, b: str) -> bool:
    return False


def instruction(mistake: str) -> str:
    """What a rule should say: the "what to do instead" part of a mistake written "what
    went wrong; what to do instead" (as the protocol asks), else the whole text."""
    _, sep, instead = mistake.partition(";")
    instead = instead.strip()
    return instead if sep and len(instead.split()) >= 2 else mistake


def covered_by_rule(group: list[Mistake], rules: list[Rule], same: Judge) -> bool:
    ids = {r.id for r in rules}
    return any(m.rule in ids for m in group) or any(same(rule.text, m.text) for rule in rules for m in group)


def find_candidate(found: list[Candidate], key: str) -> Candidate:
    """The candidate whose id starts with `key`. Raises NoMatch or InputError (ambiguous)."""
    key = key.strip().lstrip("#")
    hits = [c for c in found if c.id.startswith(key)] if len(key) >= 3 else []
    if not hits:
        raise NoMatch(f"no promotion candidate {key!r}: `rolebook promote --json` lists them")
    if len(hits) > 1:
        raise InputError(f"{key!r} matches {len(hits)} candidates; give more of the id")
    return hits[0]
