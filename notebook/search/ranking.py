"""Ranking: BM25 as FTS5 computes it, over a bounded set of candidates, and what this
layer adds to it: the other words for the query's words (weighted below them), the
identifiers that name what a query is about, small boosts for recency and success rate,
and one BM25 scale over several roots' hits.

FTS5's own `ORDER BY bm25` scores every document that holds any of the query's words
(176 ms at a million records). Here the candidates are read from the posting lists, a
bounded number per word, newest first (all of them when the lists are short: then the
ranking is exactly BM25's), and only the likeliest are scored, in Python, with FTS5's
formula and the index's own terms (`stemmer`).

Every constant here was chosen on the "fit" half of a labelled query set and is reported
on the other half (tests/bench/bench_retrieval_heldout.py).
"""

from __future__ import annotations

import datetime as dt
import heapq
import json
import math
from dataclasses import dataclass, replace
from typing import Any

from ..store import Index
from . import lookups
from .query import STOP_WORDS, Query, filters_of, fts_expression, query_words, telling_words
from .render import COUNT_CAP, Hit
from .stemmer import terms
from .vocabulary import query_names, synonyms

HALF_LIFE_DAYS = 180
_K1, _B = 1.2, 0.75  # BM25's own, as FTS5 has them
#: how much a word counts in each of the index's columns: the text, and what a document is
#: found by besides (section, tags, context, identifier parts)
COLUMN_WEIGHTS = (1.0, 0.4)

#: A synonym is looked up only when at most this share of the documents hold it (or at
#: most SYNONYM_FEW of them): a common one says little about what was asked and costs the
#: most to rank, its posting list being long.
SYNONYM_MAX_SHARE = 0.05
SYNONYM_FEW = 100
#: What a match on another word for a query word (notebook/search/vocabulary.json) counts
#: against a match on the word itself; a document is credited with the better of the two,
#: never both. Chosen on the "fit" halves of tests/fixtures/retrieval_heldout and
#: tests/fixtures/retrieval_corpus (added or the better of, weights 0.2-1.0 tried).
SYNONYM_WEIGHT = 0.7
#: A document holding an identifier the query names (`vocabulary.query_names`), one that at
#: most NAME_MAX_SHARE of the documents hold, has its score multiplied by NAME_BOOST for
#: each (1.1, 1.3, 1.6, 2.0 tried on the fit halves). A boost, not a rank of its own: a
#: name that sorted its holders first pushed better answers out.
NAME_BOOST = 1.3
NAME_MAX_SHARE = 0.05
#: Candidates: at most this many documents a word, newest first, from its posting list
#: (a word held by fewer gives all of them), and this many of those scored, the ones that
#: hold the rarest of the query's words first. Where nothing was cut, the ranking is BM25's.
PER_WORD = 1000
SCORED = 200


@dataclass(frozen=True, slots=True)
class Term:
    """One thing a document is matched on: a query word, or another word for it (its
    `group` is the query word's position, its `weight` below 1), as the index's terms."""

    word: str
    terms: tuple[str, ...]
    documents: int
    group: int
    weight: float = 1.0
    matches: bool = True  # False: a stop word, which ranks the documents others match

    def idf(self, total: int) -> float:
        """FTS5's inverse document frequency (never below a millionth)."""
        return max(math.log((total - self.documents + 0.5) / (self.documents + 0.5)), 1e-6)


@dataclass(frozen=True, slots=True)
class Ranked:
    """Candidates scored by BM25, best first, and whether any posting list was cut."""

    scores: list[tuple[int, float]]
    cut: bool


