"""Promotion: mistakes that keep coming back become rules (DESIGN.md section 6).

Groups are the recurrence chains `update` recorded, joined with any other mistakes the
similarity judges the same (hand-typed ones, imported ones). A group with incidents on
at least `min_dates` distinct dates that no rule covers yet is a candidate. Applying it
writes one line into the rules block, then moves the group's active entries to the
archive as `promoted`; both steps are idempotent, so a run cut short is finished by the
next.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError, Limits, NoMatch, Notebook, StorageError
from rolebook.notebook.markdown import entry_positions, remove_parts
from rolebook.notebook.store import (
    ArchiveRecord,
    Change,
    Index,
    Layout,
    Recorder,
    Writer,
    WriteResult,
    append,
    atomic_write,
    check_role,
    check_scope,
    extra_state,
    next_step,
    refresh,
    role_lock,
    store_extra_alerts,
    transact,
)

from . import ledger, similarity
from .block import Rule, add_rule, load, remove_rule, render, rule_text
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
                if len(candidate.dates) < min_dates or _covered(group, mine, same):
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


def _never_same(a: str, b: str) -> bool:
    return False


def instruction(mistake: str) -> str:
    """What a rule should say: the "what to do instead" part of a mistake written "what
    went wrong; what to do instead" (as the protocol asks), else the whole text."""
    _, sep, instead = mistake.partition(";")
    instead = instead.strip()
    return instead if sep and len(instead.split()) >= 2 else mistake


def _covered(group: list[Mistake], rules: list[Rule], same: Judge) -> bool:
    ids = {r.id for r in rules}
    return any(m.rule in ids for m in group) or any(same(rule.text, m.text) for rule in rules for m in group)


def promote_entries(
    layout: Layout,
    role: str,
    members: set[str],
    rule_id: str,
    rule_text: str,
    incidents: tuple[str, ...],
    limits: Limits,
    writer: Writer,
) -> WriteResult:
    """Move a promoted group's active entries out of the notebook, archived as `promoted`
    with the rule's id, and journal the rule itself (once)."""

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        leaving = [(si, pi, e) for si, pi, e in entry_positions(nb) if e.id(role) in members]
        change = Change(remove_parts(nb, {(si, pi) for si, pi, _ in leaving}))
        for _, _, e in leaving:
            change.records.append(record("promoted", e, rule=rule_id))
            change.left.append(("promoted", e))
        known = index.states([rule_id]).get(rule_id)
        if known is None or known.op != "promoted":
            today = dt.date.today().isoformat()
            change.records.append(
                record.record(
                    "promoted",
                    rule_id,
                    "rules",
                    today,
                    rule_text,
                    rule=rule_id,
                    incidents=list(incidents),
                    entries=sorted(members),
                )
            )
        return change

    return transact(layout, role, limits, writer, plan)


def decide(layout: Layout, candidate: Candidate, op: str, writer: Writer) -> bool:
    """Journal the reviewer's word on a candidate: `split` (its members are not one mistake
    and are never grouped together again) or `skipped` (not asked again until a new
    incident joins it). Kept in the archive, so it survives a rebuild of the index.
    Returns False when the archive already said so."""
    assert op in ("split", "skipped")
    check_scope(candidate.role, writer)
    members = sorted(candidate.members)
    rid = op[:2] + hashlib.sha256("\x1f".join([candidate.role, op, *members]).encode()).hexdigest()[:10]
    today = dt.date.today().isoformat()
    what = "not one mistake" if op == "split" else "not to be promoted for now"
    text = f"{candidate.id}: {len(members)} incidents {what}"

    def build(index: Index, record: Recorder) -> list[ArchiveRecord]:
        if index.states([rid]):
            return []
        return [record.record(op, rid, "review", today, text, candidate=candidate.id, members=members)]

    return bool(append(layout, candidate.role, writer, build))


def find_candidate(found: list[Candidate], key: str) -> Candidate:
    """The candidate whose id starts with `key`. Raises NoMatch or InputError (ambiguous)."""
    key = key.strip().lstrip("#")
    hits = [c for c in found if c.id.startswith(key)] if len(key) >= 3 else []
    if not hits:
        raise NoMatch(f"no promotion candidate {key!r}: `rolebook promote --json` lists them")
    if len(hits) > 1:
        raise InputError(f"{key!r} matches {len(hits)} candidates; give more of the id")
    return hits[0]


@dataclass(frozen=True, slots=True)
class Promotion:
    rule: Rule
    added_line: bool
    result: WriteResult


