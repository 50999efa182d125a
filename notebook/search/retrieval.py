"""Search over everything a root remembers (DESIGN.md section 5): the entry points.

Before each query the index is brought up to the canonical files (archives by offset,
notebooks by signature). Keyword search is BM25 with what `ranking` adds; the semantic
extra's modes are in `meaning`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from ..errors import InputError, ModelError, RolebookError
from ..store import Index, Layout, rebuilt_on_failure, refresh
from . import lookups
from .query import MODES, STATUSES, Query, check_query, filters_of, fts_expression, query_words, telling_words
from .ranking import Keywords, boost, hit_of, keyword_search, rescored
from .render import COUNT_CAP, SearchResult


def search(layout: Layout, query: Query, today: dt.date | None = None, model: str | None = None) -> SearchResult:
    """The best hits for a query, after bringing the index up to the files.

    `query.mode` None picks hybrid when the semantic extra loads `model` (a name or
    folder), else keyword. An over-long query is cut to MAX_QUERY_CHARS, and a warning
    says so: an agent that pastes a whole issue as its task still gets its memory.

    Raises:
        InputError: an empty query, an unknown status or mode, a bad date.
    """
    from ..store import check_date

    text, cut = check_query(query.text)
    if cut is not None:
        found = search(layout, replace(query, text=text), today, model)
        return replace(found, warnings=(*found.warnings, cut))
    for status in query.statuses:
        if status not in STATUSES:
            raise InputError(f"unknown status {status!r} (one of: {', '.join(STATUSES)})")
    for value in (query.since, query.until):
        if value is not None:
            check_date(value)
    return rebuilt_on_failure(layout, lambda: _search(layout, query, today, model))


def search_roots(
    roots: list[tuple[str, Layout]], query: Query, today: dt.date | None = None, model: str | None = None
) -> SearchResult:
    """The best hits for a query over several roots (the first is this one, origin ""), on
    one scale: keyword hits are scored again by BM25 with the statistics of all the roots
    together, as if they were one index (each index's own BM25 weighs a word by how rare
    it is there, which says nothing across roots); meaning scores are comparable as they
    are. A hit from this root wins a tie. A root that cannot be searched is a warning.
    """
    if len(roots) == 1:
        return search(roots[0][1], query, today, model)
    text, cut = check_query(query.text)
    if cut is not None:
        found = search_roots(roots, replace(query, text=text), today, model)
        return replace(found, warnings=(*found.warnings, cut))
    if query.mode is None:  # one mode for every root, or their scores are not comparable
        from . import semantic

        loaded = semantic.available() and semantic.load(model) is not None
        query = replace(query, mode="hybrid" if loaded else "keyword")
    results: list[tuple[str, Layout, SearchResult]] = []
    warnings: list[str] = []
    notes: list[str] = []
    each = replace(query, limit=query.limit * 2)  # one root's 6th hit may be the union's 5th
    for name, layout in roots:
        try:
            found = search(layout, each, today, model)
        except (OSError, RolebookError) as exc:
            if not name:
                raise
            warnings.append(f"shared root {name!r} was not searched: {exc}")
            continue
        warnings += [f"{name}: {w}" if name else w for w in found.warnings]
        notes += [f"{name}: {n}" if name else n for n in found.notes]
        results.append((name, layout, found))
    # an item shared from this root keeps its id there: shown once, as this root's
    every = [replace(h, origin=name) for name, _, found in reversed(results) for h in found.hits]
    hits = list({h.id: h for h in every}.values())
    if hits and query.mode == "keyword":
        hits = rescored(hits, [found.frequencies for _, _, found in results], query, today or dt.date.today())
    hits.sort(key=lambda h: (-h.score, h.origin != "", h.origin))
    total = min(sum(found.total for _, _, found in results) - (len(every) - len(hits)), COUNT_CAP)
    return SearchResult(tuple(hits[: query.limit]), total, tuple(dict.fromkeys(warnings)), notes=tuple(notes))


def embed_all(layout: Layout, mode: str | None, model: str | None = None) -> tuple[str, int] | None:
    """Give every record its vector now, what searches do a few seconds at a time (shown
    as a job: a bar, or a line): (the model's name, how many were embedded), or None when
    `mode` does not search by meaning or the model does not load."""
    if mode == "keyword":
        return None
    from . import semantic

    loaded = semantic.load(model, asked=mode is not None) if (mode or semantic.available()) else None
    if loaded is None:
        return None
    from .meaning import embed_new
    from .semantic import Vectors

    def work() -> int:
        with Index(layout) as index:
            refresh(layout, index)
            return embed_new(index, Vectors(layout.vectors, loaded))[0]

    return loaded.name, rebuilt_on_failure(layout, work)


def _search(layout: Layout, query: Query, today: dt.date | None, model: str | None) -> SearchResult:
    mode = query.mode
    if mode is not None and mode not in MODES:
        raise InputError(f"unknown search mode {mode!r} (one of: {', '.join(MODES)})")
    if not layout.memory.exists() and not layout.archive.exists():
        return SearchResult((), 0)  # no memory here (outside any project): no index is made either
    if mode != "keyword":
        from . import semantic

        loaded = semantic.load(model, asked=mode is not None) if (mode or semantic.available()) else None
        if loaded is not None:
            from .meaning import search_meaning

            try:
                return search_meaning(layout, query, loaded, mode or "hybrid", today or dt.date.today())
            except ModelError:
                pass  # the model failed as it ran: said once; keywords below
            except OSError as exc:  # its vectors cannot be kept (a read-only derived folder)
                semantic.turn_off(model, f"its vectors cannot be kept in {layout.vectors} ({exc.strerror or exc})")
    with Index(layout, readers_only=True) as index:
        warnings = refresh(layout, index)
        found = keyword_search(index, query)
        if found is None:
            return SearchResult((), 0, tuple(warnings), None)
        rows = _passing(index, query, found)
    today = today or dt.date.today()
    rows.sort(key=lambda row: -row[9] * boost(row[5], row[10], row[11], today))
    hits = [hit_of(row, today) for row in rows[: query.limit]]
    return SearchResult(tuple(hits), found.total, tuple(warnings), found.frequencies)


def _passing(index: Index, query: Query, found: Keywords) -> list[tuple[Any, ...]]:
    """The index rows of the best candidates that pass the query's filters, each with its
    score relative to the best match's (1: as good; the scale hits have always had), best
    first: the best `window` are looked up, then more while the filters leave fewer than
    the limit (the candidates widen x8 once those run out)."""
    where = filters_of(query)
    window = max(query.limit * 4, 50)
    scale = 1
    while True:
        ranked = found.ranked(scale)
        best = ranked.scores[0][1] if ranked.scores else 1.0
        score = {r: value / best for r, value in ranked.scores}
        rows: list[tuple[Any, ...]] = []
        for start in range(0, len(ranked.scores), window):
            rows += lookups.hit_rows(index, "rowid", [r for r, _ in ranked.scores[start : start + window]], where)
            if len(rows) >= query.limit:
                break
        if len(rows) >= query.limit or not ranked.cut:
            rows.sort(key=lambda row: (-score[row[0]], -row[0]))  # a tie: the newer first
            return [(*row[1:10], score[row[0]], *row[10:]) for row in rows]
        scale *= 8


def candidates(index: Index, role: str, section: str, text: str, limit: int = 20) -> list[tuple[str, str, str, int]]:
    """(id, date, text, count) of a role's items in one section that share telling words with
    `text`, best first: where recurrence looks for earlier occurrences."""
    words, _ = telling_words(index, query_words(text))
    if not words:
        return []
    return lookups.similar(index, role, section, fts_expression(words), limit)
