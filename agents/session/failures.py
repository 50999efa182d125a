"""The failure loop in the session API (DESIGN.md section 6b): a failed command recorded
and recognised, and the lessons written in its session linked to it.

    seen      the failure hook: record the failure (once per session), recognise it as
              an earlier one, and the lessons linked to that one
    plan      session end: which of the entries answer which of the session's failures
              (linked when clear, proposed when not), and which new mistakes recur an
              earlier mistake because they answer the same failure

The journal is notebook/store/failures.py; what "the same failure" is,
notebook/search/failure.py.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rolebook.notebook import Entry
    from rolebook.notebook.search import Failure, Hit, SearchResult
    from rolebook.notebook.store import FailureBook, FailureRecord, Layout, Link

#: sections whose entries are lessons a failure can have (a Feedback, a log line is not)
LESSONS = ("mistakes", "learnings")
#: a mistake answering the same failure as an earlier one is counted with it when their
#: words are at least this alike (rules.likeness, as proposals score): the same failure
#: alone merged two different mistakes for 25 of 79 pairs on the fit part of
#: tests/fixtures/failures/recur, this bar for 2 of 40 (bench_failures.py)
SAME_MISTAKE = 0.3
#: at most this many of a session's unanswered failures are named, each in one line
NAMED = 3
NAMED_CHARS = 300


# milliseconds: a failure that comes back within the second its lesson was linked
# must still sort after the link (stats count what came back after a lesson)
def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class Recognised:
    """A failed command as the journal knows it: its id (None when not recorded), the
    earlier failure it is another instance of, and the lessons linked to that one which
    answer it (withheld: the control share held them back on purpose)."""

    failure: str | None
    same: str | None
    lessons: tuple[Link, ...] = ()
    withheld: bool = False
    linked: frozenset[str] = frozenset()  # every lesson of the role linked to a failure


def seen(
    layout: Layout,
    role: str,
    session: str | None,
    failure: Failure,
    command: str,
    output: str,
    control: float = 0.0,
    chance: random.Random | None = None,
) -> Recognised:
    """Record a failed command in the role's journal (once per session; nothing without a
    session) and recognise it: the lessons linked to the same failure, seen before."""
    from rolebook.notebook.search import Masked, answers, recognise
    from rolebook.notebook.store import append_failures, failure_id, failure_item, read_failures

    book = read_failures(layout, role)
    mask = failure.masked()
    signal = {**mask.to_dict(), "key": mask.key()}
    known = [(f.id, m) for f in book.failures.values() if (m := Masked.from_dict(f.signal)) is not None]
    fid = failure_id(role, session, mask.key()) if session else None
    alike = recognise([(i, m) for i, m in known if i != fid], mask)
    same = alike[0] if alike else None
    lessons: list[Link] = []
    for candidate in alike:  # the most alike failure whose lessons answer this one
        lessons = [
            k
            for k in book.lessons(candidate)
            if (first := Masked.from_dict(book.failures[k.failure].signal)) is not None
            and answers(k.text, first, mask, "\n".join(failure.keys))
        ]
        if lessons:
            same = candidate
            break
    withheld = bool(lessons) and control > 0 and (chance or random.Random()).random() < control
    items: list[dict[str, Any]] = []
    at = now()
    if fid is not None and session and fid not in book.failures:
        items.append(
            failure_item(role, session, at, command, failure.exit_code, signal, _excerpt(failure, output), same)
        )
    if lessons and fid is not None:
        items.append(
            {"type": "seen", "failure": fid, "session": session, "at": at, "lessons": [k.entry for k in lessons]}
            | ({"withheld": True} if withheld else {})
        )
    if items:
        append_failures(layout, role, items)
    linked = frozenset(k.entry for links in book.links.values() for k in links)
    return Recognised(fid, same, tuple(lessons), withheld, linked)


def recall(
    layout: Layout,
    roots: list[tuple[str, Layout]],
    roles: tuple[str, ...],
    command: str,
    error: str,
    exit_code: int | None,
    session: str | None,
    control: float,
) -> SearchResult:
    """`Session.recall`: with one role, the failure recorded and recognised first (`seen`),
    the lessons linked to it shown whatever their words; else (and for a failure not seen
    before) the decision on the lessons' text, for the lessons not linked to a failure."""
    from functools import partial

    from rolebook.notebook import RolebookError
    from rolebook.notebook.search import SearchResult, failure_of, sure_hits
    from rolebook.notebook.store import append_failures

    from ..meaning import nearness

    failure = failure_of(command, error, exit_code)
    answering: frozenset[str] = frozenset()
    warnings: tuple[str, ...] = ()
    known_id: str | None = None
    if len(roles) == 1:
        try:
            known = seen(layout, roles[0], session, failure, command, error, control)
        except (RolebookError, OSError) as exc:  # the text decision still answers
            warnings = (f"the failure was not recorded: {exc}",)
        else:
            if known.withheld:
                return SearchResult((), 0, ("a recognised failure's lesson was withheld (recall.control)",))
            if known.lessons:
                hits = tuple(_hit(roles[0], k) for k in known.lessons[-2:])
                return SearchResult(hits, len(hits), notes=("recognised",))
            answering, known_id = known.linked, known.failure
    if not layout.archive.exists() and not layout.memory.exists():
        return SearchResult((), 0, warnings)  # no lesson written yet
    lent = partial(nearness, layout.derived)  # the session's model, when its MCP server lends it
    found = sure_hits(roots, failure, roles, nearness=lent)
    kept = tuple(h for h in found.hits if h.origin or h.id not in answering)
    if kept and len(roles) == 1 and session and known_id:
        # shown by their words: the Stop reminder does not ask for a lesson the agent was given
        with contextlib.suppress(RolebookError, OSError):
            shown = {"type": "shown", "failure": known_id, "session": session, "at": now()}
            append_failures(layout, roles[0], [shown | {"lessons": [h.id for h in kept]}])
    return SearchResult(kept, len(kept), (*found.warnings, *warnings))


