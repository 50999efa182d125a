"""What `init ROLE --agent X` and a repeated `integrate X` print, byte for byte, per agent
CLI: each file written, then the one step the user must still take in that CLI (`next:`),
on every run (a second run changes nothing, but the step may still be undone), and the
same step in `--json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from typer.testing import CliRunner

INIT = """rolebook root: ROOT
created rolebook.yaml
created agents/state/memory/coder.md
created agents/state/archive/coder.jsonl
created agents/state/PROTOCOL.md
created .gitattributes
created .gitignore
"""

#: per agent CLI: the files `integrate` writes, and the step it still asks of the user
GOLDEN = {
    "claude": (
        "created .claude/settings.json: hooks: session start, failed (or piped) Bash command, stop\n"
        "created .mcp.json: MCP server\n"
        "created CLAUDE.md: @-import of the memory protocol\n",
        "start `claude` in ROOT and accept both prompts: trust this folder (its hooks run then) and use the "
        "rolebook MCP server from .mcp.json (later: approve it in /mcp)",
    ),
    "codex": (
        "created .codex/config.toml: MCP server\n"
        "created .codex/hooks.json: hooks: session start, failed Bash command, stop\n"
        "created AGENTS.md: memory protocol\n",
        'trust ROOT when `codex` asks at its first start there (or set trust_level = "trusted" for it under '
        "[projects] in ~/.codex/config.toml): Codex reads .codex/ only in a trusted project; then trust "
        "rolebook's three hooks in /hooks",
    ),
    "gemini": (
        "created .gemini/settings.json: MCP server; hooks: session start, failed shell command, end of turn\n"
        "created GEMINI.md: memory protocol for the coder role\n",
        'start `gemini` in ROOT and choose "Trust folder": Gemini CLI reads .gemini/settings.json only in a '
        "trusted folder (later: /permissions)",
    ),
    "copilot": (
        "created .mcp.json: MCP server\n"
        "created .github/hooks/rolebook.json: hooks: session start, failed shell command, stop\n"
        "created .github/copilot-instructions.md: memory protocol\n",
        'start `copilot` in ROOT and choose "Yes, and remember this folder for future sessions": Copilot CLI '
        "reads .mcp.json and .github/hooks/ only in a trusted folder",
    ),
    "cursor": (
        "created .cursor/mcp.json: MCP server\n"
        "created .cursor/hooks.json: hooks: session start, failed shell command, stop\n"
        "created .cursor/rules/rolebook.mdc: memory protocol rule\n",
        "open ROOT in Cursor and check that the rolebook server is switched on in its MCP settings",
    ),
}


def run(root: Path, *args: str) -> str:
    result = CliRunner().invoke(app, ["--root", str(root), *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout.replace(str(root), "ROOT")


@pytest.mark.parametrize("agent", sorted(GOLDEN))
def test_init_with_an_agent_then_integrate_again_print_the_files_and_the_next_step(tmp_path: Path, agent: str) -> None:
    files, step = GOLDEN[agent]
    assert run(tmp_path, "init", "coder", "--agent", agent) == INIT + files + f"next: {step}\n"
    again = f"rolebook root: ROOT\n{agent}: already integrated, nothing to change\nnext: {step}\n"
    assert run(tmp_path, "integrate", agent, "--role", "coder") == again
    assert run(tmp_path, "init", "coder", "--agent", agent) == again


@pytest.mark.parametrize("agent", sorted(GOLDEN))
def test_json_carries_the_next_step_and_each_file(tmp_path: Path, agent: str) -> None:
    files, step = GOLDEN[agent]
    first = json.loads(run(tmp_path, "init", "coder", "--agent", agent, "--json"))
    assert first["next"] == step
    assert first["integrated"] == [line.split(" ", 1)[1].split(":", 1)[0] for line in files.splitlines()]
    again = json.loads(run(tmp_path, "integrate", agent, "--role", "coder", "--json"))
    assert again["next"] == step and again["agent"] == agent
    assert [f["path"] for f in again["files"]] == first["integrated"]
    assert not any(f["changed"] for f in again["files"])
    for f in again["files"]:  # the text each file holds now
        assert (tmp_path / f["path"]).read_text(encoding="utf-8") == f["text"]
