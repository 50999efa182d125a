"""GitHub Copilot CLI: the MCP server in the repository's .mcp.json (a local stdio server,
all tools); with a role, hooks in .github/hooks/rolebook.json (checked with the real
Copilot CLI 1.0.102: the PascalCase events carry Claude Code's snake_case payloads):
SessionStart puts the notebook in context, PostToolUse recalls past lessons when a
command's output says it failed, Stop reminds once; and the protocol pasted into
.github/copilot-instructions.md. Copilot reads a repository's hooks and MCP servers in a
trusted folder only (it asks; `--trust-folder` for one prompt-mode session)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError

from .common import Planned, command, ensure_block, json_edit, mcp_entry, place, protocol_for, set_mcp_server


def hook_commands(role: str) -> dict[str, str]:
    run = shlex.quote(command())
    flags = f"--role {role} --agent copilot"
    return {
        "SessionStart": f"{run} hook session-start {flags}",
        "PostToolUse": f"{run} recall {flags}",
        "Stop": f"{run} hook stop {flags}",
    }


def _add_hooks(role: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        data.setdefault("version", 1)
        hooks = data.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise InputError("'hooks' is not an object; rolebook will not edit it")
        for event, cmd in hook_commands(role).items():
            entries = hooks.setdefault(event, [])
            if not isinstance(entries, list):
                raise InputError(f"hooks.{event} is not a list; rolebook will not edit it")
            tail = cmd.split(" ", 1)[1]
            mine = [e for e in entries if isinstance(e, dict) and str(e.get("bash", "")).endswith(tail)]
            for e in mine:  # ours already: brought up to this installation's command
                e["bash"] = cmd
            if not mine:
                entries.append({"type": "command", "bash": cmd, "timeoutSec": 30})

    return change


def next_step(root: Path, role: str | None) -> str:
    """What the user still does: Copilot CLI reads a repository's MCP servers and hooks
    only in a folder the user trusts; it asks at the start of each session until told to remember."""
    return (
        f'start `copilot` in {root} and choose "Yes, and remember this folder for future sessions": '
        "Copilot CLI reads .mcp.json and .github/hooks/ only in a trusted folder"
    )


def plan(root: Path, role: str | None) -> list[Planned]:
    entry = mcp_entry(role, type="stdio")
    entry["tools"] = ["*"]
    planned = [json_edit(place(root, ".mcp.json"), "MCP server", set_mcp_server("mcpServers", entry))]
    if role:
        what = "hooks: session start, failed shell command, stop"
        planned.append(json_edit(place(root, ".github/hooks/rolebook.json"), what, _add_hooks(role)))
    return [
        *planned,
        ensure_block(place(root, ".github/copilot-instructions.md"), protocol_for(role), "memory protocol"),
    ]
