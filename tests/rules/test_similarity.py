"""Keyword similarity, calibrated on labelled pairs of our own; the test fails if it drops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rolebook.rules.similarity import THRESHOLD, keyword_same_mistake, similarity, stem

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


def test_keywords_on_the_held_out_real_pairs(corpus: Any) -> None:
    """Real text nobody here wrote (../shared/corpus/retrieval/pair-texts.jsonl), pairs
    labelled in tests/fixtures/similarity/corpus_pairs.jsonl and split in two: keywords
    alone are at precision 0.80, recall 0.33 on the held-out half (the goal, 0.90 at
    0.35, is not reached: the false merges there share all their words and differ in
    meaning; the semantic extra's veto catches them, tests/semantic)."""
    texts = {
        (d := json.loads(line))["id"]: d["text"]
        for line in (corpus("retrieval") / "pair-texts.jsonl").read_text().splitlines()
    }
    rows = [
        json.loads(x)
        for x in (Path(__file__).resolve().parent.parent / "fixtures/similarity/corpus_pairs.jsonl")
        .read_text()
        .splitlines()
    ]
    assert len(rows) >= 90 and {r["split"] for r in rows} == {"fit", "held-out"}
    held = [r for r in rows if r["split"] == "held-out"]
    merged = [r for r in held if keyword_same_mistake(texts[r["a"]], texts[r["b"]])]
    true = sum(1 for r in merged if r["same"])
    assert true / len(merged) >= 0.8 and true / sum(r["same"] for r in held) >= 0.33