def _hit(role: str, link: Link) -> Hit:
    """A lesson linked to a failure, as the recall hook shows a hit."""
    from rolebook.notebook.search import Hit

    return Hit(link.entry, role, link.section, "active", "added", link.at[:10], link.text, 1, (), 1.0)


def _excerpt(failure: Failure, output: str) -> str:
    """What the record keeps of the output: the key lines as they were (their first line
    is what the reminder names), else the output's last lines."""
    lines = failure.keys or tuple(x.strip() for x in output.strip().splitlines()[-3:])
    return "\n".join(lines)


@dataclass(slots=True)
class Plan:
    """What a session-end write does with the session's failures: `links` (entry id ->
    failure id) to journal after the write, `same_as` (new mistake id -> the earlier mistake
    linked to the same failure) for recurrence, and the session's failures left unanswered."""

    session: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    same_as: dict[str, str] = field(default_factory=dict)
    unanswered: list[FailureRecord] = field(default_factory=list)


def plan(layout: Layout, role: str, entries: Sequence[Entry], session: str | None, failure: str | None = None) -> Plan:
    """Which lessons among `entries` answer which failure of the `session` (None: the role's
    current one, as the hooks noted it): `failure` (the
    writer's `--failure ID`) names it; else a session's one unanswered failure is answered
    by the lessons written then, whatever their words; with several, a lesson that shares
    words with one of them and not the others answers it, and the rest are left to confirm.

    Raises:
        InputError: `failure` is no failure of the role.
    """
    from rolebook.notebook import InputError
    from rolebook.notebook.store import read_failures
    from rolebook.rules import likeness

    lessons = [e for e in entries if e.section in LESSONS]
    session = session or current(layout, role)
    if not session and failure is None:
        return Plan()
    book = read_failures(layout, role)
    out = Plan(session)
    if failure is not None:
        fid = _resolve(book, failure)
        if fid is None:
            raise InputError(
                f"--failure {failure}: no failure of {role!r} has that id "
                "(the Stop reminder and `update --json` name the session's open failures by id)"
            )
        if not lessons:
            raise InputError("--failure goes with a mistake or a learning")
        out.links = {e.id(role): fid for e in lessons}
    elif session:
        open_ = book.unanswered(session)
        if len(open_) == 1:
            out.links = {e.id(role): open_[0].id for e in lessons}
        elif open_:
            for e in lessons:
                words = _words(e.text)
                shared = [(len(words & _words(f.command + " " + f.excerpt)), f.id) for f in open_]
                best = max(n for n, _ in shared)
                if best > 0 and sum(n == best for n, _ in shared) == 1:
                    out.links[e.id(role)] = next(i for n, i in shared if n == best)
    linked = set(out.links.values())
    if session:
        out.unanswered = [f for f in book.unanswered(session) if f.id not in linked]
    for e in lessons:
        fid = out.links.get(e.id(role))
        if e.section != "mistakes" or fid is None:
            continue
        earlier = [
            k.entry
            for k in _answering(book, fid)
            if k.section == "mistakes" and k.entry != e.id(role) and likeness(e.text, k.text) >= SAME_MISTAKE
        ]
        if earlier:
            out.same_as[e.id(role)] = earlier[0]
    return out


