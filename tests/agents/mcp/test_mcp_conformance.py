"""Every answer of rolebook's MCP server held to the official SDK's: a Hypothesis state
machine writes a client's lines (either era, well formed or not), and the SDK's own server
given the same table (sdk_twin.py) must answer each request as ours does: the same result,
or an error of the same code.

Two differences are by design and left out: the capabilities in `initialize` and
`server/discover` (the twin is the SDK's low-level server, which offers no list-change
notifications; rolebook, like the SDK's MCPServer it replaced, acknowledges a
`subscriptions/listen` stream, which Claude Code waits for), and that stream itself."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule
from rolebook.agents.mcp.protocol import Server
from roots import DECLARED
from sdk_twin import sdk_answers, twin
from served import exchange

CLIENT = {"name": "t", "version": "0"}
VERSION, CAPS, INFO = (
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
)
ENVELOPE = {VERSION: "2026-07-28", INFO: CLIENT, CAPS: {}}
#: `_meta` as a client may send it: the envelope, parts of it, another version, or none.
METAS = st.sampled_from(
    [
        ENVELOPE,
        ENVELOPE,
        ENVELOPE,
        {VERSION: "2026-07-28", CAPS: {}},
        {VERSION: "2026-07-28"},
        {**ENVELOPE, VERSION: "2030-01-01"},
        {CAPS: {}},
        None,
    ]
)
METHODS = st.sampled_from(
    [
        "ping",
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
        "server/discover",
        "logging/setLevel",
        "completion/complete",
        "no/such",
    ]
)
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)
ARGUMENTS = {
    "search": st.fixed_dictionaries(
        {"query": st.one_of(st.just("npm install"), TEXT, st.integers())},
        optional={"limit": st.integers(-2, 120), "budget": st.sampled_from([49, 50, 500, 20001]), "role": TEXT},
    ),
    "read": st.fixed_dictionaries(
        {}, optional={"role": st.sampled_from(["coder", "qa", "../x", ""]), "task": TEXT, "budget": st.integers(0, 600)}
    ),
    "promote_review": st.fixed_dictionaries({}, optional={"min_dates": st.integers(0, 120), "zzz": st.booleans()}),
    "confirm": st.fixed_dictionaries(
        {"id": st.one_of(st.just("#3f2a9c1d"), TEXT, st.integers())}, optional={"role": st.sampled_from(["coder", ""])}
    ),
    "update": st.fixed_dictionaries(
        {"learnings": st.just(["npm ci wants the lockfile"])},
        optional={"role": st.sampled_from(["coder", "../x"]), "failure": st.one_of(TEXT, st.integers())},
    ),
    "nope": st.just({}),
}


class Conversation(RuleBasedStateMachine):
    """One connection's lines; at the end both servers answer them and must agree."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict[str, Any]] = []
        self.next_id = 0

    def _rid(self, as_text: bool) -> Any:
        self.next_id += 1
        return f"r{self.next_id}" if as_text else self.next_id

    def _request(self, method: str, params: dict[str, Any] | None, meta: Any, as_text: bool) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._rid(as_text), "method": method}
        if meta is not None:
            params = {**(params or {}), "_meta": meta}
        if params is not None:
            message["params"] = params
        self.lines.append(message)

    @initialize(
        opening=st.sampled_from(["initialize", "discover", "other"]),
        version=st.sampled_from(["2025-11-25", "2025-06-18", "2024-11-05", "1999-01-01"]),
        method=METHODS,
    )
    def open(self, opening: str, version: str, method: str) -> None:
        if opening == "initialize":
            self._request(
                "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT}, None, False
            )
            self.lines.append({"jsonrpc": "2.0", "method": "notifications/initialized"})
        elif opening == "discover":
            self._request("server/discover", None, ENVELOPE, False)
        else:
            self._request(method, None, None, False)

    @rule(method=METHODS, meta=METAS, as_text=st.booleans())
    def ask(self, method: str, meta: Any, as_text: bool) -> None:
        self._request(method, None, meta, as_text)

    @rule(data=st.data(), tool=st.sampled_from(sorted(ARGUMENTS)), meta=METAS)
    def call(self, data: st.DataObject, tool: str, meta: Any) -> None:
        self._request("tools/call", {"name": tool, "arguments": data.draw(ARGUMENTS[tool])}, meta, False)

    @rule(uri=st.sampled_from(["rolebook://rules", "rolebook://notebook/coder", "rolebook://elsewhere", 3]), meta=METAS)
    def read_resource(self, uri: Any, meta: Any) -> None:
        self._request("resources/read", {"uri": uri}, meta, False)

    @rule(
        arguments=st.sampled_from([{"role": "qa"}, {}, None]),
        name=st.sampled_from(["memory_protocol", "x"]),
        meta=METAS,
    )
    def prompt(self, arguments: Any, name: str, meta: Any) -> None:
        self._request("prompts/get", {"name": name, "arguments": arguments}, meta, False)

    @rule(version=st.sampled_from(["2025-11-25", "2026-07-28"]))
    def initialize_again(self, version: str) -> None:
        self._request("initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT}, None, False)

    @rule(
        what=st.sampled_from(
            ["notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed"]
        )
    )
    def notify(self, what: str) -> None:
        params = {"requestId": 10_000} if what.endswith("cancelled") else None
        self.lines.append({"jsonrpc": "2.0", "method": what, **({"params": params} if params else {})})

    def teardown(self) -> None:
        said = []
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "project"  # the same path for both: answers name it
            for serve in (
                lambda: exchange(Server(root, None, None, 0, None), *self.lines),  # type: ignore[arg-type]
                lambda: sdk_answers(twin(root), [json.dumps(m) + "\n" for m in self.lines]),
            ):
                shutil.rmtree(root, ignore_errors=True)
                root.mkdir()
                (root / "rolebook.yaml").write_text(DECLARED, encoding="utf-8")
                said.append(by_id(serve()))
        assert said[0] == said[1], json.dumps(self.lines)


def by_id(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """Each answer by its request's id, in the form the comparison holds both to."""
    kept: dict[str, Any] = {}
    for m in messages:
        if "method" in m:
            continue  # a listen stream's acknowledgement: rolebook's alone (see the module's note)
        key = json.dumps(m.get("id"))
        if "error" in m:
            kept[key] = ("error", m["error"]["code"])
        else:
            result = {k: v for k, v in m["result"].items() if k != "capabilities"}
            kept[key] = ("result", result)
    return kept


Conversation.TestCase.settings = settings(
    max_examples=60, stateful_step_count=12, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
test_rolebook_answers_every_request_as_the_sdk_server_does = Conversation.TestCase
