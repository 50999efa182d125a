"""The session commands: init, read, update, tidy, obsolete."""

from __future__ import annotations

import datetime as dt
import sys
from typing import TYPE_CHECKING, Annotated

import typer
from rolebook.notebook import InputError
from rolebook.notebook.store import check_role

if TYPE_CHECKING:
    from rolebook.notebook import Entry

    from ..integrations import Planned

from ..config import find_root
from .app import JsonOpt, NewRoleOpt, _errors, _globals, _print_json, _read_input, _search_warnings, _warn, app


@app.command("init")
@_errors
def init_cmd(
    ctx: typer.Context,
    roles: Annotated[list[str] | None, typer.Argument(help="Roles to create notebooks for.")] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent", help="Also wire rolebook into this agent CLI, as `integrate` does (one role): claude, codex, ..."
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Set up rolebook in this project; run it again any time, it changes nothing twice.

    Writes rolebook.yaml, a notebook and an archive per role, agents/state/PROTOCOL.md
    (the memory protocol for your CLAUDE.md / AGENTS.md to @-import), a merge=union
    line in .gitattributes for archives and a .gitignore line for the derived folder.
    With --agent, also what `rolebook integrate AGENT --role ROLE` writes.

    \b
    Example:  rolebook init coder --agent claude
    """
    from ..scaffold import init

    g = _globals(ctx)
    root = g.root.absolute() if g.root else find_root()
    edits: list[Planned] = []
    if agent is not None:  # planned before anything is written: a file it cannot edit stops both
        from ..integrations import AGENTS, plan

        if agent not in AGENTS:
            raise InputError(f"unknown agent {agent!r} (one of: {', '.join(AGENTS)})")
        if len(roles or []) != 1:
            raise InputError(
                "--agent wires one role into an agent CLI: name exactly one, e.g. init coder --agent claude"
            )
        edits = plan(agent, root, check_role((roles or [])[0]))
    result = init(root, roles or [])
    planned: list[Planned] = []
    if edits:
        from ..integrations import apply

        planned = apply(edits, root)
    if as_json:
        _print_json({**result.to_dict(), "integrated": [str(p.path) for p in planned]})
        return
    print(f"rolebook root: {root}")
    for path in result.created:
        print(f"created {path}")
    for path in result.updated:
        print(f"updated {path}")
    for p in planned:
        print(f"{'created' if p.before is None else 'updated'} {p.path.relative_to(root)}: {p.what}")
    if not result.created and not result.updated and not planned:
        print(f"rolebook is set up in {root}: nothing to do")


@app.command("read")
@_errors
def read_cmd(
    ctx: typer.Context,
    role: Annotated[str, typer.Argument(help="The role whose notebook to read.")],
    task: Annotated[
        str | None, typer.Option("--task", help="What you are about to do: adds the most relevant archive hits.")
    ] = None,
    budget: Annotated[int, typer.Option("--budget", min=50, help="Token budget of the --task hits.")] = 500,
    as_json: JsonOpt = False,
) -> None:
    """Session start: print the role's notebook as it is, then at most 5 alert lines.

    A notebook that does not exist yet is not an error: `rolebook init ROLE` creates it.
    With --task, the archive hits most relevant to the task follow, each with its #id.

    \b
    Example:  rolebook read coder --task "fix the npm install in CI"
    """
    from ..session_io import write_started

    g = _globals(ctx)
    started = g.session().start(role, task, budget)
    if started.found is not None:
        _search_warnings(started.found.warnings)
    if as_json:
        _print_json(started.to_dict())
    else:
        write_started(started)


@app.command("update")
@_errors
def update_cmd(
    ctx: typer.Context,
    role: Annotated[str, typer.Argument(help="The role whose notebook to add to.")],
    mistake: Annotated[
        list[str] | None, typer.Option("--mistake", "-m", help="A mistake and what to do instead (repeatable).")
    ] = None,
    learning: Annotated[
        list[str] | None, typer.Option("--learning", "-l", help="Something learned (repeatable).")
    ] = None,
    feedback: Annotated[
        list[str] | None, typer.Option("--feedback", "-f", help="Feedback from a person (repeatable).")
    ] = None,
    log: Annotated[list[str] | None, typer.Option("--log", help="What this session did (repeatable).")] = None,
    date: Annotated[str | None, typer.Option("--date", help="The entries' date, YYYY-MM-DD (default: today).")] = None,
    from_file: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="A markdown file ('-' for stdin) with ## Mistakes, ## Learnings, ## Feedback, ## Session Log lists.",
        ),
    ] = None,
    new_role: NewRoleOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Session end: add entries (newest first), then prune what passes the limits to the archive.

    An entry already in the notebook is not added twice (exit 1 when nothing was new).

    \b
    Example:  rolebook update coder -m "ran migrations on prod; use the staging DB" --log "WQ-12: fixed login"
    """
    from rolebook.notebook.store import check_date, parse_snippet

    from ..session_io import run_update

    g = _globals(ctx)
    snippet: tuple[list[Entry], str] = ([], "")
    if from_file is not None:
        day = check_date(date) if date is not None else dt.date.today().isoformat()
        text = _read_input(from_file)
        entries, ignored = parse_snippet(text, day, from_file if from_file != "-" else "<stdin>")
        if ignored:
            sys.stderr.write(
                f"rolebook: {from_file}: ignored {ignored} lines that are not list items of a notebook section\n"
            )
        snippet = (entries, text)
    texts = {
        "mistakes": mistake or [],
        "learnings": learning or [],
        "feedback": feedback or [],
        "session_log": log or [],
    }
    code = run_update(g.root, g.writer(), role, texts, date, as_json, snippet, new_role)
    if code:
        raise typer.Exit(code)


@app.command("tidy")
@_errors
def tidy_cmd(
    ctx: typer.Context,
    role: Annotated[str | None, typer.Argument(help="One role (default: every role).")] = None,
    check: Annotated[bool, typer.Option("--check", help="Change nothing; exit 1 if anything would be pruned.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Apply the limits to notebooks edited by hand: the oldest entries go to the archive.

    \b
    Example:  rolebook tidy --check      (in CI: fails when a notebook breaks its limits)
    """
    results = _globals(ctx).session().tidy(role, check)
    _warn(*results)
    if as_json:
        _print_json([r.to_dict() for r in results])
    else:
        for r in results:
            if check:
                over = r.cap is not None and r.lines > r.cap
                state = (
                    f"would prune {r.count('pruned')}"
                    if r.changed
                    else "over the line cap with nothing rolebook may prune (shorten it by hand)"
                    if over
                    else "within limits"
                )
                print(f"{r.role}: {state}, {r.lines}{'' if r.cap is None else f'/{r.cap}'} lines")
            else:
                print(r.summary())
        if not results:
            print("no notebooks yet: `rolebook init ROLE` creates one")
    if check and any(r.changed for r in results):
        raise typer.Exit(1)


@app.command("obsolete")
@_errors
def obsolete_cmd(
    ctx: typer.Context,
    role: Annotated[str, typer.Argument(help="The role whose entry no longer holds.")],
    selector: Annotated[
        str, typer.Argument(help="#ID (from `read --json`, at least 4 characters) or words of the entry.")
    ],
    as_json: JsonOpt = False,
) -> None:
    """Retire an entry that no longer holds: it leaves the notebook, archived as obsolete.

    \b
    Example:  rolebook obsolete coder "#3f9a1c"     or:  rolebook obsolete coder "node 16"
    """
    result = _globals(ctx).session().obsolete(role, selector)
    _warn(result)
    if as_json:
        _print_json(result.to_dict())
    else:
        entry = result.left[0][1]
        print(f"{role}: made obsolete #{entry.id(role)} [{entry.date}] {entry.text.splitlines()[0]}")
