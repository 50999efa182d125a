"""Keyword search over everything a root remembers (DESIGN.md section 5).

Before each query the index is brought up to the canonical files (archives by offset,
notebooks by signature). Any text is a valid query: it is cut into words and each word
is quoted, so FTS5 syntax in it (quotes, NEAR, *, -, parentheses) is only text. Ranking
is BM25, then small boosts for recency and for a logged event's success rate.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import InputError, RolebookError
from ..store import TOKENIZER, Index, Layout, rebuilt_on_failure, refresh
from . import lookups
from .lookups import Filters, filters
from .vocabulary import query_names, related_words, synonyms

MAX_QUERY_CHARS = 1000
COUNT_CAP = 1000
STATUSES = ("active", "archived", "promoted", "obsolete", "rule", "all")
MODES = ("keyword", "semantic", "hybrid")

# Words too common to say what a query is about; dropped unless nothing else is left.
_STOP = frozenset(
    "a an and are as at be been but by can could do does for from had has have how i if in into is "
    "it its me my of on or our so than that the their them then there these they this to was we were "
    "what when where which while who why will with would you your".split()
)
_WORD = re.compile(r"\w+")
_HALF_LIFE_DAYS = 180


@dataclass(frozen=True, slots=True)
class Query:
    """A search: words, filters, and how many hits at most. Empty filters match all."""

    text: str
    roles: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()  # empty: everything but obsolete
    since: str | None = None
    until: str | None = None
    limit: int = 5
    skip_active_of: str | None = None  # a role whose notebook the reader already has
    rarest: int | None = None  # match on only this many of the query's rarest words
    mode: str | None = "keyword"  # keyword, semantic or hybrid; None: hybrid when the extra loads


@dataclass(frozen=True, slots=True)
class Hit:
    """One remembered item that matched."""

    id: str
    role: str
    section: str
    status: str
    op: str
    date: str
    text: str
    count: int
    tags: tuple[str, ...]
    score: float
    successes: int | None = None
    trials: int | None = None
    record: dict[str, Any] | None = None
    origin: str = ""  # the shared root it came from ("": this root)

    def line(self) -> str:
        """`[date] role/section: text (xN) #id`, on one line, with no character that a
        terminal or a reader would act on (hand-written text can hold escapes)."""
        text = _shown(" ".join(self.text.split()))
        if self.count > 1:
            text += f" (x{self.count})"
        if self.trials:
            text += f" ({self.successes}/{self.trials} worked)"
        status = "" if self.status in ("active", "archived") else f" [{self.status}]"
        where = f"{self.origin}:" if self.origin else ""
        return f"[{self.date}] {where}{self.role}/{self.section}: {text}{status} #{self.id}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "role": self.role,
            "section": self.section,
            "status": self.status,
            "op": self.op,
            "date": self.date,
            "text": self.text,
            "count": self.count,
            "tags": list(self.tags),
            "score": round(self.score, 4),
        }
        if self.trials:
            out["successes"], out["trials"] = self.successes, self.trials
        if self.origin:
            out["origin"] = self.origin
        if self.record:
            out["record"] = self.record
        return out


_ACTIVE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u2028\u2029\u061c]")


def _shown(text: str) -> str:
    """Text with control, escape and invisible characters written as `\\uXXXX`."""
    return _ACTIVE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: tuple[Hit, ...]
    total: int
    warnings: tuple[str, ...] = field(default=())
    # keyword search: how many documents hold each of the query's words, and how many
    # documents there are (what ranking several roots on one scale needs)
    frequencies: tuple[tuple[int, ...], int] | None = None


def check_query(text: str) -> tuple[str, str | None]:
    """The query to run, cut to MAX_QUERY_CHARS, and a warning when it was cut.

    Raises:
        InputError: an empty query.
    """
    if not text.strip():
        raise InputError('the query is empty: say what to look for, e.g. rolebook search "npm EACCES"')
    if len(text) <= MAX_QUERY_CHARS:
        return text, None
    cut = text[:MAX_QUERY_CHARS]
    if text[MAX_QUERY_CHARS].isalnum() and " " in cut:
        cut = cut.rsplit(" ", 1)[0]  # not in the middle of a word
    return cut, f"the query was cut to its first {len(cut)} of {len(text)} characters"


def fts_expression(words: list[str]) -> str:
    """An FTS5 expression matching any of these words, each quoted: whatever a word
    holds, FTS5 reads it as text, never as its syntax."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def query_words(text: str) -> list[str]:
    """The words of a query that say what it is about (all of them if only stop words)."""
    words = list(dict.fromkeys(w.casefold() for w in _WORD.findall(text)))
    return ([w for w in words if w not in _STOP] or words)[:64]