def query_terms(query: Query, words: list[str], sample: Sample, common: bool) -> list[Term]:
    """The terms a search matches on: its telling `words`, then (unless the query is cut to
    its rarest words, `recall`, or only common words are left) the other words for each of
    its words that most documents do not hold, itself held by few (SYNONYM_MAX_SHARE)."""
    asked = query_words(query.text)
    own = [Term(w, terms(w), sample.documents(terms(w)), asked.index(w)) for w in words]
    if query.rarest is not None or (common and words):
        return own
    related: dict[str, list[int]] = {}
    for i, word in enumerate(asked):
        if sample.documents(terms(word)) <= sample.total / 2:
            for other in sorted(synonyms(word) - set(asked)):
                if len(terms(other)) == 1:
                    related.setdefault(other, []).append(i)
    sample.read([terms(w) for w in related])
    most = max(sample.total * SYNONYM_MAX_SHARE, SYNONYM_FEW)
    out = list(own)
    for word, groups in related.items():
        held = sample.documents(terms(word))
        if 0 < held <= most:
            out += [Term(word, terms(word), held, g, SYNONYM_WEIGHT) for g in groups]
    return out


class Sample:
    """The newest documents holding each of some terms (PER_WORD x `scale` at most, read
    from the posting lists in rowid order), and from them how many documents hold each:
    exactly below that, estimated past it from how far back the newest ones reach."""

    def __init__(self, index: Index, scale: int = 1):
        self.index = index
        self.limit = PER_WORD * scale
        self.total, self.avg = lookups.sizes(index)
        self.top = lookups.top_rowid(index)
        self.rows: dict[tuple[str, ...], list[int]] = {}

    def read(self, splits: list[tuple[str, ...]]) -> None:
        """Read the newest documents of each term (or phrase) not read yet."""
        for split in splits:
            if split and split not in self.rows:
                self.rows[split] = lookups.postings(self.index, _expression(split), self.limit)

    def documents(self, split: tuple[str, ...]) -> int:
        """How many documents hold a term or phrase (read first)."""
        rows = self.rows.get(split, [])
        if len(rows) < self.limit:
            return len(rows)
        return min(self.total, round(self.limit * self.top / max(self.top - rows[-1] + 1, 1)))

    def cut(self, split: tuple[str, ...]) -> bool:
        return len(self.rows.get(split, [])) >= self.limit


Frequencies = tuple[tuple[int, ...], int]


@dataclass(frozen=True, slots=True)
class Keywords:
    """A keyword search, planned: the terms it matches on, the names that carry it, how
    many documents match (up to COUNT_CAP) and how many hold each of its words."""

    sample: Sample
    matched: list[Term]
    names: list[tuple[str, ...]]
    total: int
    frequencies: Frequencies

    def ranked(self, scale: int = 1) -> Ranked:
        """The candidates scored, best first (`scale`: how much wider than the default)."""
        sample = self.sample if scale == 1 else Sample(self.sample.index, scale)
        return rank(sample, self.matched, self.names)

    def words(self) -> list[str]:
        """The query's own words matched on (not their other words)."""
        return [t.word for t in self.matched if t.weight == 1.0 and t.matches]


def keyword_search(index: Index, query: Query) -> Keywords | None:
    """A keyword search of the index, planned; None when no document holds any of its words.

    A document matches on the query's words that say what it is about (and their other
    words); the stop words among its words do not make a match, but rank the matches as
    BM25 weighs them: on the "fit" half of tests/fixtures/retrieval_heldout, without them
    recall@5 / MRR on its low-overlap slice 0.40 / 0.26 fell to 0.36 / 0.21.
    """
    asked = query_words(query.text)
    sample = Sample(index)
    sample.read([terms(w) for w in asked])
    counted = ({i: sample.documents(terms(w)) for i, w in enumerate(asked)}, sample.total)
    frequencies = (tuple(counted[0][i] for i in range(len(asked))), counted[1])
    words, common = telling_words(index, asked, query.rarest, counted)
    # the other words for the same things, weighted below the words asked; not when only
    # words in most documents matched (nothing to rank by)
    matched = query_terms(query, words, sample, common)
    if not matched:
        return None
    if query.rarest is None and not common:
        matched += stop_words(query, asked, sample)
    names = carrying_names(query, sample)
    # counting stops at COUNT_CAP: past that the exact number says nothing more
    expression = fts_expression(list(dict.fromkeys(" ".join(t.terms) for t in matched if t.matches)))
    total = lookups.count_matches(index, expression, filters_of(query), COUNT_CAP)
    return Keywords(sample, matched, names, total, frequencies)


