"""Provenance commands: audit (who wrote what, and what became of it) and redact."""

from __future__ import annotations

from typing import Annotated

import typer

from .app import JsonOpt, _errors, _globals, _print_json, app


@app.command("audit")
@_errors
def audit_cmd(
    ctx: typer.Context,
    session_id: Annotated[str | None, typer.Option("--session", help="Only what this session wrote.")] = None,
    role: Annotated[list[str] | None, typer.Option("--role", help="Only these roles (repeatable).")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Only written on or after YYYY-MM-DD.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Only written on or before YYYY-MM-DD.")] = None,
    source: Annotated[
        str | None,
        typer.Option(
            "--source",
            help="Only written through this: cli, mcp, memory-tool, hook, share, hand-edit, an import's format "
            "(xmem...), `import` (any import) or `unknown`.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="Lines at most (the newest; --json: all).")] = 200,
    as_json: JsonOpt = False,
) -> None:
    """What was written, by whom (role, session, source), when, and what became of it.

    One line a write, oldest first: time, role/section, #id, who, through what, the
    text, and its status now (active, archived, promoted, obsolete, redacted). Act on it
    with `rolebook obsolete ROLE --session ID` or `rolebook redact #ID`.

    \\b
    Example:  rolebook audit --session 7c0e-run-42
              rolebook audit --source import --since 2026-03-01 --json
    """
    from ..session.provenance import audit

    found = audit(
        _globals(ctx).session(), session_id, tuple(role or ()), since, until, source, None if as_json else limit
    )
    if as_json:
        _print_json({"summary": found.summary(), "counts": found.counts, "writes": [r.to_dict() for r in found.rows]})
        return
    if len(found.rows) < found.total:
        print(f"(the newest {len(found.rows)} of {found.total}; --limit or --json for more)")
    for r in found.rows:
        print(r.line())
    print(found.summary())


@app.command("confirm")
@_errors
def confirm_cmd(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="#ID of the entry that waits (4+ characters).")],
    role: Annotated[
        str | None, typer.Option("--role", help="The role it belongs to (default: the one that holds it).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Confirm an entry that reads like an order to the agent: it is a lesson after all.

    Such an entry is kept and found by `search`, but not shown unasked (the session-start
    read, the recall hook, `read --task`) nor promoted until the role or a person confirms
    it. `read` counts what waits; `audit` lists it. Journalled as `confirmed`.

    \b
    Example:  rolebook confirm "#3f2a9c1d"
    """
    from ..session.provenance import confirm, confirmed

    line, data = confirmed(*confirm(_globals(ctx).session(), item_id, role))
    if as_json:
        _print_json(data)
        return
    print(line)


@app.command("redact")
@_errors
def redact_cmd(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="#ID of the entry, stored item or event (4+ characters).")],
    text: Annotated[str | None, typer.Option("--text", help="Only this part of its text (default: all of it).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Take one item's text (or the part given) out of every file under the root.

    The archive's one sanctioned rewrite, under the write lock: every archive line, the
    notebooks, the rules file and the derived folder lose the text; a `redacted` record
    keeps the id, date, role and a SHA-256 of what was removed. A merge or an old export
    that brings the text back has it taken out again (`rolebook doctor --repair`).
    Commit the result, and rewrite git history yourself if the text was ever pushed.

    \\b
    Example:  rolebook redact "#3f2a9c1d" --text "hunter2"
    """
    from ..session.provenance import redact

    done = redact(_globals(ctx).session(), item_id, text)
    if as_json:
        _print_json(done.to_dict())
        return
    what = "part of its text" if text is not None else "its text"
    print(
        f"{done.role}: redacted {what} from #{done.id} [{done.date}] ({done.mark.hash[:19]}..., "
        f"{done.mark.length} characters); rewrote {len(done.files)} file(s): {', '.join(done.files) or 'none'}"
    )
