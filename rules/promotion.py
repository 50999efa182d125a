"""Promotion: mistakes that keep coming back become rules (DESIGN.md section 6).

Groups are the recurrence chains `update` recorded, joined with any other mistakes the
similarity judges the same (hand-typed ones, imported ones). A group with incidents on
at least `min_dates` distinct dates that no rule covers yet is a candidate. Applying it
writes one line into the rules block, then moves the group's active entries to the
archive as `promoted`; both steps are idempotent, so a run cut short is finished by the
next.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

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
    _mark_written(layout, candidate.role, [rule.id], writer)
    refresh_alerts(layout, rules_path, candidate.role, min_dates=min_dates, same=same)
    return Promotion(rule, added, result)


_CUT_SHORT = (
    "the archive records the promotion of {rule} and its entries have left the notebook; "
    "`rolebook promote` writes the rule line"
)


def finish_promotions(layout: Layout, rules_path: Path, roles: list[str], writer: Writer | None = None) -> list[Rule]:
    """Write the rule line of every promotion the archive records but the rules file
    lacks (a promote cut short after its journal). Returns the rules written.

    The block is read back as it stands (`ledger.standing`): a rule reworded by hand is
    the rule it was, not missing; a rule whose line reached the file once and is gone was
    taken out by hand (`taken_out_by_hand` journals it), and is never written again."""
    if not roles:
        return []
    lines = list_rules(rules_path)
    missing: list[tuple[str, Rule]] = []
    with Index(layout) as index:
        for role in roles:
            index.sync(role)
            present = ledger.rule_aliases(index, role, lines)
            written = ledger.written_rules(index, role)
            for record in ledger.rule_records(index, role):
                incidents = tuple(d for d in record.get("incidents") or [] if isinstance(d, str))
                text, rid = record.get("text"), record.get("id")
                if (
                    isinstance(rid, str)
                    and rid not in present
                    and rid not in written
                    and isinstance(text, str)
                    and text
                ):
                    missing.append((rid, Rule(text, role, incidents)))
    if missing:
        write_rules(layout, rules_path, lambda f: functools.reduce(add_rule, [r for _, r in missing], f))
        for role in {r.role for _, r in missing}:
            _mark_written(layout, role, [rid for rid, r in missing if r.role == role], writer or Writer())
    return [r for _, r in missing]


def taken_out_by_hand(layout: Layout, rules_path: Path, roles: list[str], writer: Writer | None = None) -> list[Rule]:
    """Journal as demoted every rule whose line reached the rules file and was since
    deleted from it by hand (what `demote` would have done), and set its group aside
    until a new incident joins it. Roles a scoped writer may not write are left as they
    are (their rules are still not written again). Returns the rules journalled."""
    if not roles:
        return []  # no role (outside any project): no index is made either
    lines = list_rules(rules_path)
    gone: list[tuple[Rule, list[str]]] = []
    with Index(layout) as index:
        for role in roles:
            if writer is not None and writer.by not in (None, role):
                continue
            index.sync(role)
            present = ledger.rule_aliases(index, role, lines)
            written = ledger.written_rules(index, role)
            for record in ledger.rule_records(index, role):
                text, rid = record.get("text"), record.get("id")
                if rid in written and rid not in present and isinstance(text, str):
                    incidents = tuple(d for d in record.get("incidents") or [] if isinstance(d, str))
                    entries = sorted(e for e in record.get("entries") or [] if isinstance(e, str))
                    gone.append((Rule(text, role, incidents), entries))
    for rule, entries in gone:
        _journal_demotion(layout, rule, entries, writer or Writer(), "deleted from the rules file by hand")
    return [rule for rule, _ in gone]


def _mark_written(layout: Layout, role: str, rule_ids: list[str], writer: Writer) -> None:
    """Journal that these rules' lines reached the rules file: from then on a line missing
    from the block was taken out by hand, not cut short. Kept with the review's decisions
    (not a memory: search never shows it). A mark that cannot be written is left out: the
    line stands, and only a later deletion by hand would be written back once."""
    today = dt.date.today().isoformat()

    def build(index: Index, record: Recorder) -> list[ArchiveRecord]:
        out = []
        for rule_id in rule_ids:
            rid = "wr" + hashlib.sha256(f"{role}\x1fwritten\x1f{rule_id}".encode()).hexdigest()[:10]
            if not index.states([rid]):
                out.append(record.record("written", rid, "review", today, f"{rule_id}: line written", rule=rule_id))
        return out

    with contextlib.suppress(StorageError):
        append(layout, role, writer, build)


def _journal_demotion(layout: Layout, rule: Rule, entries: list[str], writer: Writer, how: str) -> None:
    """Journal a rule taken out of the rules file (`demoted`), and its group set aside
    (`skipped`: not proposed again until a new incident joins it, so `promote --yes` does
    not put back what was taken out)."""
    today = dt.date.today().isoformat()
    skip = "sk" + hashlib.sha256("\x1f".join([rule.role, "skipped", *entries]).encode()).hexdigest()[:10]

    def build(index: Index, record: Recorder) -> list[ArchiveRecord]:
        out = [
            record.record(
                "demoted", rule.id, "rules", today, rule.text, rule=rule.id, incidents=list(rule.incidents), how=how
            )
        ]
        if entries and not index.states([skip]):
            text = f"{rule.id}: {len(entries)} incidents not to be promoted again for now ({how})"
            out.append(record.record("skipped", skip, "review", today, text, rule=rule.id, members=entries))
        return out

    append(layout, rule.role, writer, build)


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
    with Index(layout) as index:
        index.sync(rule.role)
        records = ledger.rule_records(index, rule.role)
    # the archive's rule this line stands for (itself, or the rule it was before a reword by hand)
    made = next((r for r in records if ledger.standing([r], [rule])), None)
    entries = sorted(e for e in (made or {}).get("entries") or [] if isinstance(e, str))
    _journal_demotion(layout, rule, entries, writer, "demoted")
    if made is not None and made.get("id") != rule.id:
        old = Rule(str(made.get("text") or rule.text), rule.role, rule.incidents)
        _journal_demotion(layout, old, [], writer, f"demoted as {rule.id}, its rewording by hand")
    refresh_alerts(layout, rules_path, rule.role, min_dates=min_dates, same=same)
    return rule
