"""Keyword similarity, calibrated on labelled pairs of our own; the test fails if it drops."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from rolebook.rules.similarity import (
    THRESHOLD,
    differs,
    keyword_same_mistake,
    name_differs,
    names,
    similarity,
    stem,
    things,
)

PAIRS = [
    json.loads(line)
    for line in (Path(__file__).resolve().parent.parent / "fixtures/similarity/pairs.jsonl").read_text().splitlines()
]


def precision_recall() -> tuple[float, float]:
    said = [(keyword_same_mistake(p["a"], p["b"]), p["same"]) for p in PAIRS]
    tp = sum(1 for s, t in said if s and t)
    fp = sum(1 for s, t in said if s and not t)
    return tp / (tp + fp), tp / sum(1 for _, t in said if t)


def test_the_labelled_set_has_60_duplicate_and_60_distinct_pairs() -> None:
    assert sum(p["same"] for p in PAIRS) >= 60
    assert sum(not p["same"] for p in PAIRS) >= 60


def test_precision_and_recall_at_the_chosen_threshold_do_not_drop() -> None:
    precision, recall = precision_recall()
    print(f"threshold {THRESHOLD}: precision {precision:.2f}, recall {recall:.2f}")
    assert precision >= 1.0
    assert recall >= 0.48


def test_related_but_distinct_mistakes_are_not_merged() -> None:
    assert not keyword_same_mistake("SQLite WAL mode configuration", "SQLite WAL data loss during deploys")


def test_equal_after_normalization_is_the_same_mistake() -> None:
    assert similarity("Ran  the migration on PROD", "ran the migration on prod (x2)") == 1.0


def test_stemming_folds_the_usual_english_endings() -> None:
    assert {stem(w) for w in ("retried", "retries", "retry")} == {"retry"}
    assert {stem(w) for w in ("tagged", "tag", "tags")} == {"tag"}
    assert {stem(w) for w in ("lines", "line")} == {"lin"}
    assert stem("redis") == "redis"


def corpus_pairs(corpus: Any) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The labelled real-text pairs: ids into ../shared/corpus/retrieval (read in place)."""
    texts = {
        (d := json.loads(line))["id"]: d["text"]
        for name in ("entries.jsonl", "pair-texts.jsonl")
        for line in (corpus("retrieval") / name).read_text().splitlines()
    }
    fixture = Path(__file__).resolve().parent.parent / "fixtures/similarity/corpus_pairs.jsonl"
    return texts, [json.loads(x) for x in fixture.read_text().splitlines()]


def test_the_real_pairs_are_many_and_split(corpus: Any) -> None:
    texts, rows = corpus_pairs(corpus)
    assert len(rows) >= 600 and sum(r["same"] for r in rows) >= 50
    assert {r["split"] for r in rows} == {"fit", "held-out"}
    assert len({frozenset((r["a"], r["b"])) for r in rows}) == len(rows)
    assert all(r["a"] in texts and r["b"] in texts for r in rows)


def test_keywords_on_the_held_out_real_pairs(corpus: Any) -> None:
    """Real text nobody here wrote, 605 labelled pairs (tests/fixtures/similarity/
    corpus_pairs.jsonl) split in two: keywords are at precision 1.00, recall 0.21 on the
    held-out half (fit half 0.64, 0.24; before names counted as evidence of difference,
    0.58, 0.24; before well-known things did, held-out 0.83). The goal, 0.90 at 0.35, is
    not reached."""
    texts, rows = corpus_pairs(corpus)
    held = [r for r in rows if r["split"] == "held-out"]
    merged = [r for r in held if keyword_same_mistake(texts[r["a"]], texts[r["b"]])]
    true = sum(1 for r in merged if r["same"])
    assert true == len(merged) and true / sum(r["same"] for r in held) >= 0.2


def test_keywords_over_every_pair_of_the_pair_texts(corpus: Any) -> None:
    """All 12,246 pairs of the corpus's 157 similarity texts, one lesson where the labels
    join two texts (directly or through a third), two lessons otherwise: the shape of the
    issue's hidden measure (tests/bench/bench_recurrence_corpus.py prints it). Keywords
    merge 14 pairs, 3 of them two lessons (precision 0.79, recall 0.31; at a53adaa 16 and
    5, as the issue counted)."""
    corpus("retrieval")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import bench_recurrence_corpus as bench

    texts, one_lesson = bench.lessons()
    ids = sorted(texts)
    merged = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :] if keyword_same_mistake(texts[a], texts[b])]
    false = [p for p in merged if not one_lesson(*p)]
    assert len(ids) == 157 and len(false) <= 3 and len(merged) - len(false) >= 11


def test_two_texts_about_different_well_known_things_are_not_one_mistake() -> None:
    a, b = "Better error handling for malformed YAML", "Better error handling for malformed markdown"
    assert things(a) == {"yaml"} and differs(a, b) and not keyword_same_mistake(a, b)
    # one thing under two names is one thing; one side naming none is no evidence
    assert not differs("config.yml was not read", "the YAML config was ignored")
    assert not differs("npm install failed on Windows", "npm install fails with EACCES")
    assert keyword_same_mistake("npm install failed on Windows", "npm install failed on windows 11")


def test_two_texts_that_name_different_things_are_not_one_mistake() -> None:
    a, b = "Fix an issue with type hints for `@click.group()`.", "Fix an issue with type hints for `click.open_file()`."
    assert names(a) == {"click.group"} and name_differs(a, b) and not keyword_same_mistake(a, b)
    # a name inside the other's is the same thing; one side naming nothing is no evidence
    assert not name_differs("`Option.flag_value` has no default", "handling of `flag_value` when is_flag=False")
    assert not name_differs("Logger serializes `Error` objects", "Logger handles Error objects in debug mode")
    # commit hashes are not names
    assert not name_differs("activate project to fix #37 (`46c4fd2`)", "activate project to fix #37 (`cbe72be`)")
