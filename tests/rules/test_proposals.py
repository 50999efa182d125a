"""What the keyword proposer counts as alike (`proposals.keyword_likeness`): a rewording of
a mistake often shares no whole word with it, so the words are stemmed as the index stems
them, camelCase names count by their parts, a word of a synonym group counts as the others,
and 4-letter pieces of words count too; a proposal only a weak runner-up is not shown."""

from __future__ import annotations

import pytest
from rolebook.rules.proposals import KEYWORD_FLOOR, keyword_likeness, keyword_scores, likeness


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("docker runs as root", "no USER in Dockerfile"),  # a piece of a word: docker, dockerfile
        ("no readiness probe", "traffic sent to unready pods"),  # ready, unready
        ("forgot to bump versionCode", "Play rejected, same version code"),  # a camelCase name's parts
        ("screenshot outdated", "old UI in help images"),  # one synonym group: outdated, old
    ],
)
def test_a_rewording_that_shares_no_whole_word_is_proposed(first: str, again: str) -> None:
    assert likeness(first, again) == 0.0  # whole words, lightly stemmed: nothing in common
    assert keyword_likeness(again, first) >= KEYWORD_FLOOR


@pytest.mark.parametrize(
    ("first", "other"),
    [
        ("forgot the migration", "forgot the seed data"),
        ("ran the migration on prod", "deleted the staging folder"),
    ],
)
def test_mistakes_with_nothing_in_common_but_generic_words_are_not_proposed(first: str, other: str) -> None:
    assert keyword_likeness(other, first) < KEYWORD_FLOOR


def test_keyword_likeness_is_symmetric_and_one_for_the_same_text() -> None:
    a, b = "npm cache key not pinned in CI", "pin the npm cache key"
    assert keyword_likeness(a, b) == keyword_likeness(b, a) and keyword_likeness(a, a) == 1.0


def test_a_weak_runner_up_is_not_proposed_next_to_a_strong_likeness() -> None:
    new = "the npm cache key was not pinned, so CI restored a stale cache"
    strong, weak = "pin the npm cache key in CI", "the deploy key expired"
    assert set(keyword_scores(new, {"strong": strong, "weak": weak})) == {"strong"}
    assert set(keyword_scores(new, {"weak": weak})) == {"weak"}  # alone, it is proposed


def test_no_earlier_mistake_proposes_nothing() -> None:
    assert keyword_scores("anything at all", {}) == {}
