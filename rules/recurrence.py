"""Recurrence: a new mistake that is the same as earlier ones (DESIGN.md section 6).

It goes on top with its count raised (`(xN)`, N counting every occurrence, active or
archived) in their recurrence group; the older active lines leave as `recurred`.
`update` journals new mistakes through the hook made here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rolebook.notebook import Entry
from rolebook.notebook.markdown import entry_positions, remove_parts
from rolebook.notebook.store import Change, Index, Recorder, Recur

from . import ledger
from .similarity import Judge


def recurrence_hook(same: Judge) -> Recur:
    """The hook `update` journals new mistakes through, judging "the same mistake" by `same`."""

    def recur(index: Index, record: Recorder, change: Change, new: Entry, extra: Mapping[str, Any]) -> Entry:
        return _recurrence(index, record, change, new, same, extra)

    return recur


def _recurrence(
    index: Index, record: Recorder, change: Change, new: Entry, same: Judge, extra: Mapping[str, Any]
) -> Entry:
    """Journal a new mistake, as a recurrence of the earlier ones it matches if any."""
    from rolebook.notebook.search import candidates

    role = record.role
    earlier = {cid: (date, text, count) for cid, date, text, count in candidates(index, role, "mistakes", new.text)}
    for e in change.notebook.entries("mistakes"):
        earlier.setdefault(e.id(role), (e.date, e.text, e.count))
    matches = {i: v for i, v in earlier.items() if i != new.id(role) and same(new.text, v[1])}
    if not matches:
        change.records.append(record("added", new, **extra, group=new.id(role)))
        return new
    groups = ledger.groups_of(index, role, matches)
    first = min(matches, key=lambda i: (matches[i][0], i))
    group = groups.get(first) or next(iter(groups.values()), first)
    recurred = replace(new, count=max(v[2] for v in matches.values()) + 1, raw="")
    change.records.append(record("added", recurred, **extra, group=group, recurs=sorted(matches)))
    leaving = [(si, pi, e) for si, pi, e in entry_positions(change.notebook) if e.id(role) in matches]
    for _, _, e in leaving:
        change.records.append(record("recurred", e, group=group))
        change.left.append(("recurred", e))
    change.notebook = remove_parts(change.notebook, {(si, pi) for si, pi, _ in leaving})
    return recurred
