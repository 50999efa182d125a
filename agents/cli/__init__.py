"""The typer command line: each command parses its options, makes one call to the
session API (`rolebook.agents.session`), and prints the result.

This module is the one registration point: it imports every command module, each of
which adds its commands to the app in `app.py`.
"""

from __future__ import annotations

from . import agents, data, memory, notebooks, provenance, rules
from .app import app

__all__ = ["app", "run"]
_COMMANDS = (agents, data, memory, notebooks, provenance, rules)


def run(args: list[str]) -> int:
    """Run the typer app on `args`; returns the exit code."""
    try:
        app(args=args, prog_name="rolebook", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    return 0
