"""Search by meaning (the semantic extra) and hybrid: cosine over the archive's vectors,
plus a keyword score gated by how many of the query's telling words a document holds.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..store import Index, Layout, refresh
from . import lookups
from .query import Query, filters_of, query_words
from .ranking import hit_of, keyword_search
from .render import COUNT_CAP, SearchResult
from .stemmer import terms
from .vocabulary import synonyms

#: hybrid ranking: cosine plus KEYWORD_WEIGHT x a keyword score (BM25 relative to the best
#: keyword hit, synonyms included) that counts only as far as the document holds the
#: query's content words (stemmed as the index stems them), squared: a document holding
#: half of them gets a quarter. A naive fusion lets BM25 noise (one shared word) drown what
#: the meaning found, and on queries that share no words with their answer, hybrid then
#: loses to the embedding alone; the squared gate does not. Chosen on the "fit" halves of
#: tests/fixtures/retrieval_corpus, then tests/fixtures/retrieval_heldout, as the one
#: among those tried (weights 0.05-0.6; gates: coverage to the power 1-4, a step or a ramp
#: from 0.3-0.7, none; reciprocal rank fusion) never below the embedding alone nor keywords
#: on any slice of the fit half (tests/bench/bench_retrieval_heldout.py).
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
        _, left = embed_new(index, vectors, query.embed_budget)
        ids = vectors.ids()
        sims = vectors.matrix() @ model.encode([query.text])[0] if ids else np.zeros(0, dtype=np.float32)
        keyword = keyword_scores(index, query) if mode == "hybrid" or left else {}
        if mode != "hybrid":  # by meaning only: words count just for what has no vector yet
            embedded = set(ids)
            keyword = {did: k for did, k in keyword.items() if did not in embedded}
        notes = (_partly(len(ids), left),) if left else ()
        where = filters_of(query)
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
        hits.append(hit_of((*row[:9], score, *row[9:]), today))
        if cos >= SEMANTIC_FLOOR or row[0] in keyword:
            matched.add(row[0])
    if not matched:  # nothing near enough: "no match", not the least unrelated documents
        return SearchResult((), 0, tuple(warnings), notes=notes)
    # past the floor, the best `limit` are shown even where their cosine is below it
    shown = sorted(hits, key=lambda h: -h.score)[: query.limit]
    total = min(max(len(matched), len(shown)), COUNT_CAP)
    return SearchResult(tuple(shown), total, tuple(warnings), notes=notes)


def _partly(ready: int, left: int) -> str:
    """The note on a search made while records still wait for their vectors."""
    return (
        f"searched by meaning over {ready:,} of {ready + left:,} records, by keywords over the other {left:,} "
        "(they get their vectors a few at each search; `rolebook doctor --repair` embeds them all)"
    )


def keyword_scores(index: Index, query: Query) -> dict[str, float]:
    """Entry id -> the keyword side of hybrid: BM25 relative to the best keyword match,
    times the share of the query's words the document holds, squared (`coverage`). A
    document holds what it is found by: its text, and its tags, context and command (an
    event's context is where its failure is said: `log --context`)."""
    found = keyword_search(index, query)
    ranked = found.ranked().scores if found is not None else []
    if not ranked:
        return {}
    texts = lookups.texts_of(index, [r for r, _ in ranked])
    ids = lookups.ids_of(index, [r for r, _ in ranked])
    words = query_words(query.text)
    best = ranked[0][1]
    return {ids[r]: score / best * coverage(words, " ".join(texts[r])) ** COVERAGE_POWER for r, score in ranked}


def coverage(words: list[str], text: str) -> float:
    """The share of these (content) words the text holds, each itself or one of its other
    words, stemmed as the index stems them (`stemmer`); a word the index splits
    (`test_login_redirect`) is held only as that phrase."""
    held = terms(text)
    present = set(held)

    def holds(word: str) -> bool:
        split = terms(word)
        if len(split) < 2:
            return bool(split) and split[0] in present
        n = len(split)
        return present.issuperset(split) and any(held[i : i + n] == split for i in range(len(held) - n + 1))

    found = sum(1 for w in words if holds(w) or any(holds(s) for s in synonyms(w)))
    return found / len(words) if words else 0.0


def embed_new(index: Index, vectors: Any, seconds: float | None = None, **pace: Any) -> tuple[int, int]:
    """Give every indexed document a vector: the documents past the last mark, or all of
    them when the index was rebuilt since; with `seconds`, only as many as that allows (one
    step at least; `pace`: Vectors.add's step and stop). Returns (how many were embedded,
    how many still wait)."""
    mark = vectors.folder / f"{vectors.model.key}.mark"
    try:
        seen_max, seen_count = (int(x) for x in mark.read_text(encoding="ascii").split())
    except (FileNotFoundError, ValueError):
        seen_max, seen_count = 0, 0
    count, top, newer = lookups.marks(index, seen_max)
    if count != seen_count + newer:  # rebuilt or rows gone: look at everything
        seen_max = 0
    if count == seen_count and top == seen_max:
        return 0, 0
    rows = lookups.texts_after(index, seen_max)
    added, left = vectors.add(((i, t) for i, t in rows if t), seconds, **pace)
    if not left:  # the mark moves only past documents that all have their vectors
        vectors.folder.mkdir(parents=True, exist_ok=True)
        mark.write_text(f"{top} {count}", encoding="ascii")
    return int(added), int(left)


class Near:
    """How near a text is to each of some records, by a loaded model (the semantic extra),
    from the records' kept vectors: what the session's MCP server lends the recall hook
    (agents/meaning.py)."""

    def __init__(self, layout: Layout, model: Any):
        from .semantic import Vectors

        self.layout = layout
        self.model = model
        self.vectors = Vectors(layout.vectors, model)
        self.rows: dict[str, int] = {}
        self._stamp: tuple[int, ...] | None = None

    def warm(self, seconds: float, **pace: Any) -> bool:
        """Give records their vectors for about `seconds` (what a search does a few at a
        time, quietly; `pace`: Vectors.add's step and stop); True when every record has one."""
        with Index(self.layout, readers_only=True) as index:
            refresh(self.layout, index)
            _, left = embed_new(index, self.vectors, seconds, **pace)
        self._reload()
        return not left

    def _reload(self) -> None:
        """Read the kept vectors again when another process (a search) has added some."""
        try:
            ids, data = self.vectors.ids_path.stat(), self.vectors.data.stat()
            stamp: tuple[int, ...] | None = (ids.st_size, ids.st_mtime_ns, data.st_size, data.st_mtime_ns)
        except OSError:
            stamp = None
        if stamp is not None and stamp == self._stamp:
            return
        self.vectors.forget()
        self.rows = {i: n for n, i in enumerate(self.vectors.ids())}
        self._stamp = stamp

    def cosines(self, query: Any, records: dict[str, str], embed_at_most: int = 8) -> dict[str, float]:
        """The cosine of a text's vector (`query`, the model's) to each record (id -> text):
        from its kept vector, or embedded now for at most `embed_at_most` records without
        one (the others 0.0)."""
        out = self.known(query, records)
        missing = [(i, t) for i, t in records.items() if i not in out][:embed_at_most]
        if missing:
            for (i, _), vector in zip(missing, self.model.encode([t for _, t in missing]), strict=True):
                out[i] = float(vector @ query)
        return {i: out.get(i, 0.0) for i in records}

    def known(self, query: Any, records: dict[str, str] | set[str]) -> dict[str, float]:
        """The cosine of the vector `query` to each of the records that has a kept vector."""
        if any(i not in self.rows for i in records):
            self._reload()
        matrix = self.vectors.matrix()
        return {i: float(matrix[self.rows[i]] @ query) for i in records if i in self.rows}
