"""The recall hook on labelled real tool failures (tests/fixtures/failures, read its card).

Run by hand: `python tests/bench/bench_recall.py [--set a] [--split held-out] [--form claude]`.

A set's lessons go into a fresh root through the library's write path (each with its
role, section and date, in date order), then every failure and every success goes
through the hook exactly as an agent CLI hands it over (the payload each CLI's hook
gets on stdin, or `--command/--error`), and what the hook printed is counted:

- hit rate: a relevant lesson shown, for the failures that have one;
- precision: the share of the lessons shown that are relevant;
- silence: nothing shown, for the failures with no lesson and for the successes;
- characters: what reached the agent's context, per failure (and per failure shown).

In process by default (the hook's own function, stdin as a string); `--process` runs the
installed command instead, one process a case. The decision in the hook is fitted on
set a's "fit" rows only; report a's "held-out" rows and the whole of set b.

`--fit` sweeps the decision's constants (a grid, the threshold in steps of 0.1) on set a's
fit rows and keeps the best there: the highest hit rate with precision >= 0.85 and silence
>= 0.92 on the fit rows, then precision + silence, then the steadiest threshold. Variants
of the failure's reading tried so far (issue 27), each with its own best constants on
the grid below, as hit / precision / silence in per cent (Claude Code's form):

| variant | fit | held-out | set b |
| --- | --- | --- | --- |
| before: 60 stop words, a pair weighs as a word | 64.3/85.7/97.5 | 63.5/76.7/90.7 | 58.7/66.1/79.2 |
| the same reading, pair weight 1-2 in the grid | 66.1/86.4/97.5 | 46.2/70.6/95.3 | 57.9/70.2/85.1 |
| function words out (such, no, not, don't): **kept** | 69.6/86.7/95.0 | 61.5/80.5/90.7 | 63.5/74.1/83.2 |
| + one-letter words out | 67.9/86.4/95.0 | 61.5/82.5/90.7 | 62.7/75.2/83.2 |
| + key lines cut to the first 4 and last 4 | 66.1/86.4/97.5 | 61.5/82.5/93.0 | 59.5/73.5/86.1 |
| + the command's words always in the query | 66.1/86.4/97.5 | 59.6/78.0/93.0 | 59.5/73.5/85.1 |
| + exception names as codes, by kind | 66.1/86.0/95.0 | 46.2/78.8/93.0 | 57.9/75.3/86.1 |
| the command's words in the query alone | 66.1/86.4/97.5 | 46.2/68.6/95.3 | 57.9/70.2/85.1 |
| key lines cut to the first 4 and last 4 alone | 66.1/86.4/97.5 | 48.1/73.5/95.3 | 58.7/71.8/86.1 |
| kept + three words side by side shared, 0-4 each | 71.4/85.1/95.0 | 61.5/77.3/86.0 | 62.7/72.5/82.2 |
| kept, the command's own pairs (npx tsc) not pairs | 69.6/86.7/97.5 | 51.9/71.8/86.0 | 60.3/71.0/80.2 |

On the old 7-axis grid: a lesson's strength divided by its length (BM25's b of 0.3-1:
no gain on fit), the lead taken relative to the best (no gain), words held by more than
20 documents left out (fit 67.9 / 86.4 / 92.5, held-out 53.8 / 73.7 / 93.0), key lines
cut to 4 / 8 / 16 (fit 73.2 / 64.3 / 64.3 hit; held-out 53.8 / 65.4 / 63.5 hit). The
last two rows are as good or better on fit but leave held-out silence under 0.90: not kept.
Of the fit failures with a lesson, that decision ranked a relevant lesson first for
47 of 56 (39 shown); the rest of the gap to the goal (hit 0.80) is scores: the true lessons
below the threshold (a message matched by one or two words: "database is locked", "yarn:
command not found", `grep` exiting 1) score as low as near misses (the same exception or
tool, another cause), which keyword evidence cannot tell apart.

Then a third hand's set came (c: 176 failures whose lessons paraphrase their errors), and
the decision fitted on a's fit half lost on it what it had lost on b: 39.6 / 61.8 / 86.0 on
c's held-out half. So the decision is now fitted on three hands: `--fit` defaults to a's fit
half, all of b and c's fit half (precision >= 0.82 and silence >= 0.91 there, chosen before
c was looked at), and reports a's and c's held-out halves. hit / precision / silence, %:

| variant | fit | a held-out | c held-out |
| --- | --- | --- | --- |
| last stop (fitted on a's fit half) | 62.0/76.5/86.9 | 61.5/80.5/90.7 | 39.6/61.8/86.0 |
| + new evidence (below), the same constants | 65.2/78.7/87.4 | 61.5/80.5/90.7 | 39.6/60.0/84.0 |
| the same, fitted on a's fit half and b (c whole: 37.0/68.0/90.5) | 65.4/82.6/91.5 | 57.7/81.6/93.0 | |
| the same at the goals (0.80 / 0.90) | 67.0/80.8/90.1 | 57.7/82.1/93.0 | |
| **kept: fitted on a's fit half, b, c's fit half** | **61.1/82.3/92.0** | **55.8/80.6/93.0** | **30.2/59.3/88.0** |

New evidence: the exit code a lesson states for the failing tool ("grep exits 1", "curl
exit 7"), a numbered name read as its name too (sqlite3 as sqlite), a warning drawn in a
box skipped with its box (terraform's missing .terraformrc). Both held-out halves
together: 42.9 / 71.4 / 90.3 kept, 50.5 / 71.1 / 87.1 for the last stop's constants with
the new evidence: the fit on three hands buys silence with hit rate,
and precision on a hand not fitted on stays near 0.71 at any threshold the grid offers
(its near misses score as high as its answers). Leave one set out (fitted on two whole
sets, reported on the third): b 59.5 / 83.3 / 90.1, a 58.3 / 87.5 / 96.4.

Kinds of failure named in other words were measured too, not kept: twelve kinds (connection
refused ~ "nothing is listening", command not found ~ "not installed", permission, port
taken, timeout, memory, certificate, disk full, offline, auth, JSON, locked) read from the
failure's key lines and from each lesson by general patterns, a shared kind adding 0-4 and
a different one taking 0-4 off, on the same fit: fit hit 0.611 -> 0.629 at best, held-out
a 0.538-0.577 / 0.806-0.857 / 0.930, c 0.321-0.358 / 0.567-0.633 / 0.86-0.88: one or two
failures either way, not worth a table of sixty lines.

Evidence by meaning was measured too (`--fit-meaning`): MiniLM's cosine between the
failure's signal and each lesson, times a weight, added to the keyword strength of each
candidate lesson, fitted as above on the three hands (until this stop the bench let the 5
nearest lessons by meaning join the candidates, which the hook does not: no figure moved):

| weight | fit | a held-out | c held-out |
| --- | --- | --- | --- |
| 0 (keywords alone, kept when no model is lent) | 61.1/82.3/92.0 | 55.8/80.6/93.0 | 30.2/59.3/88.0 |
| 5 (the fit's best hit) | 65.2/82.8/91.4 | 59.6/83.8/93.0 | 34.0/64.3/88.0 |
| **15 (kept: best hit + precision + silence on fit)** | 64.7/86.7/92.0 | 63.5/86.8/95.3 | 43.4/76.7/90.0 |
| 20 | 64.7/86.7/92.0 | 65.4/85.0/93.0 | 45.3/77.4/90.0 |

On the hand whose lessons paraphrase their errors, meaning is what keywords lack (a
relevant lesson first for 57% of c's held-out failures with one by keywords, 72% with
weight 20). A fresh hook process cannot load the model within its budget (about a second;
numpy alone is 4x `python -c pass`, the budget 6x), so the session's `rolebook mcp` lends
its model over a local socket (agents/meaning.py) and the hook uses weight 15 when it
answers (tests/bench/bench_lent.py measures it through the installed hook); keywords
alone otherwise.

What caps the hit rate is the ranking (`--ceiling`): a relevant lesson is among the
candidates for 94% of the held-out failures with one, but ranked first, of those failures:

| ranked by | fit | a held-out | c held-out |
| --- | --- | --- | --- |
| keywords | 0.760 | 0.788 | 0.566 |
| meaning (MiniLM's cosine) | 0.719 | 0.654 | 0.604 |
| both (the hook's, weight 15) | 0.792 | 0.769 | 0.698 |
| a ranker learned on fit (softmax over 14 features) | 0.828 | 0.808 | 0.698 |

The hook shows one lesson, so its hit rate is at most the first column's share; a second
lesson when it scores near the first (at 0.8-0.95 of it, refitted with the lent model)
adds no hit on fit and costs 2-5 points of precision on the held-out halves, and a
logistic decision on the first lesson's evidence (its score, lead, strength, cosine, codes,
terms, pairs; fitted on fit by hand) reached a 0.596-0.635 / 0.846-0.868 / 0.930-0.953 and
c 0.358-0.415 / 0.679-0.724 / 0.880: no better than the kept decision (a 0.635 / 0.868 /
0.953, c 0.434 / 0.767 / 0.900). Numbers of ports a lesson names (18099, 55432) were
looked at as evidence and left out: most failures that print one have another lesson.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures" / "failures"
sys.path.insert(0, str(HERE.parent / "agents"))
import benchdocs  # noqa: E402
from payloads import FORMS, output_of  # noqa: E402
from payloads import payload as form_payload  # noqa: E402

sys.path.insert(0, str(HERE.parent))
from roots import remember  # noqa: E402

ABOUT = """The recall hook (`rolebook recall`, run after a failed tool call) on labelled real tool failures
(tests/fixtures/failures, see its card). The set's lessons go into a fresh root; every failure and
every success goes through the hook as each agent CLI hands it over (form: claude, the
`--command/--error` arguments, gemini, copilot, codex). Hit: a relevant lesson shown, for failures
that have one; precision: the share of shown lessons that are relevant; silence: nothing shown,
for failures with no lesson and for successes; characters that reached the agent. The decision
was fitted on set a's fit half, all of set b and set c's fit half: the held-out halves of a and c
are the result (b is fit data)."""


def payload(form: str, case: dict[str, Any], folder: Path | None = None) -> tuple[str, list[str]]:
    """(stdin, arguments) for the hook as the agent CLI `form` hands a labelled case over."""
    return form_payload(form, case["command"], case["exit_code"], output_of(case), folder)


def load(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(failures, successes, lessons) of set `name`."""
    folder = FIXTURES / name

    def rows(file: str) -> list[dict[str, Any]]:
        with (folder / file).open(encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    return rows("failures.jsonl"), rows("successes.jsonl"), rows("lessons.jsonl")


def make_root(root: Path, lessons: list[dict[str, Any]]) -> dict[str, str]:
    """Write the lessons into a fresh root searched by keywords (tests/roots.py `remember`:
    the one write path, with each lesson's role, section and date, oldest first). Returns
    record id -> lesson id."""
    return remember(root, lessons, "search:\n  mode: keyword\n")


def _code(options: dict[str, str]) -> int | None:
    return int(options["--exit-code"]) if "--exit-code" in options else None


def run_hook(root: Path, stdin: str, extra: list[str], process: bool) -> str:
    """What the hook printed (for the agent's context), in process or as the installed command."""
    if process:
        exe = str(Path(sys.executable).parent / "rolebook")
        done = subprocess.run([exe, "--root", str(root), "recall", *extra], input=stdin, capture_output=True, text=True)
        return done.stdout
    from rolebook.agents.hooks import recall

    options = dict(zip(extra[::2], extra[1::2], strict=True))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        return recall(
            stdin, root, None, options.get("--command"), options.get("--error"), options.get("--agent"), _code(options)
        )


def context_text(out: str) -> str:
    """The text that reaches the agent's context: additionalContext when the hook answers JSON."""
    with contextlib.suppress(ValueError):
        data = json.loads(out)
        if isinstance(data, dict):
            inner = data.get("hookSpecificOutput", data)
            return str(inner.get("additionalContext", ""))
    return out


_ID = re.compile(r"#([0-9a-f]{6,})\b")


@dataclass
class Tally:
    with_lesson: int = 0
    hits: int = 0
    shown: int = 0
    shown_relevant: int = 0
    without: int = 0
    silent: int = 0
    successes: int = 0
    silent_successes: int = 0
    chars: int = 0
    failures: int = 0
    seconds: float = 0.0
    answered: int = 0

    def row(self) -> str:
        hit = self.hits / self.with_lesson if self.with_lesson else 0.0
        precision = self.shown_relevant / self.shown if self.shown else 1.0
        silence = self.silent / self.without if self.without else 1.0
        ok = self.silent_successes / self.successes if self.successes else 1.0
        per = self.chars / self.failures if self.failures else 0.0
        per_shown = self.chars / self.answered if self.answered else 0.0
        return (
            f"hit {hit:6.1%} ({self.hits}/{self.with_lesson})  precision {precision:6.1%} "
            f"({self.shown_relevant}/{self.shown})  silence {silence:6.1%} ({self.silent}/{self.without})  "
            f"successes silent {ok:6.1%} ({self.silent_successes}/{self.successes})  "
            f"chars/failure {per:6.0f}  chars/answer {per_shown:6.0f}"
        )


def measure(
    root: Path,
    ids: dict[str, str],
    failures: list[dict[str, Any]],
    successes: list[dict[str, Any]],
    form: str,
    process: bool,
) -> Tally:
    tally = Tally()
    for case, is_failure in [(c, True) for c in failures] + [(c, False) for c in successes]:
        if not is_failure and form == "args":
            continue  # --command/--error say the command failed
        stdin, extra = payload(form, case, root.parent)
        start = time.perf_counter()
        text = context_text(run_hook(root, stdin, extra, process))
        tally.seconds += time.perf_counter() - start
        shown = [ids.get(i, "?") for i in _ID.findall(text)]
        if not is_failure:
            tally.successes += 1
            tally.silent_successes += not text.strip()
            continue
        tally.failures += 1
        tally.chars += len(text)
        tally.answered += bool(text.strip())
        relevant = set(case["relevant"])
        tally.shown += len(shown)
        tally.shown_relevant += sum(1 for s in shown if s in relevant)
        if relevant:
            tally.with_lesson += 1
            tally.hits += bool(relevant & set(shown))
        else:
            tally.without += 1
            tally.silent += not text.strip()
    return tally


def collect(root: Path, ids: dict[str, str], failures: list[dict[str, Any]]) -> list[tuple[set[str], list[Any]]]:
    """For each failure (as Claude Code hands it over), its relevant lessons and the
    evidence of every candidate lesson (notebook/search/abstention.py), for the fit."""
    from rolebook.agents.hooks import _hook_input, failed_call
    from rolebook.notebook.search import bounded, failure_of
    from rolebook.notebook.search.abstention import evidence
    from rolebook.notebook.store import Layout

    roots = [("", Layout.default(root))]
    out = []
    for case in failures:
        stdin, _ = payload("claude", case)
        failed = failed_call(_hook_input(stdin), None)
        assert failed is not None
        found, _ = evidence(roots, failure_of(bounded(failed.command), bounded(failed.output), failed.exit_code))
        found = [replace(e, hit=replace(e.hit, id=ids.get(e.hit.id, "?"))) for e in found]
        out.append((set(case["relevant"]), found))
    return out


def score(cases: list[tuple[set[str], list[Any]]], decision: Any) -> tuple[float, float, float]:
    """(hit rate, precision, silence) of a decision on collected cases."""
    return tally([(wanted, [h.id for h in decision.decide(found)]) for wanted, found in cases])


def tally(picks: list[tuple[set[str], list[str]]]) -> tuple[float, float, float]:
    """(hit rate, precision, silence) of what was shown for each case."""
    hits = with_lesson = shown = relevant = without = silent = 0
    for wanted, picked in picks:
        shown += len(picked)
        relevant += sum(1 for p in picked if p in wanted)
        if wanted:
            with_lesson += 1
            hits += bool(wanted & set(picked))
        else:
            without += 1
            silent += not picked
    return hits / max(with_lesson, 1), relevant / shown if shown else 1.0, silent / max(without, 1)


def sweep(cases: list[tuple[set[str], list[Any]]], decision: Any) -> list[tuple[tuple[float, float, float], float]]:
    """(figures, threshold) for every threshold of a decision: strengths computed once."""
    ranked = []
    for wanted, found in cases:
        scored = sorted(((decision.strength(e), e.hit.id) for e in found), reverse=True)
        lead = scored[0][0] - scored[1][0] if len(scored) > 1 else scored[0][0] if scored else 0.0
        ranked.append((wanted, scored[: decision.shown], lead))
    out = []
    for step in range(4, 160):
        threshold = step / 10
        picks = []
        for wanted, scored, lead in ranked:
            picked: list[str] = []
            if scored and scored[0][0] + decision.margin * lead >= threshold:
                best = scored[0][0]
                picked = [scored[0][1]] + [i for s, i in scored[1:] if s >= threshold and s >= decision.second * best]
            picks.append((wanted, picked))
        out.append((tally(picks), threshold))
    return out


def steady(swept: list[tuple[tuple[float, float, float], float]], i: int) -> float:
    """How steady a threshold is: the mean of the figures at the thresholds around it (the
    fit's last tie-break: two configurations alike at their best, the one that stays so)."""
    near = [sum(f) for f, _ in swept[max(i - 2, 0) : i + 3]]
    return sum(near) / len(near)


#: What the fit asks of a decision on the fit rows, a little above the goals (0.80, 0.90)
#: so that it has room on rows it has not seen (0.85 / 0.92 when the fit rows were a's 56)
FIT_PRECISION = 0.82
FIT_SILENCE = 0.91


def cases_of(parts: list[str]) -> list[tuple[set[str], list[Any]]]:
    """The collected cases of the named parts ("a-fit", "a-held-out", "b", "c"...), each
    set's failures judged against that set's own lessons in a fresh root."""
    out: list[tuple[set[str], list[Any]]] = []
    for name in sorted({p.split("-", 1)[0] for p in parts}):
        failures, _, lessons = load(name)
        splits = {p.split("-", 1)[1] for p in parts if p.startswith(name + "-")}
        wanted = [f for f in failures if name in parts or f["split"] in splits]
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "root"
            root.mkdir()
            out += collect(root, make_root(root, lessons), wanted)
    return out


def meaning_cases(parts: list[str], model: Any) -> list[tuple[set[str], dict[str, float], dict[str, float]]]:
    """For each failure of the parts: its relevant lessons, each candidate lesson's keyword
    strength (the module's decision), and every lesson's cosine with the failure's signal
    (its command and key lines) by the semantic extra's model."""
    from rolebook.notebook.search.abstention import Decision

    return [
        (wanted, {e.hit.id: Decision().strength(e) for e in found}, cosines)
        for wanted, found, cosines, _ in meaning_rows(parts, model)
    ]


def meaning_rows(parts: list[str], model: Any) -> list[tuple[set[str], list[Any], dict[str, float], dict[str, Any]]]:
    """For each failure of the parts: its relevant lessons, each candidate lesson's evidence
    (hit ids the set's lesson ids), every lesson's cosine with the failure's signal, and
    the set's lessons by id."""
    from rolebook.agents.hooks import _hook_input, failed_call
    from rolebook.notebook.search import bounded, failure_of
    from rolebook.notebook.search.abstention import evidence
    from rolebook.notebook.store import Layout

    out = []
    for name in sorted({p.split("-", 1)[0] for p in parts}):
        failures, _, lessons = load(name)
        splits = {p.split("-", 1)[1] for p in parts if p.startswith(name + "-")}
        wanted = [f for f in failures if name in parts or f["split"] in splits]
        lesson_ids = [x["id"] for x in lessons]
        by_id = {x["id"]: x for x in lessons}
        vectors = model.encode([x["text"] for x in lessons])
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "root"
            root.mkdir()
            ids = make_root(root, lessons)
            for case in wanted:
                failed = failed_call(_hook_input(payload("claude", case)[0]), None)
                assert failed is not None
                failure = failure_of(bounded(failed.command), bounded(failed.output), failed.exit_code)
                found, _ = evidence([("", Layout.default(root))], failure)
                found = [replace(e, hit=replace(e.hit, id=ids.get(e.hit.id, "?"))) for e in found]
                signal = model.encode([failure.gist()])[0]
                cosines = dict(zip(lesson_ids, (vectors @ signal).tolist(), strict=True))
                out.append((set(case["relevant"]), found, cosines, by_id))
    return out


def ceiling(args: argparse.Namespace) -> None:
    """What the ranking allows: of the failures with a relevant lesson, the share with one
    among the candidates, and with one ranked first by keywords, by meaning, by keywords
    plus the kept meaning weight x the cosine, and by a ranker learned on the fit parts
    (softmax over each failure's candidates, on fourteen features of the evidence and the
    lesson): no decision shows more than the first ranks right."""
    import numpy as np
    from rolebook.notebook.search import semantic
    from rolebook.notebook.search.abstention import MEANING_WEIGHT, Decision

    model = semantic.load(None, asked=True)
    if model is None:
        raise SystemExit("the semantic extra's model is not available here")
    decision = Decision()

    def features(e: Any, top: tuple[float, float], cosine: float, lesson: dict[str, Any]) -> list[float]:
        strength = decision.strength(e)
        weights = [decision.weight(n) * (decision.command if cmd else 1.0) for n, cmd in e.terms]
        words = len(lesson["text"].split())
        return [
            strength,
            cosine,
            strength - top[0],
            cosine - top[1],
            float(e.code > 0),
            float(e.code < 0),
            len(e.terms),
            sum(cmd for _, cmd in e.terms),
            max(weights, default=0.0),
            len(e.pairs),
            float(np.log(words)),
            float(lesson["section"] == "mistakes"),
            float(lesson["section"] == "feedback"),
            float(words > 30),
        ]

    def rows(parts: list[str]) -> tuple[list[tuple[set[str], list[str], Any]], int]:
        """(relevant, candidate ids, features) of each failure with a lesson and candidates;
        how many failures have a lesson."""
        out, total = [], 0
        for wanted, found, cosines, lessons in meaning_rows(parts, model):
            total += bool(wanted)
            found = [e for e in found if e.hit.id in cosines]
            if wanted and found:
                top = (max(map(decision.strength, found)), max(cosines[e.hit.id] for e in found))
                matrix = np.array([features(e, top, cosines[e.hit.id], lessons[e.hit.id]) for e in found])
                out.append((wanted, [e.hit.id for e in found], matrix))
        return out, total

    fit_rows, fit_total = rows(args.fit_on.split(","))
    every = np.vstack([m for _, _, m in fit_rows])
    mean, scale = every.mean(0), every.std(0) + 1e-9
    learned = np.zeros(every.shape[1])
    for _ in range(3000):  # softmax over each failure's candidates, the relevant ones its target
        gradient = np.zeros_like(learned)
        for wanted, ids, matrix in fit_rows:
            z = (matrix - mean) / scale
            p = np.exp(z @ learned - (z @ learned).max())
            target = np.array([i in wanted for i in ids], dtype=float)
            if target.sum():
                gradient += z.T @ (p / p.sum() - target / target.sum())
        learned -= 0.1 * (gradient / len(fit_rows) + 0.01 * learned)

    rankers = {
        "keywords": lambda m: m[:, 0],
        "meaning": lambda m: m[:, 1],
        f"both (weight {MEANING_WEIGHT:g})": lambda m: m[:, 0] + MEANING_WEIGHT * m[:, 1],
        "learned": lambda m: ((m - mean) / scale) @ learned,
    }
    for part, (part_rows, total) in [("fit", (fit_rows, fit_total))] + [
        (part, rows([part])) for part in args.report.split(",") if part
    ]:
        among = sum(bool(w & set(ids)) for w, ids, _ in part_rows) / max(total, 1)
        firsts = "  ".join(
            f"{name} {sum(ids[int(np.argmax(rank(m)))] in w for w, ids, m in part_rows) / max(total, 1):.3f}"
            for name, rank in rankers.items()
        )
        print(f"{part} ({total} failures with a lesson): among the candidates {among:.3f}; first by {firsts}")


def meaning_picks(
    cases: list[tuple[set[str], dict[str, float], dict[str, float]]], weight: float, threshold: float
) -> list[tuple[set[str], list[str]]]:
    """What a decision that adds `weight` x the cosine to each lesson's keyword strength
    shows (among the keyword candidates, as the hook asks the lender about them; the lead
    counts as the module's MARGIN_WEIGHT says; one lesson at most)."""
    from rolebook.notebook.search.abstention import MARGIN_WEIGHT

    picks = []
    for wanted, strength, cosines in cases:
        scored = sorted(((s + weight * cosines.get(i, 0.0), i) for i, s in strength.items()), reverse=True)
        lead = scored[0][0] - scored[1][0] if len(scored) > 1 else scored[0][0] if scored else 0.0
        shown = bool(scored) and scored[0][0] + MARGIN_WEIGHT * lead >= threshold
        picks.append((wanted, [scored[0][1]] if shown else []))
    return picks


def fit_meaning(args: argparse.Namespace) -> None:
    """The decision with evidence by meaning added (MiniLM's cosine between the failure's
    signal and each lesson), fitted on the fit parts as `fit` does, for each weight."""
    from rolebook.notebook.search import semantic

    model = semantic.load(None, asked=True)
    if model is None:
        raise SystemExit("the semantic extra's model is not available here")
    fit_cases = meaning_cases(args.fit_on.split(","), model)
    reported = {part: meaning_cases([part], model) for part in args.report.split(",") if part}
    for weight in (0.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0):
        swept = [(tally(meaning_picks(fit_cases, weight, t / 10)), t / 10) for t in range(20, 400)]
        ok = [(f, t) for f, t in swept if f[1] >= args.precision and f[2] >= args.silence]
        if not ok:
            print(f"weight {weight}: nothing reaches the fit's precision and silence")
            continue
        f, t = max(ok, key=lambda x: (x[0][0], x[0][1] + x[0][2]))
        figures = "  ".join(
            f"{part} {'/'.join(f'{x:.3f}' for x in tally(meaning_picks(c, weight, t)))}" for part, c in reported.items()
        )
        print(f"weight {weight:4.1f} threshold {t:4.1f}: fit {f[0]:.3f}/{f[1]:.3f}/{f[2]:.3f}  {figures}")


def fit(args: argparse.Namespace) -> None:
    """Sweep the decision's constants on the fit parts; print the best and the grid's top,
    with their figures on the parts reported."""
    import itertools

    from rolebook.notebook.search.abstention import Decision

    fit_cases = cases_of(args.fit_on.split(","))
    reported = {part: cases_of([part]) for part in args.report.split(",") if part}
    results: list[tuple[tuple[float, float, float], Any, float]] = []
    grid = itertools.product(
        (0.5, 1.0, 2.0),
        (1.0, 2.0, 3.0),
        (1.0, 1.5, 2.0),
        (0.0, 2.0, 4.0),
        (0.0, -2.0),
        (0.0, 0.5, 1.0),
        (0.7, 0.85, 2.0),
        (1.0, 1.5, 2.0),
    )
    for slope, power, command, code, other, margin, second, pair in grid:
        decision = Decision(slope, power, command, code, other, margin, 0.0, second, pair=pair)
        swept = sweep(fit_cases, decision)
        ok = [(i, f, t) for i, (f, t) in enumerate(swept) if f[1] >= args.precision and f[2] >= args.silence]
        if ok:
            i, f, t = max(ok, key=lambda x: (x[1][0], x[1][1] + x[1][2], steady(swept, x[0])))
            results.append((f, replace(decision, threshold=t), steady(swept, i)))
    results.sort(key=lambda r: (-r[0][0], -r[0][1] - r[0][2], -r[2]))
    print(f"{len(results)} of the grid reach precision {args.precision} and silence {args.silence} on the fit rows")
    for (h, p, s), d, _ in results[: args.top]:
        figures = "  ".join(f"{part} {'/'.join(f'{x:.3f}' for x in score(c, d))}" for part, c in reported.items())
        print(
            f"slope {d.slope} power {d.power} command {d.command} code {d.code} other {d.other} margin {d.margin} "
            f"threshold {d.threshold:.1f} second {d.second} pair {d.pair}: fit {h:.3f}/{p:.3f}/{s:.3f}  {figures}"
        )
    d = Decision()
    print("the module's constants: fit", score(fit_cases, d), *(f"{k} {score(c, d)}" for k, c in reported.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="a", choices=sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
    parser.add_argument("--split", default="held-out", choices=("fit", "held-out", "all"))
    parser.add_argument(
        "--form", default="claude,args,gemini,copilot,codex", help="comma-separated: " + ", ".join(FORMS)
    )
    parser.add_argument("--process", action="store_true", help="run the installed command, one process a case")
    parser.add_argument("--fit", action="store_true", help="sweep the decision's constants on the fit parts")
    parser.add_argument(
        "--fit-meaning", action="store_true", help="the decision with MiniLM's cosine added, fitted on the fit parts"
    )
    parser.add_argument(
        "--ceiling", action="store_true", help="how often the ranking puts a relevant lesson first (no decision)"
    )
    parser.add_argument("--top", type=int, default=15, help="with --fit: how many of the best to print")
    parser.add_argument("--fit-on", default="a-fit,b,c-fit", help="with --fit: the parts fitted on (a-fit, b, ...)")
    parser.add_argument("--report", default="a-held-out,c-held-out", help="with --fit: the parts reported")
    parser.add_argument("--precision", type=float, default=FIT_PRECISION, help="with --fit: least precision on fit")
    parser.add_argument("--silence", type=float, default=FIT_SILENCE, help="with --fit: least silence on fit")
    args = parser.parse_args()
    if args.fit:
        fit(args)
        return
    if args.fit_meaning:
        fit_meaning(args)
        return
    if args.ceiling:
        ceiling(args)
        return
    failures, successes, lessons = load(args.set)
    if args.split != "all":
        failures = [f for f in failures if f["split"] == args.split]
        successes = [s for s in successes if s["split"] == args.split]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        start = time.perf_counter()
        ids = make_root(root, lessons)
        print(
            f"set {args.set}, split {args.split}: {len(failures)} failures, {len(successes)} successes, "
            f"{len(lessons)} lessons ({len(set(ids.values()))} found in the archive) written in "
            f"{time.perf_counter() - start:.1f} s"
        )
        for form in args.form.split(","):
            tally = measure(root, ids, failures, successes, form, args.process)
            cases = tally.failures + tally.successes
            ms = statistics.fmean([tally.seconds / cases * 1000]) if cases else 0.0
            print(f"{form:>8}: {tally.row()}  {ms:.0f} ms/case")


if __name__ == "__main__":
    with benchdocs.section("recall-" + benchdocs.option("--set", "a"), ABOUT):
        main()
