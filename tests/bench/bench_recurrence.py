"""Recurrence on the labelled pairs and families of tests/fixtures/recurrence, run by hand:

    python tests/bench/bench_recurrence.py [--split held-out] [--semantic] [--corpus DIR]
    python tests/bench/bench_recurrence.py --fit [--semantic]      (the floors, and every variant tried)
    python tests/bench/bench_recurrence.py --speed 20 [--size 10000]   (whole-process update)

Through the session API, as `update` runs: for each pair a fresh root, the first text
written on one date, the second on a later one. A pair is merged when the second comes
back counted (x2), proposed when the first is among its `possible_recurrences`. Prints
per kind and overall: automatic merges (how many, how many right: precision), and the
share of real recurrences merged or proposed. Families: each family's items written in
date order by separate updates (recurrence families: each later item merged, or an
earlier item of the family proposed; decoys: merges, all wrong), once more as one batch,
which must end the same, and all families of a role in one root (decoys and other
mistakes then compete for the at most 3 proposals: proposals shown per update, and how
many are wrong). Pairs in one archive: every first text of a half in one root, then each
real recurrence's second text.

Run it on another checkout (PYTHONPATH=/tmp/tree, a tree mapping rolebook to it, as
/work/wt/typecheck.sh makes) to measure it before a change: a version without proposals
is measured on its merges alone.

Ambiguous pairs (the labeller's own doubt, see the fixture's README) are left out.
Corpus pairs name texts of ../shared/corpus/retrieval (read in place; --corpus).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import benchdocs
from recurrence_keywords import fit_keywords, floor_for

ABOUT = """Recurrence (is a new mistake one written before?) on the labelled pairs and families of
tests/fixtures/recurrence (pairs over our own texts and over the shared corpus's real lessons;
ambiguous pairs left out), through the session API as `update` runs it. Merged: the second text
comes back counted (x2), automatically; proposed: the earlier one is among the update's
`possible_recurrences`, for the agent or a person to confirm with `--same-as`. Precision is that of
the automatic merges; recall counts merged or proposed. The floors were fitted on the fit half
(`--fit` prints every variant tried); the held-out half is the result. The noise: proposals shown
per update and how many of them are wrong when every family of a role shares one root; and the
pairs in one archive, where some 300 earlier mistakes compete for the at most 3 proposals."""

HERE = Path(__file__).resolve().parent
FIXTURE = HERE.parent / "fixtures" / "recurrence"
CORPUS = HERE.parent.parent.parent / "shared" / "corpus" / "retrieval"
KINDS = ("reworded", "short", "near_exact", "corpus", "same_words_different")


def texts_of_corpus(folder: Path) -> dict[str, str]:
    return {
        (d := json.loads(line))["id"]: d["text"]
        for name in ("entries.jsonl", "pair-texts.jsonl")
        for line in (folder / name).read_text(encoding="utf-8").splitlines()
    }


def load_pairs(corpus: Path | None) -> list[dict[str, Any]]:
    """The labelled pairs with both texts filled in (corpus pairs left out without a corpus)."""
    texts = texts_of_corpus(corpus) if corpus is not None and corpus.is_dir() else {}
    out = []
    for line in (FIXTURE / "pairs.jsonl").read_text(encoding="utf-8").splitlines():
        p = json.loads(line)
        a = p["a"] if p["a"] is not None else texts.get(p["a_ref"])
        b = p["b"] if p["b"] is not None else texts.get(p["b_ref"])
        if a is not None and b is not None:
            out.append({**p, "ta": a, "tb": b})
    return out


def load_families() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURE / "families.jsonl").read_text(encoding="utf-8").splitlines()]


class Root:
    """A fresh rolebook root in a temporary folder, written through the session API."""

    def __init__(self) -> None:
        from rolebook.agents.config import load_config
        from rolebook.agents.session import open_session

        self.tmp = tempfile.TemporaryDirectory()
        root = Path(self.tmp.name)
        (root / "rolebook.yaml").write_text("{}\n", encoding="utf-8")
        self.session = open_session(load_config(root), new_roles=True)

    def write(self, role: str, items: list[tuple[str, str]]) -> list[dict[str, Any]]:
        """Add mistakes (date, text) in one update; the `added` objects of its JSON."""
        from rolebook.notebook.store import new_entry

        entries = [new_entry("mistakes", text, day) for day, text in items]
        return list(self.session.end(role, entries).to_dict()["added"])

    def counts(self, role: str) -> list[tuple[str, str, int]]:
        """(date, text, count) of the notebook's mistakes."""
        from rolebook.notebook import parse

        path = self.session.layout.notebook_path(role)
        return sorted((e.date, e.text, e.count) for e in parse(path.read_text(encoding="utf-8")).entries("mistakes"))

    def candidates(self) -> list[tuple[tuple[str, ...], int]]:
        return sorted((c.dates, c.count) for c in self.session.candidates())

    def close(self) -> None:
        self.tmp.cleanup()


