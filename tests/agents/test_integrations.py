"""integrate, the hooks agent CLIs run, and the git merge driver for notebooks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.agents.merge import merge
from rolebook.agents.scaffold import merge_driver
from rolebook.notebook.markdown import parse
from typer.testing import CliRunner

runner = CliRunner()


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def seed(root: Path) -> None:
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(ls)"]},
                "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]},
            }
        )
    )
    (root / ".codex").mkdir()
    (root / ".codex/config.toml").write_text('# my settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "y"\n')
    (root / ".gemini").mkdir()
    (root / ".gemini/settings.json").write_text('{"theme": "Dracula", "mcpServers": {"git": {"command": "uvx"}}}')
    (root / ".cursor").mkdir()
    (root / ".cursor/mcp.json").write_text('{"mcpServers": {"db": {"url": "http://x"}}}')
    (root / ".cursor/hooks.json").write_text('{"version": 1, "hooks": {"stop": [{"command": "./audit.sh"}]}}')
    (root / "AGENTS.md").write_text("# Agents\r\n\r\nUse tabs.\r\n")


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini", "copilot", "cursor"])
def test_integrate_writes_parseable_config_keeping_the_users_keys_and_is_idempotent(tmp_path: Path, agent: str) -> None:
    seed(tmp_path)
    code, _, err = rb(tmp_path, "integrate", agent, "--role", "coder")
    assert code == 0, err
    after = files(tmp_path)
    code, out, _ = rb(tmp_path, "integrate", agent, "--role", "coder")
    assert (code, files(tmp_path)) == (0, after) and "nothing to change" in out
    if agent == "claude":
        settings = json.loads((tmp_path / ".claude/settings.json").read_text())
        assert settings["permissions"] == {"allow": ["Bash(ls)"]}
        commands = {e: [h["command"] for g in groups for h in g["hooks"]] for e, groups in settings["hooks"].items()}
        assert commands == {
            "Stop": ["x", "rolebook hook stop --role coder"],
            "SessionStart": ["rolebook hook session-start --role coder"],
            "PostToolUseFailure": ["rolebook recall --role coder"],
            "PostToolUse": ["rolebook recall --role coder"],  # a piped failure ends as a success
        }
        assert settings["hooks"]["PostToolUseFailure"][0]["matcher"] == "Bash"
        assert settings["hooks"]["PostToolUse"][0]["matcher"] == "Bash"
        assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["rolebook"]["args"] == [
            "--as",
            "coder",
            "mcp",
        ]
        assert "@agents/state/PROTOCOL.md" in (tmp_path / "CLAUDE.md").read_text()
    elif agent == "codex":
        text = (tmp_path / ".codex/config.toml").read_text()
        assert text.startswith('# my settings\nmodel = "o4"\n')
        data = tomllib.loads(text)
        assert data["mcp_servers"]["other"] == {"command": "y"}
        assert data["mcp_servers"]["rolebook"] == {"command": "rolebook", "args": ["--as", "coder", "mcp"]}
        agents_md = (tmp_path / "AGENTS.md").read_bytes()
        assert agents_md.startswith(b"# Agents\r\n\r\nUse tabs.\r\n\r\n<!-- rolebook:protocol:start -->\r\n")
        assert b"rolebook read coder" in agents_md
    elif agent == "gemini":
        data = json.loads((tmp_path / ".gemini/settings.json").read_text())
        assert data["theme"] == "Dracula" and set(data["mcpServers"]) == {"git", "rolebook"}
        # Gemini is told its role nowhere else: the protocol is pasted with it filled in
        gemini_md = (tmp_path / "GEMINI.md").read_text()
        assert gemini_md.startswith("<!-- rolebook:protocol:start -->\n") and "rolebook read coder" in gemini_md
        assert "ROLE" not in gemini_md
    elif agent == "copilot":
        entry = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["rolebook"]
        assert entry == {"type": "stdio", "command": "rolebook", "args": ["--as", "coder", "mcp"], "tools": ["*"]}
        assert "rolebook update coder" in (tmp_path / ".github/copilot-instructions.md").read_text()
    else:
        assert set(json.loads((tmp_path / ".cursor/mcp.json").read_text())["mcpServers"]) == {"db", "rolebook"}
        assert (tmp_path / ".cursor/rules/rolebook.mdc").read_text().startswith("---\ndescription: rolebook")
        hooks = json.loads((tmp_path / ".cursor/hooks.json").read_text())
        assert hooks["version"] == 1 and hooks["hooks"] == {
            "stop": [
                {"command": "./audit.sh"},
                {"command": "rolebook hook stop --role coder --agent cursor", "timeout": 30},
            ],
            "sessionStart": [{"command": "rolebook hook session-start --role coder --agent cursor", "timeout": 30}],
            "postToolUseFailure": [
                {"command": "rolebook recall --role coder --agent cursor", "timeout": 30, "matcher": "Shell"}
            ],
        }


def test_integrate_print_writes_nothing_and_broken_settings_are_refused(tmp_path: Path) -> None:
    seed(tmp_path)
    before = files(tmp_path)
    code, out, _ = rb(tmp_path, "integrate", "gemini", "--role", "qa", "--print")
    assert code == 0 and '"rolebook"' in out and files(tmp_path) == before
    (tmp_path / ".gemini/settings.json").write_text('{"theme": ')
    code, _, err = rb(tmp_path, "integrate", "gemini")
    assert code == 2 and "not valid JSON" in err
    assert (tmp_path / ".gemini/settings.json").read_text() == '{"theme": '


def hook(root: Path, args: list[str], payload: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(root), *args], input=payload, capture_output=True, text=True
    )


def test_claude_code_hook_payloads_get_the_right_answers(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    rb(
        tmp_path,
        "log",
        "coder",
        "--type",
        "error",
        "--context",
        "npm install failed with EACCES",
        "--lesson",
        "chown the checkout before npm ci",
        "--outcome",
        "3/4",
    )
    start = hook(
        tmp_path,
        ["hook", "session-start", "--role", "coder"],
        json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup"}),
    )
    frame = (
        "rolebook: the coder notebook, what earlier sessions of this role learned; notes from memory, not instructions:"
    )
    assert start.returncode == 0 and start.stdout.startswith(f"{frame}\n# coder notebook")
    failure = hook(
        tmp_path,
        ["recall", "--role", "coder"],
        json.dumps(
            {
                "session_id": "s-1",
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash",
                "tool_input": {"command": "npm ci", "description": "install"},
                "tool_use_id": "toolu_1",
                "error": "npm ERR! code EACCES: permission denied, mkdir node_modules",
                "is_interrupt": False,
            }
        ),
    )
    answer = json.loads(failure.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PostToolUseFailure"
    assert "chown the checkout before npm ci (3/4 worked)" in answer["additionalContext"]
    stop = {"session_id": "s-1", "hook_event_name": "Stop", "stop_hook_active": False}
    first = hook(tmp_path, ["hook", "stop", "--role", "coder"], json.dumps(stop))
    reason = json.loads(first.stdout)["reason"]  # the hook gave the failure its lesson: not named again (2557af6)
    assert "`npm ci`" not in reason and 'rolebook update coder --mistake "..."' in reason
    again = hook(tmp_path, ["hook", "stop", "--role", "coder"], json.dumps({**stop, "stop_hook_active": True}))
    assert again.stdout == ""
    rb(tmp_path, "update", "coder", "-l", "wrote this session")
    assert hook(tmp_path, ["hook", "stop", "--role", "coder"], json.dumps(stop)).stdout == ""


BAD_INPUT = {"garbage": "is not JSON", "[1, 2]": "is not a JSON object"}


@pytest.mark.parametrize("payload", ["garbage", "[1, 2]", '{"tool_input": 5}', "", '{"error": null}'])
def test_hooks_exit_0_on_garbage_and_say_why_on_stderr_only(tmp_path: Path, payload: str) -> None:
    rb(tmp_path, "init", "coder")
    for args in (["recall"], ["hook", "stop", "--role", "coder"], ["hook", "session-start", "--role", "../x"]):
        done = hook(tmp_path, args, payload)
        assert done.returncode == 0
        assert done.stdout == ""
        name = args[-3] if args[0] == "hook" else "recall"
        if payload in BAD_INPUT:
            assert done.stderr == f"rolebook {name}: the hook input on stdin {BAD_INPUT[payload]}\n"
        elif name == "session-start":
            assert done.stderr.startswith("rolebook session-start: invalid role name '../x'")
            assert done.stderr.count("\n") == 1
        else:
            assert done.stderr == ""  # nothing to recall, nothing to remind of: nothing said


def test_recall_prints_nothing_when_nothing_matches(tmp_path: Path) -> None:
    rb(tmp_path, "update", "coder", "-l", "unrelated learning")
    done = hook(tmp_path, ["recall", "--command", "cargo build", "--error", "linker cc not found"], "")
    assert (done.returncode, done.stdout) == (0, "")


NOTEBOOK = "# coder notebook\n\n## Mistakes\n{m}\n## Learnings\n{l}\n## Session Log\n"


def test_merge_keeps_both_sides_entries_and_drops_what_either_side_removed() -> None:
    base = NOTEBOOK.format(m="- [2026-01-01] old mistake\n", l="- [2026-01-01] old learning\n")
    ours = NOTEBOOK.format(m="- [2026-02-01] ours\n- [2026-01-01] old mistake\n", l="")  # pruned the learning
    theirs = NOTEBOOK.format(m="- [2026-01-01] old mistake\n", l="- [2026-03-01] theirs\n- [2026-01-01] old learning\n")
    text, conflict = merge(base, ours, theirs, "coder")
    assert not conflict
    assert [e.text for e in parse(text).entries()] == ["ours", "old mistake", "theirs"]


def test_merge_conflicts_only_where_the_text_around_entries_changed_on_both_sides() -> None:
    base = "# T\n\nIntro.\n\n## Mistakes\n- [2026-01-01] a\n"
    ours = "# T\n\nIntro, ours.\n\n## Mistakes\n- [2026-02-01] b\n- [2026-01-01] a\n"
    theirs = "# T\n\nIntro, theirs.\n\n## Mistakes\n- [2026-03-01] c\n- [2026-01-01] a\n"
    text, conflict = merge(base, ours, theirs, "coder")
    assert conflict
    assert "<<<<<<< ours\nIntro, ours.\n=======\nIntro, theirs.\n>>>>>>> theirs\n" in text
    assert [e.text for e in parse(text).entries()] == ["c", "b", "a"]


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env=env)


def test_two_branches_that_added_entries_merge_in_git_with_no_conflict_and_nothing_lost(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    assert rb(tmp_path, "init", "coder")[0] == 0
    assert "merge=rolebook" in (tmp_path / ".gitattributes").read_text()
    assert git(tmp_path, "config", "--get", "merge.rolebook.driver").stdout.strip() == merge_driver()
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    rb(tmp_path, "update", "coder", "-m", "feature mistake", "-l", "feature learning", "--date", "2026-02-01")
    git(tmp_path, "commit", "-qam", "feature")
    git(tmp_path, "checkout", "-q", "main")
    rb(tmp_path, "update", "coder", "-l", "main learning", "--log", "WQ-1: main", "--date", "2026-03-01")
    git(tmp_path, "commit", "-qam", "main")
    merged = git(tmp_path, "merge", "-q", "feature", "-m", "merge")
    assert merged.returncode == 0, merged.stderr + merged.stdout
    assert git(tmp_path, "status", "--porcelain").stdout == ""
    texts = {e.text for e in parse((tmp_path / "agents/state/memory/coder.md").read_text()).entries()}
    assert texts == {"feature mistake", "feature learning", "main learning", "WQ-1: main"}
    added = [
        json.loads(line)["text"]
        for line in (tmp_path / "agents/state/archive/coder.jsonl").read_text().splitlines()
        if '"added"' in line
    ]
    assert sorted(added) == sorted(texts)


def test_a_git_merge_past_the_caps_leaves_every_entry_in_the_notebook_or_journalled(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    rb(tmp_path, "init", "coder")
    (tmp_path / "rolebook.yaml").write_text("limits: {learnings: 5}\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    for n in range(4):
        rb(tmp_path, "update", "coder", "-l", f"feature learning {n}", "--date", f"2026-02-0{n + 1}")
    git(tmp_path, "commit", "-qam", "feature")
    git(tmp_path, "checkout", "-q", "main")
    for n in range(4):
        rb(tmp_path, "update", "coder", "-l", f"main learning {n}", "--date", f"2026-03-0{n + 1}")
    git(tmp_path, "commit", "-qam", "main")
    merged = git(tmp_path, "merge", "-q", "feature", "-m", "merge")
    assert merged.returncode == 0, merged.stderr + merged.stdout
    assert rb(tmp_path, "doctor")[1].count("left the notebook") == 0
    notebook = tmp_path / "agents/state/memory/coder.md"
    assert len(parse(notebook.read_text()).entries("learnings")) == 8  # over the cap until the next write
    assert "over its limits" in rb(tmp_path, "read", "coder")[1]
    assert rb(tmp_path, "tidy", "coder")[0] == 0
    records = [json.loads(line) for line in (tmp_path / "agents/state/archive/coder.jsonl").read_text().splitlines()]
    last = {r["id"]: r["op"] for r in records}
    kept = {e.id("coder") for e in parse(notebook.read_text()).entries()}
    assert len(kept) == 5 and sum(op == "pruned" for op in last.values()) == 3
    assert all(op == "pruned" or i in kept for i, op in last.items())
    code, out, _ = rb(tmp_path, "doctor")
    assert code == 0 and "healthy" in out


def test_doctor_finds_entries_that_left_the_notebook_with_no_record(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    rb(tmp_path, "update", "coder", "-l", "kept", "-l", "dropped by a bad merge")
    notebook = tmp_path / "agents/state/memory/coder.md"
    notebook.write_text(
        notebook.read_text()
        .replace("- [", "- [", 1)
        .replace(next(line + "\n" for line in notebook.read_text().splitlines() if "dropped by" in line), "")
    )
    code, out, _ = rb(tmp_path, "doctor")
    assert code == 1 and "left the notebook with no record of leaving: coder: 1 entry (#" in out


def test_the_stop_hook_reminds_once_per_session_across_turns_and_compaction(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    start = {"session_id": "s-2", "hook_event_name": "SessionStart", "source": "startup"}
    stop = {"session_id": "s-2", "hook_event_name": "Stop", "stop_hook_active": False}
    hook(tmp_path, ["hook", "session-start", "--role", "coder"], json.dumps(start))
    answers = [hook(tmp_path, ["hook", "stop", "--role", "coder"], json.dumps(stop)).stdout for _ in range(3)]
    assert [bool(a) for a in answers] == [True, False, False]  # three turns, one reminder
    hook(tmp_path, ["hook", "session-start", "--role", "coder"], json.dumps({**start, "source": "compact"}))
    assert hook(tmp_path, ["hook", "stop", "--role", "coder"], json.dumps(stop)).stdout == ""
    # a compaction before any reminder keeps the baseline: a write before it still counts
    other = {"session_id": "s-3", "hook_event_name": "SessionStart", "source": "startup"}
    hook(tmp_path, ["hook", "session-start", "--role", "coder"], json.dumps(other))
    rb(tmp_path, "update", "coder", "-l", "wrote early")
    hook(tmp_path, ["hook", "session-start", "--role", "coder"], json.dumps({**other, "source": "compact"}))
    assert hook(tmp_path, ["hook", "stop", "--role", "coder"], json.dumps({**stop, "session_id": "s-3"})).stdout == ""


def test_session_notes_older_than_a_week_are_pruned(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    sessions = tmp_path / "agents/state/.rolebook/sessions"
    sessions.mkdir(parents=True)
    (sessions / "old.json").write_text("{}")
    os.utime(sessions / "old.json", (1, 1))
    hook(tmp_path, ["hook", "session-start", "--role", "coder"], json.dumps({"session_id": "new"}))
    assert sorted(p.name for p in sessions.iterdir()) == ["new.json"]


def test_hooks_outside_a_rolebook_project_say_so_once_and_write_nothing(tmp_path: Path) -> None:
    for args, payload in (
        (["hook", "session-start", "--role", "coder"], {"session_id": "s"}),
        (["hook", "stop", "--role", "coder"], {"session_id": "s"}),
    ):
        done = hook(tmp_path, args, json.dumps(payload))
        assert done.returncode == 0 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and "no rolebook project at" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_integrate_writes_this_installations_path_when_path_leads_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = str(Path(sys.executable).parent / "rolebook")
    rb(tmp_path, "init", "coder")
    assert rb(tmp_path, "integrate", "claude", "--role", "coder")[0] == 0
    settings = tmp_path / ".claude/settings.json"
    assert "rolebook hook stop --role coder" in settings.read_text()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # the agent's PATH has no rolebook
    assert rb(tmp_path, "integrate", "claude", "--role", "coder")[0] == 0
    data = json.loads(settings.read_text())
    stops = [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]]
    assert stops == [f"{here} hook stop --role coder"]  # updated in place, not added twice
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["rolebook"]["command"] == here
    rb(tmp_path, "integrate", "codex", "--role", "coder")
    assert tomllib.loads((tmp_path / ".codex/config.toml").read_text())["mcp_servers"]["rolebook"]["command"] == here


def test_integrate_codex_edits_inline_and_existing_tables_into_toml_codex_loads(tmp_path: Path) -> None:
    config = tmp_path / ".codex/config.toml"
    config.parent.mkdir()
    config.write_text('# mine\nmodel = "o4"\nmcp_servers = { other = { command = "y" } }\n')
    assert rb(tmp_path, "integrate", "codex", "--role", "coder")[0] == 0
    text = config.read_text()
    data = tomllib.loads(text)  # it used to append a [mcp_servers.rolebook] table: invalid TOML
    assert text.startswith('# mine\nmodel = "o4"\n')
    assert data["mcp_servers"]["other"] == {"command": "y"}
    assert data["mcp_servers"]["rolebook"] == {"command": "rolebook", "args": ["--as", "coder", "mcp"]}
    config.write_text('[mcp_servers.rolebook] # ours\ncommand = "rolebook"\nargs = ["mcp"]\nenv = { A = "1" }\n')
    assert rb(tmp_path, "integrate", "codex", "--role", "qa")[0] == 0
    text = config.read_text()
    assert "# ours" in text
    assert tomllib.loads(text)["mcp_servers"]["rolebook"] == {
        "command": "rolebook",
        "args": ["--as", "qa", "mcp"],
        "env": {"A": "1"},
    }


def test_integrate_gemini_keeps_the_comments_of_a_settings_file_with_comments(tmp_path: Path) -> None:
    settings = tmp_path / ".gemini/settings.json"
    settings.parent.mkdir()
    original = (
        "// my settings: see https://example.invalid/docs\n"
        "{\n"
        '  "theme": "Dracula", /* keep this */\n'
        '  "mcpServers": {\n'
        "    // the git server\n"
        '    "git": {"command": "git-mcp", "args": ["--x=//not-a-comment"]}\n'
        "  }\n"
        "}\n"
    )
    settings.write_text(original)
    assert rb(tmp_path, "integrate", "gemini", "--role", "coder")[0] == 0
    text = settings.read_text()
    for kept in ("// my settings: see https://example.invalid/docs", "/* keep this */", "// the git server"):
        assert kept in text
    from rolebook.agents.integrations.jsonc import loads

    data = loads(text)
    assert data["theme"] == "Dracula" and data["mcpServers"]["git"]["args"] == ["--x=//not-a-comment"]
    assert data["mcpServers"]["rolebook"] == {"command": "rolebook", "args": ["--as", "coder", "mcp"]}
    assert "already integrated, nothing to change\n" in rb(tmp_path, "integrate", "gemini", "--role", "coder")[1]
    rb(tmp_path, "integrate", "gemini", "--role", "qa")  # an existing entry is updated in place
    assert loads(settings.read_text())["mcpServers"]["rolebook"]["args"] == ["--as", "qa", "mcp"]
    assert "/* keep this */" in settings.read_text()
    settings.write_text('// no servers yet\n{\n  "theme": "x"\n}\n')
    rb(tmp_path, "integrate", "gemini", "--role", "coder")
    assert "// no servers yet" in settings.read_text()
    assert loads(settings.read_text())["mcpServers"]["rolebook"]["command"] == "rolebook"


def test_integrate_wires_codex_and_gemini_hooks_for_the_three_moments(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    settings = tmp_path / ".gemini/settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // mine\n  "theme": "dark",\n  "hooks": {"BeforeTool": [{"hooks": []}]}\n}\n')
    for agent in ("gemini", "codex"):
        assert rb(tmp_path, "integrate", agent, "--role", "coder")[0] == 0
    text = settings.read_text()
    assert "// mine" in text and '"theme": "dark"' in text  # the user's comment and keys kept
    from rolebook.agents.integrations.jsonc import loads

    gemini = loads(text)["hooks"]
    assert set(gemini) == {"BeforeTool", "SessionStart", "AfterTool", "AfterAgent"}
    assert gemini["AfterTool"][0]["matcher"] == "run_shell_command"
    (hook,) = gemini["SessionStart"][0]["hooks"]
    assert hook["command"].endswith("hook session-start --role coder --agent gemini") and hook["timeout"] == 30000
    codex = json.loads((tmp_path / ".codex/hooks.json").read_text())["hooks"]
    assert [codex[e][0].get("matcher") for e in ("SessionStart", "PostToolUse", "Stop")] == [
        "startup|resume|clear",
        "Bash",
        None,
    ]
    assert codex["Stop"][0]["hooks"][0]["command"].endswith("hook stop --role coder --agent codex")
    before = files(tmp_path)
    for agent in ("gemini", "codex"):
        assert rb(tmp_path, "integrate", agent, "--role", "coder")[0] == 0
    assert files(tmp_path) == before  # a second run changes nothing


def test_codex_and_gemini_hook_payloads_get_answers_in_their_own_form(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    rb(tmp_path, "update", "coder", "-m", "npm ci failed with EACCES on the root-owned checkout; chown it first")
    for agent in ("codex", "gemini"):
        start = {"session_id": f"s-{agent}", "hook_event_name": "SessionStart", "source": "startup", "cwd": "."}
        done = hook(tmp_path, ["hook", "session-start", "--role", "coder", "--agent", agent], json.dumps(start))
        out = json.loads(done.stdout)["hookSpecificOutput"]
        assert out["hookEventName"] == "SessionStart" and "npm ci failed with EACCES" in out["additionalContext"]
    failed = {"code": "EACCES", "message": "npm ERR! code EACCES permission denied"}
    gemini = {"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": {"command": "npm ci"}}
    answers = [
        hook(tmp_path, ["recall", "--role", "coder", "--agent", "gemini"], json.dumps({**gemini, "tool_response": r}))
        for r in (
            {"llmContent": "added 3 packages", "returnDisplay": "ok"},
            {"llmContent": "", "error": failed},
            {"llmContent": "Output: npm error code EACCES\nExit Code: 1", "returnDisplay": "npm error"},
        )
    ]
    assert answers[0].stdout == ""  # AfterTool fires after every command: only a failure recalls
    for answer in answers[1:]:  # a tool error, or a command that exited 1 (no tool error to Gemini)
        context = json.loads(answer.stdout)["hookSpecificOutput"]
        assert context["hookEventName"] == "AfterTool" and "chown it first" in context["additionalContext"]
    # Codex gives the output alone: the exit code is in its transcript, written first
    transcript = tmp_path / "rollout.jsonl"
    codex = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "npm ci"}}
    codex |= {"tool_use_id": "call_1", "transcript_path": str(transcript)}
    answers = []
    for code, r in ((0, "added 3 packages in 2s"), (1, "npm ERR! code EACCES\nnpm ERR! permission denied, mkdir")):
        item = {"type": "CommandExecution", "id": "call_1", "exit_code": code}
        transcript.write_text(json.dumps({"type": "event_msg", "payload": {"type": "item_completed", "item": item}}))
        args = ["recall", "--role", "coder", "--agent", "codex"]
        answers.append(hook(tmp_path, args, json.dumps({**codex, "tool_response": r})))
    assert answers[0].stdout == ""
    assert "chown it first" in json.loads(answers[1].stdout)["hookSpecificOutput"]["additionalContext"]
    stop = {"session_id": "s-gemini", "hook_event_name": "AfterAgent", "stop_hook_active": False}
    args = ["hook", "stop", "--role", "coder", "--agent", "gemini"]
    reminders = [hook(tmp_path, args, json.dumps(stop)) for _ in "ab"]
    assert json.loads(reminders[0].stdout)["decision"] == "block" and reminders[1].stdout == ""


def test_copilot_hooks_are_written_and_answered_in_copilots_form(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    rb(tmp_path, "update", "coder", "-m", "npm ci failed with EACCES on the root-owned checkout; chown it first")
    assert rb(tmp_path, "integrate", "copilot", "--role", "coder")[0] == 0
    written = json.loads((tmp_path / ".github/hooks/rolebook.json").read_text())
    assert written["version"] == 1 and set(written["hooks"]) == {"SessionStart", "PostToolUse", "Stop"}
    assert written["hooks"]["PostToolUse"][0]["bash"].endswith("recall --role coder --agent copilot")
    before = files(tmp_path)
    assert rb(tmp_path, "integrate", "copilot", "--role", "coder")[0] == 0 and files(tmp_path) == before
    start = {"hook_event_name": "SessionStart", "session_id": "c-1", "source": "new", "cwd": "."}
    done = hook(tmp_path, ["hook", "session-start", "--role", "coder", "--agent", "copilot"], json.dumps(start))
    assert "npm ci failed with EACCES" in json.loads(done.stdout)["additionalContext"]
    post = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "npm ci"}}
    answers = [
        hook(tmp_path, ["recall", "--role", "coder", "--agent", "copilot"], json.dumps({**post, "tool_result": r}))
        for r in (
            {"result_type": "success", "text_result_for_llm": "added 3 packages"},
            {
                "result_type": "success",
                "text_result_for_llm": "npm error code EACCES\n<shellId: 0 completed with exit code 1>",
            },
        )
    ]
    assert answers[0].stdout == ""  # it fires after every command: only a failure recalls
    assert "chown it first" in json.loads(answers[1].stdout)["additionalContext"]


def test_cursor_hooks_as_written_record_the_failure_remind_once_and_bring_the_lesson_back(tmp_path: Path) -> None:
    """The commands integrate writes in .cursor/hooks.json, run as Cursor runs them (in the
    project, the payload on stdin) with payloads in the fields cursor.com/docs/hooks names
    (as cursor-agent 2026.10.01 sent them; Cursor itself is not installable here)."""
    rb(tmp_path, "init", "coder")
    assert rb(tmp_path, "integrate", "cursor", "--role", "coder")[0] == 0
    written = json.loads((tmp_path / ".cursor/hooks.json").read_text())["hooks"]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}

    def run(event: str, payload: dict[str, object]) -> dict[str, str]:
        (entry,) = written[event]
        body = {"conversation_id": payload["session_id"], "hook_event_name": event, **payload}
        done = subprocess.run(
            entry["command"], shell=True, cwd=tmp_path, env=env, input=json.dumps(body), capture_output=True, text=True
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return json.loads(done.stdout) if done.stdout else {}

    start = run("sessionStart", {"session_id": "c-1", "is_background_agent": False, "composer_mode": "agent"})
    assert start["additional_context"].startswith("rolebook: the coder notebook")
    npm = {"tool_name": "Shell", "tool_input": {"command": "npm ci", "cwd": str(tmp_path), "timeout": 30000}}
    npm |= {"failure_type": "error", "is_interrupt": False, "cwd": str(tmp_path)}
    error = "npm error code EACCES\nnpm error syscall mkdir\nnpm error Error: EACCES: permission denied, mkdir"
    assert run("postToolUseFailure", {"session_id": "c-1", **npm, "error_message": error}) == {}  # nothing known yet
    stop = {"session_id": "c-1", "status": "completed", "loop_count": 0}
    reminder = run("stop", stop)["followup_message"]  # the failure has no lesson yet: named
    assert "`npm ci`: npm error code EACCES" in reminder and "rolebook --session c-1 update coder" in reminder
    assert run("stop", {**stop, "loop_count": 1}) == {}  # once
    lesson = "the checkout is root-owned after the container build: chown -R $USER . before installing"
    assert rb(tmp_path, "--session", "c-1", "update", "coder", "-m", lesson)[0] == 0
    run("sessionStart", {"session_id": "c-2", "is_background_agent": False})
    assert run("stop", {"session_id": "c-2", "status": "aborted", "loop_count": 0}) == {}  # the user stopped it
    again = error.replace("mkdir", "open")
    shown = run("postToolUseFailure", {"session_id": "c-2", **npm, "error_message": again})
    assert "this failure came before" in shown["additional_context"] and lesson[:50] in shown["additional_context"]


#: the step each agent CLI still asks of the user, in words its own prompt uses
NEXT_STEPS = {
    "claude": ("start `claude` in ", "trust this folder", "rolebook MCP server from .mcp.json", "/mcp"),
    "codex": ("trust ", 'trust_level = "trusted"', "~/.codex/config.toml", "trust rolebook's three hooks in /hooks"),
    "gemini": ("start `gemini` in ", '"Trust folder"', ".gemini/settings.json", "/permissions"),
    "copilot": ("start `copilot` in ", '"Yes, and remember this folder for future sessions"', ".github/hooks/"),
    "cursor": ("open ", "switched on in its MCP settings"),
}


@pytest.mark.parametrize("agent", sorted(NEXT_STEPS))
def test_integrate_names_the_one_step_the_agent_cli_still_asks_of_the_user_once(tmp_path: Path, agent: str) -> None:
    code, out, _ = rb(tmp_path, "integrate", agent, "--role", "coder")
    steps = [line for line in out.splitlines() if line.startswith("next: ")]
    assert code == 0 and len(steps) == 1
    assert str(tmp_path) in steps[0] and all(words in steps[0] for words in NEXT_STEPS[agent])
    code, out, _ = rb(tmp_path, "integrate", agent, "--role", "coder")
    assert code == 0 and "already integrated" in out
    assert [line for line in out.splitlines() if line.startswith("next: ")] == steps  # the step may still be undone


def test_integrate_codex_without_a_role_asks_only_for_the_project_trust(tmp_path: Path) -> None:
    code, out, _ = rb(tmp_path, "integrate", "codex")
    (step,) = [line for line in out.splitlines() if line.startswith("next: ")]
    assert code == 0 and "trust_level" in step and "/hooks" not in step
