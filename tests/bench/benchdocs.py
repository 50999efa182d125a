"""docs/benchmarks.md is written by the bench scripts: each owns one section, between
`<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, and rewrites it with `--write-docs`.

    from benchdocs import write_section
    write_section("cli", "Measured ... \\n\\n| command | ... |", command="python tests/bench/bench_cli.py --runs 21")

Text outside the sections (the page's introduction) is kept as it is; a section not yet
in the page is appended.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"


def machine() -> str:
    """One line on where the figures were measured."""
    return f"{os.cpu_count()} CPUs, {platform.system()} {platform.machine()}, Python {platform.python_version()}"


def write_section(name: str, body: str, command: str) -> None:
    """Replace (or append) the section `name` of docs/benchmarks.md with `body`, with the
    command that measured it, the day and the machine."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    stamp = f"_Measured {dt.date.today().isoformat()} on {machine()} by `{command}`._"
    block = f"{start}\n{body.rstrip()}\n\n{stamp}\n{end}"
    text = PAGE.read_text(encoding="utf-8") if PAGE.exists() else "# Benchmarks\n"
    if start in text and end in text:
        head, _, rest = text.partition(start)
        _, _, tail = rest.partition(end)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote the {name!r} section of {PAGE}")
