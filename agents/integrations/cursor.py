"""Cursor: the MCP server in .cursor/mcp.json; with a role, three hooks in
.cursor/hooks.json (cursor.com/docs/hooks; payloads checked against those cursor-agent
2026.10.01 sends): sessionStart puts the notebook in context, postToolUseFailure on Shell
recalls past lessons (a failed command reaches it, with its output, and afterShellExecution
too, which says no exit code: hooking both would count one failure twice), stop reminds
once to write (as the next user message); and the protocol as an always-applied project
rule, .cursor/rules/rolebook.mdc. Each answer goes at the top: `additional_context`,
`followup_message` (agents/hooks.py)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError

from .common import Planned, command, json_edit, mcp_entry, place, protocol_for, read, same_hook, set_mcp_server

#: what Cursor waits for a hook, in seconds
TIMEOUT = 30


def hook_commands(role: str) -> dict[str, tuple[str | None, str]]:
    """Cursor's event -> (the tool it matches, rolebook's command)."""
    run = shlex.quote(command())
    flags = f"--role {role} --agent cursor"
    return {
        "sessionStart": (None, f"{run} hook session-start {flags}"),
        "postToolUseFailure": ("Shell", f"{run} recall {flags}"),
        "stop": (None, f"{run} hook stop {flags}"),
    }


def _add_hooks(role: str) -> Any:
    """Merge rolebook's hooks into Cursor's flat shape, hooks.<event>[] = {command, ...}:
    one of rolebook's own for the same event and role is brought up to this command, never
    added twice; every other hook is kept."""

    def change(data: dict[str, Any]) -> None:
        data.setdefault("version", 1)
        hooks = data.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise InputError("'hooks' is not an object; rolebook will not edit it")
        for event, (matcher, cmd) in hook_commands(role).items():
            entries = hooks.setdefault(event, [])
            if not isinstance(entries, list):
                raise InputError(f"hooks.{event} is not a list; rolebook will not edit it")
            mine = [e for e in entries if isinstance(e, dict) and same_hook(e.get("command"), cmd)]
            for e in mine:  # ours already: brought up to this installation's command
                e["command"] = cmd
            if not mine:
                entry: dict[str, Any] = {"command": cmd, "timeout": TIMEOUT}
                entries.append({**entry, "matcher": matcher} if matcher else entry)

    return change


def next_step(root: Path, role: str | None) -> str:
    """What the user still does: switch the project's server on where Cursor lists MCP servers."""
    return f"open {root} in Cursor and check that the rolebook server is switched on in its MCP settings"


def plan(root: Path, role: str | None) -> list[Planned]:
    rule = place(root, ".cursor/rules/rolebook.mdc")
    before = read(rule)
    text = "---\ndescription: rolebook memory protocol\nalwaysApply: true\n---\n" + protocol_for(role)
    planned = [json_edit(place(root, ".cursor/mcp.json"), "MCP server", set_mcp_server("mcpServers", mcp_entry(role)))]
    if role:
        what = "hooks: session start, failed shell command, stop"
        planned.append(json_edit(place(root, ".cursor/hooks.json"), what, _add_hooks(role)))
    # a rule rolebook owns: written when missing, never over the user's edits
    return [*planned, Planned(rule, before, before if before is not None else text, "memory protocol rule")]
