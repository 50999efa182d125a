"""The MCP server's numbers, run by hand: `python tests/bench/bench_mcp.py [--records 10000]`.

Time from spawning `rolebook mcp` to the initialize answer; p50/p95 of a `search` tool
call over stdio on an archive of --records; and the output of each tool on a full
notebook, in tokens (characters / 4). Budget (DESIGN.md section 11): a tool call after
start p50 under 20 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_search import PROBLEMS, TOOLS, make_archive


def params(root: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "rolebook", "--root", root, "mcp"])


async def spawn_time(root: str) -> float:
    start = time.perf_counter()
    async with Client(params(root)):
        return time.perf_counter() - start


async def measure(root: str, calls: int) -> None:
    spawns = [await spawn_time(root) for _ in range(5)]
    print(f"spawn to initialize answered: median {statistics.median(spawns) * 1000:.0f} ms (5 runs)")
    rng = random.Random(3)
    async with Client(params(root)) as c:
        await c.call_tool("search", {"query": "warm up"})
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            await c.call_tool("search", {"query": f"{rng.choice(TOOLS)} {rng.choice(PROBLEMS)}"})
            times.append(time.perf_counter() - start)
        times.sort()
        print(
            f"search tool call: p50 {times[len(times) // 2] * 1000:.1f} ms, "
            f"p95 {times[int(len(times) * 0.95)] * 1000:.1f} ms ({calls} calls)"
        )
        await c.call_tool(
            "update",
            {
                "role": "coder",
                "mistakes": [f"full notebook mistake {i} " + "x" * 60 for i in range(20)],
                "learnings": [f"learning {i} " + "y" * 60 for i in range(20)],
                "log": [f"WQ-{i}: work" for i in range(15)],
            },
        )
        for tool, args in [
            ("read", {"role": "coder"}),
            ("read", {"role": "coder", "task": "npm timeout"}),
            ("search", {"query": "npm permission denied"}),
            ("promote_review", {}),
            ("update", {"role": "coder", "learnings": ["one more"]}),
        ]:
            result = await c.call_tool(tool, args)
            text = "".join(getattr(b, "text", "") for b in result.content)
            print(f"{tool:15s} {str(args)[:40]:40s} text {len(text) / 4:6.0f} tokens")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=10000)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        make_archive(Path(tmp), args.records, random.Random(1))
        anyio.run(measure, tmp, args.calls)


if __name__ == "__main__":
    main()
