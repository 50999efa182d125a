"""The `rolebook` entry point.

`rolebook read ROLE` and `rolebook update ROLE ...` run at the start and the end of
every agent session, and importing typer alone costs about five bare interpreter
start-ups. So their plain forms (the global options, the role, the entry flags,
`--json`), the hooks and `mcp` are answered here without typer; anything else, `--help` and
every error in the arguments included, goes to the typer app in `cli.py`, whose
commands call the same functions (session_io.py, hooks.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from rolebook.notebook import RolebookError


def _globals(args: list[str], command: str) -> tuple[dict[str, str], list[str]] | None:
    """(the global options, the arguments after `command`) when `args` are global options
    then `command`; None when they are anything else."""
    found: dict[str, str] = {}
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
        found[opt] = value
        i += 1
    if i >= len(args):
        return None
    return found, args[i + 1 :]


def _fast_hook(args: list[str]) -> int | None:
    """Answer `recall` and `hook session-start|stop` without typer: they run in agent loops."""
    for command in ("recall", "hook"):
        found = _globals(args, command)
        if found is not None:
            break
    else:
        return None
    options_given, rest = found
    root = options_given.get("--root")
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
        if opt not in ("--role", "--command", "--error", "--root", "--agent") or (not eq and i + 1 >= len(rest)):
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
    root = found[0].get("--root")
    role, *flags = found[1]
    if role.startswith("-") or any(f != "--json" for f in flags):
        return None
    from .session_io import run_read

    try:
        return run_read(Path(root) if root else None, role, bool(flags))
    except RolebookError as exc:
        sys.stderr.write(f"rolebook: {exc}\n")
        return exc.exit_code


_ENTRY_FLAGS = {
    "-m": "mistakes",
    "--mistake": "mistakes",
    "-l": "learnings",
    "--learning": "learnings",
    "-f": "feedback",
    "--feedback": "feedback",
    "--log": "session_log",
}


def _fast_update(args: list[str]) -> int | None:
    """Answer `[globals] update ROLE [-m/-l/-f/--log TEXT]... [--date D] [--new-role] [--json]`, or None
    to leave it to typer (--from, --help, anything it does not know)."""
    import os

    found = _globals(args, "update")
    if found is None or not found[1] or found[1][0].startswith("-"):
        return None
    given, (role, *rest) = found
    texts: dict[str, list[str]] = {section: [] for section in dict.fromkeys(_ENTRY_FLAGS.values())}
    date: str | None = None
    as_json = new_role = False
    i = 0
    while i < len(rest):
        if rest[i] in ("--json", "--new-role"):
            as_json, new_role, i = as_json or rest[i] == "--json", new_role or rest[i] == "--new-role", i + 1
            continue
        opt, eq, value = rest[i].partition("=") if rest[i].startswith("--") else (rest[i], "", "")
        if opt not in _ENTRY_FLAGS and opt != "--date":
            return None
        if not eq:
            if i + 1 >= len(rest):
                return None
            value, i = rest[i + 1], i + 1
        if opt == "--date":
            date = value
        else:
            texts[_ENTRY_FLAGS[opt]].append(value)
        i += 1
    from rolebook.notebook.store import Writer, check_role

    from .session_io import run_update

    root = given.get("--root") or os.environ.get("ROLEBOOK_ROOT") or None
    by = given.get("--as") or os.environ.get("ROLEBOOK_ROLE") or None
    session = given.get("--session") or os.environ.get("ROLEBOOK_SESSION") or None
    try:
        writer = Writer(check_role(by) if by else None, session)
        return run_update(Path(root) if root else None, writer, role, texts, date, as_json, new_role=new_role)
    except RolebookError as exc:
        sys.stderr.write(f"rolebook: {exc}\n")
        return exc.exit_code


def _fast_mcp(args: list[str]) -> int | None:
    """Serve `[globals] mcp` without typer: an agent CLI waits for its first answer."""
    import os

    found = _globals(args, "mcp")
    if found is None or found[1]:
        return None
    given = found[0]
    root = given.get("--root") or os.environ.get("ROLEBOOK_ROOT") or None
    scope = given.get("--as") or os.environ.get("ROLEBOOK_ROLE") or None
    session = given.get("--session") or os.environ.get("ROLEBOOK_SESSION") or None
    from rolebook.notebook.store import check_role

    from .mcp.front import serve

    try:
        return serve(Path(root) if root else None, check_role(scope) if scope else None, session)
    except RolebookError as exc:
        sys.stderr.write(f"rolebook: {exc}\n")
        return exc.exit_code


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    code = _fast_mcp(args)
    if code is None:
        code = _fast_read(args)
    if code is None:
        code = _fast_update(args)
    if code is None:
        code = _fast_hook(args)
    if code is not None:
        return code
    from .cli import run

    return run(args)
