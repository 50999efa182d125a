"""The start-up front against the SDK server alone, as a Hypothesis state machine.

A client sends requests (valid and malformed: ids of every JSON type, missing and odd
fields, repeated ids, huge lines, batches), notifications, cancellations and bytes that
are no JSON at all, in any order; the SDK finishes loading at any step, and the input
ends at any step (before the SDK has loaded, or once every answer came). Whatever
happens, what `rolebook mcp` writes is what the SDK server alone writes for the same
bytes: the same lines, byte for byte, each request answered once; the only freedom is
the SDK's own (a request cancelled, or still running when input ends, may go unanswered
or be answered "Connection closed"). HYPOTHESIS_PROFILE=long runs many more examples.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule, run_state_machine_as_test
from rolebook.agents.mcp.listing import LISTEN
from rolebook.agents.mcp.server import build
from rolebook.notebook.store import Writer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp_wire import (
    CLIENT,
    MISSING,
    MODERN,
    Fronted,
    answer_id,
    cancelled_ids,
    coerce,
    differences,
    fresh,
    is_closed,
    line,
    sdk_alone,
    split,
    template_root,
)

LONG = os.environ.get("HYPOTHESIS_PROFILE", "default") != "default"
PV, CI, CC = (f"io.modelcontextprotocol/{k}" for k in ("protocolVersion", "clientInfo", "clientCapabilities"))

# ids: mostly plain, sometimes of a kind the SDK refuses or reads its own way
ODD_IDS = [-1, 2**53, -(2**63), 2**64, 1.0, 2.5, True, None, [1], {"id": 1}, [], "method", "7", " 7", "", "é\u2028"]
ids = st.integers(0, 19).flatmap(lambda n: st.sampled_from(ODD_IDS) if n == 0 else st.integers(0, 6))


def mostly(plain: st.SearchStrategy[Any], odd: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`plain` three times in four (what clients send), else `odd`."""
    return st.integers(0, 3).flatmap(lambda n: odd if n == 0 else plain)


capability = {
    "sampling": st.sampled_from([{}, {"context": {}}, {"tools": {}}, {"context": 1}, None]),
    "elicitation": st.sampled_from([{}, {"form": {}, "url": {}}, {"form": 5}, []]),
    "experimental": st.sampled_from([{}, {"x": {}}, {"x": 1}, {"x": {"y": 1.5}}]),
    "tasks": st.sampled_from([{}, {"list": {}}]),
    "extensions": st.sampled_from([{}, {"io.x/y": {}}]),
    "other": st.sampled_from([{}, 1]),
}
# roots only in the 2026-07-28 era: a handshake client offering roots is asked for them (and
# these clients never answer): the front leaves its tool calls to the SDK, tested elsewhere
roots = st.sampled_from([{}, {"listChanged": True}, {"listChanged": "yes"}, 5])
CLAUDE_CODE = {"roots": {"listChanged": True}, "elicitation": {"form": {}, "url": {}}}
COPILOT = {"sampling": {}, "elicitation": {"form": {}, "url": {}}}
handshake_capabilities = mostly(
    st.sampled_from([{}, COPILOT, {"experimental": {"x": {}}}]),
    st.one_of(st.fixed_dictionaries({}, optional=capability), st.sampled_from([None, [], "x"])),
)
modern_capabilities = mostly(
    st.sampled_from([{}, CLAUDE_CODE, COPILOT]), st.fixed_dictionaries({}, optional={**capability, "roots": roots})
)
client_info = mostly(
    st.sampled_from([CLIENT, {**CLIENT, "title": "T", "websiteUrl": "https://x.example"}]),
    st.fixed_dictionaries(
        {"name": st.sampled_from(["t", 5]), "version": st.sampled_from(["0", 0])},
        optional={
            "title": st.sampled_from(["T", None]),
            "websiteUrl": st.sampled_from(["https://x.example", "not a url"]),
            "description": st.just("d"),
            "icons": st.just([]),
            "extra": st.just(1),
        },
    )
    | st.sampled_from([None, {}, {"name": "t"}]),
)