def _answering(book: FailureBook, fid: str) -> list[Link]:
    """The lessons linked to the failure `fid` is another instance of that answer it too
    (not one about a package this instance does not name)."""
    from rolebook.notebook.search import Masked, answers

    now = Masked.from_dict(book.failures[fid].signal) if fid in book.failures else None
    if now is None:
        return []
    said = book.failures[fid].excerpt
    return [
        k
        for k in book.lessons(fid)
        if (then := Masked.from_dict(book.failures[k.failure].signal)) is not None and answers(k.text, then, now, said)
    ]


def _resolve(book: FailureBook, given: str) -> str | None:
    key = given.strip().lstrip("#")
    found = [f for f in book.failures if f.startswith(key)] if len(key) >= 4 else []
    return found[0] if len(found) == 1 else None


_STOP = frozenset("the a an to of in on and or not no is was be it for with when run use".split())


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9_.-]{2,}", text.casefold()) if w not in _STOP}


def answer(layout: Layout, role: str, entry: str, lesson: str, session: str | None) -> None:
    """A logged event's lesson answers the session's one open failure (`log`): linked, as
    a learning. Never fails the write it follows."""
    from rolebook.notebook import RolebookError
    from rolebook.notebook.store import append_failures, link_item

    session = session or current(layout, role)
    if not session or not lesson.strip():
        return
    try:
        open_ = unanswered(layout, role, session)
        if len(open_) == 1:
            append_failures(layout, role, [link_item(open_[0].id, entry, "learnings", lesson, session, now())])
    except (RolebookError, OSError):
        pass


def journal_links(layout: Layout, role: str, done: Plan, entries: Sequence[Entry]) -> None:
    """Journal the links of a write that stands."""
    from rolebook.notebook.store import append_failures, link_item

    at = now()
    by_id = {e.id(role): e for e in entries}
    items = [
        link_item(fid, eid, by_id[eid].section, by_id[eid].text, done.session or "", at)
        for eid, fid in done.links.items()
        if eid in by_id
    ]
    append_failures(layout, role, items)


def unanswered(layout: Layout, role: str, session: str, reminding: bool = False) -> list[FailureRecord]:
    """The session's failures no lesson answers yet (none when the journal cannot be read);
    `reminding`: not those the hook showed a lesson for by its words."""
    from rolebook.notebook.store import read_failures

    try:
        book = read_failures(layout, role)
    except (OSError, ValueError):
        return []
    return [f for f in book.unanswered(session) if not (reminding and f.id in book.shown)]


def named(failures: Sequence[FailureRecord], chars: int = NAMED_CHARS) -> list[str]:
    """One line for each of (at most NAMED of) a session's unanswered failures, within
    `chars` in all: `#ID \\`command\\`: what it said`."""
    picked = failures[:NAMED]
    if not picked:
        return []
    share = chars // len(picked)
    out = []
    for f in picked:
        line = f"#{f.id} `{' '.join(f.command.split())[:80]}`: {' '.join(f.line.split())}"
        out.append(line if len(line) <= share else line[: share - 1] + "…")
    return out


#: the hooks' record of a role's current session is trusted this long after it was written
CURRENT_HOURS = 12


def _current_path(layout: Layout, role: str) -> Any:
    from rolebook.notebook.store import check_role

    return layout.derived / "current" / check_role(role)


def mark_current(layout: Layout, role: str, session: str) -> None:
    """Note that `session` is the role's current agent session in this project (the hooks
    call it), for the writes that name none (an MCP update)."""
    import os

    from rolebook.notebook import InputError
    from rolebook.notebook.store import read_file

    path = _current_path(layout, role)
    try:
        if read_file(path).decode("utf-8", errors="replace") == session:
            os.utime(path)
            return
    except (OSError, InputError):
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(session, encoding="utf-8")
    os.replace(tmp, path)


def current(layout: Layout, role: str) -> str | None:
    """The role's current session as the hooks last noted it, when that was recent."""
    import time

    from rolebook.notebook import InputError
    from rolebook.notebook.store import read_file

    path = _current_path(layout, role)
    try:
        if time.time() - path.stat().st_mtime > CURRENT_HOURS * 3600:
            return None
        text = read_file(path).decode("utf-8", errors="replace").strip()
    except (OSError, InputError):
        return None
    return text or None
