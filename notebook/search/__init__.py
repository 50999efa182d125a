"""rolebook.notebook.search: finding what a root remembers.

The query, ranking and fusion, the vocabulary, the hit lines within a budget, and the
semantic extra's encoder. Tuned code lives here, apart from the write path. `__all__` is
the face the layers above import; it is not rolebook's public API."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .query import STATUSES, Query
    from .render import FRAME_TOKENS, SearchResult, framed, render_hits
    from .retrieval import candidates, search_roots
    from .vocabulary import names

# Loaded on first use: importing one name (the read path does) does not import every module.
_WHERE = {
    "Query": "query",
    "STATUSES": "query",
    "FRAME_TOKENS": "render",
    "SearchResult": "render",
    "framed": "render",
    "render_hits": "render",
    "candidates": "retrieval",
    "search_roots": "retrieval",
    "names": "vocabulary",
}

__all__ = [
    "FRAME_TOKENS",
    "STATUSES",
    "Query",
    "SearchResult",
    "candidates",
    "framed",
    "names",
    "render_hits",
    "search_roots",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
