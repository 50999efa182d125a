"""The MCP server's numbers, run by hand: `python tests/bench/bench_mcp.py [--records 10000] [--runs 7]
[--mode keyword] [--before OTHER_VENV/bin/python]`.

For each protocol era (the `initialize` handshake, and 2026-07-28's `server/discover`),
the time from spawning the server to its first answer, to its `tools/list` answer, to its
first tool result (a `search`) and to its exit at end of input, for `rolebook mcp` (and
another install's, with --before), against `python -c pass` in the same run (medians of
--runs, interleaved); then p50/p95 of a `search` tool call over stdio (the SDK's client)
on an archive of --records, and the output of each tool on a full notebook, in tokens
(characters / 4). Goals (issue 38): first answer at most 4x `python -c pass` in both
eras; first tool result at most 8x; a tool call after start p50 under 20 ms.
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
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchdocs
from bench_search import PROBLEMS, TOOLS, make_archive

ABOUT = """The MCP server (`rolebook mcp`): the time from spawning it to the `initialize` and
`tools/list` answers and its first tool result, in both protocol eras, against `python -c pass`
in the same run; p50/p95 of a `search` tool call over stdio on an archive
of synthetic records; and the output of each tool on a full notebook, in tokens (characters / 4).
Keyword search. Goals: first answer at most 4x `python -c pass`, first tool result at most 8x,
a tool call after start p50 under 20 ms."""


CLIENT = {"name": "bench", "version": "0"}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": CLIENT,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def line(rid: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if rid is not None:
        message["id"] = rid
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


def opening(era: str) -> bytes:
    if era == "handshake":
        return line(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT})
    return line(0, "server/discover", {"_meta": ENVELOPE})


def following(era: str) -> bytes:
    meta = {} if era == "handshake" else {"_meta": ENVELOPE}
    search = {"name": "search", "arguments": {"query": "npm timeout during install"}, **meta}
    first = line(None, "notifications/initialized") if era == "handshake" else b""
    return first + line(1, "tools/list", meta or None) + line(2, "tools/call", search)


def spawn_times(command: list[str], era: str, cwd: str) -> tuple[float, float, float, float]:
    """Seconds from spawning `command` to its first answer, its tools/list answer, its
    first tool result and its exit after end of input. The client sends the rest once
    the first answer came, as real clients do."""
    start = time.perf_counter()
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd
    ) as p:
        assert p.stdin is not None and p.stdout is not None
        p.stdin.write(opening(era))
        p.stdin.flush()
        json.loads(p.stdout.readline())
        first = time.perf_counter() - start
        p.stdin.write(following(era))
        p.stdin.flush()
        seen: dict[Any, float] = {}
        while len(seen) < 2:
            answer = json.loads(p.stdout.readline())
            if answer.get("id") in (1, 2):
                assert "result" in answer and not answer["result"].get("isError"), answer
                seen[answer["id"]] = time.perf_counter() - start
        p.stdin.close()
        p.stdout.read()
        p.wait()
        ended = time.perf_counter() - start
    return first, seen[1], seen[2], ended


def bare() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def startup(root: str, runs: int, before: str | None) -> None:
    exe = str(Path(sys.executable).parent / "rolebook")
    servers = {
        "rolebook mcp": [exe, "--root", root, "mcp"],
        **(
            {"rolebook mcp, --before": [str(Path(before).parent / "rolebook"), "--root", root, "mcp"]} if before else {}
        ),
    }
    # the derived index is built once, by whoever searches first: not by one timed run
    subprocess.run([exe, "--root", root, "search", "warm up"], check=False, capture_output=True)
    bases: list[float] = []
    times: dict[tuple[str, str], list[tuple[float, float, float, float]]] = {}
    for _ in range(runs):
        bases.append(bare())
        for era in ("handshake", "2026-07-28"):
            for name, command in servers.items():
                times.setdefault((name, era), []).append(spawn_times(command, era, root))
    base = statistics.median(bases) * 1000
    print(f"python -c pass: {base:.0f} ms (median of {runs})")
    for (name, era), rows in times.items():
        cells = []
        for i, what in enumerate(("first answer", "tools/list", "first tool result", "exit")):
            ms = statistics.median(r[i] for r in rows) * 1000
            cells.append(f"{what} {ms:.0f} ms ({ms / base:.1f}x)")
        print(f"{name}, {era}: " + ", ".join(cells))


async def calls(root: str, n: int) -> None:
    # the SDK's client passes on only a few variables: give the server the search mode asked for
    args = ["-m", "rolebook", "--root", root, "mcp"]
    params = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
    rng = random.Random(3)
    async with Client(params) as c:
        await c.call_tool("search", {"query": "warm up"})
        times = []
        for _ in range(n):
            start = time.perf_counter()
            await c.call_tool("search", {"query": f"{rng.choice(TOOLS)} {rng.choice(PROBLEMS)}"})
            times.append(time.perf_counter() - start)
        times.sort()
        print(
            f"search tool call after start: p50 {times[len(times) // 2] * 1000:.1f} ms, "
            f"p95 {times[int(len(times) * 0.95)] * 1000:.1f} ms ({n} calls)"
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
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--mode", default=None, help="search mode for the run (ROLEBOOK_SEARCH_MODE), e.g. keyword")
    parser.add_argument("--before", default=None, help="the python of another install of rolebook, measured alongside")
    args = parser.parse_args()
    if args.mode:
        os.environ["ROLEBOOK_SEARCH_MODE"] = args.mode
    with tempfile.TemporaryDirectory() as tmp:
        make_archive(Path(tmp), args.records, random.Random(1))
        startup(tmp, args.runs, args.before)
        anyio.run(calls, tmp, args.calls)


if __name__ == "__main__":
    with benchdocs.section("mcp", ABOUT):
        main()
