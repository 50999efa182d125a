"""The keyword proposer's variants, fitted on the fit half of tests/fixtures/recurrence and
reported on the held-out half (`python tests/bench/bench_recurrence.py --fit`).

A proposal costs the writer a look, a miss loses the count; so the floor is the lowest the
noise allows, and the noise is bounded where a writer meets it: a new mistake (no earlier
occurrence) in a role with ARCHIVE unrelated earlier mistakes is shown at most BOUND
proposals on average, on the fit half. For each variant, with and without the runner-up
cut (`proposals.RUNNER_UP`), the floor is the lowest of a grid (the share of unrelated fit
pairs it proposes) within that bound; the variant that merges or proposes the most real
recurrences of the fit half is kept (ties: the most found among the 3 proposals with
ARCHIVE others competing). The held-out columns are the result, never the choice.

Columns: pair = real recurrences merged or proposed, the pair alone (as the issue counts);
among 10 = the earlier one merged or among the at most 3 proposals with ARCHIVE unrelated
earlier mistakes competing; new/10, new/50 = proposals shown on average for a mistake
with no earlier occurrence among 10 or 50 unrelated ones; unrelated = share of unrelated
pairs proposed; decoys = share of labelled different-mistake pairs (same words) proposed.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Callable
from typing import Any

Score = Callable[[str, str], float]
ARCHIVE = 10
BOUND = 1.0
NOISE = [n / 100 for n in range(4, 21)]


def keyword_variants(texts: list[str]) -> dict[str, tuple[Score, float]]:
    """name -> (likeness, runner-up cut) of every keyword form tried; `texts` (a half's)
    give the rare words their weight in the IDF form, as a role's mistakes would."""
    import math
    import re

    from rolebook.rules import proposals, similarity
    from rolebook.rules.proposals import _features, _overlap

    df: collections.Counter[str] = collections.Counter(w for t in set(texts) for w in _features(t)[0])

    def weighted(a: str, b: str) -> float:
        wa, wb = _features(a)[0], _features(b)[0]
        if not wa or not wb:
            return 0.0
        idf = {w: math.log((len(texts) + 1) / (df[w] + 0.5)) for w in wa | wb}
        shared, na, nb = (sum(idf[w] for w in x) for x in (wa & wb, wa, wb))
        return (2 * shared / (na + nb) + shared / min(na, nb)) / 2

    def parts(a: str, b: str) -> float:
        """The best of the whole texts and their parts ("what went wrong; what to do instead")."""
        pa, pb = ([x for x in re.split(r";|\s--?\s|\s—\s", t) if len(x.split()) >= 2] or [t] for t in (a, b))
        return max(proposals.keyword_likeness(x, y) for x, y in [(a, b), *((x, y) for x in pa for y in pb)])

    def pieces(words: frozenset[str], n: int) -> frozenset[str]:
        return frozenset(
            w[i : i + n]
            for w in words
            if not w.isdigit() and not w.startswith("~")
            for i in range(max(1, len(w) - n + 1))
        )

    def words(a: str, b: str) -> float:
        return _overlap(_features(a)[0], _features(b)[0])

    def blend(n: int, weight: float) -> Score:
        def score(a: str, b: str) -> float:
            wa, wb = _features(a)[0], _features(b)[0]
            return (1 - weight) * _overlap(wa, wb) + weight * _overlap(pieces(wa, n), pieces(wb, n))

        return score

    def light_pieces(a: str, b: str) -> float:
        wa, wb = similarity.content_words(a), similarity.content_words(b)
        return 0.7 * _overlap(wa, wb) + 0.3 * _overlap(pieces(wa, 4), pieces(wb, 4))

    def prefixes(a: str, b: str) -> float:
        return _overlap(*({w[:5] for w in similarity.content_words(t)} for t in (a, b)))  # type: ignore[arg-type]

    forms: dict[str, Score] = {
        "likeness (light stemmer; before)": proposals.likeness,
        "5-letter prefixes": prefixes,
        "light stemmer + 0.3 x 4-letter pieces": light_pieces,
        "index stemmer, camelCase parts, synonyms": words,
        "  weighted by rarity (IDF over the half's texts)": weighted,
        **{f"  + {w} x {n}-letter pieces": blend(n, w) for n, w in ((4, 0.2), (4, 0.3), (4, 0.5), (3, 0.3), (5, 0.3))},
        "  + 0.3 x 4-letter pieces, best of the parts": parts,
    }
    out = {}
    for name, score in forms.items():
        out[name] = (score, 0.0)
        out[f"{name}, runner-up cut"] = (score, proposals.RUNNER_UP)
    return out


def partners(pairs: list[dict[str, Any]]) -> dict[str, set[str]]:
    """text -> the ids of the labelled pairs it is in (texts sharing one are related)."""
    of: dict[str, set[str]] = collections.defaultdict(set)
    for p in pairs:
        of[p["ta"]].add(p["id"])
        of[p["tb"]].add(p["id"])
    return of


def shown(score: Score, floor: float, cut: float, new: str, earlier: list[str]) -> list[str]:
    """The earlier texts proposed for `new`, best first, as `proposals.propose` would."""
    scored = sorted(((score(new, t), t) for t in earlier), reverse=True)
    kept = [(s, t) for s, t in scored if s >= floor]
    return [t for s, t in kept if s >= cut * kept[0][0]][:3] if kept else []


def in_archive(score: Score, floor: float, cut: float, pairs: list[dict[str, Any]], size: int) -> tuple[float, float]:
    """(share of real recurrences merged or among the proposals, proposals shown for a new
    mistake) with `size` unrelated earlier mistakes of the same half competing."""
    from rolebook.rules import similarity

    of = partners(pairs)
    texts = sorted(of)
    rng = random.Random(3)
    real = [p for p in pairs if p["same"] and not p.get("ambiguous")]
    found, noise = 0, []
    for p in real:
        others = [t for t in rng.sample(texts, min(len(texts), size + 20)) if not of[t] & of[p["tb"]]][:size]
        noise.append(len(shown(score, floor, cut, p["tb"], others)))
        found += similarity.same_text(p["ta"], p["tb"]) or p["ta"] in shown(
            score, floor, cut, p["tb"], [*others, p["ta"]]
        )
    return found / len(real), sum(noise) / len(noise)


def fit_keywords(pairs: list[dict[str, Any]], unrelated: dict[str, list[tuple[str, str]]]) -> None:
    from rolebook.rules import similarity

    def pair_rate(score: Score, floor: float, split: str, same: bool) -> float:
        chosen = [p for p in pairs if p["split"] == split and p["same"] == same and not p.get("ambiguous")]
        return sum(
            (same and similarity.same_text(p["ta"], p["tb"])) or score(p["tb"], p["ta"]) >= floor for p in chosen
        ) / len(chosen)

    half = {s: [p for p in pairs if p["split"] == s] for s in ("fit", "held-out")}
    print(f"keywords: the lowest floor with at most {BOUND} proposals shown on average for a new mistake among")
    print(f"{ARCHIVE} unrelated earlier ones (fit half); kept: the most recurrences merged or proposed on fit")
    heads = ("noise", "floor", "pair", f"among{ARCHIVE}", "new/10", "new/50", "pair", f"among{ARCHIVE}", "new/10")
    heads += ("new/50", "unrelated", "decoys")
    print(f"  {'':64} {'fit':>39} | held-out")
    print(
        f"  {'variant':64} " + " ".join(f"{h:>7}" for h in heads[:6]) + " | " + " ".join(f"{h:>7}" for h in heads[6:])
    )
    rows = []
    texts = [t for p in half["fit"] for t in (p["ta"], p["tb"])]
    for name, (score, cut) in keyword_variants(texts).items():
        scores = [score(a, b) for a, b in unrelated["fit"]]
        best = None
        for noise in NOISE:
            floor = floor_for(scores, noise)
            among, new = in_archive(score, floor, cut, half["fit"], ARCHIVE)
            if new > BOUND:
                break
            best = (pair_rate(score, floor, "fit", True), among, noise, floor, new)
        if best is None:
            continue
        fit_pair, fit_among, noise, floor, new = best
        row = [noise, floor, fit_pair, fit_among, new, in_archive(score, floor, cut, half["fit"], 50)[1]]
        held_among, held_new = in_archive(score, floor, cut, half["held-out"], ARCHIVE)
        row += [pair_rate(score, floor, "held-out", True), held_among, held_new]
        row += [in_archive(score, floor, cut, half["held-out"], 50)[1]]
        row += [sum(score(a, b) >= floor for a, b in unrelated["held-out"]) / len(unrelated["held-out"])]
        row += [pair_rate(score, floor, "held-out", False)]
        rows.append((name, row))
    kept = max(rows, key=lambda r: (r[1][2], r[1][3], -r[1][4]))[0]
    for name, row in rows:
        mark = " <- kept" if name == kept else ""
        cells = [f"{row[0]:7.2f}", f"{row[1]:7.3f}"] + [f"{v:7.2f}" for v in row[2:]]
        print(f"  {name:64} " + " ".join(cells[:6]) + " | " + " ".join(cells[6:]) + mark)
    from rolebook.rules import proposals

    print(
        f"  in rolebook.rules.proposals: 4-letter pieces x {proposals.PIECES}, KEYWORD_FLOOR {proposals.KEYWORD_FLOOR},"
    )
    print(f"  RUNNER_UP {proposals.RUNNER_UP} (keyword_likeness); floors of the kept row: {dict(rows)[kept][1]:.3f}")


def floor_for(scores: list[float], noise: float) -> float:
    """The lowest floor that proposes at most `noise` of these unrelated pairs."""
    ranked = sorted(scores, reverse=True)
    k = int(noise * len(ranked))
    return max(ranked[k] + 1e-9, 1e-9) if k < len(ranked) else 1e-9
