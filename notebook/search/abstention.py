"""Which remembered lesson is sure to be about a failed command; otherwise none.

The recall hook shows a lesson unasked, so it shows one only when the failure's signal
(`failure.py`) and the lesson share enough that is rare in the memory: words, pairs of
words side by side, an error code; a lesson that cites another code of the same kind
is about another problem. A word weighs by how few documents hold it, counted, not
relative to the memory's size: a word two lessons hold points at those two whether the
memory has 300 documents or 100,000.

Every constant below was fitted on labelled real failures of three hands (the fit half of
tests/fixtures/failures/a, all of b, the fit half of c) and is reported on the held-out
halves of a and c (`python tests/bench/bench_recall.py --fit` sweeps them; the variants
tried and their figures are in that script's docstring). Fitted on one hand's failures
alone, the decision lost 10-20 points of precision and silence on another's.

The exit code is evidence too, where a lesson states it for the failing tool ("grep exits
1", "curl exit 7"): an empty output says nothing else.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from ..store import Index, Layout, rebuilt_on_failure, refresh
from . import lookups
from .failure import Failure, exit_mentions, name_parts, task_of
from .query import Query, fts_expression
from .ranking import hit_of
from .render import Hit, SearchResult
from .stemmer import terms as index_terms

#: a word held by d documents weighs 1 / (1 + WEIGHT_SLOPE * ln d); a pair side by side the same
WEIGHT_SLOPE = 0.5
#: a shared word or pair adds its weight to this power: one rare word outweighs several common ones
POWER = 1.0
#: the failing command's own words (tool, action) count this much more than the output's
COMMAND_WEIGHT = 1.5
#: a pair of words side by side counts this much more than one word held by as many
#: documents: a phrase of the failure's message is surer evidence than its words apart
PAIR_WEIGHT = 2.0
#: an error code (EACCES, TS2307, E0502) the lesson cites too, or the exit code it states
#: for the failing tool; an error code it cites instead
CODE_BONUS = 4.0
OTHER_CODE = -2.0
#: how much the best lesson's lead over the next counts towards its strength
MARGIN_WEIGHT = 0.5
#: the strength a lesson needs to be shown
THRESHOLD = 6.1
#: a second lesson is shown when it is strong too and at least this share of the first; the
#: fit chose none (a share above 1): one lesson at most
SECOND_SHARE = 2.0
MAX_SHOWN = 2
#: With the semantic extra's model lent by the session's MCP server (agents/meaning.py),
#: MEANING_WEIGHT x the cosine between the failure's gist and the lesson adds to the
#: strength, and MEANING_NEEDED is the strength a lesson needs; the other constants as
#: above. Fitted as they were, on the three hands' fit rows (`bench_recall.py
#: --fit-meaning`): of the weights tried, 15 has the best hit + precision + silence there
#: (weight 5 a hit higher by one failure of 221, precision 4 points lower).
MEANING_WEIGHT = 15.0
MEANING_NEEDED = 15.2
#: `read --task`: the keyword strength a task hit needs to be marked strong (a task is
#: short: fewer words to share), or the score by meaning (hybrid or semantic) it needs
#: instead. Fitted on the fit queries of tests/fixtures/retrieval_heldout
#: asked with their answers in memory and with them taken out (tests/bench/bench_task.py).
TASK_THRESHOLD = 2.4
MEANING_THRESHOLD = 0.92
#: the lessons scored for a failure: the best by BM25 on its rarest words
CANDIDATES = 30
QUERY_WORDS = 16
#: a word held by more documents than this brings no candidates (it still counts for the
#: lessons the rarer words bring): FTS5 scores every document that holds a query word, and
#: what a thousand lessons share picks none of them out (at 100k records, a word every
#: lesson holds made `recall` 2.5 times slower)
QUERY_MAX_DOCS = 1000

_CODE = re.compile(r"(?<![\w-])(?:E[A-Z]{3,}[A-Z0-9_]*|ERR_[A-Z0-9_]+|[A-Z]{1,4}\d{3,5})(?![\w-])")
_STATUS = re.compile(r"(?<!\d)[45]\d\d(?!\d)")
#: English function words: a word like "such" or "no" sits in few short lessons by chance, and
#: its count then calls it rare ("No such file" is not "no such table"); contractions too
#: (the index cuts "doesn't" into "doesn" and "t")
_STOP = frozenset(
    "a about above after again against all am an and any are aren't as at be because been before "
    "being below between both but by can can't cannot could couldn't did didn't do does doesn't doing "
    "don't down during each few for from further had hadn't has hasn't have haven't having he her here "
    "hers herself him himself his how i if in into is isn't it its itself just me more most mustn't my "
    "myself no nor not now of off on once only or other ought our ours ourselves out over own same "
    "shan't she should shouldn't so some such than that the their them themselves then there these "
    "they this those through to too under until up very was wasn't we were weren't what when where "
    "which while who whom why will with won't would wouldn't you your yours yourself yourselves".split()
)


@dataclass(frozen=True, slots=True)
class Signal:
    """A failure as the index's terms: the command's stems, each key line's stems (stop
    words out), the error codes (casefolded), and a word to look each stem up by."""

    command: tuple[str, ...]
    lines: tuple[tuple[str, ...], ...]
    codes: frozenset[str]
    statuses: frozenset[str]
    spelled: dict[str, str]
    stop: frozenset[str]
    exits: frozenset[tuple[str, int]] = frozenset()

    def words(self) -> set[str]:
        return {t for t in (*self.command, *(t for line in self.lines for t in line)) if _telling(t)}

    def pairs(self) -> set[tuple[str, str]]:
        out = set(itertools.pairwise(self.command))
        for line in self.lines:
            out |= set(itertools.pairwise(line))
        return out


def _telling(term: str) -> bool:
    """A term worth matching: a word, or a number that is an HTTP-like status (404)."""
    return not term.isdigit() or bool(_STATUS.fullmatch(term))


_TOKEN = re.compile(r"[^\W_]+")  # what the index's tokenizer (unicode61) takes for a word


def signal(index: Index, failure: Failure) -> Signal:
    """The failure's words as the index stems them (`stemmer`, equal to its tokenizer)."""
    texts = [" ".join(failure.command)] + [f"{line} {name_parts(line)}" for line in failure.lines]
    *stemmed, stop_terms = [list(index_terms(t)) for t in [*texts, " ".join(sorted(_STOP))]]
    stop = frozenset(stop_terms)
    spelled: dict[str, str] = {}
    for text, terms in zip(texts, stemmed, strict=True):
        words = _TOKEN.findall(text.casefold())
        if len(words) == len(terms):  # the tokenizer's words, one for one: each term's spelling
            for word, term in zip(words, terms, strict=True):
                spelled.setdefault(term, word)
    sequences = [tuple(t for t in terms if t not in stop) for terms in stemmed]
    codes = frozenset(c.casefold() for c in failure.codes)
    statuses = frozenset(c[1:] for c in codes if re.fullmatch(r"e[45]\d\d", c))
    code = failure.exit_code
    exits = frozenset((w.casefold(), code) for w in failure.command) if code else frozenset()
    return Signal(sequences[0], tuple(sequences[1:]), codes, statuses, spelled, stop, exits)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A lesson that shares words with the failure: its hit, its terms and pairs, its codes."""

    hit: Hit
    terms: frozenset[str]
    pairs: frozenset[tuple[str, str]]
    codes: frozenset[str]
    statuses: frozenset[str]
    exits: frozenset[tuple[str, int]] = frozenset()


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a lesson shares with a failure: each shared term (how many documents hold it,
    and whether it is one of the command's words), each shared pair of words side by
    side (how many documents hold it), and the codes: 1 the same error code (or an HTTP
    status), -1 another code of the kind, 0 none."""

    hit: Hit
    terms: tuple[tuple[int, bool], ...]
    pairs: tuple[int, ...]
    code: int
    cosine: float = 0.0


