"""`rolebook mcp`'s start-up over real stdio: fast first answers in both protocol eras,
nothing the SDK server would not say, no pipe to fill, and an exit at end of input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rolebook.agents.mcp import listing
from rolebook.agents.mcp.front import tool_runner
from rolebook.agents.mcp.machine import Early
from rolebook.agents.mcp.server import build

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mcp_wire import (
    ENVELOPE,
    MISSING,
    call,
    discover,
    fresh,
    initialize,
    is_closed,
    line,
    lines_of,
    sdk_alone,
    template_root,
)

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")
PATIENCE = 120  # only a hang reaches it


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a notebook and an archive; `same_as_sdk` puts it back as it was."""
    monkeypatch.setenv("ROLEBOOK_SEARCH_MODE", "keyword")
    return fresh(template_root(tmp_path), tmp_path / "project")


def serve(root: Path, data: bytes, *options: str) -> tuple[list[str], int]:
    """`rolebook mcp` fed `data` and then end of input: its lines and exit code."""
    with subprocess.Popen(
        [ROLEBOOK, "--root", str(root), *options, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as server:
        try:
            out, _ = server.communicate(data, timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            server.kill()
            pytest.fail("rolebook mcp did not exit at end of input")
    return lines_of(out.decode("utf-8")), server.returncode


def same_as_sdk(root: Path, data: bytes, got: list[str], scope: str | None = None) -> None:
    """`got` is what the SDK server alone writes for `data` on the same project (a request
    still running at end of input may also end unanswered or "Connection closed", as the
    SDK's own would)."""
    fresh(root.parent / "template", root)
    oracle = sdk_alone(data, build(root, scope))
    assert all(text in oracle or is_closed(text) for text in got), (got, oracle)
    ids = [json.loads(t).get("id") for t in got if "method" not in json.loads(t)]
    assert len(ids) == len({json.dumps(i) for i in ids}), f"answered twice: {got}"


def test_more_than_64_kb_of_calls_sent_before_the_sdk_loads_are_all_answered_then_it_exits(root: Path) -> None:
    calls = [call(n, "search", {"query": f"npm {'checkout permissions ' * 30}{n}"}) for n in range(1, 101)]
    data = (initialize() + line(MISSING, "notifications/initialized") + "".join(calls)).encode()
    assert len(data) > 70_000
    got, code = serve(root, data)
    answers = {json.loads(t)["id"]: json.loads(t) for t in got}
    assert code == 0 and sorted(answers) == list(range(101))
    assert all("result" in a for a in answers.values())


def test_a_single_100_kb_request_before_the_sdk_loads_is_answered(root: Path) -> None:
    big = call(1, "search", {"query": "npm EACCES " + "x" * 100_000})
    got, code = serve(root, (initialize() + big).encode())
    assert code == 0 and [json.loads(t)["id"] for t in got] == [0, 1]


@pytest.mark.parametrize("rid", [[1], {"a": 1}, 1.5, None, True, "method", "7", -3, 2**64], ids=lambda r: json.dumps(r))
def test_an_initialize_with_any_id_is_answered_as_the_sdk_answers_it_once_and_exits(root: Path, rid: Any) -> None:
    data = (initialize(rid) + line(1, "tools/list")).encode()
    got, code = serve(root, data)
    assert code == 0
    same_as_sdk(root, data, got)


@pytest.mark.parametrize("missing", ["capabilities", "clientInfo", "protocolVersion"])
def test_an_initialize_the_sdk_refuses_gets_the_sdks_error_not_a_success(root: Path, missing: str) -> None:
    message = json.loads(initialize())
    del message["params"][missing]
    data = (json.dumps(message) + "\n").encode()
    got, code = serve(root, data)
    assert code == 0 and len(got) == 1 and "error" in json.loads(got[0])
    same_as_sdk(root, data, got)


def test_a_2026_client_gets_discover_listings_and_a_search_as_the_sdk_answers_them(root: Path) -> None:
    modern = {"_meta": ENVELOPE}
    data = (discover() + line(1, "tools/list", modern) + call(2, "search", {"query": "npm"}, modern=True)).encode()
    got, code = serve(root, data, "--as", "coder")
    assert code == 0 and len(got) == 3
    same_as_sdk(root, data, got, "coder")
    assert "You work as the coder role" in json.loads(got[0])["result"]["instructions"]


@pytest.mark.parametrize("cut", range(7))
def test_end_of_input_at_any_point_ends_the_server(root: Path, cut: int) -> None:
    script = [
        initialize(),
        line(MISSING, "notifications/initialized"),
        line(1, "tools/list"),
        call(2, "read", {"role": "coder"}),
        call(3, "update", {"role": "coder", "learnings": ["eof test"]}),
        call(4, "search", {"query": "eof test"}),
    ]
    data = "".join(script[:cut]).encode()
    got, code = serve(root, data)
    assert code == 0
    same_as_sdk(root, data, got)


def test_over_real_stdio_each_request_gets_exactly_one_answer_and_tools_work(tmp_path: Path) -> None:
    with subprocess.Popen(
        [ROLEBOOK, "--root", str(tmp_path), "--as", "coder", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(initialize() + line(MISSING, "notifications/initialized") + line(1, "tools/list"))
        server.stdin.write(call(2, "update", {"learnings": ["front door works"]}))
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(3)]
        server.stdin.write(call(3, "search", {"query": "front door"}))
        server.stdin.flush()
        answers.append(json.loads(server.stdout.readline()))
        server.stdin.close()
        assert server.stdout.read() == ""
        assert server.wait(timeout=PATIENCE) == 0
    assert sorted(a["id"] for a in answers) == [0, 1, 2, 3]
    by_id = {a["id"]: a for a in answers}
    assert "You work as the coder role" in by_id[0]["result"]["instructions"]
    assert by_id[2]["result"]["content"][0]["text"].startswith("coder: +1 entry")
    assert "front door works" in by_id[3]["result"]["content"][0]["text"]


def test_a_bad_scope_is_refused_before_serving(tmp_path: Path) -> None:
    done = subprocess.run([ROLEBOOK, "--as", "../x", "mcp"], input="", capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "invalid role name '../x'" in done.stderr


def early(root: Path, scope: str | None = None) -> Early:
    run, _ = tool_runner(root, scope, None)
    return Early(listing.load(), scope, run)


def test_the_handshake_discover_and_first_calls_are_answered_without_importing_the_sdk(root: Path) -> None:
    lines = [
        initialize(version="2099-01-01"),
        line(1, "tools/list"),
        call(2, "search", {"query": "npm"}),
        call(3, "read", {}),
    ]
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from rolebook.agents.mcp import listing\n"
        "from rolebook.agents.mcp.front import tool_runner\n"
        "from rolebook.agents.mcp.machine import Early\n"
        f"run, _ = tool_runner(Path({str(root)!r}), 'coder', None)\n"
        "early = Early(listing.load(), 'coder', run)\n"
        f"steps = [early.take(t) for t in {lines!r}]\n"
        "assert not [m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types', 'pydantic'))]\n"
        "print(json.dumps([s.answer for s in steps]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    oracle = sdk_alone("".join(lines).encode(), build(root, "coder"))
    assert answers == oracle  # all four, answered here, byte for byte


def test_a_client_offering_roots_has_its_tool_calls_left_to_the_sdk(root: Path) -> None:
    front = early(root)
    assert front.take(initialize(capabilities={"roots": {"listChanged": True}})).answer is not None
    assert front.take(line(1, "tools/list")).answer is not None
    step = front.take(call(2, "search", {"query": "npm"}))
    assert (step.answer, step.forward) == (None, call(2, "search", {"query": "npm"}))


def test_after_a_call_that_may_write_no_tool_is_answered_before_the_sdk(root: Path) -> None:
    front = early(root)
    front.take(initialize())
    assert front.take(call(1, "search", {"query": "npm"})).answer is not None
    assert front.take(call(2, "update", {"role": "coder", "learnings": ["x"]})).answer is None
    assert front.take(call(3, "search", {"query": "x"})).answer is None
    assert front.take(line(4, "tools/list")).answer is not None  # the listings do not depend on the store


def test_a_listing_made_with_another_sdk_makes_the_front_answer_nothing(root: Path) -> None:
    run, _ = tool_runner(root, None, None)
    front = Early(None, None, run)
    assert [front.take(t).answer for t in (initialize(), discover(1), line(2, "tools/list"))] == [None] * 3
