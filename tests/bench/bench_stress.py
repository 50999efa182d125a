"""The stress test, longer, with its rates: `python tests/bench/bench_stress.py [--seconds 30]`.

Runs library writers (update, store, log, promote), a CLI writer, an MCP writer, a searcher
and a reader on the same roles at once, then checks every acknowledged write is there
exactly once, the caps hold, no reader saw a half-written notebook, and the index agrees
with the files; prints the operations per second of each kind.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import benchdocs
import stress

ABOUT = """The stress test, longer: library writers (update, store, log, promote), a CLI writer, an MCP
writer, a searcher and a reader on the same roles at once; then every acknowledged write is checked
to be there exactly once, the caps to hold, no reader to have seen a half-written notebook, and the
index to agree with the files. Operations per second of each kind (a correctness run: the rates
depend on the machine's load). `ERROR`: operations refused with a rolebook error
(nothing written, the worker goes on), counted; not a failed check."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--updaters", type=int, default=4)
    args = parser.parse_args()
    mix = {"update": args.updaters, "cli": 1, "mcp": 1, "store": 1, "log": 1, "promote": 1, "search": 1, "reader": 1}
    with tempfile.TemporaryDirectory() as tmp:
        lines = stress.run(Path(tmp), mix, args.seconds)
        report = stress.check(Path(tmp), lines)
    ops = Counter(line.split()[1] if line.startswith("op ") else line.split()[0] for line in lines)
    print(f"{args.seconds:.0f} s, workers {mix}; all checks passed ({report['records']} archive records)")
    for kind, count in sorted(ops.items()):
        print(f"  {kind:8s} {count:7d}  {count / args.seconds:8.1f}/s")


if __name__ == "__main__":
    with benchdocs.section("stress", ABOUT):
        main()
