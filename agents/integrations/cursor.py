"""Cursor: the MCP server in .cursor/mcp.json, and the protocol as an always-applied
project rule, .cursor/rules/rolebook.mdc."""

from __future__ import annotations

from pathlib import Path

from .common import Planned, json_edit, mcp_entry, place, protocol_for, read, set_mcp_server


def plan(root: Path, role: str | None) -> list[Planned]:
    rule = place(root, ".cursor/rules/rolebook.mdc")
    before = read(rule)
    text = "---\ndescription: rolebook memory protocol\nalwaysApply: true\n---\n" + protocol_for(role)
    return [
        json_edit(place(root, ".cursor/mcp.json"), "MCP server", set_mcp_server("mcpServers", mcp_entry(role))),
        # a rule rolebook owns: written when missing, never over the user's edits
        Planned(rule, before, before if before is not None else text, "memory protocol rule"),
    ]
