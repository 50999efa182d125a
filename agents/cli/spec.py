"""Write spec.json: the hot commands' parameters as click sees them in the typer app, the
data the fast path (agents/fastpath.py) reads command lines by.

    python -m rolebook.agents.cli.spec

Run it after changing a hot command's parameters (tests/agents/test_fastpath.py fails
until the file is what this writes). A parameter of a type the fast path does not read
is written as such: given on a command line, it sends that line to typer.
"""

from __future__ import annotations

import json
from typing import Any

from ..fastpath import COMMANDS, SPEC


def _param(param: Any) -> dict[str, Any]:
    """One click parameter as data. Types are told by their class names, the same in
    click and in the click typer 0.26-0.28 carry."""
    kind = param.param_type_name  # "argument" or "option"
    out: dict[str, Any] = {"name": param.name, "kind": kind, "required": bool(param.required)}
    option = kind == "option"
    out |= {
        "opts": list(param.opts) if option else [],
        "secondary_opts": list(param.secondary_opts) if option else [],
        "flag": bool(option and param.is_flag),
        "multiple": bool(option and param.multiple),
        "envvar": param.envvar,
    }
    of = param.type
    name = type(of).__name__
    if name in ("IntRange", "IntParamType") and not (getattr(of, "min_open", 0) or getattr(of, "max_open", 0)):
        out |= {"type": "int", "min": getattr(of, "min", None), "max": getattr(of, "max", None)}
        if getattr(of, "clamp", False):
            out["type"] = "other"
    elif name in ("Choice", "TyperChoice") and getattr(of, "case_sensitive", False):
        out |= {"type": "choice", "choices": [str(c) for c in of.choices]}
    elif name in ("Path", "TyperPath"):
        plain = (of.exists, of.file_okay, of.dir_okay, of.writable, of.resolve_path, of.allow_dash)
        out["type"] = "path" if plain == (False, True, True, False, False, False) else "other"
    elif name == "BoolParamType" and out["flag"]:
        out["type"] = "bool"
    elif name == "StringParamType":
        out["type"] = "text"
    else:
        out["type"] = "other"
    default = param.default
    odd = param.callback is not None or param.is_eager or not param.expose_value  # it does more than carry a value
    odd = odd or bool(param.envvar and (out["flag"] or out["multiple"]))  # an envvar click would split or parse
    if odd or param.nargs != 1 or getattr(param, "count", False) or not isinstance(default, None | bool | int | str):
        out["type"] = "other"  # read by typer only
        default = repr(default)
    out["default"] = default
    return out


def generate() -> dict[str, Any]:
    """The spec, from the typer app as it is now."""
    import typer.main

    from . import app  # the package's: every command registered

    group = typer.main.get_command(app)
    ctx = group.make_context("rolebook", ["read", "x"], resilient_parsing=True)
    commands = group.commands  # type: ignore[attr-defined]
    spec: dict[str, Any] = {
        "generated_by": "python -m rolebook.agents.cli.spec",
        "help": sorted(group.get_help_option_names(ctx)),
        # an option that ends the command line (--version) is left out: given, the fast
        # path meets an option it does not know and leaves the line to typer
        "globals": [_param(p) for p in group.params if p.expose_value],
        "commands": {},
    }
    for name in COMMANDS:
        command = commands[name]
        settings = command.context_settings
        spec["commands"][name] = {
            "ignore_unknown_options": bool(settings.get("ignore_unknown_options", False)),
            "allow_extra_args": bool(settings.get("allow_extra_args", False)),
            "params": [_param(p) for p in command.params],
        }
    return spec


def text() -> str:
    """The spec as written to spec.json: one parameter a line, for a readable diff."""
    spec = generate()

    def params(items: list[dict[str, Any]], indent: str) -> str:
        return "[\n" + ",\n".join(indent + "  " + json.dumps(p) for p in items) + "\n" + indent + "]"

    commands = ",\n".join(
        f"    {json.dumps(name)}: {{"
        + "".join(f"{json.dumps(k)}: {json.dumps(v)}, " for k, v in command.items() if k != "params")
        + f'"params": {params(command["params"], "    ")}}}'
        for name, command in spec["commands"].items()
    )
    out = (
        "{\n"
        f'  "generated_by": {json.dumps(spec["generated_by"])},\n'
        f'  "help": {json.dumps(spec["help"])},\n'
        f'  "globals": {params(spec["globals"], "  ")},\n'
        f'  "commands": {{\n{commands}\n  }}\n'
        "}\n"
    )
    assert json.loads(out) == spec
    return out


if __name__ == "__main__":
    SPEC.write_text(text(), encoding="utf-8")
    print(f"wrote {SPEC}")
