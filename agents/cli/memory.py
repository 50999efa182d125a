"""Commands over long-term memory: search, store, log, doctor."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rolebook.notebook import InputError
from rolebook.notebook.display import shown

from .app import JsonOpt, NewRoleOpt, _errors, _globals, _print_json, _say_redacted, app, hot


@app.command("search")
@hot("search")
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
    root_only: Annotated[
        bool, typer.Option("--root-only", help="Only this project, not the shared roots rolebook.yaml names.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Search notebooks, archives, stored items and logged events. Exit 0 with hits, 1 without.

    One line a hit: [date] role/section: text (xN) #id, cut to the token budget.
    With pip install 'rolebook[semantic]' it finds by meaning too (--mode). Shared roots
    (shared_roots in rolebook.yaml) are searched too, ranked together, their hits marked
    with the root's name: [date] team:coder/learnings: ...

    \b
    Example:  rolebook search "npm EACCES" --role coder --status archived --since 2026-01-01
    """


@app.command("store")
@_errors
def store_cmd(
    ctx: typer.Context,
    role: Annotated[str, typer.Argument(help="The role the item belongs to.")],
    category: Annotated[str, typer.Argument(help="A long-term category, e.g. rejected_designs.")],
    text: Annotated[str, typer.Argument(help="The item.")],
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeatable, or comma-separated).")] = None,
    cite: Annotated[
        list[str] | None,
        typer.Option("--cite", help="Code the item rests on, path[:LINE[-LINE]]: `read` says when it changes."),
    ] = None,
    new_role: NewRoleOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Keep an item in long-term memory; an equal item already there is shown and nothing is written (exit 1).

    \b
    Example:  rolebook store designer rejected_designs "floating speech bubble" --tag sticker
              rolebook store coder api_quirks "the retry budget is 3" --cite src/client.py:88-90
    """
    from rolebook.notebook.store import parse_cite, reads_as_order, redactions

    session = _globals(ctx).session(new_roles=new_role)
    fields = {"cite": [parse_cite(session.layout.root, c) for c in cite]} if cite else None
    result = session.store(role, category, text, tag or [], fields)
    redacted = redactions(text)
    _say_redacted(redacted)
    if result.record is not None and (why := reads_as_order(text)) is not None:
        sys.stderr.write(f"rolebook: warning: #{result.record.id} reads like an order to the agent: it {why}; kept\n")
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
        print(shown(f"{role}/{category}: already stored [{e['date']}] {' '.join(str(e['text']).split())} #{e['id']}"))
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
    new_role: NewRoleOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Log an experience event; outcomes of the same context hash add up to a success rate.

    \b
    Example:  rolebook log coder --type error --context "npm install failed with EACCES"
              --command "sudo chown -R $USER . && npm ci" --lesson "check ownership first" --outcome 9/10
    """
    from rolebook.notebook.store import redactions

    record = (
        _globals(ctx)
        .session(new_roles=new_role)
        .log(role, event_type, lesson, context, command, outcome, [tags], ctx_hash)
    )
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
    It never changes an archive but to take out again a redacted text a merge brought back.
    It lists every entry an instructions file or cited code no longer backs (drift: `read`
    shows the first). With the semantic extra it also gives every record its vector
    (searches do that a few seconds at a time). Exit 0 when healthy, 1 when something is
    reported.

    \b
    Example:  rolebook doctor --repair
    """
    from rolebook.notebook.store import diagnose

    g = _globals(ctx)
    config = g.config()
    report = diagnose(config.layout, config.limits, repair, g.writer(), config.rules_file)
    if repair:  # the vectors searches by meaning give records a few seconds at a time: all of them
        from rolebook.notebook.search import embed_all

        session = g.session(config)
        embedded = embed_all(config.layout, session.mode, session.model)
        if embedded is not None and embedded[1]:
            sys.stderr.write(f"rolebook: embedded {embedded[1]:,} records with {embedded[0]}\n")
    from ..session.provenance import drift

    report.drift = drift(g.session(config))
    if as_json:
        _print_json(report.to_dict())
    else:
        print("\n".join(map(shown, report.lines())))
    if not report.healthy:
        raise typer.Exit(1)


@app.command("share")
@_errors
def share_cmd(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="The id of an entry, stored item or event (4+ characters).")],
    to: Annotated[str | None, typer.Option("--to", help="The shared root (its name in rolebook.yaml).")] = None,
    commit: Annotated[bool, typer.Option("--commit", help="Also commit the change in the shared root's git.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Copy one remembered item into a shared root (a team's knowledge repository).

    The copy goes into the shared root's archive under the same role, with where it came
    from (this repository, the id, who wrote it), secrets redacted again. Sharing twice
    adds nothing. The agents of every project that names the root find it in search.

    \b
    Example:  rolebook share 3f2a9c1d --to team --commit
    """
    g = _globals(ctx)
    session = g.session()
    name, done = session.share(item_id, to)
    _, target = session.shared_root(name)
    root = target.layout.root
    archive = target.layout.archive_path(done.record.role)
    committed = (
        _commit(root, archive, f"rolebook: share #{done.record.id} from {session.repo}")
        if (commit and done.added)
        else None
    )
    if as_json:
        _print_json(
            {
                "root": name,
                "added": done.added,
                "record": done.record.to_dict(),
                "redacted": list(done.redacted),
                "committed": committed,
            }
        )
        return
    _say_redacted(done.redacted)
    if not done.added:
        print(f"{name}: #{done.record.id} is shared already; nothing changed")
        return
    where = archive.relative_to(root) if archive.is_relative_to(root) else archive
    print(shown(f"{name}: shared #{done.record.id} ({done.record.role}/{done.record.section}) into {root}: {where}"))
    if committed:
        print(f"{name}: committed {committed}; publish it with: git -C {root} push")
    else:
        message = f"rolebook: share #{done.record.id}"
        git = f"git -C {root}"
        print(f"publish it with: {git} add {where} && {git} commit -m '{message}' && {git} push")


def _commit(root: Path, path: Path, message: str) -> str:
    """Commit one file in the git repository at `root`; the new commit's short hash.

    Raises:
        InputError: git is missing, `root` is not a repository, or the commit fails.
    """
    import subprocess

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
        except OSError as exc:
            raise InputError(f"git could not run ({exc}); the item is shared, not committed") from None
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["failed"])[-1]
            raise InputError(f"git {args[0]} in {root}: {why}; the item is shared, not committed")
        return done.stdout.strip()

    git("add", "--", str(path))
    git("commit", "-q", "-m", message, "--", str(path))
    return git("rev-parse", "--short", "HEAD")