def without(value: st.SearchStrategy[dict[str, Any]], keys: list[str]) -> st.SearchStrategy[Any]:
    """`value`, now and then with one of `keys` left out."""
    return st.tuples(value, st.sampled_from([None, None, None, *keys])).map(
        lambda t: {k: v for k, v in t[0].items() if k != t[1]}
    )


VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN, "2099-01-01"]
initialize_params = mostly(
    st.builds(
        lambda v, c: {"protocolVersion": v, "capabilities": c, "clientInfo": CLIENT},
        st.sampled_from(VERSIONS),
        handshake_capabilities,
    ),
    without(
        st.fixed_dictionaries(
            {
                "protocolVersion": st.one_of(st.sampled_from(VERSIONS), st.sampled_from([5, None])),
                "capabilities": handshake_capabilities,
                "clientInfo": client_info,
            },
            optional={"_meta": st.just({"progressToken": 1})},
        ),
        ["protocolVersion", "capabilities", "clientInfo"],
    ),
)
envelope = mostly(
    st.builds(
        lambda c, i, extra: {PV: MODERN, CC: c, CI: i, **extra},
        modern_capabilities,
        client_info,
        st.sampled_from([{}, {"progressToken": 3}, {"claudecode/toolUseId": "toolu_1"}]),
    ),
    without(
        st.fixed_dictionaries(
            {PV: st.sampled_from([MODERN, MODERN, MODERN, "2025-11-25", 5]), CC: modern_capabilities},
            optional={
                CI: client_info,
                "progressToken": st.sampled_from([1, "p", 1.5, None]),
                "claudecode/toolUseId": st.just("toolu_1"),
                "io.modelcontextprotocol/logLevel": st.just("debug"),
            },
        ),
        [PV, CC],
    ),
)
plain_meta = st.sampled_from([{"progressToken": 1}, {"progressToken": 2.5}, {"x-blob": "x" * 70_000}, {}])
budget = st.sampled_from([50, 100, 500, 20000, 49, 20001, "100", 100.0, True])
arguments = {
    "read": mostly(
        st.sampled_from([{"role": "coder"}, {"role": "coder", "task": "npm EACCES"}, {}, {"task": "staging"}]),
        st.fixed_dictionaries(
            {},
            optional={
                "role": st.sampled_from(["coder", "coder", None, "", "nobody", "Bad Role", 5]),
                "task": st.sampled_from(["npm EACCES", "staging", None, "", 3]),
                "budget": budget,
            },
        ),
    ),
    "search": mostly(
        st.sampled_from(
            [
                {"query": "npm"},
                {"query": "staging database", "limit": 3},
                {"query": "EACCES checkout", "role": "coder", "budget": 100},
                {"query": "zzz"},
            ]
        ),
        without(
            st.fixed_dictionaries(
                {"query": st.sampled_from(["npm", "EACCES checkout", "staging database", "", "zzz", 5, None])},
                optional={
                    "limit": st.sampled_from([1, 3, 100, 0, 101, "3", 3.0, True]),
                    "budget": budget,
                    "role": st.sampled_from(["coder", "designer", None, "Bad Role"]),
                    "section": st.sampled_from(["mistakes", "notes", None]),
                    "status": st.sampled_from(["active", "all", "bogus", None]),
                    "since": st.sampled_from(["2026-01-01", "bad", None]),
                    "root_only": st.sampled_from([True, False, 1]),
                    "extra": st.just(1),
                },
            ),
            ["query"],
        ),
    ),
    "update": st.integers(0, 3).map(lambda n: {"role": "coder", "learnings": [f"fact {n}"]}),
    "nope": st.just({}),
}
tools_call = st.sampled_from(sorted(arguments)).flatmap(
    lambda tool: without(st.fixed_dictionaries({"name": st.just(tool), "arguments": arguments[tool]}), ["arguments"])
)
OTHERS = {
    "resources/read": st.sampled_from([{"uri": "rolebook://notebook/coder"}, {"uri": "rolebook://rules"}, {}]),
    "prompts/get": st.just({"name": "memory_protocol", "arguments": {"role": "coder"}}),
    "subscriptions/listen": st.sampled_from(
        [
            {"notifications": LISTEN},  # as Claude Code and Copilot CLI open their stream
            {"notifications": LISTEN},
            {"notifications": {"toolsListChanged": True}},
            {"notifications": {**LISTEN, "toolsListChanged": 1}},
        ]
    ),
    "logging/setLevel": st.just({"level": "debug"}),
    "no/such": st.just({}),
}
LISTINGS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list", "ping", "server/discover"]


