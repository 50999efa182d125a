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

from .config import Config, find_root, load_config

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
        return load_config(self.root.absolute() if self.root else find_root())

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
    result = search(config.layout, Query(task, skip_active_of=role, limit=10))
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
    recorded = record_session(config.layout, config.rules_file, check_role(role), entries, config.limits, g.writer())
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


def _dates(since: str | None, until: str | None) -> tuple[str | None, str | None]:
    from rolebook.notebook.intake import check_date

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
    as_json: JsonOpt = False,
) -> None:
    """Search notebooks, archives, stored items and logged events. Exit 0 with hits, 1 without.

    One line a hit: [date] role/section: text (xN) #id, cut to the token budget.

    \b
    Example:  rolebook search "npm EACCES" --role coder --status archived --since 2026-01-01
    """
    from rolebook.notebook.search import STATUSES, Query, render_hits, search

    g = _globals(ctx)
    if status is not None and status not in STATUSES:
        raise InputError(f"unknown status {status!r} (one of: {', '.join(STATUSES)})")
    first, last = _dates(since, until)
    config = g.config()
    q = Query(
        query,
        tuple(check_role(r) for r in role or ()),
        tuple(section or ()),
        tuple(t.lower() for t in tag or ()),
        (status,) if status else (),
        first,
        last,
        limit,
    )
    result = search(config.layout, q)
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
    from rolebook.notebook.longterm import store

    g = _globals(ctx)
    config = g.config()
    result = store(config.layout, check_role(role), category, text, tag or [], g.writer())
    redacted = _say_redacted(text)
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
    from rolebook.notebook.longterm import log_event

    g = _globals(ctx)
    config = g.config()
    record = log_event(
        config.layout,
        check_role(role),
        event_type=event_type,
        lesson=lesson,
        context=context,
        command=command,
        outcome=outcome,
        tags=[tags],
        ctx_hash=ctx_hash,
        writer=g.writer(),
    )
    redacted = _say_redacted(lesson, context, command)
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

    --repair rebuilds only derived state; it never changes a notebook or an archive.
    Exit 0 when healthy, 1 when something is reported.

    \b
    Example:  rolebook doctor --repair
    """
    from rolebook.notebook.doctor import diagnose

    g = _globals(ctx)
    config = g.config()
    report = diagnose(config.layout, config.limits, repair)
    if as_json:
        _print_json(report.to_dict())
    else:
        print("\n".join(report.lines()))
    if not report.healthy:
        raise typer.Exit(1)


RulesFileOpt = Annotated[
    Path | None, typer.Option("--rules-file", help="The rules file (default: rules_file in rolebook.yaml, CLAUDE.md).")
]


@app.command("promote")
@_errors
def promote_cmd(
    ctx: typer.Context,
    role: Annotated[str | None, typer.Option("--role", help="Only this role.")] = None,
    min_dates: Annotated[int, typer.Option("--min", min=2, help="Incidents on at least this many dates.")] = 3,
    apply_id: Annotated[str | None, typer.Option("--apply", help="Promote this candidate (its id).")] = None,
    text: Annotated[str | None, typer.Option("--text", help="With --apply: the rule's wording.")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Promote every candidate as proposed.")] = False,
    interactive: Annotated[
        bool | None, typer.Option("--interactive/--no-interactive", help="Ask per candidate (default: in a terminal).")
    ] = None,
    rules_file: RulesFileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Review mistakes that keep coming back and make them rules in CLAUDE.md (or AGENTS.md).

    A candidate is a group of occurrences of one mistake on at least 3 distinct dates
    (--min) that is not a rule yet. In a terminal: promote, edit or skip each one.
    Promoting writes one line into the rolebook block of the rules file and moves the
    group's notebook entries to the archive as promoted.

    \b
    Example:  rolebook promote --json
              rolebook promote --apply g1a2b3c4 --text "Merge the shapes before export."
    """
    from rolebook.rules import promotion

    g = _globals(ctx)
    config = g.config()
    path = rules_file.absolute() if rules_file else config.rules_file
    found = promotion.candidates(config.layout, path, check_role(role) if role else None, min_dates)
    if text is not None and apply_id is None:
        raise InputError("--text goes with --apply ID")
    if apply_id is not None:
        chosen = [(promotion.find_candidate(found, apply_id), text)]
    elif yes:
        chosen = [(c, None) for c in found]
    elif as_json:
        rules = [_rule_dict(config, path, r) for r in promotion.list_rules(path, role)]
        _print_json({"rules_file": str(path), "candidates": [c.to_dict() for c in found], "rules": rules})
        return
    elif interactive if interactive is not None else sys.stdin.isatty():
        chosen = _review(found)
    else:
        for c in found:
            print(f"{c.id} {c.role}: {c.count} incidents on {len(c.dates)} dates: {c.phrasing}")
        many = f"{len(found)} candidate{'s' if len(found) != 1 else ''}"
        print(f"{many}: `rolebook promote --apply ID` or `--yes`" if found else "nothing to promote")
        return
    done = [promotion.apply(config.layout, path, c, config.limits, g.writer(), t) for c, t in chosen]
    if as_json:
        _print_json(
            {"promoted": [{"rule": p.rule.id, "line": p.rule.line(), "left": p.result.count("promoted")} for p in done]}
        )
        return
    for p in done:
        n = p.result.count("promoted")
        print(
            f"{p.rule.role}: promoted {p.rule.id} to {path.name}: {p.rule.text} "
            f"({n} notebook {'entry' if n == 1 else 'entries'} archived as promoted)"
        )
    if not done:
        print("nothing promoted")


