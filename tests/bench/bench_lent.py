"""The recall hook with the session's model lent by `rolebook mcp` (agents/meaning.py).

Run by hand (never in CI), with the semantic extra and its weights installed:
`python tests/bench/bench_lent.py [--runs 21]`. For each of sets a and c (held-out halves):
the set's lessons go into a fresh project (searching by meaning, the extra's default), then
every held-out failure goes through the installed hook (`rolebook recall`, Claude Code's
form) twice: with no MCP server running (keywords alone) and with `rolebook mcp` running
for the project (the model lent). Prints hit / precision / silence for both, and the hook's
whole-process time against `python -c pass` in the same run (medians, interleaved).

`--busy`: a busy loop on every core (started here, stopped at the end) while the lent model
is measured; then also the share of the hook's questions the lender answers within the
hook's wait (agents/meaning.py ANSWER_SECONDS), each failure asked `--rounds` times through
the hook's own function in this process, and the answer times (p50 / p95 / max).

`--shared`: the lessons go into a team's root that the project shares (`shared_roots`), the
project itself holding one unrelated lesson: the lent model reaches a shared root's lessons
by their vectors in that root.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import benchdocs
from bench_recall import context_text, load, payload, run_hook, tally

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from roots import lending, remember  # noqa: E402

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")
ABOUT = """The recall hook with the session's model lent by `rolebook mcp` (the semantic extra installed):
each set's held-out failures through the installed hook (Claude Code's form), with no MCP server
running (keywords alone) and with `rolebook mcp` running for the project. hit / precision / silence,
and the hook's whole process against `python -c pass` in the same run (medians)."""
SHARED = """With `--shared` the set's lessons are in a team's root the project shares (`shared_roots`), the
project's own root holding one unrelated lesson."""

BUSY = """With `--busy` a busy loop runs on every core while the model is lent (`sh -c 'while :; do :; done'`,
one a core), and each held-out failure goes through the hook's own function 3 times more: the share
of the hook's questions the lender answers within the hook's wait, and how long they took."""


def hook(root: Path, stdin: str) -> tuple[str, float]:
    start = time.perf_counter()
    done = subprocess.run([ROLEBOOK, "--root", str(root), "recall"], input=stdin, capture_output=True, text=True)
    return done.stdout, time.perf_counter() - start


def bare() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


#: the project's own lesson when the set's lessons are the team's (`--shared`)
UNRELATED = {"id": "own", "role": "coder", "section": "learnings", "date": "2026-01-01", "text": "Prefer small PRs."}


@contextlib.contextmanager
def busy(on: bool) -> Iterator[None]:
    """A busy loop on every core for the body, when `on`; each stopped after."""
    loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(os.cpu_count() or 1)] if on else []
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def answered(root: Path, stdins: list[str], rounds: int) -> str:
    """The share of the hook's questions to the lender answered within the hook's wait, and
    the time each took (the hook's own function in this process, its `nearness` watched)."""
    from rolebook.agents import meaning

    asked = meaning.nearness
    times: list[tuple[bool, float]] = []

    def watched(*args: Any, **kwargs: Any) -> dict[str, float] | None:
        start = time.perf_counter()
        out = asked(*args, **kwargs)
        times.append((out is not None, time.perf_counter() - start))
        return out

    meaning.nearness = watched  # type: ignore[assignment]
    try:
        for _ in range(rounds):
            for stdin in stdins:
                run_hook(root, stdin, [], process=False)
    finally:
        meaning.nearness = asked  # type: ignore[assignment]
    if not times:
        return "no question asked"
    took = sorted(t for _, t in times)
    share = sum(ok for ok, _ in times) / len(times)
    return (
        f"answered {share:.1%} of {len(times)} questions within {meaning.ANSWER_SECONDS:.1f} s; "
        f"p50 {took[len(took) // 2] * 1000:.0f} ms p95 {took[int(len(took) * 0.95)] * 1000:.0f} ms "
        f"max {took[-1] * 1000:.0f} ms"
    )


def run(name: str, runs: int, shared: bool = False, loaded: bool = False, rounds: int = 3) -> None:
    import re

    failures, _, lessons = load(name)
    held = [f for f in failures if f["split"] == "held-out"]
    top = Path(tempfile.mkdtemp(prefix="rb"))  # short: a Unix socket's path is at most ~104 bytes
    try:
        if shared:
            (top / "team").mkdir()
            (top / "app").mkdir()
            ids = remember(top / "team", lessons)
            remember(top / "app", [UNRELATED], "shared_roots:\n  - {name: team, path: ../team}\n")
            root = top / "app"
        else:
            root = top
            ids = remember(root, lessons)  # searching by meaning, the extra default mode
        stdins = [payload("claude", case)[0] for case in held]

        def figures() -> tuple[float, float, float]:
            picks = []
            for case, stdin in zip(held, stdins, strict=True):
                shown = [ids.get(i, "?") for i in re.findall(r"#([0-9a-f]{6,})\b", context_text(hook(root, stdin)[0]))]
                picks.append((set(case["relevant"]), shown))
            return tally(picks)

        def times() -> tuple[float, float]:
            pairs = [(bare(), hook(root, stdins[n % len(stdins)])[1]) for n in range(runs)]
            return statistics.median(p for p, _ in pairs), statistics.median(h for _, h in pairs)

        alone = figures()
        base, alone_time = times()
        with lending(ROLEBOOK, root), busy(loaded):
            lent = figures()
            base2, lent_time = times()
            share = answered(root, stdins, rounds) if loaded else ""
        for label, (h, p, s), t, b in (
            ("keywords alone", alone, alone_time, base),
            ("model lent", lent, lent_time, base2),
        ):
            print(
                f"set {name} held-out{', shared' * shared}, {label:>14}: "
                f"hit {h:.3f} precision {p:.3f} silence {s:.3f}   "
                f"hook {t * 1000:5.0f} ms ({t / b:.1f}x python -c pass, {b * 1000:.0f} ms)"
            )
        if share:
            print(f"set {name} held-out{', shared' * shared}, every core busy: {share}")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sets", default="a,c")
    parser.add_argument("--shared", action="store_true", help="the lessons in a shared root, not the project")
    parser.add_argument("--busy", action="store_true", help="a busy loop on every core while the model is lent")
    parser.add_argument("--rounds", type=int, default=3, help="with --busy: each failure asked this many times")
    args = parser.parse_args()
    os.environ.pop("ROLEBOOK_SEARCH_MODE", None)
    for name in args.sets.split(","):
        run(name, args.runs, args.shared, args.busy, args.rounds)


if __name__ == "__main__":
    shared, loaded = "--shared" in sys.argv, "--busy" in sys.argv
    name = "recall-lent" + "-shared" * shared + "-busy" * loaded
    with benchdocs.section(name, ABOUT + ("\n" + SHARED) * shared + ("\n" + BUSY) * loaded):
        main()
