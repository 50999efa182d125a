"""rolebook.notebook.search: finding what a root remembers.

The query, ranking and fusion, the vocabulary, the hit lines within a budget, and the
semantic extra's encoder. Tuned code lives here, apart from the write path. `__all__` is
the face the layers above import; it is not rolebook's public API."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .abstention import sure_hits, task_hits
    from .failure import Failure, Masked, answers, bounded, failure_of, recognise
    from .meaning import Near
    from .query import STATUSES, Query
    from .render import FRAME_TOKENS, Hit, SearchResult, framed, render_hits, render_within
    from .retrieval import candidates, embed_all, search_roots
    from .stemmer import terms
    from .vocabulary import SYNONYMS, names

# Loaded on first use: importing one name (the read path does) does not import every module.
_WHERE = {
    "sure_hits": "abstention",
    "task_hits": "abstention",
    "bounded": "failure",
    "failure_of": "failure",
    "Masked": "failure",
    "Failure": "failure",
    "answers": "failure",
    "recognise": "failure",
    "Near": "meaning",
    "Query": "query",
    "STATUSES": "query",
    "FRAME_TOKENS": "render",
    "SearchResult": "render",
    "Hit": "render",
    "framed": "render",
    "render_hits": "render",
    "render_within": "render",
    "candidates": "retrieval",
    "embed_all": "retrieval",
    "search_roots": "retrieval",
    "terms": "stemmer",
    "SYNONYMS": "vocabulary",
    "names": "vocabulary",
}

__all__ = [
    "FRAME_TOKENS",
    "STATUSES",
    "SYNONYMS",
    "Failure",
    "Hit",
    "Masked",
    "Near",
    "Query",
    "SearchResult",
    "answers",
    "bounded",
    "candidates",
    "embed_all",
    "failure_of",
    "framed",
    "names",
    "recognise",
    "render_hits",
    "render_within",
    "search_roots",
    "sure_hits",
    "task_hits",
    "terms",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
