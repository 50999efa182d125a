"""Session end with the rules in view: the update every adapter (CLI, MCP) makes.

It judges recurrence with the similarity the rules layer owns, reports new mistakes
that break a rule, and refreshes the alerts `read` shows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rolebook.notebook.index import Index
from rolebook.notebook.journal import Writer, WriteResult, update
from rolebook.notebook.layout import Layout
from rolebook.notebook.limits import Limits
from rolebook.notebook.model import Entry

from . import similarity
from .block import Rule
from .promotion import refresh_alerts, violation_line, violations


@dataclass(frozen=True, slots=True)
class Recorded:
    """What a session-end update did, and the rules its new mistakes break."""

    result: WriteResult
    violations: tuple[tuple[str, Rule, str | None], ...]

    def lines(self) -> list[str]:
        """The summary line, then one line per violation."""
        role = self.result.role
        return [self.result.summary()] + [
            f"{role}: this mistake {violation_line(r, day)}" for _, r, day in self.violations
        ]

    def to_dict(self) -> dict[str, Any]:
        data = self.result.to_dict()
        data["violations"] = [
            {"text": text, "rule": rule.id, "rule_text": rule.text, "promoted": day}
            for text, rule, day in self.violations
        ]
        return data


def record_session(
    layout: Layout,
    rules_path: Path,
    role: str,
    entries: Sequence[Entry],
    limits: Limits,
    writer: Writer,
    same: Callable[[str, str], bool] | None = None,
) -> Recorded:
    """Add a session's entries, judging recurrence (by `same`, else `similarity.same_mistake`),
    and report rule violations."""
    judge = same or (lambda a, b: similarity.same_mistake(a, b))
    result = update(layout, role, entries, limits, writer, judge)
    new = [(e.id(role), e.text) for e in result.added if e.section == "mistakes"]
    broken = violations(layout, rules_path, role, new, judge)
    touched: set[str] = set()
    if new:
        with Index(layout) as index:
            touched = set(index.groups_of(role, [mid for mid, _ in new]).values())
    refresh_alerts(layout, rules_path, role, touched=touched)
    return Recorded(result, tuple(broken))