def _telling_words(
    index: Index, words: list[str], rarest: int | None = None, counted: tuple[dict[int, int], int] | None = None
) -> tuple[list[str], bool]:
    """The words worth matching: those in at most half the documents (the rarest if none).

    A word in most documents adds next to nothing to BM25 but makes every one of them a
    match to score; the index's own tokenizer stems the words to look them up. The flag
    says that only such common words were left (BM25 cannot rank by them).
    """
    freq, total = counted or lookups.term_frequencies(index, words)
    kept = [w for i, w in enumerate(words) if 0 < freq[i] <= total / 2]
    if rarest is not None:
        kept = sorted(kept, key=lambda w: freq[words.index(w)])[:rarest]
    if not kept:
        present = [i for i in range(len(words)) if freq[i] > 0]
        return ([words[min(present, key=lambda i: freq[i])]] if present else []), True
    return kept, False


#: A synonym is looked up only when at most this share of the documents hold it (or at
#: most SYNONYM_FEW of them): a common one says little about what was asked and costs the
#: most to rank, its posting list being long (at 100k records, all of them cost 7 ms of p50
#: and doubled p95; the real-lesson queries lose nothing down to 5%).
SYNONYM_MAX_SHARE = 0.05
SYNONYM_FEW = 100


def _synonyms_of(index: Index, query: Query, asked: list[str], counted: tuple[dict[int, int], int]) -> list[str]:
    """The synonyms to look up for a query: those of its words that are not in most
    documents (a common word's synonyms are as common and say as little), themselves
    held by few (`_rare`). None for a query cut to its rarest words (`recall`: a failed
    command's output, where precision and speed come first)."""
    if query.rarest is not None:
        return []
    freq, total = counted
    return _rare(index, related_words([w for i, w in enumerate(asked) if freq[i] <= total / 2]))


def _rare(index: Index, words: list[str]) -> list[str]:
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


def _carrying_names(index: Index, query: Query, total: int) -> list[re.Pattern[str]]:
    """How to see, in a document's text, each name that carries the query (`total`: how
    many documents there are). None for a query cut to its rarest words (`recall`: a
    failed command's output is full of paths and flags, each a count to run, and its
    rarest words are its names already)."""
    if query.rarest is not None:
        return []
    out = []
    most = max(1, int(total * NAME_MAX_SHARE))
    for name in query_names(query.text):
        words = _WORD.findall(name.casefold())
        if not words:
            continue
        held = lookups.count_matches(index, '"' + " ".join(words) + '"', _filters(query), most + 1)
        if 0 < held <= most:
            out.append(re.compile(r"(?<![^\W_])" + r"[\W_]*".join(map(re.escape, words)) + r"(?![^\W_])", re.I))
    return out


def _named_first(hits: list[Hit], carrying: list[re.Pattern[str]]) -> list[Hit]:
    """Hits holding more of the carrying names first; by score among equals."""
    return sorted(hits, key=lambda h: (-sum(1 for p in carrying if p.search(h.text)), -h.score))


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
        hits = _rescored(hits, [found.frequencies for _, _, found in results], query.text, today or dt.date.today())
    hits.sort(key=lambda h: (-h.score, h.origin != "", h.origin))
    total = min(sum(found.total for _, _, found in results) - (len(every) - len(hits)), COUNT_CAP)
    return SearchResult(tuple(hits[: query.limit]), total, tuple(dict.fromkeys(warnings)))


_K1, _B = 1.2, 0.75


