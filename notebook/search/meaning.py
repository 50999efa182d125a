"""Search by meaning (the semantic extra) and hybrid: cosine over the archive's vectors,
plus a keyword score gated by how many of the query's telling words a document holds.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..store import Index, Layout, refresh
from . import lookups
from .query import WORD, Query, filters_of, fts_expression, query_words, telling_words
from .ranking import SYNONYM_WEIGHT, carrying_names, fused, hit_of, named_first, synonyms_for
from .render import COUNT_CAP, SearchResult
from .vocabulary import synonyms

#: hybrid ranking: cosine plus KEYWORD_WEIGHT x a keyword score (BM25 relative to the best
#: keyword hit, synonyms included) that counts only as far as the document holds the
#: query's telling words, squared: a document holding half of them gets a quarter. A naive
#: fusion lets BM25 noise (one shared word) drown what the meaning found, and on queries
#: that share no words with their answer, hybrid then loses to the embedding alone; the
#: squared gate does not. Chosen on the "fit" half of tests/fixtures/retrieval_corpus
#: (weights 0.2-0.4, powers 1-3, reciprocal rank fusion; tests/bench/bench_retrieval_corpus.py).
KEYWORD_WEIGHT = 0.4
COVERAGE_POWER = 2.0
#: When no document reaches this cosine (and no keyword matched) the query has no match
#: (exit 1); when one does, the best `limit` are shown, below it as well: on the real-lesson
#: queries that share no words with their answer, a hard floor at 0.3 cut the answer from
#: 1 query in 20 (semantic recall@5 on that slice 0.78 -> 0.82, hybrid 0.80 -> 0.82).
SEMANTIC_FLOOR = 0.3


def search_meaning(layout: Layout, query: Query, model: Any, mode: str, today: dt.date) -> SearchResult:
    import numpy as np

    from .semantic import Vectors

    with Index(layout, readers_only=True) as index:
        warnings = refresh(layout, index)
        vectors = Vectors(layout.vectors, model)
        embed_new(index, vectors)
        ids = vectors.ids()
        sims = vectors.matrix() @ model.encode([query.text])[0] if ids else np.zeros(0, dtype=np.float32)
        keyword: dict[str, float] = {}
        if mode == "hybrid":
            asked = query_words(query.text)
            counted = lookups.term_frequencies(index, asked)
            words, common = telling_words(index, asked, query.rarest, counted)
            if words and not common:
                n = max(query.limit * 10, 100)
                related = synonyms_for(index, query, asked, counted)
                found = [lookups.ranked_texts(index, fts_expression(w), n) if w else [] for w in (words, related)]
                texts = {did: text for ranked in found for did, text, _ in ranked}
                own, more = ({did: b for did, _, b in ranked} for ranked in found)
                both = fused(own, more, SYNONYM_WEIGHT)
                best = min(both.values(), default=0.0)
                for did, b in both.items():
                    keyword[did] = (b / best if best else 0.0) * coverage(words, texts[did]) ** COVERAGE_POWER
        where = filters_of(query)
        carrying = carrying_names(index, query, counted[1]) if mode == "hybrid" else []
        window = max(query.limit * 20, 200)
        while True:
            top = np.argpartition(-sims, window)[:window] if len(ids) > window else np.arange(len(ids))
            wanted = list({ids[int(n)] for n in top} | set(keyword))
            rows = [row[1:] for row in lookups.hit_rows(index, "id", wanted, where)]
            if len(rows) >= query.limit or window >= len(ids):
                break
            window *= 8
    wanted_rows = {row[0] for row in rows}
    position = {i: n for n, i in enumerate(ids) if i in wanted_rows}
    hits, matched = [], set()
    for row in rows:
        cos = float(sims[position[row[0]]]) if row[0] in position else 0.0
        score = cos + KEYWORD_WEIGHT * keyword.get(row[0], 0.0)
        hits.append(hit_of((*row[:9], -score, *row[9:]), today))
        if cos >= SEMANTIC_FLOOR or row[0] in keyword:
            matched.add(row[0])
    if not matched:  # nothing near enough: "no match", not the least unrelated documents
        return SearchResult((), 0, tuple(warnings))
    # past the floor, the best `limit` are shown even where their cosine is below it
    shown = named_first(hits, carrying)[: query.limit]
    return SearchResult(tuple(shown), min(max(len(matched), len(shown)), COUNT_CAP), tuple(warnings))


def coverage(words: list[str], text: str) -> float:
    """The share of the query's telling words the text holds, itself or a synonym of it
    (a light prefix stemming)."""
    held = {w.casefold()[:5] for w in WORD.findall(text)}
    found = sum(1 for w in words if w[:5] in held or any(s[:5] in held for s in synonyms(w)))
    return found / len(words) if words else 0.0


def embed_new(index: Index, vectors: Any) -> int:
    """Give every indexed document a vector: the documents past the last mark, or all of
    them when the index was rebuilt since. Returns how many were embedded."""
    mark = vectors.folder / f"{vectors.model.key}.mark"
    try:
        seen_max, seen_count = (int(x) for x in mark.read_text(encoding="ascii").split())
    except (FileNotFoundError, ValueError):
        seen_max, seen_count = 0, 0
    count, top, newer = lookups.marks(index, seen_max)
    if count != seen_count + newer:  # rebuilt or rows gone: look at everything
        seen_max = 0
    if count == seen_count and top == seen_max:
        return 0
    rows = lookups.texts_after(index, seen_max)
    added = vectors.add((i, t) for i, t in rows if t)
    vectors.folder.mkdir(parents=True, exist_ok=True)
    mark.write_text(f"{top} {count}", encoding="ascii")
    return int(added)
