"""The memory tool's cost in process, run by hand: `python tests/bench/bench_memory_tool.py [--runs 30]`.

Per command (after the tool is built), p50 and p95 of `view` of a notebook, `view` of
/memories, `create` of a new notebook (three entries), `str_replace` adding one entry,
`insert` adding one, and `delete` of a notebook of 20 entries; beside the SDK's own
local backend (a bare folder: no lock, no archive, no fsync of a journal) for `view`
and `create`, and the cost of building each tool. Over an empty archive and one of
--records records (the write path's cost is meant to be flat in the archive's size).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from anthropic.tools import BetaLocalFilesystemMemoryTool
from rolebook import RolebookMemoryTool

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_search import make_archive

NOTEBOOK = "# coder notebook\n\n## Mistakes\n{m}\n## Learnings\n{l}\n## Feedback\n\n## Session Log\n{s}"


def entries(prefix: str, n: int, day: int = 1) -> str:
    return "".join(f"- [2026-01-{(day + k) % 28 + 1:02d}] {prefix} lesson {k} about caches\n" for k in range(n))


def timed(runs: int, setup: Callable[[int], Any], action: Callable[[int, Any], object]) -> list[float]:
    out = []
    for i in range(runs):
        state = setup(i)
        start = time.perf_counter()
        action(i, state)
        out.append((time.perf_counter() - start) * 1000)
    return out


def line(name: str, ms: list[float]) -> str:
    ms = sorted(ms)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"  {name:<34} p50 {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms   (n={len(ms)})"


def bench(records: int, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        if records:
            make_archive(root, records, random.Random(7))
        start = time.perf_counter()
        tool = RolebookMemoryTool(root=root)
        built = (time.perf_counter() - start) * 1000
        text = NOTEBOOK.format(m=entries("mistake", 10), l=entries("learning", 10), s=entries("log", 5))
        tool.call({"command": "create", "path": "/memories/coder.md", "file_text": text})
        sdk_base = Path(tmp) / "sdk"
        start = time.perf_counter()
        sdk = BetaLocalFilesystemMemoryTool(base_path=str(sdk_base))
        sdk_built = (time.perf_counter() - start) * 1000
        (sdk_base / "memories" / "coder.md").write_text(text, encoding="utf-8")
        view = {"command": "view", "path": "/memories/coder.md"}
        print(f"archive of {records} records; tool built in {built:.0f} ms (the SDK's backend: {sdk_built:.1f} ms)")
        print(line("view /memories/coder.md", timed(runs, lambda i: None, lambda i, s: tool.call(view))))
        print(line("  the SDK's backend", timed(runs, lambda i: None, lambda i, s: sdk.call(view))))
        listing = {"command": "view", "path": "/memories"}
        print(line("view /memories", timed(runs, lambda i: None, lambda i, s: tool.call(listing))))
        print(line("  the SDK's backend", timed(runs, lambda i: None, lambda i, s: sdk.call(listing))))

        def create(i: int) -> dict[str, str]:
            body = f"## Learnings\n{entries(f'new{i}', 3)}"
            return {"command": "create", "path": f"/memories/r{i}.md", "file_text": body}

        print(line("create (3 entries)", timed(runs, create, lambda i, c: tool.call(c))))
        print(line("  the SDK's backend", timed(runs, create, lambda i, c: sdk.call(c))))

        def replace(i: int) -> dict[str, str]:
            added = f"- [2026-02-{i % 28 + 1:02d}] replaced-in lesson {i}\n"
            return {"command": "str_replace", "path": "/memories/coder.md", "old_str": "## Learnings\n",
                    "new_str": "## Learnings\n" + added}  # fmt: skip

        print(line("str_replace (adds 1 entry)", timed(runs, replace, lambda i, c: tool.call(c))))

        def insert(i: int) -> dict[str, Any]:
            added = f"- [2026-03-{i % 28 + 1:02d}] inserted lesson {i}"
            return {"command": "insert", "path": "/memories/coder.md", "insert_line": 3, "insert_text": added}

        print(line("insert (adds 1 entry)", timed(runs, insert, lambda i, c: tool.call(c))))

        def full(i: int) -> dict[str, str]:
            body = NOTEBOOK.format(m=entries(f"d{i}m", 10), l=entries(f"d{i}l", 10), s="")
            tool.call({"command": "create", "path": f"/memories/d{i}.md", "file_text": body})
            return {"command": "delete", "path": f"/memories/d{i}.md"}

        print(line("delete (20 entries retired)", timed(max(3, runs // 5), full, lambda i, c: tool.call(c))))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--records", type=int, default=10000)
    args = parser.parse_args()
    for records in (0, args.records):
        bench(records, args.runs)


if __name__ == "__main__":
    main()
