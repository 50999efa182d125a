"""Grouping: which mistakes are one mistake, and which groups are due to become rules.

One definition serves the counts `(xN)`, the alerts `read` shows and `promote`: the
groups `update` recorded (a mistake written again, `similarity.same_text`, which holds
for mistakes it never judged too: typed by hand, shared), joined by the recurrences
writers confirmed (`update --same-as`, journalled as `linked`), never joining
what the reviewer split. Nothing is joined at review time by a judgement of its own. A
group with incidents on at least `min_dates` distinct dates that no rule covers yet is a
candidate (DESIGN.md section 6).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError, NoMatch
from rolebook.notebook.store import Index, Layout, check_role, origins, refresh, waiting

from . import ledger
from .block import Rule, load, rule_text
from .ledger import Mistake
from .similarity import Judge, fingerprint, keyword_same_mistake


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
    # where incidents came from when not this root's own writers (an import, another root):
    # such a candidate is promoted only by its own confirmation, never by `--yes` alone
    foreign: tuple[str, ...] = ()

    def incident_lines(self) -> list[str]:
        """`[date] text`, one per incident, oldest first, with its repository if known."""
        repos = self.repos or ("",) * len(self.incidents)
        return [
            f"[{day}] {' '.join(said.split())}" + (f" (from {repo})" if repo else "")
            for (day, said), repo in zip(self.incidents, repos, strict=True)
        ]

    def review_line(self, surface: str = "cli") -> str:
        """The candidate as the promote review shows it, in the CLI and over MCP alike: the rule
        it proposes (or that none can be), its next step named for the surface (a command's
        flag for "cli", a tool and its parameters for "mcp")."""
        if self.instruction:
            proposed = self.rule().line()
        else:
            write = "write one" if surface == "cli" else "call promote_apply with id and text"
            proposed = f"(no rule proposed: {NO_INSTRUCTION}; {write})"
        came = ""
        if self.foreign:
            only = "--apply" if surface == "cli" else "promote_apply"
            came = f" (incidents from {', '.join(self.foreign)}: only {only} promotes it)"
        return f"{self.id} {self.role}: {self.count} incidents on {len(self.dates)} dates -> {proposed}{came}"

    @property
    def instruction(self) -> str | None:
        """What to do instead, in the latest wording that says it; None when no incident does."""
        return next((i for _, said in reversed(self.incidents) if (i := instruction(said))), None)

    def rule(self, text: str | None = None) -> Rule:
        """The rule it would become: `text`, else the instruction its incidents carry.

        Raises:
            InputError: no text given and no incident says what to do instead (an incident
                report is not a rule).
        """
        said = text if text is not None else self.instruction
        if said is None:
            raise InputError(f"{self.id}: {NO_INSTRUCTION}; give the rule's text")
        return Rule(rule_text(said), self.role, self.dates)

    def to_dict(self) -> dict[str, Any]:
        rule = self.rule() if self.instruction else None
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
            "rule": rule.line() if rule else None,
            "rule_id": rule.id if rule else None,
            **({} if rule else {"needs_text": NO_INSTRUCTION}),
            "foreign": list(self.foreign),
        }


#: Why a group gets no proposed rule: its incidents say what went wrong, not what to do.
NO_INSTRUCTION = 'no incident says what to do instead ("what went wrong; what to do instead")'


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
    mistakes: Sequence[Mistake], links: Iterable[tuple[str, str]] = (), apart: tuple[frozenset[str], ...] = ()
) -> list[list[Mistake]]:
    """Mistakes joined by their recorded groups, by being one text written twice
    (`similarity.fingerprint`: what `update` merges on its own), and by the recurrences
    writers confirmed (`links`), never joining two mistakes that one set of `apart` holds
    (a group the reviewer split). Mistakes come oldest first, so the result does not depend on the order
    the index returns them in."""
    mistakes = sorted(mistakes, key=lambda m: (m.date, m.id))
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
    written: dict[str, int] = {}
    at = {m.id: i for i, m in enumerate(mistakes)}
    for i, m in enumerate(mistakes):
        union(i, first_of.setdefault(m.group or m.id, i))
        # one mistake written twice is one mistake, recorded or not (typed by hand, shared)
        if fp := fingerprint(m.text):
            union(i, written.setdefault(fp, i))
    for a, b in sorted(links):
        if a in at and b in at:
            union(at[a], at[b])
    out: dict[int, list[Mistake]] = defaultdict(list)
    for i, m in enumerate(mistakes):
        out[find(i)].append(m)
    return list(out.values())


def role_groups(index: Index, role: str) -> list[list[Mistake]]:
    """Every group of the role's mistakes (`groups`), as the archive records them."""
    return groups(ledger.mistakes_of(index, role), ledger.links(index, role), decisions(index, role).apart)


