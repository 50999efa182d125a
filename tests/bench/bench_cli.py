"""Whole-process commands against `python -c pass`: read, recall, the session hooks, update,
search, read --task and --version.

Run by hand (never in CI): `python tests/bench/bench_cli.py [--runs 21] [--sizes 0,100000]`;
`--rolebook PATH` (repeatable) times another installation too, interleaved (a checkout
of an earlier commit, say), one row each.
Budgets (DESIGN.md section 11): read, recall and the hooks at most 6x the bare
interpreter; search and read --task at most 8x; update at most 10x; all flat from 0 to
100k archived records. The bare interpreter is timed in the same run, interleaved with
the commands, because these machines are shared and noisy; the figures are medians.
Searches run in keyword mode (ROLEBOOK_SEARCH_MODE=keyword): a first search by meaning
loads a model and has its own budget (tests/bench/bench_semantic_cold.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchdocs

ABOUT = """Each hot command as a whole process (the installed `rolebook`), against `python -c pass` timed in
the same run, interleaved with the commands: median milliseconds, and in brackets the multiple of
`python -c pass`. The root holds one role with a lived-in notebook and an archive of 0 or 100,000
records. Searches run in keyword mode; a first search by meaning loads a model (see the semantic
cold start). Budgets: read, recall and the hooks at most 6x the bare interpreter; search and read
--task 8x; update 10x."""

ROLEBOOK = [sys.executable, "-m", "rolebook"]
SCRIPT = shutil.which("rolebook")
ENV = {**os.environ, "ROLEBOOK_SEARCH_MODE": "keyword"}


def make_root(root: Path, records: int) -> None:
    subprocess.run([*ROLEBOOK, "--root", str(root), "init", "coder"], check=True, capture_output=True)
    lines = []
    for i in range(records):
        rec = {
            "v": 1,
            "id": f"{i:012x}",
            "op": "pruned" if i % 2 else "added",
            "role": "coder",
            "section": ("mistakes", "learnings", "session_log")[i % 3],
            "date": "2025-01-01",
            "text": f"archived lesson number {i} about npm caches and flaky deploys",
            "count": 1,
            "at": "2025-01-01T00:00:00Z",
        }
        lines.append(json.dumps(rec, separators=(",", ":")))
    archive = root / "agents/state/archive/coder.jsonl"
    archive.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    for d in range(1, 16):  # a lived-in notebook, and the index brought up to the archive once
        subprocess.run(
            [
                *ROLEBOOK,
                "--root",
                str(root),
                "update",
                "coder",
                "-m",
                f"mistake {d}",
                "-l",
                f"learning {d}",
                "--log",
                f"WQ-{d}: work",
                "--date",
                f"2026-01-{d:02d}",
            ],
            check=True,
            capture_output=True,
            env=ENV,
        )
    subprocess.run([*ROLEBOOK, "--root", str(root), "search", "npm"], check=False, capture_output=True, env=ENV)


def timed(cmd: list[str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=False, input=stdin, capture_output=True, text=True, env=ENV)
    return time.perf_counter() - start


#: (column, the arguments after `rolebook --root ROOT`, its hook JSON on stdin or None); `{i}` is the run
COMMANDS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("read", ("read", "coder"), None),
    (
        "recall",
        ("recall", "--role", "coder"),
        json.dumps(
            {
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash",
                "tool_input": {"command": "npm ci"},
                "error": "EACCES flaky deploys",
            }
        ),
    ),
    ("start", ("hook", "session-start", "--role", "coder"), json.dumps({"session_id": "bench-{i}"})),
    ("stop", ("hook", "stop", "--role", "coder"), json.dumps({"session_id": "bench-{i}"})),
    ("update", ("update", "coder", "-l", "bench learning {i}"), None),
    ("search", ("search", "npm caches"), None),
    ("task", ("read", "coder", "--task", "flaky deploys"), None),
    ("version", ("--version",), None),  # alone on its line: no root
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sizes", default="0,100000")
    parser.add_argument("--rolebook", action="append", default=[], help="another rolebook executable to time")
    args = parser.parse_args()
    exes = [[SCRIPT] if SCRIPT else ROLEBOOK] + [[path] for path in args.rolebook]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.runs} runs each")
    for n, exe in enumerate(exes):
        print(f"rolebook {n}: {' '.join(exe)}")
    print("medians in ms, and (x) against python -c pass in the same run")
    print(f"{'archive':>8} {'pass':>6}" + "".join(f" {name:>15}" for name, _, _ in COMMANDS))
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            make_root(Path(tmp), size)
            base: list[float] = []
            times: dict[tuple[int, str], list[float]] = {}
            for i in range(args.runs):
                base.append(timed([sys.executable, "-c", "pass"]))
                for n, exe in enumerate(exes):
                    for name, argv, stdin in COMMANDS:
                        at = [] if argv[0].startswith("-") else ["--root", tmp]
                        cmd = [*exe, *at, *(a.format(i=f"{n}-{i}") for a in argv)]
                        hook_input = stdin.replace("{i}", f"{n}-{i}") if stdin else None
                        times.setdefault((n, name), []).append(timed(cmd, hook_input))
            b = statistics.median(base) * 1000
            for n in range(len(exes)):
                cells = []
                for name, _, _ in COMMANDS:
                    ms = statistics.median(times[n, name]) * 1000
                    cells.append(f"{ms:>8.1f} ({ms / b:>4.1f})")
                label = f"{size}" if len(exes) == 1 else f"{size}/{n}"
                print(f"{label:>8} {b:>6.1f}" + "".join(f" {c:>15}" for c in cells), flush=True)


if __name__ == "__main__":
    with benchdocs.section("cli", ABOUT):
        main()
