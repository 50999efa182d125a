"""The `rolebook` entry point.

The commands of an agent's loop (`read`, `update`, `search`, `recall`, `hook`, `mcp`)
and `--version` start without typer (fastpath.py), from the same definition of their arguments;
anything else, `--help` and every error in the arguments included, goes to the typer app.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-V"]):  # as typer answers it (cli/app.py), without typer
        from rolebook import __version__

        sys.stdout.write(f"rolebook {__version__}\n")
        return 0
    from .fastpath import run as fast

    code = fast(args)
    if code is not None:
        return code
    from .cli import run

    return run(args)
