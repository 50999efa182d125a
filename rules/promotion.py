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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError, Limits, Notebook, StorageError
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
    check_scope,
    transact,
)

from . import ledger
from .block import Rule, add_rule, find_rule, list_rules, load, remove_rule, write_rules
from .grouping import Candidate
from .similarity import Judge, keyword_same_mistake
from .violations import refresh_alerts


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
    if not roles:
        return []
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
