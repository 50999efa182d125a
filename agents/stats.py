"""What a root's memory holds, per role: `rolebook stats [ROLE]`.

Figures come from the canonical files (notebook, archive, rules file) and the derived
index, which is brought up to date first. Weeks are ISO weeks (`2026-W11`).
"""

from __future__ import annotations

import datetime as dt
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rolebook.notebook import SECTIONS, Limits, parse
from rolebook.notebook.display import shown
from rolebook.notebook.limits import frontmatter_limits
from rolebook.notebook.model import count_lines
from rolebook.notebook.store import (
    ArchiveRecord,
    Index,
    Layout,
    check_role,
    figures,
    read_failures,
    read_records,
    refresh,
    shown_text,
)
from rolebook.rules import Judge, find_violations, keyword_same_mistake, list_rules, role_groups

TOP = 5
WEEKS = 12


@dataclass(frozen=True, slots=True)
class Recurring:
    text: str
    count: int
    dates: tuple[str, ...]
    rule: str | None


@dataclass(slots=True)
class RoleStats:
    role: str
    lines: int = 0
    cap: int | None = None
    entries: dict[str, int] = field(default_factory=dict)
    ops: dict[str, int] = field(default_factory=dict)
    malformed: int = 0
    recurring: list[Recurring] = field(default_factory=list)
    rules: int = 0
    violations: int = 0
    mistakes_per_week: dict[str, int] = field(default_factory=dict)
    recurrences_per_week: dict[str, int] = field(default_factory=dict)
    violations_by_rule: dict[str, int] = field(default_factory=dict)  # rule id -> mistakes that broke it since
    failures: dict[str, Any] = field(default_factory=dict)  # what recurs (store.figures)

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "notebook": {"lines": self.lines, "cap": self.cap, "entries": self.entries},
            "archive": {"records": sum(self.ops.values()), "by_op": self.ops, "malformed_lines": self.malformed},
            "top_recurring_mistakes": [
                {"text": r.text, "count": r.count, "dates": list(r.dates), "rule": r.rule} for r in self.recurring
            ],
            "rules": self.rules,
            "violations": self.violations,
            "mistakes_per_week": self.mistakes_per_week,
            "recurrences_per_week": self.recurrences_per_week,
            "failures": self.failures,
        }


def week(day: str) -> str:
    year, number, _ = dt.date.fromisoformat(day).isocalendar()
    return f"{year}-W{number:02d}"


def last_weeks(today: dt.date, n: int = WEEKS) -> list[str]:
    """The `n` ISO weeks up to today's, oldest first."""
    return [week((today - dt.timedelta(weeks=k)).isoformat()) for k in range(n - 1, -1, -1)]


def role_stats(
    layout: Layout, rules_path: Path, role: str, limits: Limits, same: Judge = keyword_same_mistake
) -> RoleStats:
    """A role's figures; a notebook that is not UTF-8 is counted as read (U+FFFD for the
    bad bytes) with a warning naming its line."""
    check_role(role)
    out = RoleStats(role)
    path = layout.notebook_path(role)
    text, problem = shown_text(layout, path)
    if problem:
        sys.stderr.write(f"rolebook: warning: {problem}\n")
    if text is not None:
        nb = parse(text)
        out.lines = count_lines(text)
        out.cap = frontmatter_limits(nb, limits, str(path)).lines
        out.entries = {s: len(nb.entries(s)) for s in SECTIONS}
    else:
        out.cap = limits.lines
        out.entries = dict.fromkeys(SECTIONS, 0)
    ops: Counter[str] = Counter()
    seen_mistakes: dict[str, str] = {}
    recurrences: Counter[str] = Counter()
    promoted_at: dict[str, int] = {}  # rule id -> position of its promotion in the journal
    written_at: dict[str, tuple[int, str]] = {}  # mistake id -> (position, text), for violations
    again: set[str] = set()  # mistakes `update` found recurring
    confirmed: set[str] = set()  # mistakes their writer linked to an earlier one
    for n, (_, _, item) in enumerate(read_records(layout.archive_path(role))):
        if not isinstance(item, ArchiveRecord):
            out.malformed += 1
            continue
        ops[item.op] += 1
        if item.op == "promoted" and item.section == "rules":
            promoted_at.setdefault(item.id, n)
        if item.op == "added" and item.section == "mistakes" and _is_day(item.date):
            seen_mistakes.setdefault(item.id, item.date)
            written_at[item.id] = (n, item.text)
            if item.extra.get("recurs"):
                recurrences[week(item.date)] += 1
                again.add(item.id)
        elif item.op == "linked" and item.section == "review" and isinstance(item.extra.get("entry"), str):
            confirmed.add(item.extra["entry"])  # `update --same-as`: a writer said it recurs
    # a recurrence its writer confirmed counts as one, in the week it was written, once
    for mid in confirmed - again:
        if mid in seen_mistakes:
            recurrences[week(seen_mistakes[mid])] += 1
    out.ops = dict(sorted(ops.items()))
    per_week = Counter(week(d) for d in seen_mistakes.values())
    out.mistakes_per_week = dict(sorted(per_week.items()))
    out.recurrences_per_week = dict(sorted(recurrences.items()))
    out.failures = figures(read_failures(layout, role))
    rules = list_rules(rules_path, role)
    out.rules = len(rules)
    with Index(layout) as index:
        refresh(layout, index)
        grouped = role_groups(index, role)
    found = []
    for group in grouped:
        count = max(len(group), max(m.count for m in group))
        if count < 2:
            continue
        latest = max(group, key=lambda m: (m.date, m.count, m.id))
        rule = next((m.rule for m in group if m.rule), None)
        found.append(Recurring(latest.text, count, tuple(sorted({m.date for m in group})), rule))
    found.sort(key=lambda r: (-r.count, -len(r.dates), r.text))
    out.recurring = found[:TOP]
    if rules and promoted_at:
        # a violation: a mistake written after the rule it breaks was promoted
        first = min(promoted_at.values())
        later = [(mid, text) for mid, (n, text) in written_at.items() if n > first]
        broken = find_violations(layout, rules_path, role, later, same)
        # the breaking mistakes come back in the order given: walk both to know when each was
        # written (by id: the same words written before and after a promotion are two mistakes)
        rest = iter(later)
        for text, r, _ in broken:
            mid = next(m for m, said in rest if said == text)
            if r.id in promoted_at and written_at[mid][0] > promoted_at[r.id]:
                out.violations += 1
                out.violations_by_rule[r.id] = out.violations_by_rule.get(r.id, 0) + 1
    return out


