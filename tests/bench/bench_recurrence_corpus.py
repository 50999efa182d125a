"""Recurrence over every pair of the corpus's similarity texts, run by hand:

    python tests/bench/bench_recurrence_corpus.py [--semantic]

The 157 texts of ../shared/corpus/retrieval/pair-texts.jsonl (several wordings of one
lesson, and lessons that share words but not meaning) give 12,246 pairs. Two texts are
one lesson when the labelled pairs of tests/fixtures/similarity/corpus_pairs.jsonl join
them (directly or through a third); every other pair is two lessons. Prints, for the
keyword judgement (and the semantic extra's with --semantic): merges, false merges,
precision and recall, then each false merge with its text and where it ranks among all
pairs by the keyword score, above how many true pairs.

This is the shape of the issue's hidden measure: at a53adaa (before names, things and
meaning counted as evidence of difference) it gives 16 merges, 5 of them false, the
issue's "5 of 16 merges were two different lessons".
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Callable
from pathlib import Path

import benchdocs

ABOUT = """Recurrence over every pair of the shared corpus's 157 similarity texts (several wordings of
one lesson, and lessons that share words but not meaning): 12,246 pairs, the lessons joined by the
labelled pairs of tests/fixtures/similarity/corpus_pairs.jsonl. For the keyword judgement (and the
semantic extra's): automatic merges, false merges (two lessons), precision and recall. The goal
set for it: precision 0.90 at recall 0.35. (The pairs' texts are left out of this page.)"""

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent.parent.parent / "shared" / "corpus" / "retrieval"
PAIRS = HERE.parent / "fixtures" / "similarity" / "corpus_pairs.jsonl"


def lessons() -> tuple[dict[str, str], Callable[[str, str], bool]]:
    """The pair texts by id, and whether two of them are one lesson by the labels."""
    texts = {
        (d := json.loads(line))["id"]: d["text"] for line in (CORPUS / "pair-texts.jsonl").read_text().splitlines()
    }
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for line in PAIRS.read_text().splitlines():
        row = json.loads(line)
        if row["same"] and row["a"] in texts and row["b"] in texts:
            parent[root(row["a"])] = root(row["b"])
    return texts, lambda a, b: a in parent and b in parent and root(a) == root(b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--semantic", action="store_true", help="also the semantic extra's judgement")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    from rolebook.rules import similarity

    texts, one_lesson = lessons()
    pairs = list(itertools.combinations(sorted(texts), 2))
    positives = sum(one_lesson(a, b) for a, b in pairs)
    judges: dict[str, Callable[[str, str], bool]] = {"keywords": similarity.keyword_same_mistake}
    if args.semantic:
        judge = similarity.semantic_judge()
        if judge is None:
            print("the semantic extra is not installed", file=sys.stderr)
            return 2
        judges["semantic extra"] = judge
    score = {p: similarity.similarity(texts[p[0]], texts[p[1]]) for p in pairs}
    print(f"{len(texts)} texts, {len(pairs)} pairs, {positives} of them one lesson")
    for name, same in judges.items():
        merged = [p for p in pairs if same(texts[p[0]], texts[p[1]])]
        true = sum(one_lesson(*p) for p in merged)
        precision = true / len(merged) if merged else 1.0
        recall = true / positives
        print(f"\n{name}: {len(merged)} merges, {len(merged) - true} false; P {precision:.2f}, R {recall:.2f}")
        for a, b in (p for p in merged if not one_lesson(*p)):
            above = sum(1 for p in pairs if one_lesson(*p) and score[p] < score[(a, b)])
            print(f"  false: {a} {b}  keyword score {score[(a, b)]:.2f}, above {above} of {positives} true pairs")
            if not benchdocs.WRITING:  # the corpus's text stays out of the repository
                print(f"    {texts[a]}\n    {texts[b]}")
    return 0


if __name__ == "__main__":
    with benchdocs.section("recurrence-corpus", ABOUT):
        raise SystemExit(main())
