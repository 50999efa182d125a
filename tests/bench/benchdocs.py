"""docs/benchmarks.md is written by the bench scripts: each owns one section, between
`<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, and rewrites it with `--write-docs`.

    from benchdocs import write_section
    write_section("cli", "Measured ... \\n\\n| command | ... |", command="python tests/bench/bench_cli.py --runs 21")

or, for a script whose printed table is the figures, around its main:

    if __name__ == "__main__":
        with benchdocs.section("cli", ABOUT):
            main()

which, when `--write-docs` is on the command line (taken off before the script parses
its own options), writes ABOUT and what the script printed as that section.

Text outside the sections (the page's introduction) is kept as it is; a section not yet
in the page is appended.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import io
import os
import platform
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

PAGE = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"
FLAG = "--write-docs"
#: the environment that changes what a script measures: named in the section's command
FIGURE_SETTINGS = ("ROLEBOOK_SEARCH_MODE", "ROLEBOOK_MODEL")
#: the page is being written: a script leaves out what must not go into the repository
#: (the shared corpus's own text)
WRITING = FLAG in sys.argv[1:]


def machine() -> str:
    """One line on where the figures were measured."""
    load = os.getloadavg()[1]  # the last 5 minutes: how shared the machine was
    return (
        f"{os.cpu_count()} CPUs (load average {load:.1f}), {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}"
    )


def write_section(name: str, body: str, command: str) -> None:
    """Replace (or append) the section `name` of docs/benchmarks.md with `body`, with the
    command that measured it, the day and the machine."""
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    with PAGE.open("a", encoding="utf-8") as lock:  # two scripts may finish at once
        fcntl.flock(lock, fcntl.LOCK_EX)
        _replace(name, body, command)
    print(f"wrote the {name!r} section of {PAGE}")


def _replace(name: str, body: str, command: str) -> None:
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    stamp = f"_Measured {dt.date.today().isoformat()} on {machine()} by `{command}`._"
    block = f"{start}\n{body.rstrip()}\n\n{stamp}\n{end}"
    text = PAGE.read_text(encoding="utf-8") or "# Benchmarks\n"
    if start in text and end in text:
        head, _, rest = text.partition(start)
        _, _, tail = rest.partition(end)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    PAGE.write_text(text, encoding="utf-8")


class _Tee(io.StringIO):
    """What is printed goes to the terminal as always, and is kept."""

    def __init__(self, out: TextIO) -> None:
        super().__init__()
        self.out = out

    def write(self, text: str) -> int:
        self.out.write(text)
        return super().write(text)

    def flush(self) -> None:
        self.out.flush()


@contextlib.contextmanager
def section(name: str, about: str) -> Iterator[None]:
    """With `--write-docs` in sys.argv: take it off, keep what the body prints, and write
    the section `name`: `about`, then the printed figures as they are (a fixed-width table).
    Without the flag: nothing but the body. A body that fails writes nothing."""
    if FLAG not in sys.argv[1:]:
        yield
        return
    sys.argv[1:] = [arg for arg in sys.argv[1:] if arg != FLAG]
    settings = [f"{k}={os.environ[k]}" for k in FIGURE_SETTINGS if k in os.environ]
    command = shlex.join([*settings, "python", f"tests/bench/{Path(sys.argv[0]).name}", *sys.argv[1:]])
    tee = _Tee(sys.stdout)
    try:
        with contextlib.redirect_stdout(tee):
            yield
    except SystemExit as done:  # a script that ends with sys.exit(main()): written when it succeeded
        if done.code not in (0, None):
            raise
    printed = tee.getvalue().rstrip("\n").replace(str(PAGE.parents[1]), ".")  # no one's checkout path
    write_section(name, f"{about.strip()}\n\n```text\n{printed}\n```", command=command)


def option(flag: str, default: str = "") -> str:
    """The value given to `flag` on the command line (`--set b` or `--set=b`), else `default`:
    a script that measures several sets names a section per set."""
    args = sys.argv[1:]
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return default