def _review(found: list[Any]) -> list[tuple[Any, str | None]]:
    chosen: list[tuple[Any, str | None]] = []
    for n, c in enumerate(found, 1):
        print(f"[{n}/{len(found)}] {c.role}: {c.count} incidents on {len(c.dates)} dates ({', '.join(c.dates)})")
        print(f"  latest wording: {c.phrasing}")
        print(f"  proposed rule:  {c.rule().line()}")
        answer = typer.prompt("  promote, edit, skip or quit? [p/e/s/q]", default="s").strip().lower()[:1]
        if answer == "p":
            chosen.append((c, None))
        elif answer == "e":
            chosen.append((c, typer.prompt("  rule text", default=c.rule().text)))
        elif answer == "q":
            break
    return chosen


def _rule_dict(config: Config, path: Path, rule: Any) -> dict[str, Any]:
    from rolebook.rules.promotion import rule_report

    return rule_report(config.layout, path, rule)


@app.command("rules")
@_errors
def rules_cmd(
    ctx: typer.Context,
    role: Annotated[str | None, typer.Option("--role", help="Only this role.")] = None,
    rules_file: RulesFileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the rules rolebook manages in the rules file, with their ids.

    \b
    Example:  rolebook rules --role designer
    """
    from rolebook.rules.promotion import list_rules

    g = _globals(ctx)
    config = g.config()
    path = rules_file.absolute() if rules_file else config.rules_file
    rules = list_rules(path, check_role(role) if role else None)
    if as_json:
        _print_json({"rules_file": str(path), "rules": [_rule_dict(config, path, r) for r in rules]})
        return
    for r in rules:
        print(f"{r.id} {r.role}: {r.text} (incidents {', '.join(r.incidents)})")
    if not rules:
        print(f"no rules in {path} yet: `rolebook promote` reviews the mistakes that keep coming back")


@app.command("demote")
@_errors
def demote_cmd(
    ctx: typer.Context,
    rule_id: Annotated[str, typer.Argument(help="The rule's id, from `rolebook rules`.")],
    rules_file: RulesFileOpt = None,
) -> None:
    """Take a rule back out of the rules file; the archive keeps it as demoted.

    \b
    Example:  rolebook demote R3f9a1c
    """
    from rolebook.rules.promotion import demote

    g = _globals(ctx)
    config = g.config()
    path = rules_file.absolute() if rules_file else config.rules_file
    rule = demote(config.layout, path, rule_id, g.writer())
    print(f"{rule.role}: demoted {rule.id} from {path.name}: {rule.text}")


@app.command("recall")
def recall_cmd(
    ctx: typer.Context,
    role: Annotated[str | None, typer.Option("--role", help="Only this role's memory.")] = None,
    command: Annotated[str | None, typer.Option("--command", help="The command that failed.")] = None,
    error: Annotated[str | None, typer.Option("--error", help="Its error output.")] = None,
) -> None:
    """For hooks: print past lessons matching a failed tool call, or nothing. Never fails.

    Reads the agent CLI's hook JSON on stdin (tool name, command, error), or takes
    --command and --error. In a hook it answers in the form the CLI adds to context.

    \b
    Example:  rolebook recall --command "npm ci" --error "EACCES: permission denied"
    """
    from .hooks import run as run_hook

    g = _globals(ctx)
    raise typer.Exit(run_hook("recall", {"root": g.root, "role": role, "command": command, "error": error}))


@app.command("hook")
def hook_cmd(
    ctx: typer.Context,
    event: Annotated[str, typer.Argument(help="session-start or stop.")],
    role: Annotated[str, typer.Option("--role", help="The role whose memory the session uses.")],
) -> None:
    """For agent CLI hooks: session-start prints the notebook; stop reminds the agent to write its lessons.

    Reads the hook JSON on stdin. Never fails the agent: problems go to stderr, exit 0.

    \b
    Example (Claude Code SessionStart):  rolebook hook session-start --role coder
    """
    from .hooks import run as run_hook

    g = _globals(ctx)
    raise typer.Exit(run_hook(event, {"root": g.root, "role": role}))


@app.command("integrate")
@_errors
def integrate_cmd(
    ctx: typer.Context,
    agent: Annotated[str, typer.Argument(help="claude, codex, gemini, copilot or cursor.")],
    role: Annotated[str | None, typer.Option("--role", help="The role this project's agent works as.")] = None,
    print_only: Annotated[bool, typer.Option("--print", help="Show what would change; write nothing.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Wire rolebook into an agent CLI: its MCP server entry, its hooks, its rules file.

    Merges into existing settings keeping every other key; a second run changes nothing.

    \b
    Example:  rolebook integrate claude --role coder
    """
    from .integrations import apply, plan

    g = _globals(ctx)
    root = g.root.absolute() if g.root else find_root()
    planned = plan(agent, root, check_role(role) if role else None)
    done = [p for p in planned if p.changed] if print_only else apply(planned)
    if as_json:
        _print_json([{"path": str(p.path), "what": p.what, "changed": p.changed, "text": p.after} for p in planned])
        return
    for p in planned:
        rel = p.path.relative_to(root) if p.path.is_relative_to(root) else p.path
        if print_only and p.changed:
            print(f"--- {rel} ({p.what}) would become:\n{p.after}")
        elif p.changed:
            print(f"{'created' if p.before is None else 'updated'} {rel}: {p.what}")
    if not done:
        print(f"{agent}: already integrated, nothing to change")


@app.command("merge-driver", hidden=True)
def merge_driver_cmd(
    base: Annotated[Path, typer.Argument(help="%O: the common ancestor.")],
    ours: Annotated[Path, typer.Argument(help="%A: ours; the result is written here.")],
    theirs: Annotated[Path, typer.Argument(help="%B: theirs.")],
    pathname: Annotated[str | None, typer.Argument(help="%P: the notebook's path.")] = None,
) -> None:
    """git's merge driver for notebooks (init registers it): entries merged by id, caps re-applied."""
    from .merge import run as merge

    raise typer.Exit(merge(base, ours, theirs, pathname))


@app.command("mcp")
def mcp_cmd(ctx: typer.Context) -> None:
    """Serve rolebook to any agent that speaks MCP, over stdio.

    Tools: read, update, search, store, log, promote_review, promote_apply. Resources:
    rolebook://notebook/{role} and rolebook://rules. A prompt: memory_protocol. The root is
    the client's workspace root when it offers one, else --root, else the working directory.
    With --as ROLE (or ROLEBOOK_ROLE) writes to other roles are refused.

    \b
    Example (Claude Code):  claude mcp add rolebook -- rolebook mcp
    """
    from .mcp_server import run as serve

    g = _globals(ctx)
    serve(g.root, g.as_role, g.session)


def run(args: list[str]) -> int:
    """Run the typer app on `args`; returns the exit code."""
    try:
        app(args=args, prog_name="rolebook", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 2)
    return 0
