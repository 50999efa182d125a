"""Commands over long-term memory: search, store, log, doctor."""

from __future__ import annotations

from typing import Annotated

import typer
from rolebook.notebook import InputError, check_role

from .cli_app import JsonOpt, _errors, _globals, _print_json, _say_redacted, _search_warnings, app


def _dates(since: str | None, until: str | None) -> tuple[str | None, str | None]:
    from rolebook.notebook import check_date

    return (check_date(since) if since else None, check_date(until) if until else None)


@app.command("search")
@_errors
def search_cmd(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words to look for; any text is fine.")],
    role: Annotated[list[str] | None, typer.Option("--role", help="Only these roles (repeatable).")] = None,
    section: Annotated[
        list[str] | None,
        typer.Option("--section", "--category", help="Only this section or category (repeatable), e.g. mistakes."),
    ] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="Only items with this tag (repeatable).")] = None,
    status: Annotated[
        str | None,
        typer.Option("--status", help="active, archived, promoted, rule or all (default: all but obsolete)."),
    ] = None,
    since: Annotated[str | None, typer.Option("--since", help="Only dated on or after YYYY-MM-DD.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Only dated on or before YYYY-MM-DD.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=1000, help="Hits at most.")] = 5,
    budget: Annotated[int, typer.Option("--budget", min=50, help="Tokens at most (characters / 4).")] = 500,
    mode: Annotated[
        str | None,
        typer.Option(
            "--mode",
            help="keyword, semantic or hybrid (default: hybrid with the semantic extra, else keyword; "
            "or ROLEBOOK_SEARCH_MODE, search.mode).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Search notebooks, archives, stored items and logged events. Exit 0 with hits, 1 without.

    One line a hit: [date] role/section: text (xN) #id, cut to the token budget.
    With pip install 'rolebook[semantic]' it finds by meaning too (--mode).

    \b
    Example:  rolebook search "npm EACCES" --role coder --status archived --since 2026-01-01
    """
    from rolebook.notebook import STATUSES, Query, render_hits

    g = _globals(ctx)
    if status is not None and status not in STATUSES:
        raise InputError(f"unknown status {status!r} (one of: {', '.join(STATUSES)})")
    first, last = _dates(since, until)
    q = Query(
        query,
        tuple(check_role(r) for r in role or ()),
        tuple(section or ()),
        tuple(t.lower() for t in tag or ()),
        (status,) if status else (),
        first,
        last,
        limit,
        mode=mode,
    )
    result = g.memory().search(q)
    _search_warnings(result.warnings)
    if as_json:
        _print_json({"query": query, "total": result.total, "hits": [h.to_dict() for h in result.hits]})
    else:
        lines = render_hits(result, budget)
        if lines:
            print("\n".join(lines))
    if not result.hits:
        raise typer.Exit(1)


@app.command("store")
@_errors
def store_cmd(
    ctx: typer.Context,
    role: Annotated[str, typer.Argument(help="The role the item belongs to.")],
    category: Annotated[str, typer.Argument(help="A long-term category, e.g. rejected_designs.")],
    text: Annotated[str, typer.Argument(help="The item.")],
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeatable, or comma-separated).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Keep an item in long-term memory; an equal item already there is shown and nothing is written (exit 1).

    \b
    Example:  rolebook store designer rejected_designs "floating speech bubble" --tag sticker
    """
    from rolebook.notebook import redactions

    result = _globals(ctx).memory().store(role, category, text, tag or [])
    redacted = redactions(text)
    _say_redacted(redacted)
    if as_json:
        _print_json(
            {
                "stored": result.record.to_dict() if result.record else None,
                "duplicate_of": result.existing,
                "redacted": redacted,
            }
        )
    elif result.record is not None:
        print(f"{role}/{category}: stored #{result.record.id}")
    else:
        assert result.existing is not None
        e = result.existing
        print(f"{role}/{category}: already stored [{e['date']}] {e['text']} #{e['id']}")
    if result.record is None:
        raise typer.Exit(1)


@app.command("log")
@_errors
def log_cmd(
    ctx: typer.Context,
    role: Annotated[str, typer.Argument(help="The role that had the experience.")],
    event_type: Annotated[str, typer.Option("--type", help="error, success or pattern.")],
    lesson: Annotated[str, typer.Option("--lesson", help="What was learned.")],
    context: Annotated[str, typer.Option("--context", help="What was being attempted.")] = "",
    command: Annotated[str, typer.Option("--command", help="The exact command, if any.")] = "",
    outcome: Annotated[
        str | None, typer.Option("--outcome", help="k/n: worked k times in n (default 0/1 for error, 1/1 success).")
    ] = None,
    tags: Annotated[str, typer.Option("--tags", help="Comma-separated keywords.")] = "",
    ctx_hash: Annotated[
        str | None, typer.Option("--ctx-hash", help="tool-action-pattern (default: derived from the context).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Log an experience event; outcomes of the same context hash add up to a success rate.

    \b
    Example:  rolebook log coder --type error --context "npm install failed with EACCES"
              --command "sudo chown -R $USER . && npm ci" --lesson "check ownership first" --outcome 9/10
    """
    from rolebook.notebook import redactions

    record = _globals(ctx).memory().log(role, event_type, lesson, context, command, outcome, [tags], ctx_hash)
    redacted = redactions(lesson, context, command)
    _say_redacted(redacted)
    if as_json:
        _print_json({**record.to_dict(), "redacted": redacted})
    else:
        print(f"{role}: logged {event_type} {record.extra['ctx_hash']} #{record.id}")


@app.command("doctor")
@_errors
def doctor_cmd(
    ctx: typer.Context,
    repair: Annotated[bool, typer.Option("--repair", help="Rebuild the derived index and caches first.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Check a root: malformed archive lines, the index, notebooks over cap, interrupted writes, locks.

    --repair rebuilds the derived state, removes temp files killed writers left, and
    finishes writes a crash cut short: the only change it makes to a notebook, which it
    keeps first under the derived folder's backup/ (with --as ROLE, that role's only).
    It never changes an archive. Exit 0 when healthy, 1 when something is reported.

    \b
    Example:  rolebook doctor --repair
    """
    from rolebook.notebook import diagnose

    g = _globals(ctx)
    config = g.config()
    report = diagnose(config.layout, config.limits, repair, g.writer(), config.rules_file)
    if as_json:
        _print_json(report.to_dict())
    else:
        print("\n".join(report.lines()))
    if not report.healthy:
        raise typer.Exit(1)
