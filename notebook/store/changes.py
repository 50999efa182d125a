"""The changes a notebook goes through, each one transaction of the write path
(`journal.transact`): add a session's entries, apply the limits, retire an entry, and
restore an export.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
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
#: makes it a recurrence of the earlier occurrences it matches. Returns the entry to add.
Recur = Callable[[Index, Recorder, Change, Entry, Mapping[str, Any]], Entry]


def update(
    layout: Layout,
    role: str,
    entries: Sequence[Entry],
    limits: Limits,
    writer: Writer,
    recur: Recur | None = None,
    fields: Mapping[str, Mapping[str, Any]] | None = None,
) -> WriteResult:
    """Add entries to a role's notebook (newest first), then apply its limits.

    An entry already active, or already journalled and since gone, is not written twice;
    one journalled but missing from the notebook (a write cut short) is put back.
    With `recur` (`rolebook.rules.recurrence`), a new mistake is journalled through it: as a
    recurrence of the earlier occurrences it matches, if any.
    `fields` (by entry id) are kept on an entry's `added` record: an import's `source`.
    """

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        change = Change(nb)
        first: dict[str, Entry] = {}
        for e in entries:
            if first.setdefault(e.id(role), e) is not e:
                change.duplicates.append(e)  # the same entry twice in one batch
        fresh = list(first.values())
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
        change.notebook = add_entries(change.notebook, change.added)
        return change

    return transact(layout, role, limits, writer, plan)


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
    """Retire one active entry, by `#id` (a prefix will do) or by words of its text.

    Raises:
        NoMatch: no active entry matches.
        InputError: several do; the message lists their ids.
    """

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        entry = find_active(nb, role, selector)[2]
        copies = {(si, pi) for si, pi, e in entry_positions(nb) if e.id(role) == entry.id(role)}
        change = Change(remove_parts(nb, copies))
        change.records.append(record("obsolete", entry))
        change.left.append(("obsolete", entry))
        return change

    return transact(layout, role, limits, writer, plan)


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


def restore(layout: Layout, role: str, text: str | None, lines: list[bytes], writer: Writer) -> Restored:
    """One transaction: append the exported archive lines the archive does not hold (byte
    for byte), and, when the role has no notebook, make the exported one its notebook. A
    notebook that is there and differs is left for the caller to merge (`notebook == "merge"`)."""
    check_scope(role, writer)
    if text is not None:
        text = redact(text)[0]  # a secret in an exported notebook does not come back in
    outcome: dict[str, Any] = {}

    def plan(nb: Notebook, index: Index, record: Recorder) -> Change:
        held = {raw.rstrip(b"\r\n") for _, _, raw, _ in read_lines(layout.archive_path(role))}
        fresh: list[bytes] = []
        for line in map(redacted_line, lines):
            if line.rstrip(b"\r\n") not in held:
                held.add(line.rstrip(b"\r\n"))
                fresh.append(line if line.endswith(b"\n") else line + b"\n")
        current = readpath.load_text(layout, layout.notebook_path(role))
        outcome["fresh"] = len(fresh)
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


__all__ = ["Recur", "Restored", "find_active", "obsolete", "restore", "tidy", "tidy_check", "update"]
