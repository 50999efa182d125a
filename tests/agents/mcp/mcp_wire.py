"""Helpers for the MCP start-up tests: client lines, the SDK server alone as the oracle,
the front and the SDK in this process as `rolebook mcp` runs them, and the comparison."""

from __future__ import annotations

import io
import json
import os
import shutil
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import CONNECTION_CLOSED
from rolebook.agents.mcp import listing
from rolebook.agents.mcp.front import Front, KeptLines, Written, tool_runner
from rolebook.agents.mcp.machine import Early, Step
from rolebook.agents.mcp.oracle import exchange
from rolebook.agents.mcp.server import build, serve_lines

MODERN = "2026-07-28"
CLIENT = {"name": "t", "version": "0"}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": CLIENT,
    "io.modelcontextprotocol/clientCapabilities": {},
}
MISSING = object()


def line(rid: Any, method: str, params: Any = MISSING, **extra: Any) -> str:
    """One JSON-RPC message as a client writes it (`rid` MISSING: a notification)."""
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if rid is not MISSING:
        message["id"] = rid
    message["method"] = method
    if params is not MISSING:
        message["params"] = params
    return json.dumps({**message, **extra}) + "\n"


def initialize(rid: Any = 0, version: str = "2025-11-25", capabilities: Any = None) -> str:
    params = {"protocolVersion": version, "capabilities": capabilities or {}, "clientInfo": CLIENT}
    return line(rid, "initialize", params)


def discover(rid: Any = 0) -> str:
    return line(rid, "server/discover", {"_meta": ENVELOPE})


def call(rid: Any, tool: str, arguments: dict[str, Any], modern: bool = False) -> str:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if modern:
        params["_meta"] = ENVELOPE
    return line(rid, "tools/call", params)


def split(data: bytes) -> list[str]:
    """The lines the SDK's stdio transport reads from these bytes."""
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    return list(iter(stdin.readline, ""))


def sdk_alone(data: bytes, server: MCPServer) -> list[str]:
    """What the SDK server alone writes for `data`, each request answered before the next line."""
    return anyio.run(exchange, server, split(data))


def lines_of(text: str) -> list[str]:
    """`text` cut after each LF, and only there (JSON strings may hold U+2028 and the like)."""
    return [part + "\n" for part in text.split("\n")[:-1]] + (
        [text.rsplit("\n", 1)[-1]] if not text.endswith("\n") and text else []
    )


def is_closed(text: str) -> bool:
    """Whether a line is the SDK's answer to a request still running at end of input."""
    message = json.loads(text)
    return message.get("error") == {"code": CONNECTION_CLOSED, "message": "Connection closed"} and set(message) == {
        "jsonrpc",
        "id",
        "error",
    }


class Wire(io.RawIOBase):
    """The client's end of stdout: what the server wrote, and a way to wait for it."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.changed = threading.Condition()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        with self.changed:
            self.data += bytes(data)
            self.changed.notify_all()
        return len(data)

    def lines(self) -> list[str]:
        with self.changed:
            return lines_of(bytes(self.data).decode("utf-8"))

    def wait(self, done: Callable[[list[str]], bool], patience: float = 60.0) -> bool:
        with self.changed:
            return self.changed.wait_for(lambda: done(lines_of(bytes(self.data).decode("utf-8"))), patience)


class Fronted:
    """`rolebook mcp` in this process: the front over a pipe, and the SDK server once `ready`."""

    def __init__(self, root: Path, scope: str | None = None, server: MCPServer | None = None):
        self.root, self.scope, self.server = root, scope, server
        r, w = os.pipe()
        self.client = os.fdopen(w, "wb", buffering=0)
        self.out = Wire()
        run, self.box = tool_runner(root, scope, None)
        self.early = Early(listing.load(), scope, run)
        self.answered_early: list[str] = []  # the front's own answers
        take = self.early.take

        def recorded(text: str) -> Step:
            step = take(text)
            if step.answer is not None:
                self.answered_early.append(step.answer)
            return step

        self.early.take = recorded  # type: ignore[method-assign]
        self.front = Front(self.early, os.fdopen(r, "rb"), self.out)  # type: ignore[arg-type]
        self.warnings: list[str] = []
        self.front.warn = self.warnings.append  # type: ignore[attr-defined]
        self.front.start()
        self.sdk: threading.Thread | None = None

    def send(self, data: bytes) -> None:
        self.client.write(data)

    def ready(self) -> None:
        """The SDK has loaded: hand over, as `serve` does."""
        if self.sdk is not None:
            return
        self.front.hand_over()
        server = self.server or build(self.root, self.scope, None, self.box[0] if self.box else None)
        self.sdk = threading.Thread(
            target=anyio.run, args=(serve_lines, server, KeptLines(self.front), Written(self.front))
        )
        self.sdk.start()

    def end(self) -> list[str]:
        """End of input; what was written by the time the process would exit."""
        self.client.close()
        self.ready()
        assert self.sdk is not None
        self.sdk.join()
        self.front.close()
        return self.out.lines()


def cancelled_ids(lines: Iterable[str]) -> set[Any]:
    """The request ids a client line cancels (as the SDK compares ids)."""
    found = set()
    for text in lines:
        try:
            message = json.loads(text)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("method") == "notifications/cancelled":
            rid = (message.get("params") or {}).get("requestId") if isinstance(message.get("params"), dict) else None
            if isinstance(rid, int | str) and not isinstance(rid, bool):
                found.add(coerce(rid))
    return found


def coerce(rid: Any) -> Any:
    if isinstance(rid, str):
        try:
            return int(rid)
        except ValueError:
            pass
    return rid


def answer_id(text: str) -> Any:
    message = json.loads(text)
    return MISSING if "method" in message else message.get("id")


def differences(
    oracle: list[str], got: list[str], required: Counter[str], extra_ok: Callable[[str], bool]
) -> list[str]:
    """What in `got` is not what the SDK alone wrote (`oracle`): a line the oracle never wrote
    (or wrote fewer times; unless `extra_ok`), or one of `required` missing."""
    left = Counter(oracle)
    problems = []
    for text in got:
        if left[text] > 0:
            left[text] -= 1
        elif not extra_ok(text):
            problems.append(f"extra: {text[:300]}")
    problems += [f"missing: {text[:300]}" for text, n in (required - Counter(got)).items() for _ in range(n)]
    return problems


def template_root(base: Path) -> Path:
    """A project with a coder notebook and an archive to search."""
    from rolebook.agents.config import load_config
    from rolebook.agents.session import open_session
    from rolebook.notebook.store import Writer

    root = base / "template"
    (root / "agents" / "state").mkdir(parents=True)
    (root / "rolebook.yaml").write_text("roles: [coder]\n", encoding="utf-8")  # a project that knows its role
    session = open_session(load_config(root), Writer(None, None))
    texts = ["npm ci failed with EACCES on the checkout; chown it first", "the staging database is db-stg"]
    entries = session.entries("2026-01-10", mistakes=[texts[0]], learnings=[texts[1]], feedback=[], session_log=[])
    session.end("coder", entries, texts)
    for n in range(6):
        session.store("coder", "notes", f"npm note {n}: permissions of the checkout", [])
    return root


def fresh(template: Path, at: Path) -> Path:
    if at.exists():
        shutil.rmtree(at)
    shutil.copytree(template, at)
    return at
