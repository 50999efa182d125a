"""Gemini CLI: the MCP server under mcpServers in .gemini/settings.json, and the protocol
in GEMINI.md: pasted with the role filled in when integrate is given one (Gemini is
told nothing else of its role), else an @-import of PROTOCOL.md."""

from __future__ import annotations

from pathlib import Path

from .common import Planned, ensure_block, ensure_line, json_edit, mcp_entry, protocol_for, set_mcp_server


def plan(root: Path, role: str | None) -> list[Planned]:
    return [
        json_edit(
            root / ".gemini/settings.json",
            "MCP server",
            set_mcp_server("mcpServers", mcp_entry(role)),
            comments=("mcpServers", "rolebook"),  # Gemini reads JSON with comments: kept
        ),
        ensure_block(root / "GEMINI.md", protocol_for(role), f"memory protocol for the {role} role")
        if role
        else ensure_line(root / "GEMINI.md", "@agents/state/PROTOCOL.md", "@-import of the memory protocol"),
    ]