@dataclass(frozen=True, slots=True)
class Decision:
    """The fitted constants of the decision (the module's defaults; the fit sweeps them)."""

    slope: float = WEIGHT_SLOPE
    power: float = POWER
    command: float = COMMAND_WEIGHT
    code: float = CODE_BONUS
    other: float = OTHER_CODE
    margin: float = MARGIN_WEIGHT
    threshold: float = THRESHOLD
    second: float = SECOND_SHARE
    shown: int = MAX_SHOWN
    pair: float = PAIR_WEIGHT
    meaning: float = 0.0

    def weight(self, count: int) -> float:
        """What a term or pair held by `count` documents weighs (0 when none holds it)."""
        return 1.0 / (1.0 + self.slope * math.log(count)) if count > 0 else 0.0

    def strength(self, e: Evidence) -> float:
        """How surely a lesson is about the failure (see the module docstring)."""
        score = 0.0
        for n, cmd in e.terms:
            score += (self.weight(n) * (self.command if cmd else 1.0)) ** self.power
        for n in e.pairs:
            score += self.pair * self.weight(n) ** self.power
        score += self.meaning * e.cosine
        return score + (self.code if e.code > 0 else self.other if e.code < 0 else 0.0)

    def decide(self, found: list[Evidence]) -> list[Hit]:
        """The lessons to show, best first: none unless the best is strong enough."""
        scored = sorted(((self.strength(e), e.hit) for e in found), key=lambda x: -x[0])
        if not scored:
            return []
        best = scored[0][0]
        lead = best - (scored[1][0] if len(scored) > 1 else 0.0)
        if best + self.margin * lead < self.threshold:
            return []
        shown = [replace(scored[0][1], score=best)]
        for score, hit in scored[1 : self.shown]:
            if score >= self.threshold and score >= self.second * best:
                shown.append(replace(hit, score=score))
        return shown


