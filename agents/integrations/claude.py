"""Claude Code: hooks in .claude/settings.json (SessionStart reads the notebook, a failed
shell command recalls past lessons, Stop reminds the agent to write), the MCP server in
.mcp.json, and an @-import of the protocol in CLAUDE.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common import Planned, command, ensure_line, json_edit, mcp_entry, set_mcp_server


def hook_commands(role: str | None) -> dict[str, tuple[str | None, str]]:
    import shlex

    flag = f" --role {role}" if role else ""
    run = shlex.quote(command())
    return {
        "SessionStart": (None, f"{run} hook session-start{flag}"),
        "PostToolUseFailure": ("Bash", f"{run} recall{flag}"),
        "Stop": (None, f"{run} hook stop{flag}"),
    }


def _add_hooks(role: str | None) -> Any:
    def change(data: dict[str, Any]) -> None:
        hooks = data.setdefault("hooks", {})
        for event, (matcher, cmd) in hook_commands(role).items():
            groups = hooks.setdefault(event, [])
            mine = [
                h
                for g in groups
                if isinstance(g, dict)
                for h in g.get("hooks", [])
                if isinstance(h, dict) and _same_hook(h.get("command"), cmd)
            ]
            for h in mine:  # ours already: brought up to this installation's command
                h["command"] = cmd
            if not mine:
                group: dict[str, Any] = {"hooks": [{"type": "command", "command": cmd, "timeout": 30}]}
                if matcher:
                    group = {"matcher": matcher, **group}
                groups.append(group)

    return change


def _same_hook(found: Any, wanted: str) -> bool:
    """Whether a hook command is rolebook's own for the same event and role, whichever
    rolebook executable it names."""
    if not isinstance(found, str):
        return False
    tail = wanted.split(" ", 1)[1]
    head = found[: -len(tail) - 1] if found.endswith(" " + tail) else ""
    return head.rstrip("'\"").endswith("rolebook")


def plan(root: Path, role: str | None) -> list[Planned]:
    if role is None:
        raise_role()
    return [
        json_edit(root / ".claude/settings.json", "hooks: session start, failed Bash command, stop", _add_hooks(role)),
        json_edit(root / ".mcp.json", "MCP server", set_mcp_server("mcpServers", mcp_entry(role))),
        ensure_line(root / "CLAUDE.md", "@agents/state/PROTOCOL.md", "@-import of the memory protocol"),
    ]


def raise_role() -> None:
    from rolebook.notebook import InputError

    raise InputError("Claude Code's hooks read one role's notebook: give --role, e.g. --role coder")