def apply(
    layout: Layout,
    rules_path: Path,
    candidate: Candidate,
    limits: Limits,
    writer: Writer,
    text: str | None = None,
    same: Judge = keyword_same_mistake,
    min_dates: int = 3,
) -> Promotion:
    """Move the group's active entries out as `promoted` and journal the rule, then write
    the rule line. The journal goes first: it holds all the rule line needs, so a
    promotion cut short between the two is finished by the next `promote`
    (`finish_promotions`), and an error never says "nothing was written" when it was.

    Raises:
        InputError: an empty rule, or a rules file rolebook cannot read (nothing written).
        ScopeError: a writer scoped to another role (nothing written).
        StorageError: a write failed; the message says what stands.
    """
    rule = candidate.rule(text)
    if not rule.text.strip("."):
        raise InputError("the rule text is empty")
    check_scope(candidate.role, writer)
    load(rules_path)  # a broken rules file is refused before anything is written
    result = promote_entries(
        layout, candidate.role, set(candidate.members), rule.id, rule.text, rule.incidents, limits, writer
    )
    try:
        added = write_rules(layout, rules_path, lambda f: add_rule(f, rule))
    except StorageError as exc:
        raise StorageError(exc.path, "write the rule line", exc.cause, _CUT_SHORT.format(rule=rule.id)) from None
    refresh_alerts(layout, rules_path, candidate.role, min_dates=min_dates, same=same)
    return Promotion(rule, added, result)


_CUT_SHORT = (
    "the archive records the promotion of {rule} and its entries have left the notebook; "
    "`rolebook promote` writes the rule line"
)


def finish_promotions(layout: Layout, rules_path: Path, roles: list[str]) -> list[Rule]:
    """Write the rule line of every promotion the archive records but the rules file
    lacks (a promote cut short after its journal). Returns the rules written."""
    present = {r.id for r in list_rules(rules_path)}
    missing: list[Rule] = []
    with Index(layout) as index:
        for role in roles:
            index.sync(role)
            for record in ledger.rule_records(index, role):
                incidents = tuple(d for d in record.get("incidents") or [] if isinstance(d, str))
                text = record.get("text")
                if record.get("id") not in present and isinstance(text, str) and text:
                    missing.append(Rule(text, role, incidents))
    if missing:
        write_rules(layout, rules_path, lambda f: functools.reduce(add_rule, missing, f))
    return missing


def write_rules(layout: Layout, rules_path: Path, change: Callable[[Any], Any]) -> bool:
    """Change the rules file under its lock, atomically; whether any byte changed."""
    with role_lock(layout.rules_lock):
        rules_file, before = load(rules_path)
        after = render(change(rules_file))
        if after == (before or ""):
            return False
        atomic_write(layout.check_inside(rules_path), after.encode("utf-8"))
        return True


def list_rules(rules_path: Path, role: str | None = None) -> list[Rule]:
    rules = load(rules_path)[0].rules
    return [r for r in rules if role is None or r.role == role]


def find_rule(rules_path: Path, key: str) -> Rule:
    key = key.strip().lstrip("#").upper()
    hits = [r for r in list_rules(rules_path) if r.id.upper().startswith(key)] if len(key) >= 3 else []
    if not hits:
        raise NoMatch(f"no rule {key!r} in {rules_path}: `rolebook rules` lists them")
    if len({r.id for r in hits}) > 1:
        raise InputError(f"{key!r} matches {len(hits)} rules; give more of the id")
    return hits[0]


def demote(
    layout: Layout,
    rules_path: Path,
    key: str,
    writer: Writer,
    same: Judge = keyword_same_mistake,
    min_dates: int = 3,
) -> Rule:
    """Take a rule out of the block; the archive keeps it as `demoted`."""
    rule = find_rule(rules_path, key)
    check_scope(rule.role, writer)  # before the rules file changes, not after
    write_rules(layout, rules_path, lambda f: remove_rule(f, rule.id))
    today = dt.date.today().isoformat()

    def build(index: Index, record: Any) -> list[ArchiveRecord]:
        return [
            record.record("demoted", rule.id, "rules", today, rule.text, rule=rule.id, incidents=list(rule.incidents))
        ]

    append(layout, rule.role, writer, build)
    refresh_alerts(layout, rules_path, rule.role, min_dates=min_dates, same=same)
    return rule


def promoted_on(layout: Layout, rule: Rule) -> str | None:
    """The day a rule was promoted, from the archive's record of it."""
    with Index(layout) as index:
        record = ledger.promotion_record(index, rule.id)
    at = record.get("at") if record is not None else None
    return at[:10] if isinstance(at, str) else None