def _is_day(value: str) -> bool:
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def render(stats: list[RoleStats], health: str, today: dt.date, width: int = 80) -> Any:
    """A rich renderable: a table per role and a bar chart of mistakes and recurrences per week."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    parts: list[Any] = [Text(f"index: {health}")]
    weeks = last_weeks(today)
    for s in stats:
        table = Table(title=f"{s.role}", title_justify="left", show_header=False, box=None, pad_edge=False)
        table.add_column(style="bold")
        table.add_column()
        cap = f"/{s.cap}" if s.cap is not None else ""
        over = " (over the cap)" if s.cap is not None and s.lines > s.cap else ""
        table.add_row("notebook", f"{s.lines}{cap} lines{over}")
        table.add_row("entries", ", ".join(f"{k} {v}" for k, v in s.entries.items()))
        records = sum(s.ops.values())
        # what an archive says is text, never markup: an op written by hand may hold `[link=...]`
        ops = ", ".join(f"{shown(k)} {v}" for k, v in s.ops.items()) or "none"
        table.add_row("archive", Text(f"{records} records: {ops}"))
        if s.malformed:
            table.add_row("malformed", f"{s.malformed} archive lines (see `rolebook doctor`)")
        table.add_row("rules", f"{s.rules} promoted, {s.violations} violations since")
        if s.failures.get("seen"):
            table.add_row("failures", Text(failure_line(s.failures)))
        for n, r in enumerate(s.recurring, 1):
            label = "recurring" if n == 1 else ""
            ruled = f" [rule {r.rule}]" if r.rule else ""
            days = f"{len(r.dates)} day" + ("" if len(r.dates) == 1 else "s")
            table.add_row(label, Text(f"x{r.count} on {days}: {shown(_cut(r.text, width - 30))}{ruled}"))
        parts += [Text(""), table, _chart(s, weeks)]
    return Group(*parts)


def failure_line(f: dict[str, Any]) -> str:
    """The failure figures in one line: seen, distinct, repeats, and after a lesson."""
    after = f["after_lesson"]
    came = sum(after.values())
    line = (
        f"{f['seen']} failed command{'s' * (f['seen'] != 1)} seen, {f['distinct']} distinct; "
        f"{f['repeats']} repeat{'s' * (f['repeats'] != 1)} of an earlier one "
        f"({100 * (f['repeat_rate'] or 0):.0f}%); came back after a lesson: {came} "
        f"(lesson shown {after['shown']}, withheld {after['withheld']}, not shown {after['not shown']})"
    )
    return line + (" - too few to mean anything yet" if f["too_few"] else "")


def _chart(s: RoleStats, weeks: list[str]) -> Any:
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    counts = [(w, s.mistakes_per_week.get(w, 0), s.recurrences_per_week.get(w, 0)) for w in weeks]
    top = max(total for _, total, _ in counts)
    if not top:
        return Text(f"no mistakes recorded in the last {len(weeks)} weeks", style="dim")
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="dim")
    table.add_column(no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    size = 30
    for w, total, again in counts:
        again = min(again, total)
        bar_total = round(total / top * size)
        bar_again = min(round(again / top * size), bar_total) if again else 0
        bar = Text("▒" * bar_again, style="red") + Text("█" * (bar_total - bar_again), style="cyan")
        table.add_row(w, bar, f"{total}" + (f" ({again} again)" if again else ""))
    legend = Text("mistakes per week: █ new, ▒ recurrences of an earlier mistake", style="bold")
    return Group(legend, table)


def _cut(text: str, width: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: max(width - 1, 10)] + "…"
