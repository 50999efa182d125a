"""Whole-process commands against `python -c pass`: read, recall, the session hooks, update,
search, read --task and --version.

Run by hand (never in CI): `python tests/bench/bench_cli.py [--runs 21] [--sizes 0,100000]`;
`--rolebook PATH` (repeatable) times another installation too, interleaved (a checkout
of an earlier commit, say), one row each.
Budgets (DESIGN.md section 11): read, recall and the hooks at most 6x the bare
interpreter, also on a failure inside 5 MB of output; search, read --task and update at
most 8x; all flat from 0 to 1M archived records. The bare interpreter is timed in the same
run, interleaved with the commands, because these machines are shared and noisy; the
figures are medians of the CPU time (user + system) each process took, which a loaded
machine inflates less than the wall time (printed after). The recall hook gets a real
`npm ci` failure (tests/fixtures/failures/a, fa006: 127 words), once as it came and once
at the end of 5 MB of build output.

Bytecode is cached as an installed package has it (pip compiles it at install): the
environment's PYTHONDONTWRITEBYTECODE is dropped and each command runs once before it is
timed. With it set and no cache, every run compiles some 50 modules: the hook's CPU went
from 4.9x to 8.1x `python -c pass` on the same 100k root (issue 39's "now" figures).
Searches run in keyword mode (ROLEBOOK_SEARCH_MODE=keyword): a first search by meaning
loads a model and has its own budget (tests/bench/bench_semantic_cold.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import benchdocs

ABOUT = """Each hot command as a whole process (the installed `rolebook`), against `python -c pass` timed in
the same run, interleaved with the commands: median CPU milliseconds (user + system) and in brackets
the multiple of `python -c pass`; then the same for wall time. The root holds one role with a
lived-in notebook and an archive of 0 to 1,000,000 records. `recall` is the hook on a real `npm ci`
failure (127 words), `recall5mb` the same failure at the end of 5 MB of output. Bytecode cached, as
an installed package has it. Searches run in keyword mode; a first search by meaning loads a model
(see the semantic cold start). Budgets: read, recall and the hooks at most 6x the bare interpreter;
search, read --task and update 8x."""

ROLEBOOK = [sys.executable, "-m", "rolebook"]
SCRIPT = shutil.which("rolebook")
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"ROLEBOOK_SEARCH_MODE": "keyword"}
FAILURES = Path(__file__).resolve().parents[1] / "fixtures" / "failures" / "a" / "failures.jsonl"


def npm_ci_payload(size: int = 0) -> str:
    """Claude Code's PostToolUseFailure payload of a real `npm ci` failure (fa006), at the
    end of `size` characters of build output when `size` is given."""
    case = next(c for c in map(json.loads, FAILURES.read_text(encoding="utf-8").splitlines()) if c["id"] == "fa006")
    output = case["stdout"] + case["stderr"]
    if size:
        line = "[build] compiling module src/components/widget_{i}.tsx ok ({ms} ms) hash {h:08x}\n"
        noise, i = [], 0
        while sum(map(len, noise)) < size - len(output):
            noise.append(line.format(i=i, ms=i % 97, h=i * 2654435761 % 2**32))
            i += 1
        output = "".join(noise)[: size - len(output)] + output
    return json.dumps(
        {
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": case["command"]},
            "error": output,
        }
    )


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


def timed(cmd: list[str], stdin: str | None = None) -> tuple[float, float]:
    """(CPU seconds, user + system, and wall seconds) of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=False, input=stdin, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the one child reaped since `before`
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


#: (column, the arguments after `rolebook --root ROOT`, its hook JSON on stdin or None); `{i}` is the run
COMMANDS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("read", ("read", "coder"), None),
    ("recall", ("recall", "--role", "coder"), npm_ci_payload()),
    ("recall5mb", ("recall", "--role", "coder"), npm_ci_payload(5_000_000)),
    ("start", ("hook", "session-start", "--role", "coder"), json.dumps({"session_id": "bench-{i}"})),
    ("stop", ("hook", "stop", "--role", "coder"), json.dumps({"session_id": "bench-{i}"})),
    ("update", ("update", "coder", "-l", "bench learning {i}"), None),
    ("search", ("search", "npm caches"), None),
    ("task", ("read", "coder", "--task", "flaky deploys"), None),
    ("version", ("--version",), None),  # alone on its line: no root
)


@contextlib.contextmanager
def root_of(size: int, keep: str | None) -> Iterator[Path]:
    """A root with `size` archived records: made in a temporary folder, or kept in (and
    taken again from) `keep`/SIZE, since a million records take minutes to write and index."""
    if keep is None:
        with tempfile.TemporaryDirectory() as tmp:
            make_root(Path(tmp), size)
            yield Path(tmp)
        return
    root = Path(keep) / str(size)
    if not (root / "agents").exists():
        root.mkdir(parents=True, exist_ok=True)
        make_root(root, size)
    yield root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sizes", default="0,100000")
    parser.add_argument("--keep", help="make each root in (or take it from) this folder, SIZE/ under it")
    parser.add_argument("--only", help="the commands to time, comma-separated (default: all)")
    parser.add_argument("--rolebook", action="append", default=[], help="another rolebook executable to time")
    args = parser.parse_args()
    commands = [c for c in COMMANDS if not args.only or c[0] in args.only.split(",")]
    exes = [[SCRIPT] if SCRIPT else ROLEBOOK] + [[path] for path in args.rolebook]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.runs} runs each")
    for n, exe in enumerate(exes):
        print(f"rolebook {n}: {' '.join(exe)}")
    rows: dict[str, list[str]] = {"cpu": [], "wall": []}
    for size in (int(s) for s in args.sizes.split(",")):
        with root_of(size, args.keep) as root:
            base: list[tuple[float, float]] = []
            times: dict[tuple[int, str], list[tuple[float, float]]] = {}
            for i in range(-1, args.runs):  # run -1: bytecode compiled, the index brought up to date
                pass_time = timed([sys.executable, "-c", "pass"])
                if i >= 0:
                    base.append(pass_time)
                for n, exe in enumerate(exes):
                    for name, argv, stdin in commands:
                        at = [] if argv[0].startswith("-") else ["--root", str(root)]
                        cmd = [*exe, *at, *(a.format(i=f"{n}-{i}") for a in argv)]
                        hook_input = stdin.replace("{i}", f"{n}-{i}") if stdin else None
                        took = timed(cmd, hook_input)
                        if i >= 0:
                            times.setdefault((n, name), []).append(took)
            for kind, k in (("cpu", 0), ("wall", 1)):
                b = statistics.median(t[k] for t in base) * 1000
                for n in range(len(exes)):
                    cells = []
                    for name, _, _ in commands:
                        ms = statistics.median(t[k] for t in times[n, name]) * 1000
                        cells.append(f"{ms:>8.1f} ({ms / b:>4.1f})")
                    label = f"{size}" if len(exes) == 1 else f"{size}/{n}"
                    rows[kind].append(f"{label:>8} {b:>6.1f}" + "".join(f" {c:>15}" for c in cells))
            print(f"archive {size}: load average {os.getloadavg()[0]:.1f}", flush=True)
    for kind, what in (("cpu", "CPU (user + system)"), ("wall", "wall")):
        print(f"{what}: medians in ms, and (x) against python -c pass in the same run")
        print(f"{'archive':>8} {'pass':>6}" + "".join(f" {name:>15}" for name, _, _ in commands))
        print("\n".join(rows[kind]))


if __name__ == "__main__":
    with benchdocs.section("cli", ABOUT):
        main()
