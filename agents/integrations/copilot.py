"""GitHub Copilot CLI: the MCP server in the repository's .mcp.json (a local stdio server,
all tools), and the protocol pasted into .github/copilot-instructions.md."""

from __future__ import annotations

from pathlib import Path

from .common import Planned, ensure_block, json_edit, mcp_entry, protocol_for, set_mcp_server


def plan(root: Path, role: str | None) -> list[Planned]:
    entry = mcp_entry(role, type="stdio")
    entry["tools"] = ["*"]
    return [
        json_edit(root / ".mcp.json", "MCP server", set_mcp_server("mcpServers", entry)),
        ensure_block(root / ".github/copilot-instructions.md", protocol_for(role), "memory protocol"),
    ]
