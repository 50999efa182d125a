"""`rolebook mcp`'s start-up as an explicit state machine: what the front answers itself.

Until the SDK server has loaded, every client line passes through `Early.take`, which
says what to write now (an answer) and what the SDK must still see (the line, a stand-in
for it, or nothing). The front answers a request only when its answer is certainly the
SDK server's own answer to that exact input, given everything before it:

- the handshake: `initialize` (of known shape, the first one) and, in the 2026-07-28
  era, `server/discover` and the acknowledgement of a `subscriptions/listen` stream
  (Claude Code waits for it); the listings and `ping`, from listing.json;
- `tools/call` of `read` and `search` (arguments of exact types), run on the same session
  API with the same code (tools.py), when no request that may write is still waiting
  for the SDK and the answer does not hang on the client's roots.

The state mirrors the SDK server's, step by step (`mcp.server.runner`): the era is
decided by the first request (`initialize` or a request without the 2026-07-28 envelope:
the handshake era; an enveloped one: the 2026-07-28 era); the handshake era waits for
`initialize`, whose protocol version shapes every later answer. A request that changes
that state reaches the SDK too, under a marker id (relay.py); a stateless one the front
answered never reaches the SDK. Anything the
front cannot read as the SDK would (`shapes.py`), or an `initialize` it leaves to the
SDK, ends early answers for good: from then on everything is the SDK's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import shapes
from .listing import ACKNOWLEDGED, DATA, ID, LISTEN, METHODS, TEXT, Listing, instructions
from .relay import Marked, Relay, dumps

#: The tools that never write: a call of any other may change what a later one answers.
READ_ONLY = frozenset({"read", "search", "promote_review"})
#: What runs a tool the front answers: (name, arguments) -> (text, structured content), or None.
ToolRunner = Callable[[str, dict[str, Any]], "tuple[str, dict[str, Any]] | None"]


@dataclass(frozen=True, slots=True)
class Step:
    """What one client line does: `answer` is written now; `forward` goes to the SDK."""

    answer: str | None = None
    forward: str | None = None


class Early:
    """The front's half of the connection while the SDK loads."""

    def __init__(self, listing: Listing | None, scope: str | None, run_tool: ToolRunner):
        self.listing = listing
        self.scope = scope
        self.run_tool = run_tool
        self.relay = Relay()
        self.era: str | None = None  # "handshake" or "modern", once the first request came
        self.version: str | None = None  # the handshake era's negotiated protocol version
        self.roots = False  # the client offered roots: a tool's answer hangs on the SDK asking
        self.lost = listing is None  # the SDK's state is no longer known here: answer nothing
        self.blocked = False  # a request that may write waits for the SDK: run no tool here
        self.waiting: set[Any] = set()  # ids of requests left to the SDK (as it compares them)

    def take(self, line: str) -> Step:
        """What the front does with one client line (as the SDK's stdio transport reads it)."""
        if self.lost or not line.strip():  # a blank line is a parse error to the SDK: ignored
            return Step(forward=line)
        try:
            value = shapes.parse(line)
        except ValueError:
            return self._lose(line)
        kind = shapes.message(value)
        if kind is None:
            return self._lose(line)
        if kind == "notification":
            return Step(forward=line)
        rid, method, params = value["id"], value["method"], value.get("params")
        self.relay.took(rid)
        opening = self.era is None
        if opening:
            modern = method != "initialize" and params is not None and shapes.envelope(params)
            self.era = "modern" if modern else "handshake"
        step = None
        if shapes.coerced(rid) not in self.waiting:
            step = self._handshake(value) if self.era == "handshake" else self._modern(value, opening)
        if step is None:
            self.waiting.add(shapes.coerced(rid))
            if self.era == "handshake" and method == "initialize":
                self.lost = True  # its outcome (and the protocol version) is the SDK's to say
            elif method == "tools/call" and (params or {}).get("name") not in READ_ONLY:
                self.blocked = True
            return Step(forward=line)
        return step

    def settled(self) -> bool:
        """Whether the SDK has nothing left to answer (every request was answered here)."""
        return not self.lost and not self.waiting

    def _lose(self, line: str) -> Step:
        self.lost = True
        return Step(forward=line)

    def _result(self, method: str, version: str) -> Any:
        assert self.listing is not None
        result = self.listing.result(method, version)
        if isinstance(result, dict) and "instructions" in result:
            result = {**result, "instructions": instructions(self.scope)}
        return result

    def _handshake(self, message: dict[str, Any]) -> Step | None:
        assert self.listing is not None
        rid, method = message["id"], message["method"]
        params: Any = message.get("params")
        if method == "initialize":
            if self.version is not None or not shapes.initialize(params):
                return None  # a second initialize is validated at the first one's version
            asked = params["protocolVersion"]
            self.version = asked if asked in self.listing.handshake else self.listing.handshake[-1]
            self.roots = "roots" in params["capabilities"]
            result = self._result("initialize", self.version)
            return Step(_reply(rid, result), self.relay.mark(message, Marked(rid, dumps(result))))
        if self.version is None or (params is not None and shapes.envelope(params)):
            return None  # before initialize, or a 2026-07-28 request on a handshake connection
        result = None
        if method == "tools/call" and not self.roots and _tool_params(params, ()):
            result = self._tool(params, self.version)
        elif method in METHODS and (params is None or _plain_params(params, ())):
            result = self._result(method, self.version)
        return None if result is None else Step(_reply(rid, result))

    def _modern(self, message: dict[str, Any], opening: bool) -> Step | None:
        assert self.listing is not None
        rid, method = message["id"], message["method"]
        params: Any = message.get("params")
        versions = self.listing.modern
        if method == "subscriptions/listen":
            return self._listen(message, versions)
        if method == "tools/call" and _tool_params(params, versions):
            result = self._tool(params, params["_meta"][shapes.PROTOCOL_VERSION])
        elif method in (*METHODS, "server/discover") and _plain_params(params, versions):
            result = self._result(method, params["_meta"][shapes.PROTOCOL_VERSION])
        else:
            return None
        if result is None:
            return None
        if not opening:
            return Step(_reply(rid, result))
        # the SDK decides the connection's era on its first request: give it a discover of that era
        version = params["_meta"][shapes.PROTOCOL_VERSION]
        discover = {"_meta": {shapes.PROTOCOL_VERSION: version, shapes.CLIENT_CAPABILITIES: {}}}
        stand_in = {"jsonrpc": "2.0", "id": "", "method": "server/discover", "params": discover}
        sent = dumps(self._result("server/discover", version))
        return Step(_reply(rid, result), self.relay.mark(stand_in, Marked(rid, sent)))

    def _listen(self, message: dict[str, Any], versions: tuple[str, ...]) -> Step | None:
        """A stream of change notifications: acknowledged here, kept open by the SDK."""
        assert self.listing is not None
        params = message.get("params")
        if not isinstance(params, dict) or set(params) != {"notifications", "_meta"}:
            return None
        asked = params["notifications"]
        if not isinstance(asked, dict) or asked.keys() != LISTEN.keys() or not all(v is True for v in asked.values()):
            return None
        if not shapes.meta(params["_meta"], versions):
            return None
        ack = self.listing.result("subscriptions/listen", params["_meta"][shapes.PROTOCOL_VERSION])
        if ack is None:
            return None
        ack = _fill(ack, {ID: message["id"]})
        answer = dumps({"jsonrpc": "2.0", "method": ACKNOWLEDGED, "params": ack}) + "\n"
        return Step(answer, self.relay.mark(message, Marked(message["id"], ack=dumps(ack))))

    def _tool(self, params: dict[str, Any], version: str) -> Any:
        """A tool's result, framed as the SDK frames it at `version`, or None."""
        name, arguments = params["name"], params["arguments"]
        frame = self.listing.result("tools/call", version) if self.listing else None
        if self.blocked or frame is None:
            return None
        if name == "read" and not (arguments.get("role") or self.scope):
            return None  # the SDK says which role is missing
        answer = self.run_tool(name, arguments)
        if answer is None or _has_float(answer[1]):
            return None  # an error is the SDK's to word; floats are written differently by it
        return _fill(frame, {TEXT: answer[0], DATA: answer[1]})