def stop_words(query: Query, asked: list[str], sample: Sample) -> list[Term]:
    """The query's stop words that at most half the documents hold, as terms that rank
    but do not match (each a group of its own, after the query's other words)."""
    others = [w for w in query_words(query.text, stop_words=True) if w in STOP_WORDS and w not in asked]
    sample.read([terms(w) for w in others])
    return [
        Term(w, terms(w), sample.documents(terms(w)), len(asked) + i, matches=False)
        for i, w in enumerate(others)
        if 0 < sample.documents(terms(w)) <= sample.total / 2
    ]


def carrying_names(query: Query, sample: Sample) -> list[tuple[str, ...]]:
    """The identifiers a query names that few documents hold (at most NAME_MAX_SHARE),
    as the index's terms. None for a query cut to its rarest words (`recall`: a failed
    command's output is full of paths and flags, and its rarest words are its names)."""
    if query.rarest is not None:
        return []
    most = max(1, int(sample.total * NAME_MAX_SHARE))
    splits = [terms(name) for name in query_names(query.text)]
    sample.read(splits)
    return [split for split in splits if split and 0 < sample.documents(split) <= most]


def rank(sample: Sample, matched: list[Term], names: list[tuple[str, ...]]) -> Ranked:
    """The candidates for these terms, scored by BM25 (with the names' boost), best first.

    Each term's newest documents are read from its posting list (`Sample`; and, for words
    held by more, the newest documents holding all of them); of these, the SCORED x scale
    holding the most weight of rare words are scored in full (all of them when there are
    at most twice as many: a small index is ranked exactly).
    """
    distinct = list(dict.fromkeys(t.terms for t in matched if t.matches))
    sample.read(distinct)
    weights = [max(t.weight * t.idf(sample.total) for t in matched if t.terms == split) for split in distinct]
    held: dict[int, int] = {}  # rowid -> which terms it holds (bits)
    likely: dict[int, float] = {}  # rowid -> the weight of the terms it holds
    long = [k for k, split in enumerate(distinct) if sample.cut(split)]
    if len(long) > 1:  # the newest documents holding every long-listed word, not only one of them
        bits, weight = sum(1 << k for k in long), sum(weights[k] for k in long)
        both = " AND ".join(_expression(distinct[k]) for k in long)
        for rowid in lookups.postings(sample.index, both, sample.limit):
            held[rowid] = bits
            likely[rowid] = weight
    for k, split in enumerate(distinct):
        bit, weight = 1 << k, weights[k]
        for rowid in sample.rows[split]:
            had = held.get(rowid, 0)
            if not had & bit:
                held[rowid] = had | bit
                likely[rowid] = likely.get(rowid, 0.0) + weight
    most = SCORED * sample.limit // PER_WORD
    cut = bool(long)
    if len(likely) > 2 * most:
        cut = True
        chosen = heapq.nlargest(most, likely, key=lambda r: (likely[r], r))
    else:
        chosen = list(likely)
    scores = bm25(lookups.texts_of(sample.index, chosen), matched, names, sample.total, sample.avg)
    return Ranked(sorted(scores.items(), key=lambda item: (-item[1], -item[0])), cut)


def _expression(split: tuple[str, ...]) -> str:
    return fts_expression([" ".join(split)])