def groups_holding(
    index: Index,
    role: str,
    ids: Iterable[str],
    pending: Sequence[Mistake] = (),
    new_links: Sequence[tuple[str, str]] = (),
) -> list[list[Mistake]]:
    """The groups (`groups`) that hold these mistakes, reading only what they reach through
    recorded groups and links: a write costs the same whatever the archive holds.
    `pending` and `new_links`: the mistakes and links of the write under way, not in the
    index yet."""
    wanted = set(ids)
    links = [*ledger.links(index, role), *new_links]
    linked: dict[str, set[str]] = defaultdict(set)
    for a, b in links:
        linked[a].add(b)
        linked[b].add(a)
    known: dict[str, Mistake] = {}
    named: set[str] = set()  # the recorded groups read so far
    asked: set[str] = set()
    todo = set(wanted)
    while todo:
        asked |= todo
        found = ledger.mistakes_with_ids(index, role, todo) + [m for m in pending if m.id in todo]
        known.update((m.id, m) for m in found)
        fresh = {m.group or m.id for m in found} - named
        named |= fresh
        if fresh:
            members = [m for _, m in ledger.group_members(index, role, fresh)]
            known.update((m.id, m) for m in members + [m for m in pending if m.group in fresh] if m.id not in known)
        # a group is named after its first mistake: it may have no row of its own (typed by hand)
        reached = {other for i in known for other in linked.get(i, ())} | named
        todo = reached - asked - known.keys()
    parts = groups(list(known.values()), links, decisions(index, role).apart)
    return [p for p in parts if any(m.id in wanted for m in p)]


def occurrences(group: Sequence[Mistake]) -> int:
    """How many times a group's mistake happened: its members, or a count written on one
    (an imported `(x3)`), whichever is more."""
    return max(len(group), max((m.count for m in group), default=0))


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
            aliases = ledger.rule_aliases(index, r, mine)
            said = decisions(index, r)
            held = waiting(layout, r)  # an entry that reads like an order: a rule only when a person says so
            for group in groups(ledger.mistakes_of(index, r), ledger.links(index, r), said.apart):
                candidate = _candidate(r, group)
                if len(candidate.dates) < min_dates or covered_by_rule(group, mine, same, aliases):
                    continue
                if not skipped and said.is_skipped(candidate.members):
                    continue
                if min_repos and len({r for m in group for r in m.repos}) < min_repos:
                    continue
                made = origins(index, candidate.members).values()
                # a shared root's review is of copies from other roots: only imports stand out there
                came = {o.foreign for o in made if o.foreign and not (min_repos and o.foreign == "another root")}
                if any(m in held for m in candidate.members):
                    came.add("an entry that reads like an order, not confirmed")
                out.append(replace(candidate, foreign=tuple(sorted(x for x in came if x))))
    out.sort(key=lambda c: (-len(c.dates), -c.count, c.id))
    return out


def _candidate(role: str, group: list[Mistake]) -> Candidate:
    group = sorted(group, key=lambda m: (m.date, m.id))
    latest = max(group, key=lambda m: (m.date, m.count, m.id))
    gid = "g" + hashlib.sha256(f"{role}\x1f{group[0].id}".encode()).hexdigest()[:8]
    return Candidate(
        gid,
        role,
        occurrences(group),
        tuple(sorted({m.date for m in group})),
        tuple(m.id for m in group),
        tuple(m.id for m in group if m.active),
        latest.text,
        tuple((m.date, m.text) for m in group),
        tuple(m.repo or "" for m in group) if any(m.repo for m in group) else (),
    )


def instruction(mistake: str) -> str | None:
    """What a rule should say: the "what to do instead" part of a mistake written "what
    went wrong; what to do instead" (as the protocol asks), standing alone (rules/wording.py);
    None when it has none: an incident report is not a rule."""
    from .wording import rule_from

    return rule_from(mistake)


def covered_by_rule(
    group: list[Mistake], rules: list[Rule], same: Judge, aliases: dict[str, str] | None = None
) -> bool:
    """Whether a rule covers the group: one its promotion made (through `aliases`,
    `ledger.standing`: a rule reworded by hand still covers what it came from), or one
    the judgement finds the same as a member."""
    ids = {r.id for r in rules}
    made = {(aliases or {}).get(m.rule, m.rule) for m in group if m.rule}
    return bool(made & ids) or any(same(rule.text, m.text) for rule in rules for m in group)


def find_candidate(found: list[Candidate], key: str) -> Candidate:
    """The candidate whose id starts with `key`. Raises NoMatch or InputError (ambiguous)."""
    key = key.strip().lstrip("#")
    hits = [c for c in found if c.id.startswith(key)] if len(key) >= 3 else []
    if not hits:
        raise NoMatch(f"no promotion candidate {key!r}: `rolebook promote --json` lists them")
    if len(hits) > 1:
        raise InputError(f"{key!r} matches {len(hits)} candidates; give more of the id")
    return hits[0]
