"""Codex CLI: the MCP server as an [mcp_servers.rolebook] table in .codex/config.toml (read
in trusted projects), and the protocol pasted into AGENTS.md (Codex has no @-import)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from rolebook.notebook import InputError
from tomlkit.items import InlineTable

from .common import Planned, command, ensure_block, protocol_for, read


def plan(root: Path, role: str | None) -> list[Planned]:
    path = root / ".codex/config.toml"
    before = read(path)
    return [
        Planned(path, before, _with_server(path, before or "", role), "MCP server"),
        ensure_block(root / "AGENTS.md", protocol_for(role), "memory protocol"),
    ]


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
