"""Codex CLI: the MCP server as an [mcp_servers.rolebook] table in .codex/config.toml (read
in trusted projects); three hooks in .codex/hooks.json (checked against Codex 0.169.0's
hook schemas; Codex asks the user to trust them before they run): SessionStart puts the
notebook in context, PostToolUse on Bash recalls past lessons when the output says it
failed, Stop reminds once to write; and the protocol pasted into AGENTS.md (Codex has no
@-import)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from rolebook.notebook import InputError
from tomlkit.items import InlineTable

from .common import Planned, add_hooks, command, ensure_block, json_edit, place, protocol_for, read


def hook_commands(role: str) -> dict[str, tuple[str | None, str]]:
    import shlex

    run = shlex.quote(command())
    flags = f"--role {role} --agent codex"
    return {
        "SessionStart": ("startup|resume|clear", f"{run} hook session-start {flags}"),
        "PostToolUse": ("Bash", f"{run} recall {flags}"),
        "Stop": (None, f"{run} hook stop {flags}"),
    }


def plan(root: Path, role: str | None) -> list[Planned]:
    path = place(root, ".codex/config.toml")
    before = read(path)
    planned = [Planned(path, before, _with_server(path, before or "", role), "MCP server")]
    if role:
        hooks = add_hooks(hook_commands(role), timeout=30)  # seconds
        planned.append(
            json_edit(place(root, ".codex/hooks.json"), "hooks: session start, failed Bash command, stop", hooks)
        )
    return [*planned, ensure_block(place(root, "AGENTS.md"), protocol_for(role), "memory protocol")]


def next_step(root: Path, role: str | None) -> str:
    """What the user still does: Codex reads .codex/ only in a trusted project, and runs
    a hook only once the user trusted it (`/hooks`)."""
    step = (
        f'trust {root} when `codex` asks at its first start there (or set trust_level = "trusted" '
        "for it under [projects] in ~/.codex/config.toml): Codex reads .codex/ only in a trusted project"
    )
    return step + ("; then trust rolebook's three hooks in /hooks" if role else "")


def _with_server(path: Path, text: str, role: str | None) -> str:
    """The config with rolebook's MCP server set, every other byte as it was (tomlkit edits
    in place: comments, order, inline or standard tables), parsed back by tomllib, the
    parser Codex's own rules follow, before it may be written.

    Raises:
        InputError: the file, or what the edit would make of it, is not valid TOML.
    """
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        tomllib.loads(text)
        doc = tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, TOMLKitError) as exc:
        raise InputError(f"not valid TOML ({exc}); rolebook will not edit it", path) from None
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = doc["mcp_servers"] = tomlkit.table(is_super_table=True)
    if not isinstance(servers, dict):
        raise InputError("mcp_servers is not a table; rolebook will not edit it", path)
    entry = {"command": command(), "args": ["--as", role, "mcp"] if role else ["mcp"]}
    current = servers.get("rolebook")
    if isinstance(current, dict):
        for key, value in entry.items():  # updated in place, its other keys (env, ...) kept
            current[key] = value
    else:
        table = tomlkit.inline_table() if isinstance(servers, InlineTable) else tomlkit.table()
        table.update(entry)
        servers["rolebook"] = table
    after = tomlkit.dumps(doc)
    try:
        tomllib.loads(after)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - a tomlkit bug; never written
        raise InputError(f"the edit would not be valid TOML ({exc}); nothing was written", path) from None
    return after