def _rescored(
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
        out.append(replace(hit, score=score * _boost(hit.date, hit.successes, hit.trials, today)))
    return out


def _search(layout: Layout, query: Query, today: dt.date | None, model: str | None) -> SearchResult:
    mode = query.mode
    if mode is not None and mode not in MODES:
        raise InputError(f"unknown search mode {mode!r} (one of: {', '.join(MODES)})")
    if mode != "keyword":
        from . import semantic

        loaded = semantic.load(model, asked=mode is not None) if (mode or semantic.available()) else None
        if loaded is not None:
            return _search_meaning(layout, query, loaded, mode or "hybrid", today or dt.date.today())
    with Index(layout) as index:
        warnings = refresh(layout, index)
        asked = query_words(query.text)
        counted = lookups.term_frequencies(index, asked)
        frequencies = (tuple(counted[0][i] for i in range(len(asked))), counted[1])
        words, common = _telling_words(index, asked, query.rarest, counted)
        # the other words for the same things, ranked apart and weighted below the words
        # asked; not when only words in most documents matched (nothing to rank by)
        related = [] if common and words else _synonyms_of(index, query, asked, counted)
        if not words and not related:
            return SearchResult((), 0, tuple(warnings), frequencies)
        expression = fts_expression(words) if words else None
        also = fts_expression(related) if related else None
        where = _filters(query)
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
        carrying = _carrying_names(index, query, counted[1])
    today = today or dt.date.today()
    hits = _named_first([_hit((*row[1:10], rank[row[0]], *row[10:]), today) for row in rows], carrying)
    return SearchResult(tuple(hits[: query.limit]), total, tuple(warnings), frequencies)


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


def _search_meaning(layout: Layout, query: Query, model: Any, mode: str, today: dt.date) -> SearchResult:
    import numpy as np

    from .semantic import Vectors

    with Index(layout) as index:
        warnings = refresh(layout, index)
        vectors = Vectors(layout.vectors, model)
        embed_new(index, vectors)
        ids = vectors.ids()
        sims = vectors.matrix() @ model.encode([query.text])[0] if ids else np.zeros(0, dtype=np.float32)
        keyword: dict[str, float] = {}
        if mode == "hybrid":
            asked = query_words(query.text)
            counted = lookups.term_frequencies(index, asked)
            words, common = _telling_words(index, asked, query.rarest, counted)
            if words and not common:
                n = max(query.limit * 10, 100)
                related = _synonyms_of(index, query, asked, counted)
                found = [lookups.ranked_texts(index, fts_expression(w), n) if w else [] for w in (words, related)]
                texts = {did: text for ranked in found for did, text, _ in ranked}
                own, more = ({did: b for did, _, b in ranked} for ranked in found)
                both = fused(own, more, SYNONYM_WEIGHT)
                best = min(both.values(), default=0.0)
                for did, b in both.items():
                    keyword[did] = (b / best if best else 0.0) * _coverage(words, texts[did]) ** COVERAGE_POWER
        where = _filters(query)
        carrying = _carrying_names(index, query, counted[1]) if mode == "hybrid" else []
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
        hits.append(_hit((*row[:9], -score, *row[9:]), today))
        if cos >= SEMANTIC_FLOOR or row[0] in keyword:
            matched.add(row[0])
    if not matched:  # nothing near enough: "no match", not the least unrelated documents
        return SearchResult((), 0, tuple(warnings))
    # past the floor, the best `limit` are shown even where their cosine is below it
    shown = _named_first(hits, carrying)[: query.limit]
    return SearchResult(tuple(shown), min(max(len(matched), len(shown)), COUNT_CAP), tuple(warnings))


def _coverage(words: list[str], text: str) -> float:
    """The share of the query's telling words the text holds, itself or a synonym of it
    (a light prefix stemming)."""
    held = {w.casefold()[:5] for w in _WORD.findall(text)}
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


def candidates(index: Index, role: str, section: str, text: str, limit: int = 20) -> list[tuple[str, str, str, int]]:
    """(id, date, text, count) of a role's items in one section that share telling words with
    `text`, best first: where recurrence looks for earlier occurrences."""
    words, _ = _telling_words(index, query_words(text))
    if not words:
        return []
    return lookups.similar(index, role, section, fts_expression(words), limit)


def _filters(query: Query) -> Filters:
    return filters(
        query.roles, query.sections, query.tags, query.statuses, query.since, query.until, query.skip_active_of
    )


def _boost(date: str | None, successes: int | None, trials: int | None, today: dt.date) -> float:
    """What a hit's score is multiplied by: a little for recency, a little for an event's success rate."""
    try:
        age = max((today - dt.date.fromisoformat(date or "")).days, 0)
    except (TypeError, ValueError):
        age = 10_000
    boost = 1 + 0.15 * math.pow(0.5, age / _HALF_LIFE_DAYS)
    if trials:
        boost += 0.2 * (((successes or 0) + 1) / (trials + 2) - 0.5)
    return boost


def _hit(row: tuple[Any, ...], today: dt.date) -> Hit:
    eid, role, section, status, op, date, text, count, tags, rank, successes, trials, data = row
    boost = _boost(date, successes, trials, today)
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
        -rank * boost,
        successes,
        trials,
        json.loads(data) if data else None,
    )


def render_hits(result: SearchResult, budget: int) -> list[str]:
    """Hit lines within `budget` tokens (characters / 4), then a line saying what was cut."""
    room = budget * 4
    lines: list[str] = []
    for hit in result.hits:
        line = hit.line()
        if len(line) + 1 > room:
            if not lines and room > 40:  # one hit longer than the whole budget: cut its text
                lines.append(line[: room - 2] + "…")
            break
        lines.append(line)
        room -= len(line) + 1
    if len(lines) < result.total:
        total = f"{COUNT_CAP}+" if result.total >= COUNT_CAP else str(result.total)
        lines.append(f"{len(lines)} of {total} hits shown; refine the query or raise --limit/--budget")
    return lines
