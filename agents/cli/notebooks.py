"""The session commands: init, read, update, tidy, obsolete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rolebook.notebook import InputError
from rolebook.notebook.display import shown
from rolebook.notebook.store import check_role

if TYPE_CHECKING:
    from ..integrations import Planned

from ..config import find_root
from .app import JsonOpt, NewRoleOpt, _errors, _globals, _print_json, _warn, app, hot


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
    report = None
    if agent is not None:
        from ..integrations import apply
        from .agents import integration_report

        apply(edits, root)
        report = integration_report(agent, root, (roles or [])[0], edits)
    if as_json:
        extra: dict[str, Any] = {}
        if report is not None:
            extra = {"integrated": [f["path"] for f in report["files"] if f["changed"]], "next": report["next"]}
        _print_json({**result.to_dict(), **extra})
        return
    print(f"rolebook root: {root}")
    for path in result.created:
        print(f"created {path}")
    for path in result.updated:
        print(f"updated {path}")
    if report is not None:
        from .agents import print_integration

        print_integration(report)
    elif not result.created and not result.updated:
        print(f"rolebook is set up in {root}: nothing to do")


@app.command("read")
@hot("read")
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


@app.command("update")
@hot("update")
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
    same_as: Annotated[
        str | None,
        typer.Option(
            "--same-as",
            help="With one --mistake: it is the same mistake as this earlier one (its id, from update's "
            "'looks like #ID'); counted with it.",
        ),
    ] = None,
    new_role: NewRoleOpt = False,
    as_json: JsonOpt = False,
    failure: Annotated[
        str | None,
        typer.Option(
            "--failure",
            help="The failed command (its id, from the Stop reminder or `update`) the mistake or learning answers.",
        ),
    ] = None,
    supersedes: Annotated[
        list[str] | None,
        typer.Option("--supersedes", help="#ID of an entry these correct: retired in the same write (repeatable)."),
    ] = None,
    cite: Annotated[
        list[str] | None,
        typer.Option(
            "--cite", help="Code the entries rest on, path[:LINE[-LINE]]: `read` says when it changes (repeatable)."
        ),
    ] = None,
) -> None:
    """Session end: add entries (newest first), then prune what passes the limits to the archive.

    An entry already in the notebook is not added twice (exit 1 when nothing was new).
    A mistake written again is counted with the earlier one (x2); one that only looks
    like an earlier one is added alone, and update says so: `looks like #ID ...`. If it
    is the same mistake, the same update with --same-as ID counts it. An entry that reads
    like an order to the agent ("ignore previous instructions", "always sign with ...")
    is written and flagged, with a warning. The lessons are linked to the failed commands
    of the agent session they come from (`rolebook --session ID`, $ROLEBOOK_SESSION, else
    the session the hooks saw last): when the same failure comes back, the recall hook
    shows them, and a mistake answering a failure an earlier mistake answers counts with it.

    \b
    Example:  rolebook update coder -m "ran migrations on prod; use the staging DB" --log "WQ-12: fixed login"
              rolebook --session 5f1c update coder --failure f3a9c1d2e -m "npm ci wants the lockfile: npm install first"
              rolebook update coder --same-as 3d8d4198f043 -m "migrated prod again; use staging" --date 2026-03-01
              rolebook update coder -l "retry() backs off 2x since v3" --supersedes "#3f2a9c1d"
              rolebook update coder -l "login checks the CSRF token first" --cite src/auth.py:40-52
    """


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
        str | None, typer.Argument(help="#ID (from `read --json`, at least 4 characters) or words of the entry.")
    ] = None,
    session_id: Annotated[
        str | None,
        typer.Option(
            "--session", help="Instead: retire everything this session wrote that still stands (`rolebook audit`)."
        ),
    ] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why, kept on the records (with --session).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Retire an entry that no longer holds: it leaves the notebook, archived as obsolete.

    With --session, every entry, stored item and event of the role that one session
    wrote and that still stands is retired in one write (after a poisoned or mistaken
    session); `rolebook search --status all` still finds them.

    \b
    Example:  rolebook obsolete coder "#3f9a1c"     or:  rolebook obsolete coder "node 16"
              rolebook obsolete coder --session 7c0e-run-42 --reason "prompt-injected run"
    """
    if (selector is None) == (session_id is None):
        raise InputError("give an entry (#ID or words) or --session ID, one of them")
    g = _globals(ctx)
    if session_id is not None:
        from ..session.provenance import retire_session

        retired = retire_session(g.session(), role, session_id, reason)
        _warn(retired.result)
        if as_json:
            _print_json({**retired.result.to_dict(), "items": list(retired.items), "retired": retired.count})
        else:
            entries = len(retired.result.left)
            print(
                f"{role}: made obsolete {retired.count} written in session {session_id} "
                f"({entries} notebook {'entry' if entries == 1 else 'entries'}, {len(retired.items)} long-term)"
            )
        return
    if reason is not None:
        raise InputError("--reason goes with --session")
    result = g.session().obsolete(role, selector or "")
    _warn(result)
    if as_json:
        _print_json(result.to_dict())
    elif result.left:
        entry = result.left[0][1]
        print(shown(f"{role}: made obsolete #{entry.id(role)} [{entry.date}] {entry.text.splitlines()[0]}"))
    else:  # a long-term item (stored, logged, shared)
        print(shown(f"{role}: made obsolete {selector}"))