def _reply(rid: Any, result: Any) -> str:
    return dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n"


def _plain_params(params: Any, versions: tuple[str, ...]) -> bool:
    """Params of nothing but a `_meta` of known shape (for the listings and the handshake)."""
    if not isinstance(params, dict) or not set(params) <= {"_meta"}:
        return False
    return ("_meta" not in params and not versions) or ("_meta" in params and shapes.meta(params["_meta"], versions))


def _tool_params(params: Any, versions: tuple[str, ...]) -> bool:
    """`tools/call` params of known shape, for a tool the front runs."""
    if not isinstance(params, dict) or not {"name", "arguments"} <= set(params) <= {"name", "arguments", "_meta"}:
        return False
    if not _plain_params({k: v for k, v in params.items() if k == "_meta"}, versions):
        return False
    return isinstance(params["name"], str) and shapes.arguments(params["name"], params["arguments"])


def _fill(frame: Any, holes: dict[str, Any]) -> Any:
    """The stored frame of a tool result with its placeholders filled."""
    if isinstance(frame, str):
        return holes.get(frame, frame)
    if isinstance(frame, dict):
        return {k: _fill(v, holes) for k, v in frame.items()}
    if isinstance(frame, list):
        return [_fill(v, holes) for v in frame]
    return frame


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False
