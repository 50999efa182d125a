"""`rolebook mcp`: MCP over stdio, one JSON-RPC message a line (DESIGN.md section 8).

One thread reads a line, answers it and reads the next: no hand-over, nothing loaded
but what a call needs. The client's first request decides the connection's era, as the
official SDK decides it: `initialize` (or any request without the 2026-07-28 envelope)
opens the handshake era, which then waits for `initialize`; a request whose `_meta`
carries `io.modelcontextprotocol/protocolVersion` opens the 2026-07-28 era, where every
request carries its own envelope, `server/discover` says what the server is, list
results carry `ttlMs` and `cacheScope`, and the server sends no requests. A handshake
client that offers roots is asked for them once, on the first call that needs the
project, for at most ROOTS_TIMEOUT seconds; a `root` argument, `--root` and the working
directory need no client. A request cancelled before it is read is never answered. What
the tools do is in table.py.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlparse

from rolebook import __version__
from rolebook.notebook import RolebookError

from . import table

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
RESOURCE_NOT_FOUND, UNSUPPORTED_PROTOCOL_VERSION = -32002, -32022
#: How long a handshake-era client that offers roots gets to list them (asked once).
ROOTS_TIMEOUT = 3.0
#: The change notifications a 2026-07-28 client may listen for: none ever comes (nothing changes).
LISTENABLE = ("toolsListChanged", "promptsListChanged", "resourcesListChanged")
_INFO = {"name": "rolebook", "version": __version__}
_LISTS: dict[str, Callable[[], dict[str, Any]]] = {
    "tools/list": lambda: {"tools": [t.listing() for t in table.TOOLS.values()]},
    "resources/list": lambda: {"resources": table.RESOURCES},
    "resources/templates/list": lambda: {"resourceTemplates": table.TEMPLATES},
    "prompts/list": lambda: {"prompts": [table.PROMPT]},
}

#: The spec's methods one era has and the other has not (ping: each 2026-07-28 request is
#: its own exchange; logging and resource subscriptions are gone from it).
_ONLY_2026 = frozenset({"server/discover", "subscriptions/listen"})
_NOT_IN_2026 = frozenset({"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"})
#: Every method a connection serves, whatever its era.
_SERVED = frozenset({*_LISTS, "tools/call", "resources/read", "prompts/get", "ping"})


class Failure(Exception):
    """A JSON-RPC error answer, worded as the spec words it."""

    def __init__(self, code: int, message: str, data: Any = None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


class Server:
    """One stdio connection: read a line, answer it, until the client hangs up."""

    def __init__(self, root: Path | None, scope: str | None, session: str | None, wire_in: int, wire_out: IO[bytes]):
        self.root, self.scope, self.session_id = root, scope, session
        self.wire_in, self.wire_out = wire_in, wire_out
        self.lines: deque[bytes] = deque()  # read, not yet handled
        self.partial = b""
        self.ended = False
        self.era: str | None = None  # "handshake" or "modern", decided by the first request
        self.version: str | None = None  # the handshake era's negotiated version
        self.roots_offered = False
        self.asked = False  # the client's roots are asked for once per connection
        self.from_client: Path | None = None
        self.answered = 0
        self.on_first_answer: Any = None  # called once, after the first answer is written

    # -- the wire --------------------------------------------------------------------------

    def _fill(self, timeout: float | None = None) -> bool:
        """Read what the client has sent into `lines`; False at end of input or timeout."""
        if self.ended:
            return False
        if timeout is not None:
            ready, _, _ = select.select([self.wire_in], [], [], max(0.0, timeout))
            if not ready:
                return False
        try:
            data = os.read(self.wire_in, 1 << 16)
        except InterruptedError:  # pragma: no cover - PEP 475 retries; kept for odd platforms
            return True
        if not data:
            self.ended = True
            if self.partial.strip():
                self.lines.append(self.partial)
            self.partial = b""
            return False
        *complete, self.partial = (self.partial + data).split(b"\n")
        self.lines.extend(complete)
        return True

    def _next(self) -> bytes | None:
        while not self.lines:
            if not self._fill() and self.ended:
                return None
        return self.lines.popleft()

    def _write(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        try:
            self.wire_out.write(data)
            self.wire_out.flush()
        except (OSError, ValueError):  # the client stopped reading: nothing reaches it any more
            pass

    def serve(self) -> int:
        while (raw := self._next()) is not None:
            if raw.strip():
                self.take(raw)
        return 0

    # -- one message ---------------------------------------------------------------------

    def take(self, raw: bytes) -> None:
        try:
            message = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            self._error(None, Failure(PARSE_ERROR, "Parse error"))
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            self._error(None, Failure(INVALID_REQUEST, "Invalid Request"))
            return
        method, rid = message.get("method"), message.get("id")
        if "method" not in message:
            return  # an answer to a request of ours that came too late, or an error: nothing to do
        if "id" not in message:  # a notification: initialized, cancelled (of an answered request), roots changed
            if method == "notifications/initialized" and self.era != "modern" and self.version is None:
                self.version = HANDSHAKE_VERSIONS[-1]  # as the SDK takes it: the client says it is ready
            return
        if not isinstance(method, str) or not isinstance(rid, (str, int)) or isinstance(rid, bool):
            self._error(rid if isinstance(rid, (str, int)) else None, Failure(INVALID_REQUEST, "Invalid Request"))
            return
        if self._cancelled(rid):
            return
        params = message.get("params")
        try:
            if params is not None and not isinstance(params, dict):
                raise Failure(INVALID_PARAMS, "Invalid request parameters")
            result = self._answer(method, params or {}, rid)
        except Failure as failure:
            self._error(rid, failure)
            return
        except Exception as exc:  # a fault of ours: the client gets the spec's internal error, stderr the cause
            sys.stderr.write(f"rolebook mcp: {method} failed: {exc!r}\n")
            self._error(rid, Failure(INTERNAL_ERROR, "Internal error"))
            return
        if result is not None:
            self._send({"jsonrpc": "2.0", "id": rid, "result": result})

    def _send(self, message: dict[str, Any]) -> None:
        self._write(message)
        self.answered += 1
        if self.answered == 1 and self.on_first_answer is not None:
            self.on_first_answer()

    def _error(self, rid: Any, failure: Failure) -> None:
        error: dict[str, Any] = {"code": failure.code, "message": failure.message}
        if failure.data is not None:
            error["data"] = failure.data
        self._send({"jsonrpc": "2.0", "id": rid, "error": error})

    def _cancelled(self, rid: Any) -> bool:
        """Whether a cancellation of this request already waits in what was read."""
        self._fill(0)
        return any(_cancels(raw, rid) for raw in self.lines if b"notifications/cancelled" in raw)

    # -- the eras ------------------------------------------------------------------------

    def _answer(self, method: str, params: dict[str, Any], rid: Any) -> dict[str, Any] | None:
        meta = params.get("_meta")
        enveloped = isinstance(meta, dict) and PROTOCOL_VERSION in meta
        if self.era is None:
            self.era = "modern" if enveloped and method != "initialize" else "handshake"
        if self.era == "modern":
            return self._modern(method, params, meta, rid)
        if method == "initialize":
            return self._initialize(params)
        if enveloped:
            raise Failure(
                INVALID_REQUEST,
                "this connection serves the handshake protocol era; "
                "requests carrying the 2026-07-28 envelope are not accepted on it",
            )
        if method in _ONLY_2026:
            raise Failure(METHOD_NOT_FOUND, "Method not found", method)
        _surface(method, params)
        if method == "ping":
            return {}
        if method not in _SERVED:
            raise Failure(METHOD_NOT_FOUND, "Method not found", method)
        if self.version is None:  # a request the server serves, but before initialize
            raise Failure(INVALID_PARAMS, "Invalid request parameters", "")
        return self._method(method, params)

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        if not isinstance(asked, str) or not isinstance(params.get("capabilities", {}), dict):
            raise Failure(INVALID_PARAMS, "Invalid request parameters: initialize needs protocolVersion")
        self.version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        self.roots_offered = "roots" in (params.get("capabilities") or {})
        return {
            "protocolVersion": self.version,
            "capabilities": {
                "tools": {"listChanged": False},
                "resources": {"subscribe": False, "listChanged": False},
                "prompts": {"listChanged": False},
            },
            "serverInfo": _INFO,
            "instructions": table.instructions(self.scope),
        }

    def _modern(self, method: str, params: dict[str, Any], meta: Any, rid: Any) -> dict[str, Any] | None:
        if method == "initialize":
            raise Failure(
                UNSUPPORTED_PROTOCOL_VERSION,
                "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
                {"supported": list(MODERN_VERSIONS), "requested": params.get("protocolVersion")},
            )
        if not isinstance(meta, dict):
            raise Failure(
                INVALID_PARAMS,
                f"params._meta must be an object carrying the required '{PROTOCOL_VERSION}' and "
                f"'{CLIENT_CAPABILITIES}' envelope keys",
            )
        missing = [key for key in (PROTOCOL_VERSION, CLIENT_CAPABILITIES) if key not in meta]
        if missing:
            raise Failure(INVALID_PARAMS, f"params._meta is missing the required envelope key(s): {', '.join(missing)}")
        version = meta[PROTOCOL_VERSION]
        if version not in MODERN_VERSIONS:
            raise Failure(
                UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                {"supported": list(MODERN_VERSIONS), "requested": version},
            )
        if method in _NOT_IN_2026:
            raise Failure(METHOD_NOT_FOUND, "Method not found", method)
        _surface(method, params)
        stamp = {"resultType": "complete", "_meta": {SERVER_INFO: _INFO}}
        if method == "subscriptions/listen":
            asked = params.get("notifications")
            if not isinstance(asked, dict):
                raise Failure(INVALID_PARAMS, "Invalid request parameters: notifications must be an object")
            granted = {k: True for k in LISTENABLE if asked.get(k) is True}
            ack = {"_meta": {SUBSCRIPTION_ID: rid}, "notifications": granted}
            self._send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": ack})
            return None  # the stream stays open: nothing ever changes, so nothing more comes
        if method == "server/discover":
            return {
                "supportedVersions": list(MODERN_VERSIONS),
                "capabilities": {
                    "tools": {"listChanged": True},
                    "resources": {"subscribe": True, "listChanged": True},
                    "prompts": {"listChanged": True},
                },
                "instructions": table.instructions(self.scope),
                "ttlMs": 0,
                "cacheScope": "private",
                **stamp,
            }
        result = self._method(method, params)
        if method in _LISTS or method == "resources/read":  # the revision's cacheable methods
            result.update(ttlMs=0, cacheScope="private")
        return {**result, **stamp}

    # -- what both eras serve -------------------------------------------------------------

    def _method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "ping":
            return {}
        if method in _LISTS:
            return _LISTS[method]()
        if method == "tools/call":
            return self._call(params)
        if method == "resources/read":
            uri = params.get("uri")
            if not isinstance(uri, str):
                raise Failure(INVALID_PARAMS, "Invalid request parameters: uri must be a string")
            try:
                text = table.read_resource(self._session(None), uri)
            except RolebookError as exc:
                raise Failure(INVALID_PARAMS, str(exc)) from None
            if text is None:
                raise Failure(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
            return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}
        if method == "prompts/get":
            if params.get("name") != table.PROMPT["name"]:
                raise Failure(INVALID_PARAMS, f"Unknown prompt: {params.get('name')}")
            role = (params.get("arguments") or {}).get("role")
            if not isinstance(role, str) or not role:
                raise Failure(INVALID_PARAMS, "Missing required arguments: role")
            text = table.instructions(role)
            return {
                "description": table.PROMPT["description"],
                "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            }
        raise Failure(METHOD_NOT_FOUND, "Method not found", method)

    def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        tool = table.TOOLS.get(name) if isinstance(name, str) else None
        if tool is None:
            raise Failure(INVALID_PARAMS, f"Unknown tool: {name}")
        try:
            arguments = tool.check(params.get("arguments"))
        except ValueError as exc:
            return _tool_error(f"invalid arguments for tool {tool.name}: {exc}")
        call = table.Call(lambda: self._session(arguments.get("root")), self.scope)
        try:
            text, data = tool.handler(call, arguments)
        except RolebookError as exc:
            return _tool_error(str(exc))
        return {"content": [{"type": "text", "text": text}], "structuredContent": data, "isError": False}

    # -- where a call works ---------------------------------------------------------------

    def _session(self, given: str | None) -> Any:
        from rolebook.notebook.store import Writer

        from ..config import find_root, load_config
        from ..session import open_session

        if given:
            root = find_root(Path(given).expanduser().absolute())
        else:
            if self.era == "handshake" and self.roots_offered and not self.asked:
                self.asked = True
                self.from_client = self._client_root()
            root = self.from_client or (self.root.absolute() if self.root else find_root())
        return open_session(load_config(root), Writer(self.scope, self.session_id, "mcp"))

    def _client_root(self) -> Path | None:
        """The client's first file root, asked once; lines that come meanwhile wait their turn."""
        from ..config import find_root

        rid = "rolebook-roots"
        self._write({"jsonrpc": "2.0", "id": rid, "method": "roots/list"})
        waiting: list[bytes] = []
        answer: Any = None
        deadline = time.monotonic() + ROOTS_TIMEOUT
        while answer is None:
            if not self.lines and not self._fill(deadline - time.monotonic()):
                if self.ended or time.monotonic() >= deadline:
                    break
                continue
            raw = self.lines.popleft()
            try:
                message = json.loads(raw)
            except ValueError:
                message = None
            if isinstance(message, dict) and message.get("id") == rid and "method" not in message:
                answer = message
            else:
                waiting.append(raw)
        self.lines.extendleft(reversed(waiting))
        if answer is None:
            sys.stderr.write(f"rolebook mcp: no answer to roots/list in {ROOTS_TIMEOUT:g}s; using --root\n")
            return None
        roots = (answer.get("result") or {}).get("roots") if isinstance(answer.get("result"), dict) else None
        if not isinstance(roots, list):
            sys.stderr.write(f"rolebook mcp: could not list the client's roots ({answer.get('error')}); using --root\n")
            return None
        for root in roots:
            uri = urlparse(str(root.get("uri", ""))) if isinstance(root, dict) else None
            if uri is not None and uri.scheme == "file":
                return find_root(Path(unquote(uri.path)))
        return None


