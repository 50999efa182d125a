"""Commands that move memory in and out and sum it up: import, export, stats, report."""

from __future__ import annotations

import datetime as dt
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rolebook.notebook import InputError
from rolebook.notebook.display import shown
from rolebook.notebook.store import check_role

from .app import JsonOpt, NewRoleOpt, _errors, _globals, _print_json, app

FORMATS = (
    "claude-memory",
    "codex-memory",
    "serena",
    "cerebro",
    "xmem",
    "agent-knowledge",
    "memcache",
    "mcp-memory",
    "markdown",
    "rolebook",
)
_SHOWN = 20


@app.command("import")
@_errors
def import_cmd(
    ctx: typer.Context,
    fmt: Annotated[str, typer.Argument(metavar="FORMAT", help=f"One of: {', '.join(FORMATS)}.")],
    path: Annotated[Path, typer.Argument(help="The file or folder to import.")],
    role: Annotated[
        str | None, typer.Option("--role", help="The role to import into (default: the role the source names).")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Check and count; write nothing.")] = False,
    skip_bad: Annotated[
        bool, typer.Option("--skip-bad", help="Import the good lines even when some are bad (they are listed).")
    ] = False,
    new_role: NewRoleOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Bring memory in from another tool. Importing the same source twice adds nothing.

    \b
    claude-memory    Claude Code's memory: an auto-memory folder (~/.claude/projects/P/memory),
                     a subagent's (.claude/agent-memory/NAME, role NAME) or all of them
    codex-memory     Codex's memories folder (~/.codex/memories)
    serena           Serena's memories (.serena/memories, or the project holding it)
    cerebro          an agent-cerebro home: memory.sqlite3 and its <role>.md notebooks
    xmem             X-MEM failures.jsonl / successes.jsonl (a file, or the folder)
    agent-knowledge  agent-knowledge JSONL event logs (a file, or a folder of them)
    memcache         a memcache store (.agents/.memcache), its journal/, or a journal file
    mcp-memory       the knowledge-graph memory.jsonl of @modelcontextprotocol/server-memory
    markdown         a notebook or any lessons file; a folder of <role>.md files
    rolebook         a `rolebook export` file

    Every line is checked before anything is written: a bad line is listed as path:line
    and nothing is written (exit 2) unless --skip-bad. Dated notebook entries go to the
    role's notebook (its limits prune the oldest to the archive); everything else is
    kept in the archive as stored items or logged events, searchable, with its
    original date, a `source` field and the source's own record.

    Claude Code's feedback memories go to Feedback, project memories to Learnings, user
    and reference memories to the archive; MEMORY.md's own lines become entries (its
    pointers to topic files are read from those files). Codex's preferences go to
    Feedback, reusable knowledge and tips to Learnings, failures to Mistakes, tasks to
    the Session Log. Serena's memories are kept in the archive, one category each.

    \b
    Example:  rolebook import claude-memory ~/.claude/projects/-home-me-app/memory --role coder
              rolebook import claude-memory .claude/agent-memory/code-reviewer
              rolebook import codex-memory ~/.codex/memories --role coder --dry-run
              rolebook import serena . --role coder
              rolebook import xmem ~/.xmem/data --role coder --dry-run
    """
    from ..importers import run as importing

    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r} (one of: {', '.join(FORMATS)})")
    g = _globals(ctx)
    report = importing.run(
        g.session(new_roles=new_role), fmt, path, check_role(role) if role else None, dry_run, skip_bad
    )
    if report.problems and not skip_bad:
        for problem in report.problems[:_SHOWN]:
            sys.stderr.write(f"rolebook: {shown(problem)}\n")
        more = len(report.problems) - _SHOWN
        if more > 0:
            sys.stderr.write(f"rolebook: ... and {more} more bad lines\n")
        sys.stderr.write(
            f"rolebook: {len(report.problems)} bad line(s) in {shown(path)}: nothing was written "
            "(fix them, or pass --skip-bad to import the rest)\n"
        )
        if as_json:
            _print_json(report.to_dict())
        raise typer.Exit(2)
    if as_json:
        _print_json(report.to_dict())
        return
    for problem in report.problems[:_SHOWN]:
        sys.stderr.write(f"rolebook: skipped {shown(problem)}\n")
    if len(report.problems) > _SHOWN:
        sys.stderr.write(f"rolebook: ... and {len(report.problems) - _SHOWN} more skipped\n")
    for note in report.notes:
        sys.stderr.write(f"rolebook: note: {shown(note)}\n")
    if report.redacted:
        verb = "would redact" if dry_run else "redacted before writing"
        sys.stderr.write(f"rolebook: {verb}: {', '.join(report.redacted)}\n")
    print("\n".join(map(shown, report.lines())))


@app.command("export")
@_errors
def export_cmd(
    ctx: typer.Context,
    folder: Annotated[
        Path | None, typer.Argument(help="claude-agent-memory: the subagent's memory folder to write MEMORY.md in.")
    ] = None,
    role: Annotated[list[str] | None, typer.Option("--role", help="Only these roles (repeatable).")] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="jsonl (lossless, for `import rolebook`), markdown (for reading) or claude-agent-memory.",
        ),
    ] = "jsonl",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
) -> None:
    """Everything the memory holds: every notebook, archive line, failure journal line and rule line.

    jsonl is lossless: `rolebook import rolebook FILE` in an empty root gives back the
    same files, the same search results and failure figures. markdown is for people: each notebook as it
    is, then its archive, a line a record. claude-agent-memory writes one role's notebook
    as a Claude Code subagent's MEMORY.md (within the 200 lines Claude loads), so the
    subagent reads it at start; a MEMORY.md holding memory rolebook has not imported is
    refused (import it first).

    \b
    Example:  rolebook export -o memory-backup.jsonl
              rolebook export --format claude-agent-memory --role coder .claude/agent-memory/coder
    """
    from rolebook import __version__
    from rolebook.notebook.store import export_lines, exported_roles

    from ..importers.exports import export_markdown

    if fmt not in ("jsonl", "markdown", "claude-agent-memory"):
        raise InputError(f"unknown export format {fmt!r} (jsonl, markdown or claude-agent-memory)")
    g = _globals(ctx)
    config = g.config()
    layout = config.layout
    if fmt == "claude-agent-memory" or folder is not None:
        if fmt != "claude-agent-memory" or folder is None or not role or len(role) != 1:
            raise InputError(
                "export --format claude-agent-memory takes one --role and a folder, e.g. "
                "--role coder .claude/agent-memory/coder"
            )
        from ..importers.claude import INDEX
        from ..importers.exports import export_agent_memory

        _not_our_file(folder, config)
        _not_our_file(folder / INDEX, config)
        written = export_agent_memory(layout, check_role(role[0]), folder)
        sys.stderr.write(f"rolebook: wrote {written}\n")
        return
    if output is not None:
        _not_our_file(output, config)
    roles = [check_role(r) for r in role] if role else exported_roles(layout)
    at = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if fmt == "jsonl":
        from rolebook.rules import block_lines

        lines = export_lines(layout, roles, __version__, at, block_lines(config.rules_file))
    else:
        lines = export_markdown(layout, roles)
    if output is None:
        for line in lines:
            sys.stdout.write(line)
        return
    from rolebook.notebook.store import atomic_write

    atomic_write(output, "".join(lines).encode("utf-8"))
    sys.stderr.write(f"rolebook: exported {len(roles)} role(s) to {output}\n")


@app.command("stats")
@_errors
def stats_cmd(
    ctx: typer.Context,
    role: Annotated[str | None, typer.Argument(help="One role (default: every role).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Per role: notebook lines against the cap, entries per section, archive records by
    operation, the mistakes that keep recurring, rules and their violations, the index's
    health, and a chart of mistakes per week over the last 12 weeks.

    \b
    Example:  rolebook stats coder
    """
    from rolebook.notebook.store import index_state

    from ..stats import render, role_stats

    g = _globals(ctx)
    config = g.config()
    layout = config.layout
    roles = [check_role(role)] if role else layout.roles()
    health = index_state(layout, layout.roles())
    review = g.session(config).review
    found = [role_stats(layout, config.rules_file, r, config.limits, review) for r in roles]
    if as_json:
        data: dict[str, Any] = {"index": health, "roles": [s.to_dict() for s in found]}
        _print_json(data)
        return
    if not found:
        print("no roles yet: `rolebook init ROLE` starts one")
        return
    from rich.console import Console

    Console(highlight=False).print(render(found, health, dt.date.today()))


@app.command("report")
@_errors
def report_cmd(
    ctx: typer.Context,
    output: Annotated[
        str, typer.Option("--output", "-o", help="The HTML file to write, or - for stdout.")
    ] = "rolebook-report.html",
    role: Annotated[list[str] | None, typer.Option("--role", help="Only these roles (repeatable).")] = None,
) -> None:
    """Write one self-contained HTML page that shows the memory at a glance, per role and
    for the whole project: how full each notebook is (lines and entries per section
    against their caps), mistakes per week with recurrences marked, the mistakes that
    keep coming back (what `promote` lists, and groups on 2 dates to watch) with their
    dates and incidents, rules and the mistakes that broke them since, what left the
    notebooks for the archive and why, month by month, and the shared roots.

    Charts are inline SVG; the page needs no network and runs no script. Prints the path written.

    \b
    Example:  rolebook report                    (writes rolebook-report.html here)
              rolebook report --role coder -o coder.html
    """
    from rolebook.notebook.store import atomic_write, index_state

    from ..report import build

    g = _globals(ctx)
    config = g.config()
    layout = config.layout
    roles = sorted({check_role(r) for r in role}) if role else layout.roles()
    page = build(g.session(config), roles, index_state(layout, layout.roles()))
    if output == "-":
        sys.stdout.write(page)
        return
    path = Path(output)
    _not_our_file(path, config)
    atomic_write(path, page.encode("utf-8"))
    print(path)


def _not_our_file(output: Path, config: Any) -> None:
    """Raises InputError when `output` is one of rolebook's own files or folders (an export
    written over an archive would replace it), or OutsideRoot when a path named inside the
    project resolves outside it (a symlink a cloned repository carries, such as
    rolebook-report.html -> ~/.bashrc). A path named outside the project is the user's."""
    from rolebook.notebook.store import inside

    named = Path(os.path.abspath(output))
    if named.is_relative_to(config.root) or named.is_relative_to(config.root.resolve()):
        inside(config.root, output)
    real = output.resolve()
    layout = config.layout
    own = [layout.memory, layout.archive, layout.derived]
    files = [config.rules_file, config.protocol, config.root / "rolebook.yaml"]
    if any(real == p.resolve() or real.is_relative_to(p.resolve()) for p in own) or real in {
        f.resolve() for f in files
    }:
        raise InputError(f"{output} is one of rolebook's own files: export to a file of its own, e.g. backup.jsonl")
