"""The MCP server's numbers, run by hand: `python tests/bench/bench_mcp.py [--records 10000]`.

Time from spawning `rolebook mcp` to the initialize and tools/list answers, against
`python -c pass` and the SDK server alone in the same run; p50/p95 of a `search` tool
call over stdio on an archive of --records; and the output of each tool on a full
notebook, in tokens (characters / 4). Budget (DESIGN.md section 11): a tool call after
start p50 under 20 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchdocs
from bench_search import PROBLEMS, TOOLS, make_archive

ABOUT = """The MCP server (`rolebook mcp`): the time from spawning it to the `initialize` and
`tools/list` answers (rolebook answers them itself while the SDK loads), against `python -c pass`
and the SDK server alone in the same run; p50/p95 of a `search` tool call over stdio on an archive
of synthetic records; and the output of each tool on a full notebook, in tokens (characters / 4).
Keyword search. Budget: a tool call after start p50 under 20 ms."""


def params(root: str) -> StdioServerParameters:
    """Keyword search, as bench_cli.py: with the semantic extra installed the default is hybrid,
    which would embed the whole archive first (bench_semantic.py measures search by meaning)."""
    env = {**os.environ, "ROLEBOOK_SEARCH_MODE": os.environ.get("ROLEBOOK_SEARCH_MODE", "keyword")}
    return StdioServerParameters(command=sys.executable, args=["-m", "rolebook", "--root", root, "mcp"], env=env)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}
LISTING = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
]


def spawn_times(command: list[str]) -> tuple[float, float]:
    """Seconds from spawning `command` to its initialize answer, and to its tools/list answer."""
    start = time.perf_counter()
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as p:
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        p.stdin.flush()
        p.stdout.readline()
        initialized = time.perf_counter() - start
        p.stdin.write("".join(json.dumps(m) + "\n" for m in LISTING).encode())
        p.stdin.flush()
        p.stdout.readline()
        listed = time.perf_counter() - start
        p.stdin.close()
        p.stdout.read()
    return initialized, listed


def bare() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


async def measure(root: str, calls: int) -> None:
    exe = str(Path(sys.executable).parent / "rolebook")
    sdk_only = [sys.executable, "-c", "from rolebook.agents.mcp.server import run; run(None, None, None)"]
    rows = [(bare(), spawn_times([exe, "--root", root, "mcp"]), spawn_times(sdk_only)) for _ in range(11)]
    base = statistics.median(r[0] for r in rows) * 1000
    for name, n in (("rolebook mcp", 1), ("the SDK server alone", 2)):
        init = statistics.median(r[n][0] for r in rows) * 1000  # type: ignore[index]
        listed = statistics.median(r[n][1] for r in rows) * 1000  # type: ignore[index]
        print(
            f"{name}: initialize answered {init:.0f} ms ({init / base:.1f}x python -c pass, {base:.0f} ms), "
            f"tools/list {listed:.0f} ms ({listed / base:.1f}x); median of 11"
        )
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
    with benchdocs.section("mcp", ABOUT):
        main()
