"""The typer command line: each command parses its options, makes one library call,
prints the result. Errors are translated once, here: one line on stderr, exit 2
(exit 1 for "no match" and "duplicate, nothing written")."""

from __future__ import annotations

import datetime as dt
import functools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rolebook.notebook.errors import InputError, RolebookError
from rolebook.notebook.journal import Writer, WriteResult
from rolebook.notebook.layout import check_role

from .config import Config, find_root, load_config, recurrence_judge, search_mode, use_meaning

app = typer.Typer(
    name="rolebook",
    help="Memory for AI agents, per role: a small notebook read at every session start, "
    "an archive that loses nothing, rules from mistakes that keep coming back.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Globals:
    root: Path | None
    as_role: str | None
    session: str | None

    def config(self) -> Config:
        config = load_config(self.root.absolute() if self.root else find_root())
        use_meaning(config)
        return config

    def writer(self) -> Writer:
        return Writer(check_role(self.as_role) if self.as_role else None, self.session)


def _globals(ctx: typer.Context) -> Globals:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, Globals) else Globals(None, None, None)


def _errors(fn: F) -> F:
    """Turn a RolebookError into one line on stderr and its exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RolebookError as exc:
            sys.stderr.write(f"rolebook: {exc}\n")
            raise typer.Exit(exc.exit_code) from None

    return wrapper  # type: ignore[return-value]


def _say_redacted(*texts: str) -> list[str]:
    """Tell the writer which kinds of secret were redacted before writing; returns them."""
    from rolebook.notebook.intake import redactions

    kinds = redactions(*texts)
    if kinds:
        sys.stderr.write(f"rolebook: redacted before writing: {', '.join(kinds)}\n")
    return kinds


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON document on stdout, for scripts and agents.")]


@app.callback()
def _main(
    ctx: typer.Context,
    root: Annotated[
        Path | None,
        typer.Option(
            "--root", envvar="ROLEBOOK_ROOT", help="The project root (default: found from the working directory)."
        ),
    ] = None,
    as_role: Annotated[
        str | None,
        typer.Option("--as", envvar="ROLEBOOK_ROLE", help="The role you write as: writes to other roles are refused."),
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", envvar="ROLEBOOK_SESSION", help="A session id, kept on every record.")
    ] = None,
) -> None:
    ctx.obj = Globals(root, as_role, session)
    from rolebook.notebook import progress

    progress.listen(lambda message: sys.stderr.write(f"rolebook: {message}\n"))


@app.command("init")
@_errors
def init_cmd(
    ctx: typer.Context,
    roles: Annotated[list[str] | None, typer.Argument(help="Roles to create notebooks for.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Set up rolebook in this project; run it again any time, it changes nothing twice.

    Writes rolebook.yaml, a notebook and an archive per role, agents/state/PROTOCOL.md
    (the memory protocol for your CLAUDE.md / AGENTS.md to @-import), a merge=union
    line in .gitattributes for archives and a .gitignore line for the derived folder.

    \b
    Example:  rolebook init coder designer qa
    """
    from .scaffold import init

    g = _globals(ctx)
    root = g.root.absolute() if g.root else find_root()
    result = init(root, roles or [])
    if as_json:
        _print_json(result.to_dict())
        return
    for path in result.created:
        print(f"created {path}")
    for path in result.updated:
        print(f"updated {path}")
    if not result.created and not result.updated:
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

    A notebook that does not exist yet is not an error: the first update creates it.
    With --task, the archive hits most relevant to the task follow, each with its #id.

    \b
    Example:  rolebook read coder --task "fix the npm install in CI"
    """
    from .main import run_read

    g = _globals(ctx)
    if task is None:
        raise typer.Exit(run_read(g.root, role, as_json))
    from rolebook.notebook.search import Query, render_hits, search

    config = g.config()
    check_role(role)
    result = search(
        config.layout, Query(task, skip_active_of=role, limit=10, mode=search_mode(config)), model=config.model
    )
    _search_warnings(result.warnings)
    if as_json:
        from rolebook.notebook.read import read_notebook

        data = read_notebook(config.layout, role, config.limits).to_dict()
        data["task"] = {"query": task, "total": result.total, "hits": [h.to_dict() for h in result.hits]}
        _print_json(data)
        return
    run_read(g.root, role, False)
    lines = render_hits(result, budget)
    if lines:
        print(f"\nrolebook: from memory, for this task ({task!r}):")
        print("\n".join(lines))


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
    as_json: JsonOpt = False,
) -> None:
    """Session end: add entries (newest first), then prune what passes the limits to the archive.

    An entry already in the notebook is not added twice (exit 1 when nothing was new).

    \b
    Example:  rolebook update coder -m "ran migrations on prod; use the staging DB" --log "WQ-12: fixed login"
    """
    from rolebook.notebook.intake import check_date, new_entry, parse_snippet

    g = _globals(ctx)
    day = check_date(date) if date is not None else dt.date.today().isoformat()
    entries = []
    for section, texts in (
        ("mistakes", mistake),
        ("learnings", learning),
        ("feedback", feedback),
        ("session_log", log),
    ):
        entries += [new_entry(section, text, day) for text in texts or ()]
    snippet_text = ""
    if from_file is not None:
        snippet_text = _read_input(from_file)
        snippet, ignored = parse_snippet(snippet_text, day, from_file if from_file != "-" else "<stdin>")
        if ignored:
            sys.stderr.write(
                f"rolebook: {from_file}: ignored {ignored} lines that are not list items of a notebook section\n"
            )
        entries += snippet
    if not entries:
        raise InputError("nothing to add: give --mistake, --learning, --feedback, --log or --from FILE")
    from rolebook.rules.recording import record_session

    config = g.config()
    recorded = record_session(
        config.layout, config.rules_file, check_role(role), entries, config.limits, g.writer(), recurrence_judge(config)
    )
    result = recorded.result
    _warn(result)
    redacted = _say_redacted(*(mistake or ()), *(learning or ()), *(feedback or ()), *(log or ()), snippet_text)
    if as_json:
        _print_json({**recorded.to_dict(), "redacted": redacted})
    else:
        print("\n".join(recorded.lines()))
    if not result.added and not result.changed:
        raise typer.Exit(1)


def _read_input(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        with open(source, encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError("no such file", source) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", source) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", source) from None


def _warn(*results: WriteResult) -> None:
    for result in results:
        for warning in result.warnings:
            sys.stderr.write(f"rolebook: warning: {warning}\n")


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
    from rolebook.notebook.journal import tidy, tidy_check

    g = _globals(ctx)
    config = g.config()
    roles = [check_role(role)] if role else config.layout.roles()
    if check:
        results = [tidy_check(config.layout, r, config.limits) for r in roles]
    else:
        from rolebook.rules.promotion import refresh_alerts

        writer = g.writer()
        results = [tidy(config.layout, r, config.limits, writer) for r in roles]
        for name in roles:
            refresh_alerts(config.layout, config.rules_file, name, touched=set())
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
    from rolebook.notebook.journal import obsolete

    g = _globals(ctx)
    config = g.config()
    from rolebook.rules.promotion import refresh_alerts

    result = obsolete(config.layout, check_role(role), selector, config.limits, g.writer())
    refresh_alerts(config.layout, config.rules_file, role, touched=set())
    _warn(result)
    if as_json:
        _print_json(result.to_dict())
    else:
        entry = result.left[0][1]
        print(f"{role}: made obsolete #{entry.id(role)} [{entry.date}] {entry.text.splitlines()[0]}")


def _search_warnings(warnings: tuple[str, ...]) -> None:
    for warning in warnings:
        sys.stderr.write(f"rolebook: warning: {warning}\n")


# The other commands register themselves on `app` when their modules are imported.
from . import cli_agents, cli_data, cli_memory, cli_rules  # noqa: E402, F401


def run(args: list[str]) -> int:
    """Run the typer app on `args`; returns the exit code."""
    try:
        app(args=args, prog_name="rolebook", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    return 0