#: The spec's methods whose params need these keys: without them a request is malformed
#: (INVALID_PARAMS) before it is known whether the server serves the method.
_REQUIRED = {
    "completion/complete": ("ref", "argument"),
    "logging/setLevel": ("level",),
    "prompts/get": ("name",),
    "resources/read": ("uri",),
    "resources/subscribe": ("uri",),
    "resources/unsubscribe": ("uri",),
    "tools/call": ("name",),
    "subscriptions/listen": ("notifications",),
}


def _surface(method: str, params: dict[str, Any]) -> None:
    """A spec method's params of the wrong shape: refused first, as the spec's schema refuses them."""
    if any(key not in params for key in _REQUIRED.get(method, ())):
        raise Failure(INVALID_PARAMS, "Invalid request parameters", "")


def _cancels(raw: bytes, rid: Any) -> bool:
    """Whether this line is a `notifications/cancelled` of request `rid`."""
    try:
        note = json.loads(raw)
    except ValueError:
        return False
    if not isinstance(note, dict) or note.get("method") != "notifications/cancelled":
        return False
    params = note.get("params")
    return isinstance(params, dict) and params.get("requestId") == rid


def _tool_error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def _claim_stdio() -> tuple[int, IO[bytes]]:
    """Private copies of stdin and stdout for the protocol; fd 0 then reads nothing and fd 1
    writes to stderr, so nothing else in the process can read or corrupt the wire."""
    try:
        wire_in, wire_out = os.dup(0), os.dup(1)
        nothing = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nothing, 0)
        os.close(nothing)
        os.dup2(2, 1)
    except OSError:
        return 0, sys.stdout.buffer
    return wire_in, os.fdopen(wire_out, "wb")


def serve(root: Path | None, scope: str | None, session: str | None) -> int:
    """Serve MCP over stdio until the client hangs up; after the first answer, lend the model
    to this project's recall hooks (agents/meaning.py: a thread of its own)."""
    wire_in, wire_out = _claim_stdio()
    server = Server(root, scope, session, wire_in, wire_out)

    def lend() -> None:
        from ..meaning import lend

        lend(root)

    server.on_first_answer = lend
    return server.serve()