def mistake_id(role: str, day: str, text: str) -> str:
    from rolebook.notebook.model import entry_id

    return entry_id(role, "mistakes", day, text)


def pair_outcome(p: dict[str, Any]) -> str:
    """merged, proposed or missed: the second text written after the first."""
    root = Root()
    try:
        root.write("r", [("2026-01-05", p["ta"])])
        (added,) = [a for a in root.write("r", [("2026-02-05", p["tb"])]) if a["section"] == "mistakes"]
    finally:
        root.close()
    if added["count"] > 1:
        return "merged"
    first = mistake_id("r", "2026-01-05", p["ta"])
    return "proposed" if any(x["id"] == first for x in added.get("possible_recurrences", [])) else "missed"


def family_outcomes(f: dict[str, Any]) -> Iterator[str]:
    """Per later item: merged, proposed (an earlier item of the family) or missed."""
    root = Root()
    try:
        earlier: set[str] = set()
        for n, item in enumerate(f["items"]):
            (added,) = root.write(f["role"], [(item["date"], item["text"])])
            if n:
                if added["count"] > 1:
                    yield "merged"
                else:
                    proposed = {x["id"] for x in added.get("possible_recurrences", [])}
                    yield "proposed" if proposed & earlier else "missed"
            earlier.add(mistake_id(f["role"], item["date"], item["text"]))
    finally:
        root.close()


def mixed_outcomes(families: list[dict[str, Any]]) -> Iterator[tuple[str, str, int, int]]:
    """(family kind, outcome, proposals shown, how many of them are wrong: not an earlier
    item of its recurrence family) of each item ("first" for a family's first), every family of a role written into
    one root, all items in date order: an archive where decoys and other recurrences compete
    for the (at most 3) proposals."""
    by_role: dict[str, list[tuple[str, str, str, str]]] = collections.defaultdict(list)
    for f in families:
        by_role[f["role"]] += [(i["date"], i["text"], f["id"], f["kind"]) for i in f["items"]]
    for role, items in sorted(by_role.items()):
        root = Root()
        try:
            earlier: dict[str, set[str]] = collections.defaultdict(set)
            for day, text, family, kind in sorted(items):
                (added,) = root.write(role, [(day, text)])
                proposed = {x["id"] for x in added.get("possible_recurrences", [])}
                wrong = len(proposed - earlier[family]) if kind == "recurrence" else len(proposed)
                if earlier[family]:
                    merged = added["count"] > 1
                    outcome = "merged" if merged else "proposed" if proposed & earlier[family] else "missed"
                    yield kind, outcome, len(proposed), wrong
                else:
                    yield kind, "first", len(proposed), wrong
                earlier[family].add(mistake_id(role, day, text))
        finally:
            root.close()


def batch_same_as_separate(f: dict[str, Any]) -> bool:
    """One update of all the family's items ends as separate updates in date order do."""
    items = [(i["date"], i["text"]) for i in f["items"]]
    ends = []
    for chunks in ([[i] for i in items], [items[::-1]]):
        root = Root()
        try:
            for chunk in chunks:
                root.write(f["role"], chunk)
            ends.append((root.counts(f["role"]), root.candidates()))
        finally:
            root.close()
    return ends[0] == ends[1]