#: `read --task` keeps the decision's constants of when TASK_THRESHOLD was fitted (pairs
#: weighed as words, the code bonus 2): its queries are another set (bench_task.py)
TASK_DECISION = Decision(slope=1.0, command=1.5, code=2.0, other=0.0, margin=0.5, threshold=TASK_THRESHOLD, pair=1.0)


#: the decision when the failure's nearness to each lesson by meaning is known
MEANING_DECISION = Decision(meaning=MEANING_WEIGHT, threshold=MEANING_NEEDED)


def sure_hits(
    roots: list[tuple[str, Layout]],
    failure: Failure,
    roles: tuple[str, ...] = (),
    today: dt.date | None = None,
    nearness: Callable[[str, dict[str, str]], dict[str, float] | None] | None = None,
) -> SearchResult:
    """The lessons of these roots (the first is this one) sure to be about the failure,
    best first: usually none. A shared root that cannot be searched is a warning.
    `nearness(gist, {id: text})`: the cosine of the failure to each candidate lesson by
    meaning, or None (then keywords decide alone)."""
    found, warnings = evidence(roots, failure, roles, today)
    decision = Decision()
    if nearness is not None and found:
        cosines = nearness(failure.gist(), {e.hit.id: e.hit.text for e in found})
        if cosines is not None:
            found = [replace(e, cosine=cosines.get(e.hit.id, 0.0)) for e in found]
            decision = MEANING_DECISION
    shown = tuple(decision.decide(found))
    return SearchResult(shown, len(shown), warnings)


def task_hits(roots: list[tuple[str, Layout]], task: str, query: Query, model: str | None = None) -> SearchResult:
    """`read --task`: what `search` finds for the task, in the query's mode (None: hybrid
    when the semantic extra loads), in its order: the agent asked for these. The hits the
    decision is sure of are marked `strong` (the recall hook's keyword evidence past
    TASK_THRESHOLD, or a score by meaning past MEANING_THRESHOLD); the budget is the
    renderer's."""
    from . import semantic
    from .retrieval import search_roots

    found = search_roots(roots, query, model=model)
    if not found.hits:
        return found
    meaning = query.mode != "keyword" and semantic.available() and semantic.load(model) is not None
    sure, _ = evidence(roots, task_of(task), query.roles)
    strength = {e.hit.id: TASK_DECISION.strength(e) for e in sure}
    hits = tuple(
        replace(h, strong=strength.get(h.id, 0.0) >= TASK_THRESHOLD or (meaning and h.score >= MEANING_THRESHOLD))
        for h in found.hits
    )
    return SearchResult(hits, len(hits), found.warnings)