@st.composite
def requests(draw: st.DrawFn, modern: bool) -> str:
    """One request, mostly of the connection's era."""
    if draw(st.integers(0, 9)) == 0:
        modern = not modern
    method = draw(st.sampled_from(["initialize", "tools/call", "tools/call", *LISTINGS, *OTHERS]))
    params: Any
    if method == "initialize":
        params = draw(initialize_params)
    elif method == "tools/call":
        params = draw(tools_call)
    elif method in OTHERS:
        params = draw(OTHERS[method])
    else:
        params = draw(st.sampled_from([MISSING, {}, {}, {"cursor": "c"}]))
        if params is not MISSING and not modern and draw(st.booleans()):
            params = {**params, "_meta": draw(plain_meta)}
    if modern and method != "initialize":
        params = {**(params if isinstance(params, dict) else {}), "_meta": draw(envelope)}
    rid = draw(ids)
    text = line(rid, method, params)
    if draw(st.integers(0, 4)) == 0:  # the same message written another way
        text = json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False) + "\n"
    return text


GARBAGE = [
    b"\n",
    b"   \n",
    b"not json\n",
    b"[]\n",
    b"{}\n",
    b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]\n',  # a batch
    b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n',
    b'\xef\xbb\xbf{"jsonrpc":"2.0","id":3,"method":"ping"}\n',
    b'\xff{"jsonrpc":"2.0","id":3,"method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":4,"method":"ping"}\r',
    b'{"jsonrpc":"2.0","id":4,"method":"tools/list"}\r\n',
    b'{"jsonrpc":"1.0","id":5,"method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":6,"method":"ping","params":null}\n',
    b'{"jsonrpc":"2.0","id":6,"result":{}}\n',
    b'{"jsonrpc":"2.0","id":6,"method":"ping","extra":1}\n',
    b'{"jsonrpc":"2.0","id":' + b"[" * 40 + b"]" * 40 + b',"method":"ping"}\n',
]


