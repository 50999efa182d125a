"""Whole-process `rolebook read`, `update` and `recall` against `python -c pass`.

Run by hand (never in CI): `python tests/bench/bench_cli.py [--runs 30]`. Budgets
(DESIGN.md section 11): read (and recall, a hook's) at most 6x the bare interpreter,
update at most 10x, all flat from 0 to 100k archived records. The bare interpreter is timed in the same
run, interleaved with the commands, because these machines are shared and noisy.
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

ROLEBOOK = [sys.executable, "-m", "rolebook"]
SCRIPT = shutil.which("rolebook")


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
        )


def timed(cmd: list[str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=False, input=stdin, capture_output=True, text=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--sizes", default="0,10000,100000")
    args = parser.parse_args()
    exe = [SCRIPT] if SCRIPT else ROLEBOOK
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, command {' '.join(exe)}, {args.runs} runs each")
    print(
        f"{'archive':>8} {'pass ms':>8} {'read ms':>8} {'read x':>7} {'update ms':>10} {'update x':>9} "
        f"{'recall ms':>10} {'recall x':>9}"
    )
    failure = json.dumps(
        {
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "npm ci"},
            "error": "EACCES flaky deploys",
        }
    )
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            make_root(root, size)
            base, read, update, recall = [], [], [], []
            for i in range(args.runs):
                base.append(timed([sys.executable, "-c", "pass"]))
                read.append(timed([*exe, "--root", tmp, "read", "coder"]))
                update.append(timed([*exe, "--root", tmp, "update", "coder", "-l", f"bench learning {i}"]))
                recall.append(timed([*exe, "--root", tmp, "recall", "--role", "coder"], failure))
            b, r, u, c = (statistics.median(x) * 1000 for x in (base, read, update, recall))
            print(f"{size:>8} {b:>8.1f} {r:>8.1f} {r / b:>7.1f} {u:>10.1f} {u / b:>9.1f} {c:>10.1f} {c / b:>9.1f}")


if __name__ == "__main__":
    main()
