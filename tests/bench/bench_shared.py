"""Search across shared roots (issue 17), run by hand:

    python tests/bench/bench_shared.py [--roots 10] [--size 10000] [--queries 100]

One project root with `--roots` shared roots of `--size` records each, against one root
holding all of them (roots x size): index build time per root, in-process search p50/p95
through the session API, whole-process `rolebook search` against `python -c pass` in
the same run.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_search import PROBLEMS, TOOLS, make_archive, timed
from rolebook.agents.config import load_config
from rolebook.agents.session import open_session
from rolebook.notebook.search.query import Query
from rolebook.notebook.store.index import Index, refresh
from rolebook.notebook.store.layout import Layout


def build(root: Path) -> float:
    layout = Layout.default(root)
    shutil.rmtree(layout.derived, ignore_errors=True)
    start = time.perf_counter()
    with Index(layout) as index:
        refresh(layout, index)
    return time.perf_counter() - start


def measure(root: Path, queries: list[str], runs: int, rng: random.Random) -> tuple[float, float, float, float]:
    session = open_session(load_config(root), new_roles=True)
    times = []
    for q in queries:
        start = time.perf_counter()
        session.search(Query(q, mode="keyword"))
        times.append(time.perf_counter() - start)
    times.sort()
    base, cli = [], []
    exe = str(Path(sys.executable).parent / "rolebook")
    for _ in range(runs):
        base.append(timed([sys.executable, "-c", "pass"]))
        cli.append(timed([exe, "--root", str(root), "search", rng.choice(queries)]))
    return (
        times[len(times) // 2] * 1000,
        times[int(len(times) * 0.95)] * 1000,
        statistics.median(base) * 1000,
        statistics.median(cli) * 1000,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--roots", type=int, default=10)
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(1)
    queries = [f"{rng.choice(TOOLS)} {rng.choice(PROBLEMS)}" for _ in range(args.queries)]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "project"
        make_archive(project, 100, rng)
        lines = ["shared_roots:"]
        builds = []
        for n in range(args.roots):
            shared = base / f"team{n}"
            make_archive(shared, args.size, rng)
            (shared / "rolebook.yaml").write_text("version: 1\n")
            builds.append(build(shared))
            lines.append(f"  - {{name: team{n}, path: ../team{n}}}")
        (project / "rolebook.yaml").write_text("\n".join(lines) + "\n")
        build(project)
        single = base / "single"
        make_archive(single, args.roots * args.size, rng)
        single_build = build(single)
        print(f"index build per shared root of {args.size}: median {statistics.median(builds):.2f} s")
        print(f"index build of one root of {args.roots * args.size}: {single_build:.2f} s")
        print(f"{'setup':>26} {'p50 ms':>7} {'p95 ms':>7} {'pass ms':>8} {'cli ms':>7} {'cli x':>6}")
        setups = ((f"1 + {args.roots} shared x {args.size}", project), (f"1 x {args.roots * args.size}", single))
        for name, root in setups:
            p50, p95, b, c = measure(root, queries, args.runs, rng)
            print(f"{name:>26} {p50:>7.1f} {p95:>7.1f} {b:>8.1f} {c:>7.1f} {c / b:>6.1f}")


if __name__ == "__main__":
    main()
