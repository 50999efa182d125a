"""The failure journal: the failed commands a role's sessions saw, and the lessons that
answer them (DESIGN.md section 6b).

One append-only JSONL file per role, `<archive>/failures/<role>.jsonl`, beside the
archive: canonical (recurrence counting reads it; it travels with git, merged as a
union), never the derived folder. Three kinds of record:

    failure   a session's first sighting of a failure: session, time, the command, its
              exit code, the failure's masked signal (`signal`: what two instances of it
              agree in), a short redacted excerpt, and `same`, the id of the earlier
              failure it was recognised as (the first of its kind has none)
    link      a lesson (an entry id, its section and text) answers a failure
    seen      a recognised failure's lesson shown (or withheld on purpose: `withheld`)

Growth is bounded: a session records a failure once, however often it fails the same
way, and a record's strings are capped. A line that does not parse is skipped and kept.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .archive import append_lines
from .fsutil import role_lock
from .layout import Layout, check_role

#: the folder under the archive that holds the journals
FOLDER = "failures"
#: what a record keeps of the command and of the output, in characters
COMMAND_CHARS = 300
EXCERPT_CHARS = 300
#: how long the failure hook waits for another writer of the journal
LOCK_SECONDS = 5.0


def failures_path(layout: Layout, role: str) -> Path:
    return layout.archive / FOLDER / f"{check_role(role)}.jsonl"


def failure_id(role: str, session: str, key: str) -> str:
    """A failure's id: the same for one session's sightings of one failure. (crc32 twice,
    not hashlib: loading OpenSSL costs the failure hook 3 ms.)"""
    data = f"{role}\0{session}\0{key}".encode()
    return f"f{zlib.crc32(data):08x}{zlib.crc32(data[::-1]):08x}"[:10]


@dataclass(frozen=True, slots=True)
class FailureRecord:
    """One session's first sighting of a failure."""

    id: str
    session: str
    at: str
    command: str
    exit_code: int | None
    signal: Mapping[str, Any]
    excerpt: str
    same: str | None = None  # the earlier failure this one was recognised as

    @property
    def line(self) -> str:
        """The excerpt's first line: what the failure said."""
        return self.excerpt.split("\n", 1)[0]


@dataclass(frozen=True, slots=True)
class Link:
    """A lesson that answers a failure."""

    failure: str
    entry: str
    section: str
    text: str
    session: str
    at: str


@dataclass(slots=True)
class FailureBook:
    """A role's failure journal, read: failures by id in the order written, links by failure,
    and the `seen` records (shown or withheld)."""

    failures: dict[str, FailureRecord] = field(default_factory=dict)
    links: dict[str, list[Link]] = field(default_factory=dict)
    seen: list[dict[str, Any]] = field(default_factory=list)
    #: failures the hook showed lessons for by their words (not linked): the agent has one
    shown: set[str] = field(default_factory=set)

    def first(self, fid: str) -> str:
        """The id of the first instance of the failure `fid` is another instance of."""
        hops = 0
        while (record := self.failures.get(fid)) is not None and record.same and hops < 1000:
            fid, hops = record.same, hops + 1
        return fid

    def kinds(self) -> dict[str, list[FailureRecord]]:
        """The failures grouped by their first instance, each group in the order written."""
        out: dict[str, list[FailureRecord]] = {}
        for record in self.failures.values():
            out.setdefault(self.first(record.id), []).append(record)
        return out

    def lessons(self, fid: str) -> list[Link]:
        """The lessons linked to any instance of the failure `fid` is one of, oldest first,
        one per entry."""
        first = self.first(fid)
        found: dict[str, Link] = {}
        for record in self.failures.values():
            if self.first(record.id) == first:
                for link in self.links.get(record.id, ()):
                    found.setdefault(link.entry, link)
        return sorted(found.values(), key=lambda k: k.at)

    def of_session(self, session: str) -> list[FailureRecord]:
        return [f for f in self.failures.values() if f.session == session]

    def unanswered(self, session: str) -> list[FailureRecord]:
        """The session's failures that no lesson answers yet, newest first."""
        return [f for f in reversed(self.of_session(session)) if not self.links.get(f.id)]


#: fewer failures than this, and the figures say they are too few to mean anything
FEW = 20


