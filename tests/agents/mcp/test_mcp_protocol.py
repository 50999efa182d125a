"""The protocol itself, message by message: what the server answers (and does not) in each
era, checked against the official SDK's models of the spec (mcp_types)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from rolebook.agents.mcp import protocol
from rolebook.agents.mcp.protocol import Server
from rolebook.agents.mcp.table import TOOLS
from served import exchange

pytestmark = pytest.mark.usefixtures("declared_roles")
CLIENT = {"name": "t", "version": "0"}
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": CLIENT,
    "io.modelcontextprotocol/clientCapabilities": {},
}
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": CLIENT}


def request(rid: Any, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return message


def modern(rid: Any, method: str, **params: Any) -> dict[str, Any]:
    return request(rid, method, {**params, "_meta": ENVELOPE})


def answers(root: Path, *messages: dict[str, Any], scope: str | None = None) -> list[dict[str, Any]]:
    return exchange(Server(root, scope, None, 0, sys.stdout.buffer), *messages)


def test_a_handshake_connection_answers_as_the_spec_says(tmp_path: Path) -> None:
    got = answers(
        tmp_path,
        request(0, "ping"),
        request(1, "tools/list"),  # before initialize
        request(2, "initialize", {**INIT, "protocolVersion": "1999-01-01"}),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        request(3, "tools/list"),
        request(4, "nothing/here"),
        modern(5, "tools/list"),  # the other era's envelope on this connection
        request(6, "tools/call", {"name": "nope", "arguments": {}}),
        request(7, "tools/call", {"name": "search", "arguments": {"query": "x", "limit": 0}}),
        request(8, "resources/read", {"uri": "rolebook://elsewhere"}),
    )
    assert [a["id"] for a in got] == list(range(9))
    assert got[0]["result"] == {}
    assert got[1]["error"]["code"] == types.INVALID_PARAMS  # before initialize, as the SDK says it
    init = types.InitializeResult.model_validate(got[2]["result"])
    assert init.protocol_version == "2025-11-25"  # an unknown version: the newest the server speaks
    assert (init.instructions or "").startswith("Per-role memory that lasts between sessions (rolebook)")
    listed = types.ListToolsResult.model_validate(got[3]["result"])
    assert [t.name for t in listed.tools] == list(TOOLS)
    assert got[4]["error"] == {"code": types.METHOD_NOT_FOUND, "message": "Method not found", "data": "nothing/here"}
    assert got[5]["error"]["code"] == types.INVALID_REQUEST and "handshake protocol era" in got[5]["error"]["message"]
    assert got[6]["error"]["code"] == types.INVALID_PARAMS
    bad = types.CallToolResult.model_validate(got[7]["result"])
    assert bad.is_error and "limit: must be at least 1" in str(bad.content[0])
    assert got[8]["error"]["code"] == -32002


def test_a_2026_connection_discovers_and_every_result_says_how_long_it_keeps(tmp_path: Path) -> None:
    got = answers(
        tmp_path,
        modern(1, "server/discover"),
        modern(2, "tools/list"),
        modern(3, "resources/list"),
        modern(4, "resources/templates/list"),
        modern(5, "prompts/list"),
        modern(6, "tools/call", name="search", arguments={"query": "npm"}),
        request(7, "initialize", INIT),
        request(8, "tools/list", {"_meta": {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2030-01-01"}}),
        request(9, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        modern(10, "subscriptions/listen", notifications={"toolsListChanged": True, "other": True}),
        modern(11, "ping"),
    )
    discover = got[0]["result"]
    assert discover["supportedVersions"] == ["2026-07-28"] and discover["instructions"].startswith("Per-role memory")
    for result in (a["result"] for a in got[:5]):
        assert (result["ttlMs"], result["cacheScope"], result["resultType"]) == (0, "private", "complete")
        assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "rolebook"
    types.ListToolsResult.model_validate(got[1]["result"])
    types.ListResourcesResult.model_validate(got[2]["result"])
    types.ListPromptsResult.model_validate(got[4]["result"])
    called = types.CallToolResult.model_validate(got[5]["result"])
    assert not called.is_error and called.structured_content == {"query": "npm", "total": 0, "hits": []}
    assert got[6]["error"]["code"] == types.UNSUPPORTED_PROTOCOL_VERSION
    assert got[7]["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2030-01-01"}
    assert got[8]["error"]["code"] == types.INVALID_PARAMS
    ack, pong = got[9], got[10]
    assert ack["method"] == "notifications/subscriptions/acknowledged" and "id" not in ack
    assert ack["params"] == {
        "_meta": {"io.modelcontextprotocol/subscriptionId": 10},
        "notifications": {"toolsListChanged": True},
    }
    assert pong["id"] == 11 and pong["error"]["code"] == types.METHOD_NOT_FOUND  # no ping in 2026-07-28


def test_a_request_cancelled_before_it_is_read_is_never_answered(tmp_path: Path) -> None:
    got = answers(
        tmp_path,
        request(0, "initialize", INIT),
        request(1, "tools/call", {"name": "update", "arguments": {"role": "coder", "learnings": ["never"]}}),
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        request(2, "ping"),
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 99},
        },  # nothing of that id: ignored
    )
    assert [a["id"] for a in got] == [0, 2]
    assert not (tmp_path / "agents/state/memory/coder.md").exists()


def test_garbage_gets_the_spec_s_errors_and_the_connection_goes_on(tmp_path: Path) -> None:
    server = Server(tmp_path, None, None, 0, sys.stdout.buffer)
    got = exchange(server, request(0, "initialize", INIT))
    assert got[0]["id"] == 0
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out:
        given.write(b"{not json\n\n[1,2]\n" + json.dumps(request(1, "ping")).encode() + b"\n")
        given.seek(0)
        server.wire_in, server.wire_out, server.ended = given.fileno(), out, False
        server.serve()
        out.seek(0)
        lines = [json.loads(x) for x in out.read().splitlines()]
    assert [(x["id"], x.get("error", {}).get("code")) for x in lines] == [
        (None, types.PARSE_ERROR),
        (None, types.INVALID_REQUEST),
        (1, None),
    ]


def test_a_root_argument_works_in_that_project(tmp_path: Path, declare: Any) -> None:
    other = declare(tmp_path / "other")
    got = answers(
        tmp_path / "nowhere",
        request(0, "initialize", INIT),
        request(
            1,
            "tools/call",
            {"name": "store", "arguments": {"role": "coder", "category": "notes", "text": "t", "root": str(other)}},
        ),
    )
    assert got[1]["result"]["isError"] is False
    assert (other / "agents/state").exists() and not (tmp_path / "nowhere").exists()


def test_rolebook_mcp_starts_no_thread_and_writes_only_the_protocol(tmp_path: Path) -> None:
    """Over real stdio: stdout carries only JSON-RPC, nothing at start runs in a thread, and
    neither the SDK nor pydantic is imported (a tool call included)."""
    probe = (
        "import sys, threading; from rolebook.agents.mcp import protocol;"
        "orig = protocol.Server._send\n"
        "def send(self, m):\n"
        "    sys.stderr.write(f'threads={threading.active_count()}\\n'); print('stray'); orig(self, m)\n"
        "protocol.Server._send = send\n"
        "code = protocol.serve(None, None, None)\n"
        'sys.stderr.write(f\'loaded={[m for m in ("mcp", "pydantic", "anyio") if m in sys.modules]}\\n\')\n'
        "sys.exit(code)"
    )
    search = request(2, "tools/call", {"name": "search", "arguments": {"query": "npm"}})
    data = "".join(json.dumps(m) + "\n" for m in (request(0, "initialize", INIT), request(1, "tools/list"), search))
    done = subprocess.run(
        [sys.executable, "-c", probe], input=data, capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(x)["id"] for x in done.stdout.splitlines()] == [0, 1, 2]
    assert "threads=1" in done.stderr.splitlines()[0]
    assert "loaded=[]" in done.stderr.splitlines()


def test_the_listing_checks_what_it_lists() -> None:
    """Each tool's schema and its argument check come from the same rows."""
    for tool in TOOLS.values():
        listed = tool.listing()
        assert set(listed["inputSchema"]["properties"]) == {p.name for p in tool.params}
        assert listed["annotations"]["readOnlyHint"] == tool.read_only
        required = listed["inputSchema"].get("required", [])
        if required:
            with pytest.raises(ValueError, match=f"{required[0]}: required"):
                tool.check({})
        else:
            assert tool.check({}) == {p.name: p.default for p in tool.params}
    assert protocol.ROOTS_TIMEOUT > 0
