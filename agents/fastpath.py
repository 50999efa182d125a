"""The hot commands without typer: the same definition of their arguments, read from data.

`read`, `update`, `search`, `recall`, `hook` and `mcp` run in agents' loops, and importing
typer alone costs about five bare interpreter start-ups. Their arguments are defined
once, by the typer commands (cli/notebooks.py, memory.py, agents.py); cli/spec.json is
what click makes of them (written by `python -m rolebook.agents.cli.spec`, checked by a
test). `run` reads a command line against that data, as click would, and calls the
command's function in `COMMANDS`, the very function its typer command calls with what
typer parsed (the `hot` decorator in cli/app.py). A command line it cannot read exactly
(help, an unknown option, a bad or missing value, a form it does not take, a parameter
of a type it does not know) is left to typer, which says what is wrong: this module
never reports an argument error of its own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from . import session_io
from .session_io import Globals, begin

SPEC = Path(__file__).parent / "cli" / "spec.json"


def _recall(
    g: Globals, role: str | None, command: str | None, error: str | None, agent: str | None, exit_code: int | None
) -> int:
    from .hooks import run

    given = {"command": command, "error": error, "exit_code": exit_code}
    return run("recall", {"root": g.root, "role": role, "agent": agent, "session": g.session_id, **given})


def _hook(g: Globals, event: str, role: str | None, agent: str | None) -> int:
    from .hooks import run

    return run(event, {"root": g.root, "role": role, "agent": agent})


def _mcp(g: Globals) -> int:
    from rolebook.notebook.store import check_role

    from .mcp.protocol import serve

    return serve(g.root, check_role(g.as_role) if g.as_role else None, g.session_id)


#: Each hot command's function: called with the globals and the command's parameters by
#: name, from here and from its typer command alike; returns the exit code.
COMMANDS: dict[str, Callable[..., int]] = {
    "read": session_io.run_read,
    "update": session_io.run_update,
    "search": session_io.run_search,
    "recall": _recall,
    "hook": _hook,
    "mcp": _mcp,
}


def call(name: str, g: Globals, values: Mapping[str, Any], ignored: Sequence[str] = ()) -> int:
    """Run hot command `name`; a RolebookError is one line on stderr and its exit code.
    `ignored`: what a command that tolerates unknown options was given and left aside."""
    from rolebook.notebook import RolebookError
    from rolebook.notebook.display import shown

    if ignored:
        sys.stderr.write(f"rolebook {name}: ignored what it does not know: {shown(' '.join(ignored))}\n")
    try:
        return COMMANDS[name](g, **values)
    except RolebookError as exc:
        sys.stderr.write(f"rolebook: {shown(str(exc))}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        from .watch import interrupted

        return interrupted()


def run(argv: Sequence[str]) -> int | None:
    """Run a hot command line, or None to leave it to typer."""
    import json

    with open(SPEC, encoding="utf-8") as f:
        spec = json.load(f)
    parsed = parse(spec, list(argv))
    if parsed is None:
        return None
    name, given, values, ignored = parsed
    return call(name, begin(given["root"], given["as_role"], given["session"]), values, ignored)


Parsed = tuple[str, dict[str, Any], dict[str, Any], list[str]]


def parse(spec: Mapping[str, Any], argv: list[str]) -> Parsed | None:
    """(command, global values, its values, what it ignored) as click reads `argv`, or
    None where this reading is not certain to be click's."""
    helps = set(spec["help"])
    given: dict[str, list[Any]] = {}
    i = 0
    while i < len(argv) and _is_option(argv[i]):  # the group's options stop at the command
        i = _option(argv, i, spec["globals"], helps, given)
        if i < 0:
            return None
    if i >= len(argv) or argv[i] not in spec["commands"]:
        return None
    name, command = argv[i], spec["commands"][argv[i]]
    found: dict[str, list[Any]] = {}
    positional: list[str] = []
    i += 1
    while i < len(argv):
        if argv[i] == "--":
            return None
        if not _is_option(argv[i]):
            positional.append(argv[i])
            i += 1
            continue
        at = _option(argv, i, command["params"], helps, found)
        if at >= 0:
            i = at
        elif at == _UNKNOWN and command["ignore_unknown_options"]:
            positional.append(argv[i])  # click keeps an unknown option as an argument
            i += 1
        else:
            return None
    arguments = [p for p in command["params"] if p["kind"] == "argument"]
    if len(positional) < len(arguments) or (len(positional) > len(arguments) and not command["allow_extra_args"]):
        return None
    for param, value in zip(arguments, positional, strict=False):
        found[param["name"]] = [value]
    glob = _values(spec["globals"], given)
    values = _values(command["params"], found)
    if glob is None or values is None:
        return None
    return name, glob, values, positional[len(arguments) :]


_UNKNOWN, _UNSURE = -1, -2


def _is_option(token: str) -> bool:
    return token[:1] == "-" and len(token) > 1


def _option(argv: list[str], i: int, params: list[dict[str, Any]], helps: set[str], found: dict[str, list[Any]]) -> int:
    """Read the option at argv[i] into `found` (name: the values given, in order); the index
    after it, or _UNKNOWN (not an option of these params) or _UNSURE (leave it to click)."""
    token = argv[i]
    if token.startswith("--"):
        opt, eq, value = token.partition("=")
    elif len(token) == 2:
        opt, eq, value = token, "", ""
    else:
        return _UNSURE  # -abc: clustered short options or a value stuck to one
    if opt in helps:
        return _UNSURE
    for param in params:
        if param["kind"] != "option" or opt not in (*param["opts"], *param["secondary_opts"]):
            continue
        if param["flag"]:
            if eq:
                return _UNSURE
            found.setdefault(param["name"], []).append(opt in param["opts"])
            return i + 1
        if not eq:
            if i + 1 >= len(argv):
                return _UNSURE
            value = argv[i + 1]
            i += 1
        found.setdefault(param["name"], []).append(value)
        return i + 1
    return _UNKNOWN


def _values(params: list[dict[str, Any]], found: dict[str, list[Any]]) -> dict[str, Any] | None:
    """Each parameter's value as typer hands it to the command, or None where click would
    refuse one (a missing value, a bad number, a choice not offered) or may read it otherwise."""
    import os

    out: dict[str, Any] = {}
    for param in params:
        if param["type"] == "other":
            return None  # given or not, typer makes its value
        name = param["name"]
        raw = found.get(name)
        if raw is None and param.get("envvar") and os.environ.get(param["envvar"]):
            raw = [os.environ[param["envvar"]]]
        if raw is None:
            if param["required"]:
                return None
            out[name] = param["default"]
            continue
        if param["flag"]:
            out[name] = raw[-1]
            continue
        converted = [_convert(param, value) for value in (raw if param["multiple"] else raw[-1:])]
        if any(value is None for value in converted):
            return None
        out[name] = converted if param["multiple"] else converted[0]
    return out


def _convert(param: Mapping[str, Any], value: str) -> Any:
    """A value as click's type converts it, or None where it would refuse it."""
    kind = param["type"]
    if kind == "text":
        return value
    if kind == "path":  # as click's Path(): any path, but one that exists must be readable
        import os

        return Path(value) if not os.path.exists(value) or os.access(value, os.R_OK) else None
    if kind == "int":
        try:
            number = int(value)
        except ValueError:
            return None
        low, high = param["min"], param["max"]
        return number if (low is None or number >= low) and (high is None or number <= high) else None
    if kind == "choice":
        return value if value in param["choices"] else None
    return None
