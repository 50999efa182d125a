"""The semantic extra, measured (run by hand, with `rolebook[semantic]` installed):

    python tests/bench/bench_semantic.py                # quality, throughput, search p50
    python tests/bench/bench_semantic.py --sizes 10000 100000

1. Retrieval on tests/fixtures/retrieval: recall@5 and MRR for keyword, semantic and
   hybrid search, split by queries that share words with their answer and those that do
   not; `--sweep` tries other keyword weights for the hybrid.
2. Similarity on tests/fixtures/similarity: precision and recall of `same_mistake`
   (keyword alone, and with the model) on the labelled pairs.
3. Embedding throughput, search p50 at each size (the vectors of the larger sizes are
   real embeddings of repeated texts: a search costs the same whatever the vectors say),
   RSS of the search process, and the cold start of a first semantic search.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "notebook" / "search"))

import benchdocs  # noqa: E402
from rolebook.notebook.search import meaning as search_mod  # noqa: E402
from rolebook.notebook.search.query import Query  # noqa: E402
from rolebook.notebook.search.retrieval import search  # noqa: E402
from test_retrieval import TODAY, build, load  # noqa: E402

ABOUT = """The semantic extra on our own fixtures: retrieval (tests/fixtures/retrieval, recall@5 and MRR for
keyword, semantic and hybrid, on queries sharing words with their answer and on those sharing
none), similarity (`same_mistake` on the labelled pairs of tests/fixtures/similarity, keywords
alone and with the model), embedding throughput, semantic search p50 at the archive sizes given,
and a first semantic search's cold start. These queries were written by people who had read the
answers: they say where each mode stands, not what a hidden set shows (see the held-out set)."""


def quality(layout: object, ids: dict[str, str], mode: str) -> dict[str, tuple[float, float]]:
    _, queries = load()
    out = {}
    for overlap in ("shared", "none"):
        chosen = [q for q in queries if q["overlap"] == overlap]
        found = reciprocal = 0.0
        for q in chosen:
            hits = search(layout, Query(str(q["query"]), limit=5, mode=mode), today=TODAY).hits  # type: ignore[arg-type]
            keys = [ids.get(h.id) for h in hits]
            ranks = [keys.index(a) + 1 for a in q["answers"] if a in keys]
            found += bool(ranks)
            reciprocal += 1 / min(ranks) if ranks else 0
        out[overlap] = (found / len(chosen), reciprocal / len(chosen))
    return out


def similarity_report() -> None:
    from rolebook.rules import similarity

    pairs = [json.loads(line) for line in (HERE.parent / "fixtures/similarity/pairs.jsonl").read_text().splitlines()]
    for name, judge in (("keyword", similarity.keyword_same_mistake), ("semantic", similarity.semantic_judge())):
        if judge is None:
            print(f"similarity {name}: model not available")
            continue
        tp = sum(1 for p in pairs if p["same"] and judge(p["a"], p["b"]))
        fp = sum(1 for p in pairs if not p["same"] and judge(p["a"], p["b"]))
        dup = sum(1 for p in pairs if p["same"])
        print(f"similarity {name:8s}: precision {tp / max(tp + fp, 1):.2f} recall {tp / dup:.2f} ({tp + fp} merged)")


def speed(sizes: list[int]) -> None:
    from rolebook.notebook.search import semantic
    from rolebook.notebook.store.index import Index
    from rolebook.notebook.store.layout import Layout

    model = semantic.load(asked=True)
    assert model is not None
    entries, _ = load()
    texts = [e["text"] for e in entries]
    t = time.perf_counter()
    model.encode(texts * 4)
    rate = len(texts) * 4 / (time.perf_counter() - t)
    print(f"embedding throughput: {rate:.0f} records/s (batch of {len(texts) * 4})")
    base = model.encode(texts)
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            layout = Layout.default(Path(tmp))
            archive = layout.archive_path("coder")
            archive.parent.mkdir(parents=True)
            with open(archive, "w", encoding="utf-8") as f:
                for n in range(size):
                    text = f"{texts[n % len(texts)]} (case {n})"
                    rec = {"v": 1, "id": f"{n:012x}", "op": "stored", "role": "coder", "section": "notes"}
                    rec |= {"date": "2026-01-01", "text": text, "count": 1, "at": "", "by": None, "session": None}
                    f.write(json.dumps(rec) + "\n")
            with Index(layout) as index:
                index.sync("coder")
                vectors = semantic.Vectors(layout.vectors, model)
                vectors.folder.mkdir(parents=True, exist_ok=True)
                rows = index.db.execute("SELECT id FROM docs ORDER BY rowid").fetchall()
                with open(vectors.data, "wb") as f:
                    for n in range(len(rows)):
                        f.write(base[n % len(base)].tobytes())
                vectors.ids_path.write_text("".join(r[0] + "\n" for r in rows), encoding="utf-8")
                count, top = index.db.execute("SELECT count(*), max(rowid) FROM docs").fetchone()
                (vectors.folder / f"{model.key}.mark").write_text(f"{top} {count}", encoding="ascii")
            times = []
            for q in ["npm permission denied in CI", "the sticker border", "database locked on deploy"] * 7:
                t = time.perf_counter()
                search(layout, Query(q, limit=5, mode="hybrid"))
                times.append(time.perf_counter() - t)
            print(f"hybrid search p50 at {size} records: {statistics.median(times) * 1000:.1f} ms")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"RSS of this process (model loaded, last size searched): {rss:.0f} MB")


def cold_start() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, ROLEBOOK_ROOT=tmp)
        subprocess.run(["rolebook", "update", "coder", "-m", "npm install failed with EACCES"], env=env, check=True)
        for label in ("first semantic search (model load + embedding)", "next semantic search (model load)"):
            t = time.perf_counter()
            subprocess.run(
                ["rolebook", "search", "permission problem", "--mode", "hybrid"], env=env, capture_output=True
            )
            print(f"{label}: {time.perf_counter() - t:.2f} s")
        t = time.perf_counter()
        subprocess.run(["rolebook", "search", "permission problem", "--mode", "keyword"], env=env, capture_output=True)
        print(f"keyword search, same root: {time.perf_counter() - t:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000])
    parser.add_argument("--sweep", action="store_true", help="try other keyword weights and coverage powers")
    parser.add_argument("--quality-only", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        layout, ids = build(Path(tmp))
        for mode in ("keyword", "semantic", "hybrid"):
            q = quality(layout, ids, mode)
            print(
                f"{mode:8s} shared: recall@5 {q['shared'][0]:.2f} MRR {q['shared'][1]:.2f} | "
                f"no shared words: recall@5 {q['none'][0]:.2f} MRR {q['none'][1]:.2f}"
            )
        if args.sweep:
            for power in (1.0, 2.0, 3.0):
                for weight in (0.1, 0.2, 0.3, 0.5, 1.0):
                    search_mod.KEYWORD_WEIGHT, search_mod.COVERAGE_POWER = weight, power
                    q = quality(layout, ids, "hybrid")
                    print(f"  weight {weight} power {power}: shared {q['shared']}, none {q['none']}")
    if args.quality_only:
        return
    similarity_report()
    speed(args.sizes)
    cold_start()


if __name__ == "__main__":
    with benchdocs.section("semantic", ABOUT):
        main()
