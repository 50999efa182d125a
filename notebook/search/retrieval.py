"""Search over everything a root remembers (DESIGN.md section 5): the entry points.

Before each query the index is brought up to the canonical files (archives by offset,
notebooks by signature). Keyword search is BM25 with what `ranking` adds; the semantic
extra's modes are in `meaning`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace

from ..errors import InputError, ModelError, RolebookError
from ..store import Index, Layout, rebuilt_on_failure, refresh
from . import lookups
from .query import MODES, STATUSES, Query, check_query, filters_of, fts_expression, query_words, telling_words
from .ranking import SYNONYM_WEIGHT, carrying_names, fused, hit_of, named_first, rescored, synonyms_for
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
        results.append((name, layout, found))
    # an item shared from this root keeps its id there: shown once, as this root's
    every = [replace(h, origin=name) for name, _, found in reversed(results) for h in found.hits]
    hits = list({h.id: h for h in every}.values())
    if hits and query.mode == "keyword":
        hits = rescored(hits, [found.frequencies for _, _, found in results], query.text, today or dt.date.today())
    hits.sort(key=lambda h: (-h.score, h.origin != "", h.origin))
    total = min(sum(found.total for _, _, found in results) - (len(every) - len(hits)), COUNT_CAP)
    return SearchResult(tuple(hits[: query.limit]), total, tuple(dict.fromkeys(warnings)))


_K1, _B = 1.2, 0.75


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
        asked = query_words(query.text)
        counted = lookups.term_frequencies(index, asked)
        frequencies = (tuple(counted[0][i] for i in range(len(asked))), counted[1])
        words, common = telling_words(index, asked, query.rarest, counted)
        # the other words for the same things, ranked apart and weighted below the words
        # asked; not when only words in most documents matched (nothing to rank by)
        related = [] if common and words else synonyms_for(index, query, asked, counted)
        if not words and not related:
            return SearchResult((), 0, tuple(warnings), frequencies)
        expression = fts_expression(words) if words else None
        also = fts_expression(related) if related else None
        where = filters_of(query)
        # counting stops at COUNT_CAP: past that the exact number says nothing more
        total = lookups.count_matches(index, fts_expression(words + related), where, COUNT_CAP)
        # FTS5 ranks on its own, then only the best candidates are joined and filtered;
        # the window widens while filters leave too few.
        window = max(query.limit * 4, 50)
        while True:
            # with only words in most documents BM25 cannot rank: the newest matches come first
            rank = lookups.ranked(index, expression, common, window) if expression else {}
            more = lookups.ranked(index, also, False, window) if also else {}
            exhausted = len(rank) < window and len(more) < window
            rank = fused(rank, more, SYNONYM_WEIGHT)  # one scale: the best match is 1
            rows = lookups.hit_rows(index, "rowid", list(rank), where)
            if len(rows) >= query.limit or exhausted:
                break
            window *= 8
        carrying = carrying_names(index, query, counted[1])
    today = today or dt.date.today()
    hits = named_first([hit_of((*row[1:10], rank[row[0]], *row[10:]), today) for row in rows], carrying)
    return SearchResult(tuple(hits[: query.limit]), total, tuple(warnings), frequencies)


def candidates(index: Index, role: str, section: str, text: str, limit: int = 20) -> list[tuple[str, str, str, int]]:
    """(id, date, text, count) of a role's items in one section that share telling words with
    `text`, best first: where recurrence looks for earlier occurrences."""
    words, _ = telling_words(index, query_words(text))
    if not words:
        return []
    return lookups.similar(index, role, section, fts_expression(words), limit)
