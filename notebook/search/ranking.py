"""Ranking: BM25 from the index, then what this layer adds to it: the synonyms of the
query's words (weighted below the words), the names that carry a query, small boosts for
recency and success rate, and one BM25 scale over several roots' hits.

Every constant here was chosen on the "fit" half of a labelled query set and is reported
on the other half (tests/bench/bench_retrieval_corpus.py).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import replace
from typing import Any

from ..store import TOKENIZER, Index
from . import lookups
from .query import WORD, Query, filters_of, query_words
from .render import Hit
from .vocabulary import query_names, related_words

HALF_LIFE_DAYS = 180
_K1, _B = 1.2, 0.75  # BM25's own, as FTS5 has them

#: A synonym is looked up only when at most this share of the documents hold it (or at
#: most SYNONYM_FEW of them): a common one says little about what was asked and costs the
#: most to rank, its posting list being long (at 100k records, all of them cost 7 ms of p50
#: and doubled p95; the real-lesson queries lose nothing down to 5%).
SYNONYM_MAX_SHARE = 0.05
SYNONYM_FEW = 100


def synonyms_for(index: Index, query: Query, asked: list[str], counted: tuple[dict[int, int], int]) -> list[str]:
    """The synonyms to look up for a query: those of its words that are not in most
    documents (a common word's synonyms are as common and say as little), themselves
    held by few (`_rare`). None for a query cut to its rarest words (`recall`: a failed
    command's output, where precision and speed come first)."""
    if query.rarest is not None:
        return []
    freq, total = counted
    return rare(index, related_words([w for i, w in enumerate(asked) if freq[i] <= total / 2]))


def rare(index: Index, words: list[str]) -> list[str]:
    """The words held by some documents, but not by many (SYNONYM_MAX_SHARE)."""
    if not words:
        return []
    freq, total = lookups.term_frequencies(index, words)
    most = max(total * SYNONYM_MAX_SHARE, SYNONYM_FEW)
    return [w for i, w in enumerate(words) if 0 < freq[i] <= most]


#: A name in the query (an identifier, or a capitalized word past the first) that at most
#: this share of the documents hold (or one) carries the query: the documents holding it
#: come first, in keyword and hybrid search (the keyword side wins). An embedding ranks by
#: the names in a text as much as by what it says; a name most documents hold (the two
#: people of a conversation) carries nothing.
NAME_MAX_SHARE = 0.05


def carrying_names(index: Index, query: Query, total: int) -> list[re.Pattern[str]]:
    """How to see, in a document's text, each name that carries the query (`total`: how
    many documents there are). None for a query cut to its rarest words (`recall`: a
    failed command's output is full of paths and flags, each a count to run, and its
    rarest words are its names already)."""
    if query.rarest is not None:
        return []
    out = []
    most = max(1, int(total * NAME_MAX_SHARE))
    for name in query_names(query.text):
        words = WORD.findall(name.casefold())
        if not words:
            continue
        held = lookups.count_matches(index, '"' + " ".join(words) + '"', filters_of(query), most + 1)
        if 0 < held <= most:
            out.append(re.compile(r"(?<![^\W_])" + r"[\W_]*".join(map(re.escape, words)) + r"(?![^\W_])", re.I))
    return out


def named_first(hits: list[Hit], carrying: list[re.Pattern[str]]) -> list[Hit]:
    """Hits holding more of the carrying names first; by score among equals."""
    return sorted(hits, key=lambda h: (-sum(1 for p in carrying if p.search(h.text)), -h.score))


#: How much a match on a synonym of the query's words counts against a match on the words
#: themselves (notebook/search/vocabulary.py). Chosen on the "fit" half of the real-lesson queries
#: (tests/fixtures/retrieval_corpus; 0.3, 0.5, 0.7, 1.0 tried), reported on the other.
SYNONYM_WEIGHT = 0.5


def fused(first: dict[Any, float], second: dict[Any, float], weight: float) -> dict[Any, float]:
    """Two BM25 rankings (lower is better) on one scale: each relative to its own best
    match, the second weighted; the result is lower-is-better too."""
    out: dict[Any, float] = {}
    for ranks, w in ((first, 1.0), (second, weight)):
        best = min(ranks.values(), default=0.0)
        for key, value in ranks.items():
            out[key] = out.get(key, 0.0) - w * (value / best if best else 0.0)
    return out


def rescored(
    hits: list[Hit], frequencies: list[tuple[tuple[int, ...], int] | None], text: str, today: dt.date
) -> list[Hit]:
    """Hits scored by one BM25: document frequencies summed over every root's index, term
    counts from the index's own tokenizer, then the same boosts as `_hit`."""
    import sqlite3

    words = query_words(text)
    df = [0] * len(words)
    total = 0
    for counted in frequencies:
        if counted is not None:
            df = [a + (counted[0][i] if i < len(counted[0]) else 0) for i, a in enumerate(df)]
            total += counted[1]
    db = sqlite3.connect(":memory:")
    try:
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", [(-1 - i, w) for i, w in enumerate(words)])
        db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", [(i, h.text) for i, h in enumerate(hits)])
        counts: dict[int, dict[str, int]] = {}
        for term, doc in db.execute("SELECT term, doc FROM v"):
            counts.setdefault(doc, {}).setdefault(term, 0)
            counts[doc][term] += 1
    finally:
        db.close()
    stems = [set(counts.get(-1 - i, {})) for i in range(len(words))]
    lengths = [sum(counts.get(i, {}).values()) for i in range(len(hits))]
    avg = sum(lengths) / len(lengths) or 1.0
    out = []
    for i, hit in enumerate(hits):
        tf_of = counts.get(i, {})
        score = 0.0
        for w, terms in enumerate(stems):
            tf = max((tf_of.get(t, 0) for t in terms), default=0)
            if tf:
                idf = math.log(1 + (total - df[w] + 0.5) / (df[w] + 0.5))
                score += idf * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * lengths[i] / avg))
        out.append(replace(hit, score=score * boost(hit.date, hit.successes, hit.trials, today)))
    return out


def boost(date: str | None, successes: int | None, trials: int | None, today: dt.date) -> float:
    """What a hit's score is multiplied by: a little for recency, a little for an event's success rate."""
    try:
        age = max((today - dt.date.fromisoformat(date or "")).days, 0)
    except (TypeError, ValueError):
        age = 10_000
    boost = 1 + 0.15 * math.pow(0.5, age / HALF_LIFE_DAYS)
    if trials:
        boost += 0.2 * (((successes or 0) + 1) / (trials + 2) - 0.5)
    return boost


def hit_of(row: tuple[Any, ...], today: dt.date) -> Hit:
    eid, role, section, status, op, date, text, count, tags, rank, successes, trials, data = row
    factor = boost(date, successes, trials, today)
    return Hit(
        eid,
        role,
        section or "",
        status,
        op,
        date or "",
        text or "",
        count or 1,
        tuple((tags or "").split()),
        -rank * factor,
        successes,
        trials,
        json.loads(data) if data else None,
    )