def bm25(
    texts: dict[Any, tuple[str, str]], matched: list[Term], names: list[tuple[str, ...]], total: int, avg: float
) -> dict[Any, float]:
    """BM25 of each document (key -> (text, search)) as FTS5 computes it, except that each
    query word counts once: by itself or by its best other word, weighted. A document
    holding a carrying name has its score multiplied by NAME_BOOST for each."""
    distinct = list(dict.fromkeys(t.terms for t in matched))
    weighed: dict[int, list[tuple[int, float]]] = {}  # a distinct term -> (group, weight x idf) of each use
    for t in matched:
        weighed.setdefault(distinct.index(t.terms), []).append((t.group, t.weight * t.idf(total)))
    single: dict[str, list[int]] = {}
    phrases = []
    for k, split in enumerate(distinct):
        if len(split) == 1:
            single.setdefault(split[0], []).append(k)
        else:
            phrases.append((k, split))
    wanted = {w for split in (*distinct, *names) for w in split}
    out = {}
    for key, (text, search) in texts.items():
        columns = (terms(text), terms(search))
        found: tuple[dict[str, int], dict[str, int]] = ({}, {})  # per column: each wanted term's count
        for held, words in zip(found, columns, strict=True):
            for w in words:
                if w in wanted:
                    held[w] = held.get(w, 0) + 1
        if not found[0] and not found[1]:
            continue
        tfs: dict[int, float] = {}
        for weight, held in zip(COLUMN_WEIGHTS, found, strict=True):
            for w, n in held.items():
                for k in single.get(w, ()):
                    tfs[k] = tfs.get(k, 0.0) + weight * n
        for k, split in phrases:
            tf = _tf(split, columns, found)
            if tf:
                tfs[k] = tf
        norm = _K1 * (1 - _B + _B * (len(columns[0]) + len(columns[1])) / avg)
        best: dict[int, float] = {}
        for k, tf in tfs.items():
            part = tf * (_K1 + 1) / (tf + norm)
            for group, weight in weighed[k]:
                if weight * part > best.get(group, 0.0):
                    best[group] = weight * part
        score = sum(best.values())
        for name in names:
            if _tf(name, columns, found):
                score *= NAME_BOOST
        if score > 0:
            out[key] = score
    return out


def _tf(split: tuple[str, ...], columns: tuple[tuple[str, ...], ...], found: tuple[dict[str, int], ...]) -> float:
    """A term's (or phrase's) frequency in a document, each column weighted."""
    tf = 0.0
    for weight, words, held in zip(COLUMN_WEIGHTS, columns, found, strict=True):
        if len(split) == 1:
            tf += weight * held.get(split[0], 0)
        elif all(t in held for t in split):
            tf += weight * _occurrences(split, words)
    return tf


def _occurrences(phrase: tuple[str, ...], words: tuple[str, ...]) -> int:
    """How often the phrase (terms in a row) occurs in the terms."""
    n = len(phrase)
    return sum(1 for i, w in enumerate(words) if w == phrase[0] and words[i : i + n] == phrase)


def rescored(
    hits: list[Hit], frequencies: list[tuple[tuple[int, ...], int] | None], query: Query, today: dt.date
) -> list[Hit]:
    """Hits scored by one BM25: document frequencies summed over every root's index, term
    counts from the index's own terms, then the same boosts as `hit_of`."""
    words = query_words(query.text)
    df = [0] * len(words)
    total = 0
    for counted in frequencies:
        if counted is not None:
            df = [a + (counted[0][i] if i < len(counted[0]) else 0) for i, a in enumerate(df)]
            total += counted[1]
    matched = [Term(w, terms(w), df[i], i) for i, w in enumerate(words) if 0 < df[i] <= total / 2]
    texts = {i: (h.text, "") for i, h in enumerate(hits)}
    avg = sum(len(terms(h.text)) for h in hits) / len(hits) if hits else 1.0
    scores = bm25(texts, matched, [], total, avg or 1.0)
    return [
        replace(h, score=scores.get(i, 0.0) * boost(h.date, h.successes, h.trials, today)) for i, h in enumerate(hits)
    ]


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
    """A hit from an index row (`lookups.hit_rows`, its key dropped) and its score before boosts."""
    eid, role, section, status, op, date, text, count, tags, score, successes, trials, data = row
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
        score * boost(date, successes, trials, today),
        successes,
        trials,
        json.loads(data) if data else None,
    )