def archive_outcomes(pairs: list[dict[str, Any]]) -> collections.Counter[str]:
    """Pairs in one archive: every first text of the half written into one root (one update
    each, January), then each real recurrence's second text (February): merged, proposed
    (its first text among the at most 3 proposals, with some 300 earlier mistakes of every
    kind competing) or missed; and the proposals shown in all."""
    out: collections.Counter[str] = collections.Counter()
    root = Root()
    try:
        firsts: dict[str, str] = {}
        for p in pairs:
            if p["ta"] not in firsts:
                day = f"2026-01-{1 + len(firsts) % 28:02d}"
                root.write("r", [(day, p["ta"])])
                firsts[p["ta"]] = mistake_id("r", day, p["ta"])
        for n, p in enumerate(p for p in pairs if p["same"]):
            (added,) = [
                a for a in root.write("r", [(f"2026-02-{1 + n % 28:02d}", p["tb"])]) if a["section"] == "mistakes"
            ]
            proposed = {x["id"] for x in added.get("possible_recurrences", [])}
            out["merged" if added["count"] > 1 else "proposed" if firsts[p["ta"]] in proposed else "missed"] += 1
            out["shown"] += len(proposed)
        out["earlier"] = len(firsts)
    finally:
        root.close()
    return out


def report(pairs: list[dict[str, Any]], families: list[dict[str, Any]], progress: bool) -> dict[str, Any]:
    by_kind: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for n, p in enumerate(pairs):
        outcome = pair_outcome(p)
        for key in (p["kind"], "all"):
            by_kind[key][(outcome, p["same"])] += 1
        if progress and n % 50 == 0:
            print(f"  {n}/{len(pairs)} pairs", file=sys.stderr)
    fam: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for f in families:
        for outcome in family_outcomes(f):
            fam[f["kind"]][outcome] += 1
        fam[f["kind"]]["batch_same"] += batch_same_as_separate(f)
        fam[f["kind"]]["families"] += 1
    mixed: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for kind, outcome, shown, wrong in mixed_outcomes(families):
        mixed[kind][outcome] += 1
        mixed["all"]["updates"] += 1
        mixed["all"]["shown"] += shown
        mixed["all"]["wrong"] += wrong
    return {"pairs": by_kind, "families": fam, "mixed": mixed, "archive": archive_outcomes(pairs)}


def print_mixed(mixed: dict[str, collections.Counter[str]]) -> None:
    c, d = mixed.get("recurrence", collections.Counter()), mixed.get("decoy", collections.Counter())
    later = c["merged"] + c["proposed"] + c["missed"]
    if later:
        print(
            f"  families, one root per role: {later} later recurrence items, {c['merged']} merged, {c['proposed']} "
            f"with an earlier one among the proposals: merged or proposed {(c['merged'] + c['proposed']) / later:.2f}; "
            f"decoy items merged {d['merged']} (all wrong)"
        )
    n = mixed.get("all", collections.Counter())
    if n["updates"]:
        print(
            f"  families, one root per role: {n['updates']} updates, {n['shown'] / n['updates']:.2f} proposals shown "
            f"per update, {n['wrong'] / n['updates']:.2f} of them wrong (not an earlier item of its recurrence family)"
        )


def print_report(title: str, found: dict[str, Any]) -> None:
    print(f"\n{title}")
    heads = (
        "pairs",
        "merges",
        "right",
        "precision",
        "recurrences",
        "merged",
        "proposed",
        "merged or proposed",
        "others proposed",
    )
    print(f"  {'kind':22} " + " ".join(f"{h:>{max(len(h), 5)}}" for h in heads))
    for kind in (*KINDS, "all"):
        c = found["pairs"].get(kind)
        if not c:
            continue
        merges = c[("merged", True)] + c[("merged", False)]
        right = c[("merged", True)]
        real = sum(v for (_, same), v in c.items() if same)
        caught = c[("merged", True)] + c[("proposed", True)]
        precision = f"{right / merges:.2f}" if merges else "-"
        rate = f"{caught / real:.2f}" if real else "-"
        pairs = sum(c.values())
        row = (pairs, merges, right, precision, real, c[("merged", True)], c[("proposed", True)], rate)
        row += (c[("proposed", False)],)
        print(f"  {kind:22} " + " ".join(f"{v!s:>{max(len(h), 5)}}" for v, h in zip(row, heads, strict=True)))
    for kind, c in sorted(found["families"].items()):
        later = c["merged"] + c["proposed"] + c["missed"]
        if kind == "recurrence":
            print(
                f"  families, recurrence: {c['families']} families, {later} later items: {c['merged']} merged, "
                f"{c['proposed']} proposed, merged or proposed {(c['merged'] + c['proposed']) / later:.2f}; "
                f"batch ends as separate updates in {c['batch_same']}/{c['families']}"
            )
        else:
            print(
                f"  families, decoy: {c['families']} families, {later} later items: {c['merged']} merged (all wrong), "
                f"{c['proposed']} proposed; batch ends as separate updates in {c['batch_same']}/{c['families']}"
            )
    print_mixed(found.get("mixed", {}))
    a = found.get("archive", collections.Counter())
    if later := a["merged"] + a["proposed"] + a["missed"]:
        print(
            f"  pairs in one archive ({a['earlier']} first texts, then each second): {a['merged']} merged, "
            f"{a['proposed']} proposed, merged or proposed {(a['merged'] + a['proposed']) / later:.2f}; "
            f"{a['shown'] / later:.2f} proposals shown per update"
        )


