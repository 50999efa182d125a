"""Gemini CLI: in .gemini/settings.json the MCP server under mcpServers and three hooks
(checked against Gemini CLI 0.61.0's settings schema and hooks reference): SessionStart
puts the notebook in context, AfterTool on run_shell_command recalls past lessons when
the command failed, AfterAgent reminds once to write; and the protocol in GEMINI.md,
pasted with the role filled in when integrate is given one (Gemini is told nothing else
of its role), else an @-import of PROTOCOL.md."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from .common import (
    Planned,
    add_hooks,
    command,
    ensure_block,
    ensure_line,
    json_edit,
    mcp_entry,
    place,
    protocol_for,
    set_mcp_server,
)

#: Gemini CLI hook events for the three moments, and what each matches
EVENTS = {"SessionStart": None, "AfterTool": "run_shell_command", "AfterAgent": None}


def hook_commands(role: str) -> dict[str, tuple[str | None, str]]:
    run = f"{shlex.quote(command())}"
    flags = f"--role {role} --agent gemini"
    return {
        "SessionStart": (None, f"{run} hook session-start {flags}"),
        "AfterTool": ("run_shell_command", f"{run} recall {flags}"),
        "AfterAgent": (None, f"{run} hook stop {flags}"),
    }


def next_step(root: Path, role: str | None) -> str:
    """What the user still does: Gemini CLI reads a project's settings (the MCP server,
    the hooks) only in a trusted folder; it asks at the first start there."""
    return (
        f'start `gemini` in {root} and choose "Trust folder": Gemini CLI reads .gemini/settings.json '
        "only in a trusted folder (later: /permissions)"
    )


def plan(root: Path, role: str | None) -> list[Planned]:
    changes = [set_mcp_server("mcpServers", mcp_entry(role))]
    comments = [("mcpServers", "rolebook")]
    what = "MCP server"
    if role:
        changes.append(add_hooks(hook_commands(role), timeout=30000, name="rolebook"))  # milliseconds
        comments += [("hooks", event) for event in EVENTS]
        what = "MCP server; hooks: session start, failed shell command, end of turn"

    def change(data: dict[str, Any]) -> None:
        for one in changes:
            one(data)

    return [
        json_edit(place(root, ".gemini/settings.json"), what, change, comments=tuple(comments)),  # comments kept
        ensure_block(place(root, "GEMINI.md"), protocol_for(role), f"memory protocol for the {role} role")
        if role
        else ensure_line(place(root, "GEMINI.md"), "@agents/state/PROTOCOL.md", "@-import of the memory protocol"),
    ]
