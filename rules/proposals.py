"""Possible recurrences: the earlier mistakes a new one looks like, for the writer to confirm.

Nothing tells "the same mistake in other words" from "another mistake in the same words"
well enough to merge on its own (keywords and MiniLM's cosine are both at chance on such
pairs), so `update` merges only a mistake written twice (`similarity.same_text`) and
otherwise names the likely earlier ones, best first, at most MAX_PROPOSED groups; the
writer confirms with `update --same-as ID`. The judgement here leans to recall: a
proposal costs the writer one look, a miss loses the count.

Keywords (`keyword_likeness`), or with the semantic extra (when the mode asks for
meaning) the cosine too. The floors are fitted on the "fit" half of
tests/fixtures/recurrence (pairs of real recurrences, against pairs of unrelated mistakes)
and reported on the held-out half by tests/bench/bench_recurrence.py (`--fit` prints
every variant tried). Where hundreds of earlier mistakes compete for the proposals, the
keywords put about half of the recurrences among them (the bench's "pairs in one archive").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from rolebook.notebook.errors import ModelError
from rolebook.notebook.store import Index

from . import ledger
from .grouping import groups_holding
from .ledger import Mistake
from .similarity import content_words, plain_words

MAX_PROPOSED = 3
#: A keyword likeness (`keyword_likeness`) at least this proposes. Fitted on the fit half
#: (`bench_recurrence.py --fit`): the most recurrences merged or proposed while a new mistake
#: among 10 unrelated earlier ones is shown at most 1 proposal on average (0.97; 16% of
#: unrelated pairs reach the floor). Fit 77% merged or proposed, held-out 79% (held-out
#: noise: 1.05 proposals for a new mistake among 10 unrelated ones, 16% of unrelated pairs);
#: the likeness before (light stemmer, whole words, 5% of unrelated pairs): 64% and 64%.
KEYWORD_FLOOR = 0.026
#: By keywords, a proposal after the best is shown only when its likeness is at least this
#: share of the best one's: fewer proposals shown for nearly the same recurrences among them.
RUNNER_UP = 0.5
#: The weight of the 4-letter pieces in `keyword_likeness` (the words: the rest).
PIECES = 0.3
#: With meaning, the score is the cosine of the whole texts (all-MiniLM-L6-v2) plus
#: MEANING_LIKENESS x the likeness of their words (`likeness`), and at least MEANING_FLOOR
#: proposes: at most 5% of unrelated fit pairs; fit 87% merged or proposed (held-out 88%).
#: Tried on the fit half as well: the cosine alone (85%), the best sentence's cosine (83%),
#: max(cosine, likeness) (85%); tests/bench/bench_recurrence.py --fit --semantic prints them all.
MEANING_LIKENESS = 0.5
MEANING_FLOOR = 0.272
_LOOKED_AT = 10  # the best-scoring earlier mistakes whose groups are read


@dataclass(frozen=True, slots=True)
class Proposal:
    """An earlier mistake a new one looks like: its id and text, the dates of its group."""

    id: str
    text: str
    dates: tuple[str, ...]
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "dates": list(self.dates), "score": round(self.score, 2)}


def likeness(a: str, b: str) -> float:
    """How much two mistakes look alike by their words, 0.0 to 1.0: the mean of the Dice
    coefficient of their content words and the overlap with the shorter one. Unlike the
    similarity that judges, two texts naming different things are not set apart: one
    lesson broken on another endpoint or file is still the same mistake."""
    return _overlap(content_words(a), content_words(b))


def keyword_likeness(a: str, b: str) -> float:
    """How much two mistakes look alike without the semantic extra, 0.0 to 1.0: the
    `likeness` of their words (stemmed as the index stems, with the parts of camelCase
    names, and a word of search's synonym groups counting as each other word of its group),
    blended with that of their 4-letter pieces ("docker" in "dockerfile", "ready" in
    "unready"), for the rewordings that share no whole word."""
    (wa, pa), (wb, pb) = _features(a), _features(b)
    return (1 - PIECES) * _overlap(wa, wb) + PIECES * _overlap(pa, pb)


def keyword_scores(text: str, earlier: Mapping[str, str]) -> dict[str, float]:
    """The `keyword_likeness` of `text` to each earlier mistake (id -> text) worth
    proposing: at least KEYWORD_FLOOR, and RUNNER_UP of the best one's."""
    found = {i: keyword_likeness(text, t) for i, t in earlier.items()}
    best = max(found.values(), default=0.0)
    return {i: s for i, s in found.items() if s >= max(KEYWORD_FLOOR, RUNNER_UP * best)}


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """The mean of the Dice coefficient and the overlap with the smaller set."""
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return (2 * shared / (len(a) + len(b)) + shared / min(len(a), len(b))) / 2


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=8192)
def _features(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(words, pieces) of a text for `keyword_likeness`: its content words and the parts of
    its camelCase names, stemmed, with a token per synonym group they are in; the 4-letter
    pieces of those words (a shorter word whole, numbers left out)."""
    from rolebook.notebook.search import terms  # the stemmer loads when a mistake is compared

    stems = {t for w in {*plain_words(text), *plain_words(_CAMEL.sub(" ", text))} for t in terms(w)[:1]}
    groups = {f"~{g}" for w in stems for g in _groups().get(w, ())}
    pieces = {w[i : i + 4] for w in stems if not w.isdigit() for i in range(max(1, len(w) - 3))}
    return frozenset(stems | groups), frozenset(pieces)


@lru_cache(maxsize=1)
def _groups() -> dict[str, frozenset[int]]:
    """Stemmed word -> the synonym groups (search's vocabulary) it is in."""
    from rolebook.notebook.search import SYNONYMS, terms

    table: dict[str, set[int]] = {}
    for n, group in enumerate(SYNONYMS):
        for word in group.split():
            for t in terms(word)[:1]:
                table.setdefault(t, set()).add(n)
    return {w: frozenset(g) for w, g in table.items()}


@dataclass(slots=True)
class Likeness:
    """How a new mistake is compared with earlier ones: by keywords, or (`model`, a loaded
    model of the semantic extra) by meaning as well."""

    model: Any = None
    _vectors: dict[str, Any] = field(default_factory=dict)

    def scores(self, index: Index, role: str, text: str, earlier: Mapping[str, str]) -> dict[str, float]:
        """A score per earlier mistake (id -> text) worth proposing, at or over the floor
        (by keywords, near the best as well: `keyword_scores`). With a model, every mistake
        of the role is looked at, not only `earlier`."""
        if self.model is not None:
            try:
                return self._by_meaning(index, role, text, earlier)
            except ModelError:  # the model failed as it ran (said once): keywords from now on
                self.model = None
        return keyword_scores(text, earlier)

    def _by_meaning(self, index: Index, role: str, text: str, earlier: Mapping[str, str]) -> dict[str, float]:
        everything = dict(ledger.mistake_texts(index, role))
        everything.update(earlier)
        cosines = self._cosines(index, text, everything)
        found = {i: c + MEANING_LIKENESS * likeness(text, everything[i]) for i, c in cosines.items()}
        return {i: s for i, s in found.items() if s >= MEANING_FLOOR}

    def _cosines(self, index: Index, text: str, texts: Mapping[str, str]) -> dict[str, float]:
        import numpy as np
        from rolebook.notebook.search import semantic

        indexed = [(i, t) for i, t in texts.items() if t]
        vectors = semantic.Vectors(index.layout.vectors, self.model)
        vectors.add(indexed)  # kept in the derived folder: the next write embeds only what is new
        row = {i: n for n, i in enumerate(vectors.ids())}
        matrix = vectors.matrix()
        query = self.model.encode([text])[0]
        out = {}
        for i, t in indexed:
            v = matrix[row[i]] if i in row else self._vector(t)
            out[i] = float(np.dot(v, query))
        return out

    def _vector(self, text: str) -> Any:
        if text not in self._vectors:
            self._vectors[text] = self.model.encode([text])[0]
        return self._vectors[text]


def propose(
    likeness_: Likeness,
    index: Index,
    role: str,
    text: str,
    earlier: Mapping[str, tuple[str, str, int]],
    pending: Sequence[Mistake] = (),
) -> tuple[Proposal, ...]:
    """The groups of earlier mistakes `text` looks like, best first, at most MAX_PROPOSED:
    each named by its best-scoring mistake, with the dates of the whole group.
    `earlier`: id -> (date, text, count) of the mistakes found by their words."""
    scores = likeness_.scores(index, role, text, {i: t for i, (_, t, _) in earlier.items()})
    out: list[Proposal] = []
    seen: set[str] = set()
    for i in sorted(scores, key=lambda i: (-scores[i], i))[:_LOOKED_AT]:
        if i in seen:
            continue
        held = groups_holding(index, role, [i], pending)
        members = held[0] if held else []
        seen |= {m.id for m in members}
        said = earlier.get(i)
        said_text = said[1] if said else next((m.text for m in members if m.id == i), "")
        dates = tuple(sorted({m.date for m in members} or ({said[0]} if said else set())))
        out.append(Proposal(i, said_text, dates, scores[i]))
        if len(out) == MAX_PROPOSED:
            break
    return tuple(out)
