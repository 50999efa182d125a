"""The SDK server alone, in process: what it writes for a sequence of client lines.

The oracle for the start-up front: listing.json is generated from it, and the tests
compare every byte the front writes with it. Each line goes in as stdio would deliver
it; a request's answer is awaited before the next line, so the SDK's own concurrency
cannot reorder what it writes.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp_types import JSONRPCRequest, jsonrpc_message_adapter
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from rolebook import __version__

from .listing import ACKNOWLEDGED, DATA, ID, LISTEN, METHODS, PATH, SUBSCRIPTION_ID, TEXT
from .server import build, serve_lines

#: The SDK's longest wait for itself (an answer to one line); only a broken SDK reaches it.
PATIENCE = 60.0


class MemoryLines:
    """The client's side of stdin: lines sent into a memory stream."""

    def __init__(self, receive: MemoryObjectReceiveStream[str]):
        self.receive = receive

    def __aiter__(self) -> AsyncIterator[str]:
        return self.receive.__aiter__()


class MemoryOut:
    """The client's side of stdout: every line the server writes."""

    def __init__(self, send: MemoryObjectSendStream[str]):
        self.send = send

    async def write(self, text: str) -> None:
        await self.send.send(text)

    async def flush(self) -> None:
        pass


def answered(line: str) -> Any:
    """The id of the answer `line` waits for (a request's), else None."""
    try:
        message = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        return None
    return message.id if isinstance(message, JSONRPCRequest) else None


async def exchange(server: MCPServer, lines: Iterable[str]) -> list[str]:
    """Every line the SDK server writes for `lines` (then end of input), one request at a time."""
    send_in, receive_in = anyio.create_memory_object_stream[str](1 << 20)
    send_out, receive_out = anyio.create_memory_object_stream[str](1 << 20)
    written: list[str] = []

    async def run() -> None:
        async with send_out:
            await serve_lines(server, MemoryLines(receive_in), MemoryOut(send_out))

    with anyio.fail_after(PATIENCE), receive_in, receive_out:
        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            async with send_in:
                for line in lines:
                    await send_in.send(line)
                    rid = answered(line)
                    while rid is not None:
                        out = await receive_out.receive()
                        written.append(out)
                        message = json.loads(out)
                        if "method" not in message and message.get("id") == rid:
                            break
                        if message.get("method") == "notifications/subscriptions/acknowledged":
                            break  # a listen stream is answered when it ends; its acknowledgement came
            written += [out async for out in receive_out]
    return written


def _line(rid: int | None, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if rid is not None:
        message["id"] = rid
    if params is not None:
        message["params"] = params
    return json.dumps(message) + "\n"


#: The tool call whose answer shows the frame of a tool result, on an empty root.
PROBE = ("search", {"query": "x"}, "no match", {"query": "x", "total": 0, "hits": []})


def _frame(value: Any, holes: dict[str, str]) -> Any:
    """`value` with the parts equal to a key of `holes` (as JSON) replaced by its placeholder."""
    if json.dumps(value) in holes:
        return holes[json.dumps(value)]
    if isinstance(value, dict):
        return {k: _frame(v, holes) for k, v in value.items()}
    if isinstance(value, list):
        return [_frame(v, holes) for v in value]
    return value


def sdk_answers() -> dict[tuple[str, str], Any]:
    """(method, protocol version) -> the SDK server's result, for listing.json."""
    mode = os.environ.get("ROLEBOOK_SEARCH_MODE")
    os.environ["ROLEBOOK_SEARCH_MODE"] = "keyword"  # the probe needs no model
    try:
        with tempfile.TemporaryDirectory() as folder:
            server = build(Path(folder))
            return {k: v for version in VERSIONS for k, v in _answers(server, version).items()}
    finally:
        if mode is None:
            del os.environ["ROLEBOOK_SEARCH_MODE"]
        else:
            os.environ["ROLEBOOK_SEARCH_MODE"] = mode


VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)


def _answers(server: MCPServer, version: str) -> dict[tuple[str, str], Any]:
    client = {"name": "listing", "version": "0"}
    name, arguments, text, data = PROBE
    extra: dict[str, Any] = {}
    if version in MODERN_PROTOCOL_VERSIONS:
        extra = {"_meta": {"io.modelcontextprotocol/protocolVersion": version}}
        extra["_meta"]["io.modelcontextprotocol/clientCapabilities"] = {}
        first = ("server/discover", extra)
    else:
        first = ("initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": client})
    call = ("tools/call", {"name": name, "arguments": arguments, **extra})
    methods = [first, *((m, extra or None) for m in METHODS), call]
    if extra:  # a stream of change notifications, opened as Claude Code and Copilot CLI open it
        methods.append(("subscriptions/listen", {"notifications": LISTEN, **extra}))
    found: dict[tuple[str, str], Any] = {}
    for out in anyio.run(exchange, server, [_line(n, m, p) for n, (m, p) in enumerate(methods)]):
        message = json.loads(out)
        if message.get("method") == ACKNOWLEDGED:  # the listen stream's first frame: its params
            rid = message["params"]["_meta"][SUBSCRIPTION_ID]
            found[("subscriptions/listen", version)] = _frame(message["params"], {json.dumps(rid): ID})
        if "result" not in message:
            continue  # ping has no place in 2026-07-28; the listen stream ends only with the input
        method, result = methods[message["id"]][0], message["result"]
        if method == "tools/call":
            result = _frame(result, {json.dumps(text): TEXT, json.dumps(data): DATA})
        found[(method, version)] = result
    return found


def generate() -> dict[str, Any]:
    """listing.json's data, from the installed SDK serving the real server."""
    from importlib.metadata import version

    answers = sdk_answers()
    grouped: dict[str, list[dict[str, Any]]] = {}
    for (method, v), result in answers.items():
        groups = grouped.setdefault(method, [])
        same = next((g for g in groups if g["result"] == result), None)
        if same is None:
            groups.append({"versions": [v], "result": result})
        else:
            same["versions"].append(v)
    return {
        "generated_by": "python -m rolebook.agents.mcp.oracle --write",
        "rolebook": __version__,
        "sdk": {"mcp": version("mcp"), "mcp_types": version("mcp-types")},
        "handshake_versions": list(HANDSHAKE_PROTOCOL_VERSIONS),
        "modern_versions": list(MODERN_PROTOCOL_VERSIONS),
        "answers": grouped,
    }


def render(data: dict[str, Any]) -> str:
    """listing.json's text: keys in the SDK's order (the order the front sends them in)."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    """`--write`: regenerate listing.json; `--check`: exit 1 when it differs from the SDK's answers."""
    text = render(generate())
    if argv == ["--write"]:
        PATH.write_text(text, encoding="utf-8")
        print(f"wrote {PATH}")
        return 0
    if argv == ["--check"]:
        same = PATH.read_text(encoding="utf-8") == text
        print(f"{PATH}: {'up to date' if same else 'differs from the SDK: run with --write'}")
        return 0 if same else 1
    print("usage: python -m rolebook.agents.mcp.oracle --write | --check")
    return 2


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
