"""The changes a notebook goes through, each one transaction of the write path
(`journal.transact`): add a session's entries, apply the limits, retire an entry, and
restore an export.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import InputError, NoMatch
from ..limits import Limits, frontmatter_limits, prune
from ..markdown import add_entries, entry_positions, new_notebook_text, parse, remove_parts, render
from ..model import Entry, Notebook, count_lines, normalize
from . import read as readpath
from .archive import read_lines, redacted_line
from .index import Index
from .journal import Change, Recorder, Writer, WriteResult, check_scope, transact
from .layout import Layout
from .secrets import redact

#: How a new mistake is journalled when it is not simply added: `rolebook.rules.recurrence`
#: makes it a recurrence of the earlier occurrences it matches. Returns the entry to add;
#: it may record that entries of this write (in `Change.added`) left as well.
Recur = Callable[[Index, Recorder, Change, Entry, Mapping[str, Any]], Entry]
#: What else the write does once its entries are judged, in the same transaction (the
#: recurrences a writer confirmed of mistakes written before: `rolebook.rules.recurrence`).
After = Callable[[Index, Recorder, Change], None]


def update(
    layout: Layout,
    role: str,
    entries: Sequence[Entry],
    limits: Limits,
    writer: Writer,
    recur: Recur | None = None,
    fields: Mapping[str, Mapping[str, Any]] | None = None,
    after: After | None = None,
    supersedes: Sequence[str] = (),
) -> WriteResult:
    """Add entries to a role's notebook (newest first), then apply its limits.

    An entry already active, or already journalled and since gone, is not written twice;
    one journalled but missing from the notebook (a write cut short) is put back.
    With `recur` (`rolebook.rules.recurrence`), a new mistake is journalled through it: as a
    recurrence of the earlier occurrences it matches, if any. Entries are judged oldest
    first, each against the ones before it, so that one write of many entries ends as
    the same entries written one by one would.
    `fields` (by entry id) are kept on an entry's `added` record: an import's `source`.
    Every entry is redacted here, whoever built it (an import's notebook, the API's memory
    tool): its id is made from the text the notebook and the archive will hold.
    `supersedes`: ids (`#` and 4+ characters) of items these entries correct; each leaves
    as obsolete in the same write, with the ids that superseded it.

    Raises:
        NoMatch: an id to supersede that nothing has. InputError: one several ids start with.
    """
    entries = [e if (text := redact(e.text)[0]) == e.text else replace(e, text=text, raw="") for e in entries]

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        change = Change(nb)
        first: dict[str, Entry] = {}
        for e in entries:
            if first.setdefault(e.id(role), e) is not e:
                change.duplicates.append(e)  # the same entry twice in one batch
        fresh = sorted(first.values(), key=lambda e: e.date)  # stable: same-day order kept
        active = {e.id(role) for e in nb.entries()}
        states = index.states(first)
        for e in fresh:
            state = states.get(e.id(role))
            if e.id(role) in active or (state is not None and state.op != "added"):
                change.duplicates.append(e)
                continue
            if state is None and recur is not None and e.section == "mistakes":
                e = recur(index, record, change, e, (fields or {}).get(e.id(role), {}))
            elif state is None:
                change.records.append(record("added", e, **(fields or {}).get(e.id(role), {})))
            change.added.append(e)
        if supersedes:
            _supersede(change, index, record, supersedes, [e.id(role) for e in fresh])
        gone = {e.id(role) for _, e in change.left}  # added, then recurred by a later one
        change.notebook = add_entries(change.notebook, [e for e in change.added if e.id(role) not in gone])
        if after is not None:
            after(index, record, change)
        return change

    return transact(layout, role, limits, writer, plan)


def _supersede(change: Change, index: Index, record: Recorder, keys: Sequence[str], by: list[str]) -> None:
    """Retire the items `keys` name, as superseded by the entries `by` (a correction)."""
    role = record.role
    for key in keys:
        prefix = key.strip().lstrip("#").lower()
        if len(prefix) < 4 or not prefix.isalnum():
            raise InputError(f"--supersedes {key!r}: give the id, 4 or more of its characters (#3f2a9c1d)")
        rows = {row[0]: row for row in index.with_id_prefix(prefix) if row[1] == role}
        here = {e.id(role): e for _, _, e in entry_positions(change.notebook) if e.id(role).startswith(prefix)}
        ids = set(rows) | set(here)
        if not ids:
            raise NoMatch(f"{role}: nothing has an id starting {prefix!r} to supersede (`rolebook search` shows ids)")
        if len(ids) > 1:
            raise InputError(f"--supersedes {key!r}: {len(ids)} ids start with it; give more of it")
        (old,) = ids
        if old in by:
            continue  # the correction is the entry itself: nothing to retire
        if old in here:
            entry = here[old]
            gone = {(si, pi) for si, pi, e in entry_positions(change.notebook) if e.id(role) == old}
            change.notebook = remove_parts(change.notebook, gone)
            change.records.append(record("obsolete", entry, superseded_by=by))
            change.left.append(("obsolete", entry))
            continue
        _, _, op, section, date, text, *_ = rows[old]
        if op not in ("obsolete", "redacted", "promoted"):
            change.records.append(record.record("obsolete", old, section, date, text, superseded_by=by))


def tidy(layout: Layout, role: str, limits: Limits, writer: Writer) -> WriteResult:
    """Apply limits to a notebook as it stands (after a hand edit, say); its warnings name
    the lines that look like entries and are not (`lookalike_lines`)."""
    seen: list[str] = []

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        seen.extend(lookalike_lines(layout.notebook_path(role), nb))
        return Change(nb)

    result = transact(layout, role, limits, writer, plan)
    return replace(result, warnings=(*result.warnings, *seen))


def tidy_check(layout: Layout, role: str, limits: Limits) -> WriteResult:
    """What `tidy` would prune, writing nothing."""
    path = layout.notebook_path(role)
    text = readpath.load_text(layout, path)
    nb = parse(text if text is not None else new_notebook_text(role))
    effective = frontmatter_limits(nb, limits, str(path))
    after, left = prune(nb, effective)
    return WriteResult(
        role,
        path,
        left=tuple(("pruned", e) for e in left),
        lines=count_lines(render(after)),
        cap=effective.lines,
        changed=bool(left),
        warnings=tuple(lookalike_lines(path, nb)),
    )


def lookalike_lines(path: Path, nb: Notebook) -> list[str]:
    """`path:line: why` for each line that looks like an entry and is not (an impossible
    date, a tab-indented item): kept as text, so never pruned or searched; said, not fixed."""
    from ..lookalikes import lookalikes

    return [f"{path}:{found.line}: {found.why}" for found in lookalikes(nb)]


def obsolete(layout: Layout, role: str, selector: str, limits: Limits, writer: Writer) -> WriteResult:
    """Retire one active entry, by `#id` (a prefix will do) or by words of its text; or, by
    `#id`, a long-term item still kept (stored, logged, shared: `result.left` is empty then).

    Raises:
        NoMatch: no active entry matches.
        InputError: several do; the message lists their ids.
    """

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        try:
            entry = find_active(nb, role, selector)[2]
        except NoMatch:
            kept = _kept_item(index, role, selector)
            if kept is None:
                raise
            rid, section, date, text = kept
            return Change(nb, records=[record.record("obsolete", rid, section, date, text)])
        copies = {(si, pi) for si, pi, e in entry_positions(nb) if e.id(role) == entry.id(role)}
        change = Change(remove_parts(nb, copies))
        change.records.append(record("obsolete", entry))
        change.left.append(("obsolete", entry))
        return change

    return transact(layout, role, limits, writer, plan)


def _kept_item(index: Index, role: str, selector: str) -> tuple[str, str, str, str] | None:
    """(id, category, date, text) of the one long-term item of the role still kept whose id
    starts with the `#id` selector, or None."""
    prefix = selector.strip().lstrip("#").lower()
    if not selector.strip().startswith("#") or len(prefix) < 4 or not prefix.isalnum():
        return None
    rows = [r for r in index.with_id_prefix(prefix) if r[1] == role and r[2] in ("stored", "logged", "shared")]
    if len(rows) != 1:
        return None
    rid, _, _, section, date, text, *_ = rows[0]
    return rid, section, date, text


@dataclass(frozen=True, slots=True)
class Retired:
    """What `obsolete --session` retired: the notebook's entries (`result.left`) and the
    long-term items (stored, logged) of that session, by id."""

    result: WriteResult
    items: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.result.left) + len(self.items)


def obsolete_session(
    layout: Layout, role: str, session: str, limits: Limits, writer: Writer, reason: str | None = None
) -> Retired:
    """Retire, in one write, everything of a role that one session wrote and that still
    stands: its notebook entries and its long-term items, each archived as obsolete with
    the reason (still found by `search --status all`).

    Raises:
        NoMatch: the session wrote nothing of this role that still stands.
    """
    from .index import made_in_session

    why = reason or f"retired with everything session {session} wrote"
    items: list[str] = []

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        made = {o.id: o for o in made_in_session(index, role, session)}
        here = [(si, pi, e) for si, pi, e in entry_positions(nb) if e.id(role) in made]
        change = Change(remove_parts(nb, {(si, pi) for si, pi, _ in here}))
        for e in {e.id(role): e for _, _, e in here}.values():
            change.records.append(record("obsolete", e, reason=why))
            change.left.append(("obsolete", e))
        kept = {i for i, o in made.items() if o.op in ("stored", "logged", "shared")}
        for i, state in index.states(kept).items():
            if state.op == made[i].op:  # still as it was made: not retired, redacted or replaced
                change.records.append(record.record("obsolete", i, state.section, state.date, state.text, reason=why))
                items.append(i)
        if not change.left and not items:
            raise NoMatch(f"{role}: session {session!r} wrote nothing that still stands (`rolebook audit` lists it)")
        return change

    result = transact(layout, role, limits, writer, plan)
    return Retired(result, tuple(items))


def find_active(nb: Notebook, role: str, selector: str) -> tuple[int, int, Entry]:
    """The one active entry a `#id` prefix or some words of its text select."""
    selector = selector.strip()
    if selector.startswith("#"):
        prefix = selector[1:].lower()
        if len(prefix) < 4:
            raise InputError(f"{selector!r}: give at least 4 characters of the id")
        hits = [x for x in entry_positions(nb) if x[2].id(role).startswith(prefix)]
    else:
        words = normalize(selector)
        if not words:
            raise InputError("say which entry: #ID or some words of its text")
        hits = [x for x in entry_positions(nb) if words in normalize(x[2].text)]
    if not hits:
        raise NoMatch(f"{role}: no active entry matches {selector!r}")
    if len({e.id(role) for _, _, e in hits}) > 1:
        listed = "; ".join(f"#{e.id(role)} {e.text[:40]!r}" for _, _, e in hits[:5])
        raise InputError(f"{selector!r} matches {len(hits)} entries, name one by id: {listed}")
    return hits[0]


#: A restore writes the exported notebook byte for byte: the limits it had were its own.
_AS_EXPORTED = Limits(lines=None, mistakes=None, learnings=None, feedback=None, session_log=None)


@dataclass(frozen=True, slots=True)
class Restored:
    role: str
    appended: int
    already: int
    notebook: str  # "written", "same", "merge" (entries to go through update), "none"


@dataclass(slots=True)
class Held:
    """What a restore in batches knows of the role's archive: a digest of each line, and
    how far it has read it (each batch reads only what was appended since, by anyone)."""

    digests: set[bytes] = field(default_factory=set)
    offset: int = 0
    redactions: list[bytes] = field(default_factory=list)  # its redaction records, few


def restore(
    layout: Layout, role: str, text: str | None, lines: list[bytes], writer: Writer, held: Held | None = None
) -> Restored:
    """One transaction: append the exported archive lines the archive does not hold (byte
    for byte), and, when the role has no notebook, make the exported one its notebook. A
    notebook that is there and differs is left for the caller to merge (`notebook == "merge"`).
    `held` carries what one batch read of the archive to the next."""
    import hashlib

    check_scope(role, writer)
    if text is not None:
        text = redact(text)[0]  # a secret in an exported notebook does not come back in
    outcome: dict[str, Any] = {}
    seen = Held() if held is None else held

    def key(line: bytes) -> bytes:  # a digest, not the line: a big archive costs 16 bytes a line
        return hashlib.blake2b(line.rstrip(b"\r\n"), digest_size=16).digest()

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        from .provenance.marks import marks_in, scrub_text

        archive = layout.archive_path(role)
        if seen.offset and (not archive.exists() or archive.stat().st_size < seen.offset):
            seen.digests.clear()  # rewritten since (a redaction): read it again
            seen.redactions.clear()
            seen.offset = 0
        for offset, _, raw, _ in read_lines(archive, seen.offset):
            seen.digests.add(key(raw))
            seen.offset = offset
            if b'"redacted"' in raw:
                seen.redactions.append(raw)
        # an export made before a redaction (here or in it) does not bring the text back
        marks = marks_in([*seen.redactions, *lines])
        fresh: list[bytes] = []
        for line in (marks.line(x) for x in map(redacted_line, lines)):
            if key(line) not in seen.digests:
                seen.digests.add(key(line))
                fresh.append(line if line.endswith(b"\n") else line + b"\n")
        current = readpath.load_text(layout, layout.notebook_path(role))
        outcome["fresh"] = len(fresh)
        nonlocal text
        if text is not None and marks:
            text = scrub_text(text, [m for ms in marks.by_id.values() for m in ms])
        if text is None:
            outcome["state"] = "none"
        elif current is None:
            outcome["state"] = "written"
            return Change(parse(text), lines=fresh)
        else:
            outcome["state"] = "same" if current == text else "merge"
        return Change(nb, lines=fresh)

    transact(layout, role, _AS_EXPORTED, writer, plan)
    return Restored(role, outcome["fresh"], len(lines) - outcome["fresh"], outcome["state"])


__all__ = [
    "After",
    "Held",
    "Recur",
    "Restored",
    "Retired",
    "find_active",
    "obsolete",
    "obsolete_session",
    "restore",
    "tidy",
    "tidy_check",
    "update",
]
