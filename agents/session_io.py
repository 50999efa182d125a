"""The two commands of every agent session, as printed, with no typer in the way: the
start (`rolebook read`, the session-start hook: the notebook's bytes as they are, its
alerts, the task hits) and the end (`rolebook update`: one summary line).

main.py answers the plain forms of both without typer (it costs about five bare
interpreter start-ups); the typer commands in cli/notebooks.py call the same functions.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rolebook.notebook import Entry
    from rolebook.notebook.store import Writer

    from .results import Started


def run_read(root: Path | None, role: str, as_json: bool) -> int:
    """Print a role's notebook as it is on disk, then its alerts. Returns the exit code."""
    from .config import find_root, load_config
    from .session import open_session

    started = open_session(load_config(root.absolute() if root else find_root())).start(role)
    if as_json:
        sys.stdout.write(json.dumps(started.to_dict(), ensure_ascii=False, indent=2) + "\n")
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
    root: Path | None,
    writer: Writer,
    role: str,
    texts: Mapping[str, Sequence[str]],
    date: str | None,
    as_json: bool,
    snippet: tuple[list[Entry], str] = ([], ""),
    new_role: bool = False,
) -> int:
    """Add a session's entries (texts by section, and those of an `--from` snippet) and
    print what was done. Returns the exit code: 1 when nothing was new. `new_role`: a role
    with no notebook yet may be started (--new-role).

    Raises:
        RolebookError: bad input or a failed write (nothing written, or the message says what was).
    """
    from rolebook.notebook import InputError
    from rolebook.notebook.store import check_date

    from .config import find_root, load_config
    from .session import open_session

    session = open_session(load_config(root.absolute() if root else find_root()), writer, new_role)
    day = check_date(date) if date is not None else dt.date.today().isoformat()
    entries = session.entries(day, **texts) + snippet[0]
    if not entries:
        raise InputError("nothing to add: give --mistake, --learning, --feedback, --log or --from FILE")
    recorded = session.end(role, entries, [*(t for ts in texts.values() for t in ts), snippet[1]])
    result = recorded.result
    for warning in (*result.warnings, *recorded.warnings):
        sys.stderr.write(f"rolebook: warning: {warning}\n")
    if recorded.redacted:
        sys.stderr.write(f"rolebook: redacted before writing: {', '.join(recorded.redacted)}\n")
    if as_json:
        sys.stdout.write(json.dumps(recorded.to_dict(), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(recorded.lines()) + "\n")
    sys.stdout.flush()
    return 0 if result.added or result.changed else 1