class Startup(RuleBasedStateMachine):
    """A client of `rolebook mcp` and the SDK server alone, fed the same bytes."""

    template: Path
    run_at: Path
    oracle_at: Path
    servers: dict[str, Any]

    def __init__(self) -> None:
        super().__init__()
        self.root = fresh(self.template, self.run_at)
        self.server = Fronted(self.root, server=self.servers["run"])
        self.sent = bytearray()
        self.ids: list[Any] = []
        self.modern = False
        self.end_first = False

    def send(self, data: bytes) -> None:
        self.sent += data
        self.server.send(data)

    @initialize(opening=st.sampled_from(["handshake", "handshake", "modern", "modern", "any"]), data=st.data())
    def open(self, opening: str, data: st.DataObject) -> None:
        """The first request: a handshake, a discover, or anything."""
        self.end_first = data.draw(st.booleans(), "input ends before the SDK has loaded")
        self.modern = opening == "modern" or (opening == "any" and data.draw(st.booleans()))
        if opening == "handshake":
            version = data.draw(st.sampled_from(VERSIONS))
            params = {
                "protocolVersion": version,
                "capabilities": data.draw(modern_capabilities.filter(lambda c: "roots" not in c)),
                "clientInfo": CLIENT,
            }
            self.send(line(0, "initialize", params).encode())
            if data.draw(st.booleans()):
                self.send(line(MISSING, "notifications/initialized").encode())
        elif opening == "modern":
            self.send(line(0, "server/discover", {"_meta": data.draw(envelope)}).encode())
        else:
            self._request(data)

    def _request(self, data: st.DataObject) -> None:
        text = data.draw(requests(self.modern))
        self.ids.append(json.loads(text).get("id"))
        self.send(text.encode())

    @rule(data=st.data())
    def request(self, data: st.DataObject) -> None:
        self._request(data)

    @rule(data=st.data())
    def another_request(self, data: st.DataObject) -> None:
        self._request(data)

    @rule(data=st.data())
    def notification(self, data: st.DataObject) -> None:
        method = data.draw(st.sampled_from(["notifications/initialized", "notifications/progress", "n/x"]))
        params = data.draw(st.sampled_from([MISSING, {}, {"progressToken": 1, "progress": 1}]))
        self.send(line(MISSING, method, params).encode())

    @rule(data=st.data())
    def cancel(self, data: st.DataObject) -> None:
        rid = data.draw(st.sampled_from(self.ids or [0]))
        self.send(line(MISSING, "notifications/cancelled", {"requestId": rid}).encode())

    # rarer than requests: either ends what the front can answer before the SDK
    @rule(data=st.sampled_from([None, None, None, *GARBAGE]))
    def garbage(self, data: bytes | None) -> None:
        if data is not None:
            self.send(data)

    @rule(now=st.integers(0, 3))
    def sdk_loaded(self, now: int) -> None:
        if now == 0:
            self.server.ready()

    def teardown(self) -> None:
        if self.sent.endswith(b"\r") and not self.end_first:
            self.send(b"\n")  # a line read up to a lone CR waits to see whether LF follows
        data = bytes(self.sent)
        fresh(self.template, self.oracle_at)
        oracle = [t.replace(str(self.oracle_at), str(self.run_at)) for t in sdk_alone(data, self.servers["oracle"])]
        cancelled = cancelled_ids(split(data))
        answered = [t for t in oracle if answer_id(t) is MISSING or coerce(answer_id(t)) not in cancelled]
        if self.end_first:  # the front's own answers must all be there, the SDK's may be cut short
            got, required = self.server.end(), Counter(self.server.answered_early)
        else:  # every answer but those to cancelled requests, before the end of input
            required = Counter(answered)
            self.server.ready()
            before_end = Counter(t for t in answered if not is_closed(t))
            assert self.server.out.wait(lambda lines: not before_end - Counter(lines)), "answers missing"
            got = self.server.end()
        problems = differences(oracle, got, required, lambda t: self.end_first and is_closed(t))
        assert not problems, "\n".join(problems)
        assert self.server.warnings == []
        event(f"answered before the SDK: {min(len(self.server.answered_early), 5)}")
        event("lost" if self.server.early.lost else "kept track of the SDK's state")


def test_the_front_writes_what_the_sdk_server_alone_writes_for_any_interleaving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROLEBOOK_SEARCH_MODE", "keyword")
    monkeypatch.setattr(Writer, "stamp", lambda self: "2026-01-01T00:00:00Z")  # two runs, one clock
    Startup.template = template_root(tmp_path)
    Startup.run_at, Startup.oracle_at = tmp_path / "run", tmp_path / "oracle"
    Startup.servers = {"run": build(Startup.run_at), "oracle": build(Startup.oracle_at)}
    examples = settings(max_examples=400 if LONG else 25, stateful_step_count=12, deadline=None)
    run_state_machine_as_test(Startup, settings=examples)
