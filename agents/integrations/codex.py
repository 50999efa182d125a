"""Codex CLI: the MCP server as an [mcp_servers.rolebook] table in .codex/config.toml (read
in trusted projects), and the protocol pasted into AGENTS.md (Codex has no @-import)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from rolebook.notebook import InputError

from .common import Planned, command, ensure_block, protocol_for, read


def plan(root: Path, role: str | None) -> list[Planned]:
    path = root / ".codex/config.toml"
    before = read(path)
    try:
        data = tomllib.loads(before or "")
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc}); rolebook will not edit it", path) from None
    args = ["--as", role, "mcp"] if role else ["mcp"]
    if "rolebook" in (data.get("mcp_servers") or {}):
        config = Planned(path, before, before or "", "MCP server")
    else:
        # appended as text, so the user's comments and layout stay as they are
        table = f"[mcp_servers.rolebook]\ncommand = {json.dumps(command())}\nargs = {json.dumps(args)}\n"
        text = before or ""
        sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        config = Planned(path, before, text + sep + table, "MCP server")
    return [config, ensure_block(root / "AGENTS.md", protocol_for(role), "memory protocol")]
