"""Gemini CLI: the MCP server under mcpServers in .gemini/settings.json, and an @-import of
the protocol in GEMINI.md."""

from __future__ import annotations

from pathlib import Path

from .common import Planned, ensure_line, json_edit, mcp_entry, set_mcp_server


def plan(root: Path, role: str | None) -> list[Planned]:
    return [
        json_edit(root / ".gemini/settings.json", "MCP server", set_mcp_server("mcpServers", mcp_entry(role))),
        ensure_line(root / "GEMINI.md", "@agents/state/PROTOCOL.md", "@-import of the memory protocol"),
    ]
