"""`rolebook mcp` answers the handshake before the SDK loads, then the SDK takes over."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from rolebook.agents.mcp import listing as mcp_listing
from rolebook.agents.mcp.front import Front
from rolebook.agents.mcp.listing import instructions

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")


def request(rid: int | None, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if rid is not None:
        message["id"] = rid
    if params is not None:
        message["params"] = params
    return json.dumps(message) + "\n"


def initialize(version: str = "2025-06-18", rid: int = 0) -> str:
    client = {"name": "t", "version": "0"}
    return request(rid, "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": client})


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_the_front_answers_what_the_sdk_server_answers(version: str) -> None:
    sdk = mcp_listing.sdk_answers(version)
    front = Front(None, io.BytesIO(initialize(version).encode()), io.BytesIO())
    front.read()
    out = front.stdout
    assert isinstance(out, io.BytesIO)
    (answer,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answer["result"] == {**sdk["initialize"], "instructions": instructions(None)}
    for method in mcp_listing.METHODS:
        assert mcp_listing.LISTINGS[method] == sdk[method], f"{method}: run `python agents/mcp_listing.py`"


def test_the_front_answers_the_handshake_and_listings_without_importing_the_sdk() -> None:
    lines = initialize("2099-01-01") + request(None, "notifications/initialized") + request(1, "tools/list")
    lines += request(2, "tools/call", {"name": "search", "arguments": {"query": "x"}})
    code = (
        "import io, sys\n"
        "from rolebook.agents.mcp.front import Front\n"
        f"front = Front('coder', io.BytesIO({lines.encode()!r}), io.BytesIO())\n"
        "front.read()\n"
        "assert not [m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'pydantic'))], 'imported'\n"
        "print(front.stdout.getvalue().decode()); print(len(front.kept))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    *answers, kept = done.stdout.splitlines()
    init, tools = (json.loads(a) for a in answers if a)
    assert init["id"] == 0 and init["result"]["protocolVersion"] == HANDSHAKE_PROTOCOL_VERSIONS[-1]
    assert "You work as the coder role" in init["result"]["instructions"]
    assert tools["id"] == 1 and {t["name"] for t in tools["result"]["tools"]} >= {"read", "update", "search"}
    assert kept == "3"  # initialize, initialized and the tool call wait for the SDK, in order


def test_over_real_stdio_each_request_gets_exactly_one_answer_and_tools_work(tmp_path: Path) -> None:
    with subprocess.Popen(
        [ROLEBOOK, "--root", str(tmp_path), "--as", "coder", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(initialize() + request(None, "notifications/initialized") + request(1, "tools/list"))
        learned = {"name": "update", "arguments": {"learnings": ["front door works"]}}
        server.stdin.write(request(2, "tools/call", learned))
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(3)]
        server.stdin.write(request(3, "tools/call", {"name": "search", "arguments": {"query": "front door"}}))
        server.stdin.close()
        answers += [json.loads(line) for line in server.stdout]
        assert server.wait(timeout=60) == 0
    assert [a["id"] for a in answers] == [0, 1, 2, 3]
    assert "You work as the coder role" in answers[0]["result"]["instructions"]
    assert answers[2]["result"]["content"][0]["text"].startswith("coder: +1 entry")
    assert "front door works" in answers[3]["result"]["content"][0]["text"]


def test_a_client_that_does_not_begin_with_initialize_is_left_to_the_sdk(tmp_path: Path) -> None:
    done = subprocess.run(
        [ROLEBOOK, "--root", str(tmp_path), "mcp"],
        input=request(7, "tools/list"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a.get("id") for a in answers] == [7]
    assert "result" not in answers[0] or answers[0]["result"] != mcp_listing.LISTINGS["tools/list"]


def test_a_bad_scope_is_refused_before_serving(tmp_path: Path) -> None:
    done = subprocess.run([ROLEBOOK, "--as", "../x", "mcp"], input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "invalid role name '../x'" in done.stderr
