"""rolebook.rules: similarity of mistakes, recurrence, promotion, the rules-file block,
the rules layer's face for the session API above it.

Imports `rolebook.notebook` only. `__all__` is what the agents layer uses, and it
imports it from here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .block import Rule, add_lines, bad_rule_lines, block_lines, list_rules, write_rules
    from .drift import drift_alerts, instruction_files, with_drift
    from .grouping import NO_INSTRUCTION, Candidate, candidates, find_candidate, role_groups
    from .promotion import Promotion, apply, decide, demote, finish_promotions, taken_out_by_hand
    from .proposals import Likeness, Proposal, likeness
    from .recurrence import Recurrence, find_mistake
    from .similarity import Judge, keyword_same_mistake, meaning_judge
    from .violations import find_violations, refresh_alerts, rule_report, violation_line

# Loaded on first use, so that importing one name (the read path does) does not import
# every module of the package.
_WHERE = {
    "Rule": "block",
    "add_lines": "block",
    "bad_rule_lines": "block",
    "block_lines": "block",
    "list_rules": "block",
    "write_rules": "block",
    "NO_INSTRUCTION": "grouping",
    "drift_alerts": "drift",
    "instruction_files": "drift",
    "with_drift": "drift",
    "Candidate": "grouping",
    "candidates": "grouping",
    "find_candidate": "grouping",
    "role_groups": "grouping",
    "Promotion": "promotion",
    "apply": "promotion",
    "decide": "promotion",
    "demote": "promotion",
    "finish_promotions": "promotion",
    "taken_out_by_hand": "promotion",
    "Likeness": "proposals",
    "Proposal": "proposals",
    "likeness": "proposals",
    "Recurrence": "recurrence",
    "find_mistake": "recurrence",
    "Judge": "similarity",
    "keyword_same_mistake": "similarity",
    "meaning_judge": "similarity",
    "find_violations": "violations",
    "refresh_alerts": "violations",
    "rule_report": "violations",
    "violation_line": "violations",
}

__all__ = [
    "NO_INSTRUCTION",
    "Candidate",
    "Judge",
    "Likeness",
    "Promotion",
    "Proposal",
    "Recurrence",
    "Rule",
    "add_lines",
    "apply",
    "bad_rule_lines",
    "block_lines",
    "candidates",
    "decide",
    "demote",
    "drift_alerts",
    "find_candidate",
    "find_mistake",
    "find_violations",
    "finish_promotions",
    "instruction_files",
    "keyword_same_mistake",
    "likeness",
    "list_rules",
    "meaning_judge",
    "refresh_alerts",
    "role_groups",
    "rule_report",
    "taken_out_by_hand",
    "violation_line",
    "with_drift",
    "write_rules",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
