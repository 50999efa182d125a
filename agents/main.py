"""The `rolebook` entry point.

`rolebook read ROLE` runs at the start of every agent session, and importing typer
alone costs about five bare interpreter start-ups. So a plain read (the global
options, the role, `--json`) is answered here without typer; anything else, `--help`
and every error in the arguments included, goes to the typer app in `cli.py`, which
calls the same `run_read` (start.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rolebook.notebook import RolebookError


def _globals(args: list[str], command: str) -> tuple[str | None, list[str]] | None:
    """(--root, the arguments after `command`) when `args` are global options then `command`."""
    root: str | None = None
    i = 0
    while i < len(args) and args[i] != command:
        opt, eq, value = args[i].partition("=")
        if opt not in ("--root", "--as", "--session"):
            return None
        if not eq:
            if i + 1 >= len(args):
                return None
            value = args[i + 1]
            i += 1
        if opt == "--root":
            root = value
        i += 1
    if i >= len(args):
        return None
    return root, args[i + 1 :]


def _fast_hook(args: list[str]) -> int | None:
    """Answer `recall` and `hook session-start|stop` without typer: they run in agent loops."""
    for command in ("recall", "hook"):
        found = _globals(args, command)
        if found is not None:
            break
    else:
        return None
    root, rest = found
    if "-h" in rest or "--help" in rest:
        return None
    if command == "hook":
        if not rest or rest[0] not in ("session-start", "stop"):
            return None
        command, rest = rest[0], rest[1:]
    options: dict[str, object] = {"root": Path(root) if root else None}
    i = 0
    while i < len(rest):
        opt, eq, value = rest[i].partition("=")
        if opt not in ("--role", "--command", "--error", "--root") or (not eq and i + 1 >= len(rest)):
            sys.stderr.write(f"rolebook {command}: unknown or incomplete option {rest[i]!r}; ignored\n")
            i += 1
            continue
        if not eq:
            value, i = rest[i + 1], i + 1
        options[opt[2:]] = Path(value) if opt == "--root" else value
        i += 1
    from .hooks import run

    return run(command, options)


def _fast_read(args: list[str]) -> int | None:
    """Answer `[--root DIR] [--as ROLE] read ROLE [--json]`, or None to leave it to typer."""
    found = _globals(args, "read")
    if found is None or not found[1]:
        return None
    root, rest = found
    role, *flags = rest
    if role.startswith("-") or any(f != "--json" for f in flags):
        return None
    from .start import run_read

    try:
        return run_read(Path(root) if root else None, role, bool(flags))
    except RolebookError as exc:
        sys.stderr.write(f"rolebook: {exc}\n")
        return exc.exit_code


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    code = _fast_read(args)
    if code is None:
        code = _fast_hook(args)
    if code is not None:
        return code
    from .cli import run

    return run(args)
