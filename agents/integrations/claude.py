"""Claude Code: hooks in .claude/settings.json (SessionStart reads the notebook, a failed
shell command recalls past lessons, Stop reminds the agent to write), the MCP server in
.mcp.json, and an @-import of the protocol in CLAUDE.md."""

from __future__ import annotations

from pathlib import Path

from .common import Planned, add_hooks, command, ensure_line, json_edit, mcp_entry, place, set_mcp_server


def hook_commands(role: str | None) -> dict[str, tuple[str | None, str]]:
    import shlex

    flag = f" --role {role}" if role else ""
    run = shlex.quote(command())
    return {
        "SessionStart": (None, f"{run} hook session-start{flag}"),
        "PostToolUseFailure": ("Bash", f"{run} recall{flag}"),
        # a piped command that failed (`npm test | tail`) ends as a success: its output tells
        "PostToolUse": ("Bash", f"{run} recall{flag}"),
        "Stop": (None, f"{run} hook stop{flag}"),
    }


def plan(root: Path, role: str | None) -> list[Planned]:
    if role is None:
        raise_role()
    return [
        json_edit(
            place(root, ".claude/settings.json"),
            "hooks: session start, failed (or piped) Bash command, stop",
            add_hooks(hook_commands(role), timeout=30),
        ),
        json_edit(place(root, ".mcp.json"), "MCP server", set_mcp_server("mcpServers", mcp_entry(role))),
        ensure_line(place(root, "CLAUDE.md"), "@agents/state/PROTOCOL.md", "@-import of the memory protocol"),
    ]


def next_step(root: Path, role: str | None) -> str:
    """What the user still does: Claude Code runs a project's hooks once its folder is
    trusted, and a server from .mcp.json once approved (it asks at the first start)."""
    return (
        f"start `claude` in {root} and accept both prompts: trust this folder (its hooks run then) "
        "and use the rolebook MCP server from .mcp.json (later: approve it in /mcp)"
    )


def raise_role() -> None:
    from rolebook.notebook import InputError

    raise InputError("Claude Code's hooks read one role's notebook: give --role, e.g. --role coder")