def evidence(
    roots: list[tuple[str, Layout]], failure: Failure, roles: tuple[str, ...] = (), today: dt.date | None = None
) -> tuple[list[Evidence], tuple[str, ...]]:
    """What each candidate lesson of these roots shares with the failure, counted over
    all the roots together; and the warnings (a shared root that could not be searched)."""
    today = today or dt.date.today()
    if not (failure.command or failure.lines):
        return [], ()
    warnings: list[str] = []
    sig: Signal | None = None
    counts: dict[str, int] = {}
    pair_counts: dict[tuple[str, str], int] = {}
    candidates: list[Candidate] = []
    for name, layout in roots:
        try:
            part = rebuilt_on_failure(layout, partial(_root, layout, failure, sig, roles, today))
        except Exception as exc:
            if not name:
                raise
            warnings.append(f"shared root {name!r} was not searched: {exc}")
            continue
        sig, root_counts, root_pairs, root_candidates, root_warnings = part
        warnings += [f"{name}: {w}" if name else w for w in root_warnings]
        for term, n in root_counts.items():
            counts[term] = counts.get(term, 0) + n
        for pair, n in root_pairs.items():
            pair_counts[pair] = pair_counts.get(pair, 0) + n
        seen = {c.hit.id for c in candidates}
        candidates += [replace(c, hit=replace(c.hit, origin=name)) for c in root_candidates if c.hit.id not in seen]
    if sig is None:
        return [], tuple(dict.fromkeys(warnings))
    words, pairs, command = sig.words(), sig.pairs(), set(sig.command)
    found = []
    for c in candidates:
        same = sig.codes & c.codes or sig.statuses & c.statuses or sig.exits & c.exits
        code = 1 if same else -1 if sig.codes and c.codes else 0
        terms = tuple((counts.get(t, 0), t in command) for t in sorted(words & c.terms))
        found.append(Evidence(c.hit, terms, tuple(pair_counts.get(p, 0) for p in sorted(pairs & c.pairs)), code))
    return found, tuple(dict.fromkeys(warnings))


def _root(
    layout: Layout, failure: Failure, sig: Signal | None, roles: tuple[str, ...], today: dt.date
) -> tuple[Signal, dict[str, int], dict[tuple[str, str], int], list[Candidate], list[str]]:
    """One root's part: the signal (made with the first root's index), how many of its
    documents hold each term and pair, and its candidate lessons."""
    with Index(layout, readers_only=True) as index:  # a search: works in a read-only checkout too
        warnings = refresh(layout, index)
        sig = sig or signal(index, failure)
        words = sorted(sig.words())
        counts = lookups.document_counts(index, words)
        held = sorted((w for w in words if 0 < counts.get(w, 0) <= QUERY_MAX_DOCS), key=lambda w: counts[w])
        held = held[:QUERY_WORDS]
        if not held:
            return sig, counts, {}, [], warnings
        ranked = lookups.ranked(index, fts_expression([sig.spelled.get(w, w) for w in held]), False, CANDIDATES)
        rows = lookups.hit_rows(index, "rowid", list(ranked), lookups.filters(roles=roles))
        texts = {r: f"{text} {other}" for r, (text, other) in lookups.texts_of(index, [row[0] for row in rows]).items()}
        stop = sig.stop
        stemmed = [list(index_terms(f"{texts[row[0]]} {name_parts(texts[row[0]])}")) for row in rows]
        candidates = []
        wanted = sig.pairs()
        pairs_seen: set[tuple[str, str]] = set()
        for row, terms in zip(rows, stemmed, strict=True):
            kept = [t for t in terms if t not in stop]
            pairs = frozenset(itertools.pairwise(kept)) & wanted
            pairs_seen |= pairs
            text = texts[row[0]]
            hit = hit_of((*row[1:10], ranked[row[0]], *row[10:]), today)
            codes = frozenset(c.casefold() for c in _CODE.findall(text))
            statuses = frozenset(_STATUS.findall(text))
            candidates.append(Candidate(hit, frozenset(kept), pairs, codes, statuses, exit_mentions(text)))
        # a pair is held by no more documents than either of its words: where one of them
        # is held by a single document, so is the pair (no need to ask)
        pair_counts = {
            p: 1
            if min(counts.get(p[0], 0), counts.get(p[1], 0)) <= 1
            else lookups.near_count(index, sig.spelled.get(p[0], p[0]), sig.spelled.get(p[1], p[1]), 64)
            for p in sorted(pairs_seen)
        }
    return sig, counts, pair_counts, candidates, warnings
