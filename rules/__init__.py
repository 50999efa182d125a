"""rolebook.rules: similarity of mistakes, recurrence, promotion, the rules-file block,
and the session API the agents layer calls (`Session`).

Imports `rolebook.notebook` only. `__all__` is what the agents layer uses, and it
imports it from here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .block import list_rules
    from .grouping import find_candidate, groups
    from .ledger import mistakes_of
    from .session import Session, Started
    from .similarity import Judge, keyword_same_mistake, meaning_judge
    from .violations import find_violations

# Loaded on first use, so that importing one name (the read path does) does not import
# every module of the package.
_WHERE = {
    "list_rules": "block",
    "find_candidate": "grouping",
    "groups": "grouping",
    "mistakes_of": "ledger",
    "Session": "session",
    "Started": "session",
    "Judge": "similarity",
    "keyword_same_mistake": "similarity",
    "meaning_judge": "similarity",
    "find_violations": "violations",
}

__all__ = [
    "Judge",
    "Session",
    "Started",
    "find_candidate",
    "find_violations",
    "groups",
    "keyword_same_mistake",
    "list_rules",
    "meaning_judge",
    "mistakes_of",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