# -- fitting the floors: pure scores, pairs against unrelated pairs ---------------------


def unrelated_pairs(pairs: list[dict[str, Any]], n: int = 4000, seed: int = 7) -> list[tuple[str, str]]:
    """Random pairs of texts from different labelled pairs of one split: mistakes with
    nothing to do with each other, what a proposal should rarely name."""
    of: dict[str, set[str]] = collections.defaultdict(set)
    for p in pairs:
        of[p["ta"]].add(p["id"])
        of[p["tb"]].add(p["id"])
    texts = sorted(of)
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    while len(out) < n:
        a, b = rng.sample(texts, 2)
        if not of[a] & of[b]:
            out.append((a, b))
    return out


def variants(semantic: bool, texts: list[str]) -> dict[str, Callable[[str, str], float]]:
    """Every likeness tried: keyword forms, and with the extra the cosine forms (`texts`
    and their sentences encoded first, in batches)."""
    from rolebook.rules import proposals, similarity

    out: dict[str, Callable[[str, str], float]] = {
        "keywords: likeness (the meaning score's part)": proposals.likeness,
        "keywords: keyword_likeness (without the extra)": proposals.keyword_likeness,
        "keywords: similarity (with the names veto)": similarity.similarity,
    }
    if semantic:
        from rolebook.notebook.search import semantic as extra

        model = extra.load(asked=True)
        if model is None:
            raise SystemExit("the semantic extra does not load")
        everything = sorted({*texts, *(x for t in texts for x in similarity.sentences(t))})
        vectors: dict[str, Any] = {}
        for start in range(0, len(everything), 256):
            chunk = everything[start : start + 256]
            vectors.update(zip(chunk, model.encode(chunk), strict=True))

        def vec(text: str) -> Any:
            if text not in vectors:
                vectors[text] = model.encode([text])[0]
            return vectors[text]

        def cosine(a: str, b: str) -> float:
            return float(vec(a) @ vec(b))

        def by_sentence(a: str, b: str) -> float:
            short, long = sorted((a, b), key=len)
            return max(cosine(short, long), *(cosine(short, s) for s in similarity.sentences(long)))

        out["meaning: cosine of the whole texts"] = cosine
        out["meaning: best sentence cosine"] = by_sentence
        out["meaning: max(cosine, likeness)"] = lambda a, b: max(cosine(a, b), proposals.likeness(a, b))
        for w in (0.25, 0.5, 1.0):
            chosen = " (chosen)" if w == proposals.MEANING_LIKENESS else ""
            out[f"meaning: cosine + {w} likeness{chosen}"] = (
                lambda a, b, w=w: cosine(a, b) + w * proposals.likeness(a, b)  # type: ignore[misc]
            )
    return out


