"""Rules at work: the mistakes that break a rule, and the alerts `read` shows (rules
broken by mistakes in the notebook, groups due for promotion), cached for the read path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rolebook.notebook import InputError
from rolebook.notebook.store import Index, Layout, cited, extra_state, next_step, store_extra_alerts

from . import ledger
from .block import Rule, list_rules
from .grouping import covered_by_rule, decisions, groups_holding, role_groups
from .ledger import Mistake
from .similarity import Judge, keyword_same_mistake


def promoted_on(layout: Layout, rule: Rule) -> str | None:
    """The day a rule was promoted, from the archive's record of it (of the rule it was,
    for a rule reworded by hand)."""
    with Index(layout) as index:
        record = ledger.promotion_record(index, rule.id)
        if record is None and rule.role in layout.roles():
            record = next((r for r in ledger.rule_records(index, rule.role) if ledger.standing([r], [rule])), None)
    at = record.get("at") if record is not None else None
    return at[:10] if isinstance(at, str) else None


def find_violations(
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
        promoted = _promoted_entries(index, role, rules)
        rule_of = {}
        for mid, _ in mistakes:
            held = groups_holding(index, role, [mid])
            rule_of[mid] = _rule_of_group(held[0] if held else [], rules, promoted)
    out = []
    for mid, text in mistakes:
        rid = rule_of.get(mid)
        rule = rules.get(rid) if rid else None
        rule = rule or next((r for r in rules.values() if same(r.text, text)), None)
        if rule is not None:
            out.append((text, rule, promoted_on(layout, rule)))
    return out


def _promoted_entries(index: Index, role: str, rules: dict[str, Rule]) -> dict[str, str]:
    """mistake id -> the rule its promotion made, for the rules still in the file (as the
    block stands: a rule reworded by hand is the rule it was)."""
    out: dict[str, str] = {}
    records = ledger.rule_records(index, role)
    aliases = ledger.standing(records, rules.values())
    for record in records:
        if (line := aliases.get(record.get("id") or "")) is not None:
            out.update((e, line) for e in record.get("entries") or [] if isinstance(e, str))
    return out


def _rule_of_group(group: list[Mistake], rules: dict[str, Rule], promoted: dict[str, str]) -> str | None:
    """The rule a group was promoted to, if it still is one."""
    return next((m.rule for m in group if m.rule in rules), None) or next(
        (promoted[m.id] for m in group if m.id in promoted), None
    )


def rule_report(layout: Layout, rules_path: Path, rule: Rule, same: Judge = keyword_same_mistake) -> dict[str, Any]:
    """A rule with the day it was promoted and how many mistakes broke it since."""
    day = promoted_on(layout, rule)
    later: list[tuple[str, str]] = []
    if day and rule.role in layout.roles():
        with Index(layout) as index:
            later = [
                (m.id, m.text) for m in ledger.mistakes_of(index, rule.role) if m.date >= day and m.op != "promoted"
            ]
    broken = [v for v in find_violations(layout, rules_path, rule.role, later, same) if v[1].id == rule.id]
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
    mistakes in the notebook, and groups due for promotion (`grouping`: the same groups
    `promote` lists).

    With `touched` (the mistakes a write added or linked), only their groups are looked at
    again, so a write costs the same whatever the archive holds; without it, every group
    is (promote, demote).
    """
    try:
        rules = {r.id: r for r in list_rules(rules_path, role)}
        with Index(layout) as index:
            state = extra_state(layout, role)
            cached = state.get("due") if state and touched is not None else None
            if cached is None:
                due: set[str] = set()
                parts = role_groups(index, role)
            else:
                due = set(cached)
                parts = groups_holding(index, role, touched or ()) if touched else []
            promoted = _promoted_entries(index, role, rules)
            said = decisions(index, role)
            for part in parts:
                due -= {m.id for m in part}  # a group is known by its first mistake's id, which a write can change
                if (
                    len({m.date for m in part}) >= min_dates
                    and _rule_of_group(part, rules, promoted) is None
                    and not covered_by_rule(part, list(rules.values()), same)
                    and not said.is_skipped(tuple(m.id for m in part))
                ):
                    due.add(min(part, key=lambda m: (m.date, m.id)).id)
            active = ledger.active_mistakes(index, role)
            cites = cited(index, role)  # what the drift check at read compares the code with
        broken = find_violations(layout, rules_path, role, active, same)
    except InputError as exc:  # a broken rules block: say so at read rather than fail the write
        store_extra_alerts(layout, role, [str(exc)])
        return [str(exc)]
    alerts = [f"{role}: a mistake in the notebook {violation_line(rule, day)}" for _, rule, day in broken]
    if due:
        alerts.append(
            f"{len(due)} promotion{'s' if len(due) > 1 else ''} due ({role}: mistakes that came back on "
            f"{min_dates} or more dates): {next_step('promote')}"
        )
    store_extra_alerts(layout, role, alerts, {"due": sorted(due), "cites": cites})
    return alerts
