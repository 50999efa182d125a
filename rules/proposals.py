"""Possible recurrences: the earlier mistakes a new one looks like, for the writer to confirm.

Nothing tells "the same mistake in other words" from "another mistake in the same words"
well enough to merge on its own (keywords and MiniLM's cosine are both at chance on such
pairs), so `update` merges only a mistake written twice (`similarity.same_text`) and
otherwise names the likely earlier ones, best first, at most MAX_PROPOSED groups; the
writer confirms with `update --same-as ID`. The judgement here leans to recall: a
proposal costs the writer one look, a miss loses the count.

Keywords, or with the semantic extra (when the mode asks for meaning) the cosine too. The
floors are fitted on the "fit" half of tests/fixtures/recurrence (pairs of real
recurrences, against pairs of unrelated mistakes: at most 5% of those proposed) and
reported on the held-out half by tests/bench/bench_recurrence.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rolebook.notebook.errors import ModelError
from rolebook.notebook.store import Index

from . import ledger
from .grouping import groups_holding
from .ledger import Mistake
from .similarity import content_words

MAX_PROPOSED = 3
#: A keyword likeness at least this proposes: at most 5% of unrelated pairs of the fit
#: half reach it; 64% of the real recurrences there are merged or proposed (held-out: 64%).
KEYWORD_FLOOR = 0.106
#: With meaning, the score is the cosine of the whole texts (all-MiniLM-L6-v2) plus
#: MEANING_LIKENESS x the keyword likeness, and at least MEANING_FLOOR proposes: at most 5%
#: of unrelated fit pairs; fit 87% merged or proposed (held-out 88%). Tried on the fit half
#: as well: the cosine alone (85%), the best sentence's cosine (83%), max(cosine,
#: likeness) (85%); tests/bench/bench_recurrence.py --fit --semantic prints them all.
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
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return 0.0
    shared = len(wa & wb)
    return (2 * shared / (len(wa) + len(wb)) + shared / min(len(wa), len(wb))) / 2


@dataclass(slots=True)
class Likeness:
    """How a new mistake is compared with earlier ones: by keywords, or (`model`, a loaded
    model of the semantic extra) by meaning as well."""

    model: Any = None
    _vectors: dict[str, Any] = field(default_factory=dict)

    def scores(self, index: Index, role: str, text: str, earlier: Mapping[str, str]) -> dict[str, float]:
        """A score per earlier mistake (id -> text) worth proposing, at or over the floor.
        With a model, every mistake of the role is looked at, not only `earlier`."""
        if self.model is not None:
            try:
                return self._by_meaning(index, role, text, earlier)
            except ModelError:  # the model failed as it ran (said once): keywords from now on
                self.model = None
        found = {i: likeness(text, t) for i, t in earlier.items()}
        return {i: s for i, s in found.items() if s >= KEYWORD_FLOOR}

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
