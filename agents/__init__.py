"""rolebook.agents: what agents and people touch: config, the typer CLI, the MCP server,
the hooks and integrations for agent CLIs, the git merge driver.

Its modules are imported where they are used, so `rolebook read` loads only what it needs.
"""
