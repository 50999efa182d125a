"""The recall hook with the session's model lent by `rolebook mcp` (agents/meaning.py).

Run by hand (never in CI), with the semantic extra and its weights installed:
`python tests/bench/bench_lent.py [--runs 21]`. For each of sets a and c (held-out halves):
the set's lessons go into a fresh project (searching by meaning, the extra's default), then
every held-out failure goes through the installed hook (`rolebook recall`, Claude Code's
form) twice: with no MCP server running (keywords alone) and with `rolebook mcp` running
for the project (the model lent). Prints hit / precision / silence for both, and the hook's
whole-process time against `python -c pass` in the same run (medians, interleaved).

`--shared`: the lessons go into a team's root that the project shares (`shared_roots`), the
project itself holding one unrelated lesson: the lent model reaches a shared root's lessons
by their vectors in that root.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchdocs
from bench_recall import context_text, load, payload, tally

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


def run(name: str, runs: int, shared: bool = False) -> None:
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
        with lending(ROLEBOOK, root):
            lent = figures()
            base2, lent_time = times()
        for label, (h, p, s), t, b in (
            ("keywords alone", alone, alone_time, base),
            ("model lent", lent, lent_time, base2),
        ):
            print(
                f"set {name} held-out{', shared' * shared}, {label:>14}: "
                f"hit {h:.3f} precision {p:.3f} silence {s:.3f}   "
                f"hook {t * 1000:5.0f} ms ({t / b:.1f}x python -c pass, {b * 1000:.0f} ms)"
            )
    finally:
        shutil.rmtree(top, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sets", default="a,c")
    parser.add_argument("--shared", action="store_true", help="the lessons in a shared root, not the project")
    args = parser.parse_args()
    os.environ.pop("ROLEBOOK_SEARCH_MODE", None)
    for name in args.sets.split(","):
        run(name, args.runs, args.shared)


if __name__ == "__main__":
    shared = "--shared" in sys.argv
    with benchdocs.section("recall-lent" + "-shared" * shared, ABOUT + ("\n" + SHARED) * shared):
        main()
