"""Cursor: the MCP server in .cursor/mcp.json, and the protocol as an always-applied
project rule, .cursor/rules/rolebook.mdc."""

from __future__ import annotations

from pathlib import Path

from .common import Planned, json_edit, mcp_entry, place, protocol_for, read, set_mcp_server


def next_step(root: Path, role: str | None) -> str:
    """What the user still does: switch the project's server on where Cursor lists MCP servers."""
    return f"open {root} in Cursor and check that the rolebook server is switched on in its MCP settings"


def plan(root: Path, role: str | None) -> list[Planned]:
    rule = place(root, ".cursor/rules/rolebook.mdc")
    before = read(rule)
    text = "---\ndescription: rolebook memory protocol\nalwaysApply: true\n---\n" + protocol_for(role)
    return [
        json_edit(place(root, ".cursor/mcp.json"), "MCP server", set_mcp_server("mcpServers", mcp_entry(role))),
        # a rule rolebook owns: written when missing, never over the user's edits
        Planned(rule, before, before if before is not None else text, "memory protocol rule"),
    ]