def figures(book: FailureBook) -> dict[str, Any]:
    """What recurs, from a role's failure journal: failures seen (one per session and
    failure), distinct failures, the failures that came back after a lesson was linked to
    an earlier instance (its lesson shown, withheld on purpose by recall.control, or not
    shown), and per ISO week the failures seen and how many were a failure seen before
    (the repeat-failure rate)."""
    import datetime as dt

    kinds = book.kinds()
    linked_at: dict[str, str] = {}  # first instance -> when a lesson was first linked to its kind
    for fid, links in book.links.items():
        first = book.first(fid)
        for link in links:
            if link.at and (first not in linked_at or link.at < linked_at[first]):
                linked_at[first] = link.at
    outcome: dict[str, str] = {}  # failure id -> "shown" | "withheld"
    for item in book.seen:
        said = item.get("failure")
        if isinstance(said, str):
            outcome[said] = "withheld" if item.get("withheld") else "shown"
    after = Counter(
        outcome.get(f.id, "not shown")
        for f in book.failures.values()
        if f.same and (when := linked_at.get(book.first(f.id))) and f.at > when
    )
    weeks: dict[str, list[int]] = {}
    for f in book.failures.values():
        try:
            year, number, _ = dt.date.fromisoformat(f.at[:10]).isocalendar()
        except ValueError:
            continue
        seen = weeks.setdefault(f"{year}-W{number:02d}", [0, 0])
        seen[0] += 1
        seen[1] += bool(f.same)
    total = len(book.failures)
    repeats = sum(bool(f.same) for f in book.failures.values())
    return {
        "seen": total,
        "distinct": len(kinds),
        "repeats": repeats,
        "repeat_rate": round(repeats / total, 3) if total else None,
        "after_lesson": {k: after.get(k, 0) for k in ("shown", "withheld", "not shown")},
        "per_week": {w: {"seen": n, "repeats": r} for w, (n, r) in sorted(weeks.items())},
        "too_few": total < FEW,
    }


def scrub_journals(layout: Layout, forms: list[bytes], lines: Callable[[Path], Iterable[bytes]]) -> list[Path]:
    """Rewrite, each under its lock and atomically, the failure journals that hold any of
    `forms` (bytes), as `lines(path)` gives them (`redact`: a link copies its lesson's text,
    an excerpt may quote it). Returns the journals rewritten."""
    from .fsutil import atomic_write, read_file

    done = []
    folder = layout.archive / FOLDER
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        layout.check_inside(path)
        with role_lock(layout.locks / f"failures-{path.stem}.lock", timeout=LOCK_SECONDS):
            if any(form in read_file(path) for form in forms):
                atomic_write(path, b"".join(lines(path)))
                done.append(path)
    return done


def read_failures(layout: Layout, role: str) -> FailureBook:
    """A role's failure journal (empty when there is none)."""
    book = FailureBook()
    try:
        data = failures_path(layout, role).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return book
    for raw in data.splitlines():
        try:
            item = json.loads(raw)
        except ValueError:
            continue
        if isinstance(item, dict):
            _take(book, item)
    return book


def _take(book: FailureBook, item: dict[str, Any]) -> None:
    kind, fid = item.get("type"), item.get("failure", item.get("id"))
    if not isinstance(fid, str) or not fid:
        return
    text = {k: v if isinstance(v, str) else "" for k, v in item.items()}
    if kind == "failure" and fid not in book.failures:
        code = item.get("exit_code")
        signal = item.get("signal")
        same = item.get("same")
        book.failures[fid] = FailureRecord(
            fid,
            text.get("session", ""),
            text.get("at", ""),
            text.get("command", ""),
            code if isinstance(code, int) else None,
            signal if isinstance(signal, dict) else {},
            text.get("excerpt", ""),
            same if isinstance(same, str) and same != fid else None,
        )
    elif kind == "link" and text.get("entry"):
        link = Link(
            fid,
            text["entry"],
            text.get("section", ""),
            text.get("text", ""),
            text.get("session", ""),
            text.get("at", ""),
        )
        links = book.links.setdefault(fid, [])
        if all(k.entry != link.entry for k in links):
            links.append(link)
    elif kind == "seen":
        book.seen.append(item)
    elif kind == "shown" and isinstance(item.get("failure"), str):
        book.shown.add(item["failure"])


def append_failures(layout: Layout, role: str, items: Iterable[Mapping[str, Any]]) -> int:
    """Append records to a role's failure journal, redacted, under its own lock, fsynced.
    Returns bytes written."""
    from .secrets import redact_value

    lines = []
    for item in items:
        data, _ = redact_value(dict(item), pairs=False)
        lines.append((json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    if not lines:
        return 0
    path = failures_path(layout, role)
    layout.check_inside(path.parent)
    with role_lock(layout.locks / f"failures-{role}.lock", timeout=LOCK_SECONDS):
        return append_lines(path, lines)


def failure_item(
    role: str,
    session: str,
    at: str,
    command: str,
    exit_code: int | None,
    signal: Mapping[str, Any],
    excerpt: str,
    same: str | None = None,
) -> dict[str, Any]:
    """A `failure` record, its id derived from the role, the session and the signal's key."""
    key = str(signal.get("key", ""))
    item: dict[str, Any] = {
        "type": "failure",
        "id": failure_id(role, session, key),
        "session": session,
        "at": at,
        "command": command[:COMMAND_CHARS],
        "exit_code": exit_code,
        "signal": dict(signal),
        "excerpt": excerpt[:EXCERPT_CHARS],
    }
    if same:
        item["same"] = same
    return item


def link_item(failure: str, entry: str, section: str, text: str, session: str, at: str) -> dict[str, Any]:
    return {
        "type": "link",
        "failure": failure,
        "entry": entry,
        "section": section,
        "text": text,
        "session": session,
        "at": at,
    }
