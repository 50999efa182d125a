"""`rolebook mcp`'s first milliseconds: answer the handshake before the SDK is imported.

Importing the MCP SDK takes most of a second, and some agent CLIs (Codex) send their
first model request without waiting for a slow server: the rolebook tools are then
missing from it. So the process answers `initialize` and the listings (`tools/list`,
`prompts/list`, `resources/list`, `resources/templates/list`) from `listing.py`, a
copy of what the SDK server answers (a test keeps them equal), while the main thread
imports the SDK. Then the SDK server takes over the connection: the `initialize`
request (and whatever came after it, unanswered) is replayed to it in order, and its
own answer to the replayed `initialize` is dropped, so the client sees one answer to
each request. A client that starts with anything other than `initialize` (the
stateless protocol era) is handed to the SDK untouched.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import IO, Any


class Front:
    """The connection until the SDK server takes it over: stdin lines are answered here
    (the handshake, the listings) or kept for the SDK, in order."""

    def __init__(self, scope: str | None, stdin: IO[bytes], stdout: IO[bytes]):
        self.scope = scope
        self.stdin, self.stdout = stdin, stdout
        self.lock = threading.Lock()  # over the hand-off: a line goes here or to the SDK, never both
        self.out = threading.Lock()  # one writer on stdout at a time
        self.kept: list[bytes] = []  # lines for the SDK, in the order they came
        self.pipe: IO[bytes] | None = None  # the SDK's stdin, once it took over
        self.started = False  # the client began with `initialize`: the front may answer
        self.decided = False  # the first message was seen
        self.eof = False
        self.drop: set[Any] = set()  # ids of requests answered here that the SDK will answer again

    def read(self) -> None:
        """Read the client's lines until it hangs up (runs in a thread)."""
        for line in iter(self.stdin.readline, b""):
            with self.lock:
                if self.pipe is None:
                    if self._answer(line):
                        continue
                    self.kept.append(line)
                    continue
                pipe = self.pipe
            try:
                pipe.write(line)
                pipe.flush()
            except (OSError, ValueError):  # the SDK server has stopped: nothing more to pass on
                return
        with self.lock:
            self.eof = True
            if self.pipe is not None:
                self.pipe.close()

    def hand_off(self, pipe: IO[bytes]) -> None:
        """From now on every line goes to `pipe` (the SDK's stdin), the kept ones first."""
        with self.lock:
            for line in self.kept:
                pipe.write(line)
            pipe.flush()
            self.kept.clear()
            self.pipe = pipe
            if self.eof:
                pipe.close()

    def write(self, text: str) -> None:
        """The SDK's output: every line, but the answer to a request the front answered."""
        for line in text.splitlines(keepends=True):
            if self.drop and '"method"' not in line:
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if isinstance(message, dict) and message.get("id") in self.drop:
                    self.drop.discard(message["id"])
                    continue
            self._send(line.encode("utf-8"))

    def flush(self) -> None:
        """The SDK's output is sent line by line as written."""

    def _send(self, data: bytes) -> None:
        with self.out:
            self.stdout.write(data)
            self.stdout.flush()

    def _answer(self, line: bytes) -> bool:
        """Answer a line here if the front can; whether it did (the line is not kept)."""
        from .listing import HANDSHAKE_VERSIONS, INITIALIZE, LISTINGS, instructions

        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict):
            return False
        method, rid, params = message.get("method"), message.get("id"), message.get("params")
        first = not self.decided
        self.decided = True
        if method == "initialize" and first and rid is not None and isinstance(params, dict):
            asked = params.get("protocolVersion")
            if not isinstance(asked, str):
                return False
            self.started = True
            version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
            result = {**INITIALIZE, "protocolVersion": version, "instructions": instructions(self.scope)}
            self.drop.add(rid)
            self._reply(rid, result)
            return False  # the SDK sees it too, and its answer is dropped
        listing = LISTINGS.get(method) if isinstance(method, str) else None
        paged = isinstance(params, dict) and params.get("cursor")
        if self.started and listing is not None and rid is not None and not paged:
            self._reply(rid, listing)
            return True
        return False

    def _reply(self, rid: Any, result: dict[str, Any]) -> None:
        self._send((json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n").encode("utf-8"))


def serve(root: Path | None, scope: str | None, session: str | None) -> int:
    """Serve MCP over stdio: the front answers while the SDK loads, then hands over."""
    front = Front(scope, sys.stdin.buffer, sys.stdout.buffer)
    threading.Thread(target=front.read, name="rolebook-mcp-front", daemon=True).start()
    from .server import build, serve_streams  # the SDK: most of a second

    server = build(root, scope, session)
    read_end, write_end = os.pipe()
    front.hand_off(os.fdopen(write_end, "wb"))
    with os.fdopen(read_end, "r", encoding="utf-8", errors="replace") as stdin:
        serve_streams(server, stdin, front)
    return 0