def fit(pairs: list[dict[str, Any]], semantic: bool) -> None:
    from rolebook.rules import similarity

    unrelated = {s: unrelated_pairs([p for p in pairs if p["split"] == s]) for s in ("fit", "held-out")}
    if not semantic:
        fit_keywords(pairs, unrelated)
        return
    print("floors fitted on the fit half: at most N% of unrelated pairs proposed; recall = real recurrences")
    print("merged (same text) or proposed (the pair alone), on each half, at the floor fitted on 'fit'")
    print(f"  {'variant':45} {'noise':>5} {'floor':>6} {'fit':>5} {'held-out':>8} {'noise held-out':>14}")
    texts = [t for p in pairs for t in (p["ta"], p["tb"])]
    for name, score in variants(semantic, texts).items():
        for noise in (0.02, 0.05, 0.10):
            floor = floor_for([score(a, b) for a, b in unrelated["fit"]], noise)
            recall = {}
            for split in ("fit", "held-out"):
                real = [p for p in pairs if p["split"] == split and p["same"] and not p.get("ambiguous")]
                caught = sum(similarity.same_text(p["ta"], p["tb"]) or score(p["tb"], p["ta"]) >= floor for p in real)
                recall[split] = caught / len(real)
            held = sum(score(a, b) >= floor for a, b in unrelated["held-out"]) / len(unrelated["held-out"])
            print(f"  {name:45} {noise:5.2f} {floor:6.3f} {recall['fit']:5.2f} {recall['held-out']:8.2f} {held:14.3f}")


def speed(runs: int, size: int) -> None:
    """Whole-process `rolebook update -m` (a mistake that looks like many archived ones, so
    that proposals are worked out) against `python -c pass`, with a `size`-record archive
    (tests/bench/bench_cli.py's), interleaved; medians."""
    import shutil
    import statistics
    import subprocess
    import time

    sys.path.insert(0, str(HERE))
    from bench_cli import make_root

    exe = shutil.which("rolebook") or "rolebook"

    def timed(cmd: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run(cmd, check=False, capture_output=True)
        return time.perf_counter() - start

    with tempfile.TemporaryDirectory() as tmp:
        make_root(Path(tmp), size)
        base, mistake, learning = [], [], []
        for i in range(runs):
            base.append(timed([sys.executable, "-c", "pass"]))
            said = f"npm caches broke the flaky deploys, run {i}; pin the cache key"
            mistake.append(timed([exe, "--root", tmp, "update", "coder", "-m", said]))
            learning.append(timed([exe, "--root", tmp, "update", "coder", "-l", f"bench learning {i}"]))
    b, m, ln = (statistics.median(x) * 1000 for x in (base, mistake, learning))
    print(f"archive {size}, {runs} runs: python -c pass {b:.1f} ms; update -m {m:.1f} ms ({m / b:.1f}x); ", end="")
    print(f"update -l {ln:.1f} ms ({ln / b:.1f}x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="held-out", choices=("fit", "held-out", "both"))
    parser.add_argument("--semantic", action="store_true", help="with the semantic extra (search mode hybrid)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the shared corpus's retrieval folder")
    parser.add_argument("--fit", action="store_true", help="fit the floors and print every variant tried")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--speed", type=int, metavar="RUNS", help="time whole-process update instead")
    parser.add_argument("--size", type=int, default=10000, help="with --speed: archived records")
    args = parser.parse_args()
    if args.speed:
        speed(args.speed, args.size)
        return 0
    os.environ["ROLEBOOK_SEARCH_MODE"] = "hybrid" if args.semantic else "keyword"
    os.environ.setdefault("ROLEBOOK_OFFLINE", "1")
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: corpus pairs left out", file=sys.stderr)
    pairs = [p for p in load_pairs(args.corpus) if not p.get("ambiguous")]
    if args.fit:
        fit(load_pairs(args.corpus), args.semantic)
        return 0
    import rolebook

    mode = "keywords and meaning" if args.semantic else "keywords"
    print(f"rolebook from {Path(rolebook.__file__).resolve().parent.parent}, {mode}")
    for split in ("fit", "held-out") if args.split == "both" else (args.split,):
        found = report(
            [p for p in pairs if p["split"] == split],
            [f for f in load_families() if f["split"] == split],
            not args.quiet,
        )
        print_report(f"{split}: {sum(found['pairs']['all'].values())} pairs (ambiguous ones left out)", found)
    return 0


if __name__ == "__main__":
    KIND = "-semantic" if "--semantic" in sys.argv else "-speed" if "--speed" in sys.argv else ""
    with benchdocs.section("recurrence" + KIND, ABOUT):
        raise SystemExit(main())
