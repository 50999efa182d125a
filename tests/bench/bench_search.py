"""Search speed and token economy (DESIGN.md section 11), run by hand:

    python tests/bench/bench_search.py [--sizes 1000,10000,100000] [--queries 200]

For each archive size: index build from scratch (the derived folder deleted), in-process
search p50/p95 over a mix of queries (and the p50 of the CPU time it took, which a
machine shared with other work inflates less), whole-process `rolebook search` against
`python -c pass` in the same run, and the tokens of a default search against the
tokens of the whole archive file (characters / 4). Budgets: p50 under 20 ms at 100k,
index build under 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchdocs
from rolebook.notebook.search.query import Query
from rolebook.notebook.search.render import render_hits
from rolebook.notebook.search.retrieval import search
from rolebook.notebook.store.index import Index, refresh
from rolebook.notebook.store.layout import Layout

ABOUT = """Keyword search at 1k, 10k and 100k archived records (synthetic lessons about tools and their
problems): the time to build the index from the files, in-process search p50/p95 over `--queries` queries
(and the CPU time's p50, which a shared machine inflates less), the whole `rolebook search`
process against `python -c pass` in the same run, and the tokens (characters / 4) of a default
search's output against those of the whole archive. Keyword mode (ROLEBOOK_SEARCH_MODE=keyword,
unless set otherwise)."""

TOOLS = [
    "npm",
    "pip",
    "docker",
    "git",
    "sqlite",
    "postgres",
    "redis",
    "nginx",
    "terraform",
    "kubectl",
    "yarn",
    "pytest",
    "webpack",
    "vite",
    "cargo",
    "make",
    "ssh",
    "rsync",
    "curl",
    "node",
]
PROBLEMS = [
    "permission denied",
    "timeout",
    "lockfile drift",
    "cache miss",
    "checksum mismatch",
    "out of memory",
    "port already in use",
    "certificate expired",
    "stale index",
    "merge conflict",
    "missing env var",
    "wrong version",
    "disk full",
    "race condition",
    "flaky test",
    "slow query",
    "broken symlink",
]
FIXES = [
    "pin the version",
    "clear the cache",
    "retry with backoff",
    "check ownership first",
    "run it in the venv",
    "rebuild the image",
    "set a timeout",
    "use the staging database",
    "add the index",
    "rotate the key",
]


def make_archive(root: Path, size: int, rng: random.Random) -> int:
    layout = Layout.default(root)
    roles = ["coder", "designer", "qa", "devops"]
    ops = ["pruned", "pruned", "recurred", "obsolete", "stored", "logged"]
    layout.archive.mkdir(parents=True, exist_ok=True)
    files = {r: open(layout.archive_path(r), "w", encoding="utf-8") for r in roles}  # noqa: SIM115
    for i in range(size):
        role = roles[i % 4]
        tool, problem, fix = rng.choice(TOOLS), rng.choice(PROBLEMS), rng.choice(FIXES)
        op = rng.choice(ops)
        rec = {
            "v": 1,
            "id": f"{i:012x}",
            "op": op,
            "role": role,
            "section": rng.choice(["mistakes", "learnings", "session_log"])
            if op not in ("stored", "logged")
            else ("rejected_designs" if op == "stored" else "error"),
            "date": f"20{24 + i % 3}-{1 + i % 12:02d}-{1 + i % 28:02d}",
            "text": f"{tool} {problem} during {rng.choice(['deploy', 'build', 'install', 'tests'])}: {fix}",
            "count": 1,
            "at": "2026-01-01T00:00:00Z",
        }
        if op == "logged":
            rec.update(type="error", ctx_hash=f"{tool}-run-{problem.split()[0]}", outcome=rng.choice(["1/1", "0/1"]))
        files[role].write(json.dumps(rec, separators=(",", ":")) + "\n")
    for f in files.values():
        f.close()
    return sum(layout.archive_path(r).stat().st_size for r in roles)


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15, help="whole-process runs")
    args = parser.parse_args()
    # keyword search, as bench_cli.py: with the semantic extra installed the default is hybrid,
    # whose first search in a process loads the model (bench_semantic_cold.py measures that)
    os.environ.setdefault("ROLEBOOK_SEARCH_MODE", "keyword")
    rng = random.Random(1)
    print(
        f"{'records':>8} {'build s':>8} {'p50 ms':>7} {'p95 ms':>7} {'cpu p50':>7} {'pass ms':>8} {'cli ms':>7} "
        f"{'cli x':>6} {'search tok':>10} {'archive tok':>12}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            archive_bytes = make_archive(root, size, rng)
            layout = Layout.default(root)
            shutil.rmtree(layout.derived, ignore_errors=True)
            start = time.perf_counter()
            with Index(layout) as index:
                refresh(layout, index)
            build = time.perf_counter() - start
            queries = [f"{rng.choice(TOOLS)} {rng.choice(PROBLEMS)}" for _ in range(args.queries)]
            times, cpu, tokens = [], [], []
            for q in queries:
                start, start_cpu = time.perf_counter(), time.process_time()
                result = search(layout, Query(q))
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
                tokens.append(sum(len(line) + 1 for line in render_hits(result, 500)) / 4)
            times.sort()
            p50, p95 = times[len(times) // 2] * 1000, times[int(len(times) * 0.95)] * 1000
            cpu50 = statistics.median(cpu) * 1000
            base, cli = [], []
            exe = [str(Path(sys.executable).parent / "rolebook")]
            for _ in range(args.runs):
                base.append(timed([sys.executable, "-c", "pass"]))
                cli.append(timed([*exe, "--root", tmp, "search", rng.choice(queries)]))
            b, c = statistics.median(base) * 1000, statistics.median(cli) * 1000
            print(
                f"{size:>8} {build:>8.2f} {p50:>7.1f} {p95:>7.1f} {cpu50:>7.1f} {b:>8.1f} {c:>7.1f} {c / b:>6.1f} "
                f"{statistics.median(tokens):>10.0f} {archive_bytes / 4:>12.0f}"
            )


if __name__ == "__main__":
    with benchdocs.section("search", ABOUT):
        main()