def violations(
    layout: Layout,
    rules_path: Path,
    role: str,
    mistakes: list[tuple[str, str]],
    same: Judge = keyword_same_mistake,
) -> list[tuple[str, Rule, str | None]]:
    """(text, rule, day promoted) for each (id, text) mistake that breaks one of the role's rules:
    it recurs in a group that was promoted, or the judgement finds it the same as the rule.

    Looks only at the groups of these mistakes, so it costs the same whatever the archive holds.
    """
    rules = {r.id: r for r in list_rules(rules_path, role)}
    if not rules or not mistakes:
        return []
    with Index(layout) as index:
        group_of = ledger.groups_of(index, role, [mid for mid, _ in mistakes])
        rule_of_group = _rules_of_groups(index, role, set(group_of.values()), rules)
    out = []
    for mid, text in mistakes:
        rid = rule_of_group.get(group_of.get(mid, ""))
        rule = rules.get(rid) if rid else None
        rule = rule or next((r for r in rules.values() if same(r.text, text)), None)
        if rule is not None:
            out.append((text, rule, promoted_on(layout, rule)))
    return out


def _rules_of_groups(index: Index, role: str, groups: set[str], rules: dict[str, Rule]) -> dict[str, str]:
    """The rule each of these recurrence groups was promoted to, if it still is one."""
    out: dict[str, str] = {}
    for group, member in ledger.group_members(index, role, groups):
        if member.rule in rules:
            out[group] = member.rule
    for record in ledger.rule_records(index, role):
        entries = [e for e in record.get("entries") or [] if isinstance(e, str)]
        if record.get("id") in rules and entries:
            for group in ledger.groups_of(index, role, entries).values():
                if group in groups:
                    out.setdefault(group, record["id"])
    return out


def rule_report(layout: Layout, rules_path: Path, rule: Rule, same: Judge = keyword_same_mistake) -> dict[str, Any]:
    """A rule with the day it was promoted and how many mistakes broke it since."""
    day = promoted_on(layout, rule)
    later: list[tuple[str, str]] = []
    if day and rule.role in layout.roles():
        with Index(layout) as index:
            later = [
                (m.id, m.text) for m in ledger.mistakes_of(index, rule.role) if m.date >= day and m.op != "promoted"
            ]
    broken = [v for v in violations(layout, rules_path, rule.role, later, same) if v[1].id == rule.id]
    return {
        "id": rule.id,
        "role": rule.role,
        "text": rule.text,
        "incidents": list(rule.incidents),
        "promoted": day,
        "violations": len(broken),
        "line": rule.line(),
    }


def violation_line(rule: Rule, day: str | None) -> str:
    when = f" promoted {day}" if day else ""
    return f"violates rule {rule.id}{when}: {rule.text}"


def refresh_alerts(
    layout: Layout,
    rules_path: Path,
    role: str,
    touched: set[str] | None = None,
    min_dates: int = 3,
    same: Judge = keyword_same_mistake,
) -> list[str]:
    """Recompute the rule alerts `read` shows for a role and cache them: rule violations by
    mistakes in the notebook, and recurrence groups due for promotion.

    With `touched` (the groups a write changed), only those are looked at again, so a write
    costs the same whatever the archive holds; without it, every group is (promote, demote).
    """
    try:
        rules = {r.id: r for r in list_rules(rules_path, role)}
        with Index(layout) as index:
            state = extra_state(layout, role)
            due = set(state.get("due", [])) if state and touched is not None else None
            looked_at = set(touched or ()) if due is not None else set(ledger.groups_due(index, role, min_dates))
            due = (due or set()) - looked_at
            covered = _rules_of_groups(index, role, looked_at, rules) if looked_at else {}
            members: dict[str, list[Mistake]] = defaultdict(list)
            for group, member in ledger.group_members(index, role, looked_at):
                members[group].append(member)
            said = decisions(index, role)
            for group, group_members in members.items():
                if group not in covered and any(
                    len({m.date for m in part}) >= min_dates
                    and not _covered(part, list(rules.values()), same)
                    and not said.is_skipped(tuple(m.id for m in part))
                    for part in groups(group_members, _never_same, said.apart)
                ):
                    due.add(group)
            active = ledger.active_mistakes(index, role)
        broken = violations(layout, rules_path, role, active, same)
    except InputError as exc:  # a broken rules block: say so at read rather than fail the write
        store_extra_alerts(layout, role, [str(exc)])
        return [str(exc)]
    alerts = [f"{role}: a mistake in the notebook {violation_line(rule, day)}" for _, rule, day in broken]
    if due:
        alerts.append(
            f"{len(due)} promotion{'s' if len(due) > 1 else ''} due ({role}: mistakes that came back on "
            f"{min_dates} or more dates): {next_step('promote')}"
        )
    store_extra_alerts(layout, role, alerts, {"due": sorted(due)})
    return alerts
