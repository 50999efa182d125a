"""rolebook.rules: similarity of mistakes, recurrence, promotion, the rules-file block.

Imports `rolebook.notebook` only; the agents layer (CLI, MCP) calls it.
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use, so importing one module of the package (the read path does)
# does not import them all.
_WHERE = {
    "Rule": "block",
    "RulesFile": "block",
    "Candidate": "promotion",
    "apply": "promotion",
    "candidates": "promotion",
    "demote": "promotion",
    "list_rules": "promotion",
    "violations": "promotion",
    "Recorded": "session",
    "Session": "session",
    "Started": "session",
    "Judge": "similarity",
    "keyword_same_mistake": "similarity",
    "meaning_judge": "similarity",
    "similarity": "similarity",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
