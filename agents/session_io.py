"""The commands of an agent's session, as printed: the start (`rolebook read`, the
session-start hook: the notebook's bytes as they are, its alerts, the task hits), the end
(`rolebook update`: one summary line) and `rolebook search`.

Each is called with the global options and the command's parameters, as parsed by typer
(the commands in cli/) or by the fast path from the same definition (fastpath.py),
and returns the exit code. No typer here: these run at every session's start and end.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rolebook.notebook.display import shown, shown_json

if TYPE_CHECKING:
    from rolebook.notebook.store import Writer

    from .config import Config
    from .session import Session
    from .session.results import Started


#: The `source` on every record a rolebook command writes (DESIGN.md section 4).
SOURCE = "cli"


@dataclass(frozen=True, slots=True)
class Globals:
    """The options before the command: `--root`, `--as`, `--session`."""

    root: Path | None = None
    as_role: str | None = None
    session_id: str | None = None

    def config(self) -> Config:
        from .config import find_root, load_config

        return load_config(self.root.absolute() if self.root else find_root())

    def session(self, config: Config | None = None, new_roles: bool = False) -> Session:
        """The session API over this root, as this writer."""
        from .session import open_session

        # no writer named: the session makes an unscoped one when it writes (the read path
        # does not import the write path)
        scoped = self.as_role is not None or self.session_id is not None
        return open_session(config or self.config(), self.writer() if scoped else None, SOURCE, new_roles)

    def writer(self) -> Writer:
        from rolebook.notebook.store import Writer, check_role

        return Writer(check_role(self.as_role) if self.as_role else None, self.session_id, SOURCE)


def begin(root: Path | None, as_role: str | None, session: str | None) -> Globals:
    """What every command starts with: its global options, and slow work told on stderr."""
    from rolebook.notebook import progress

    from . import watch

    progress.listen(lambda message: sys.stderr.write(f"rolebook: {message}\n"))
    watch.start()
    return Globals(root, as_role, session)


def run_read(g: Globals, role: str, task: str | None, budget: int, as_json: bool) -> int:
    """Print a role's notebook as it is on disk, then its alerts, then (with a task) the
    archive hits most relevant to it. Returns the exit code."""
    started = g.session().start(role, task, budget)
    if started.found is not None:
        warn(started.found.warnings)
    if as_json:
        print_json(started.to_dict())
    else:
        write_started(started)
    return 0


def write_started(started: Started) -> None:
    """Write what a session starts with to stdout, the notebook's bytes as they are."""
    out = sys.stdout
    out.flush()
    out.buffer.write(started.render())
    out.buffer.flush()


def run_update(
    g: Globals,
    role: str,
    mistake: Sequence[str] | None,
    learning: Sequence[str] | None,
    feedback: Sequence[str] | None,
    log: Sequence[str] | None,
    date: str | None,
    from_file: str | None,
    as_json: bool,
    same_as: str | None = None,
    supersedes: Sequence[str] | None = None,
    cite: Sequence[str] | None = None,
    new_role: bool = False,
    failure: str | None = None,
) -> int:
    """Add a session's entries (given by section, or in a markdown file: `from_file`, '-'
    for stdin) and print what was done, with the earlier mistakes each new one looks like.
    `same_as`: the writer's word that the one mistake recurs that earlier one;
    `supersedes`: ids the entries correct (retired in the same write); `cite`: code the
    entries rest on (`path[:lines]`), checked at every `read` from then on; `new_role`: a
    role with no notebook yet may be started (--new-role); `failure`: the id of the
    session's failed command the lessons answer. Returns the exit code: 1 when nothing
    was new.

    Raises:
        RolebookError: bad input or a failed write (nothing written, or the message says what was).
    """
    import datetime as dt

    from rolebook.notebook import InputError
    from rolebook.notebook.store import check_date

    session = g.session(new_roles=new_role)
    day = check_date(date) if date is not None else dt.date.today().isoformat()
    texts = {
        "mistakes": mistake or [],
        "learnings": learning or [],
        "feedback": feedback or [],
        "session_log": log or [],
    }
    entries = session.entries(day, **texts)
    said = [t for ts in texts.values() for t in ts]
    if from_file is not None:
        from rolebook.notebook.store import parse_snippet

        text = read_input(from_file)
        snippet, ignored = parse_snippet(text, day, from_file if from_file != "-" else "<stdin>")
        if ignored:
            sys.stderr.write(
                f"rolebook: {from_file}: ignored {ignored} lines that are not list items of a notebook section\n"
            )
        entries += snippet
        said.append(text)
    if not entries:
        raise InputError("nothing to add: give --mistake, --learning, --feedback, --log or --from FILE")
    if same_as is not None and from_file is not None:
        raise InputError("--same-as goes with one --mistake, not with --from")
    fields = None
    if cite:
        from rolebook.notebook.store import parse_cite

        cites = [parse_cite(session.layout.root, c) for c in cite]
        fields = {e.id(role): {"cite": cites} for e in entries}
    recorded = session.end(role, entries, said, fields, same_as, supersedes or (), failure=failure)
    result = recorded.result
    warn((*result.warnings, *recorded.warnings))
    if recorded.redacted:
        sys.stderr.write(f"rolebook: redacted before writing: {', '.join(recorded.redacted)}\n")
    if as_json:
        print_json(recorded.to_dict())
    else:
        sys.stdout.write("\n".join(map(shown, recorded.lines())) + "\n")
    sys.stdout.flush()
    return 0 if result.added or result.changed or recorded.linked or recorded.answered else 1


def run_search(
    g: Globals,
    query: str,
    role: Sequence[str] | None,
    section: Sequence[str] | None,
    tag: Sequence[str] | None,
    status: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    budget: int,
    mode: str | None,
    root_only: bool,
    as_json: bool,
) -> int:
    """Print the hits for a query within the budget. Returns the exit code: 1 without hits.

    Raises:
        RolebookError: a bad filter, or a search that failed.
    """
    from rolebook.notebook import InputError
    from rolebook.notebook.search import STATUSES, Query, render_hits
    from rolebook.notebook.store import check_date, check_role

    if status is not None and status not in STATUSES:
        raise InputError(f"unknown status {status!r} (one of: {', '.join(STATUSES)})")
    q = Query(
        query,
        tuple(check_role(r) for r in role or ()),
        tuple(section or ()),
        tuple(t.lower() for t in tag or ()),
        (status,) if status else (),
        check_date(since) if since else None,
        check_date(until) if until else None,
        limit,
        mode=mode,
    )
    result = g.session().search(q, root_only=root_only)
    warn(result.warnings)
    for note in result.notes:
        sys.stderr.write(f"rolebook: note: {note}\n")
    if as_json:
        data: dict[str, Any] = {"query": query, "total": result.total, "hits": [h.to_dict() for h in result.hits]}
        if result.notes:
            data["notes"] = list(result.notes)
        print_json(data)
    else:
        lines = render_hits(result, budget)
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
    return 0 if result.hits else 1


def read_input(source: str) -> str:
    """The text of a file, or of stdin for '-'.

    Raises:
        InputError: missing, unreadable, or not UTF-8.
    """
    from rolebook.notebook import InputError

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


def warn(warnings: Sequence[str]) -> None:
    """Each warning, one line on stderr, shown escaped."""
    for warning in warnings:
        sys.stderr.write(f"rolebook: warning: {shown(warning)}\n")


def print_json(data: Any) -> None:
    """One JSON document on stdout, with what JSON leaves raw escaped (`display.shown_json`)."""
    sys.stdout.write(shown_json(data) + "\n")
