"""Recurrence: a new mistake that is one already recorded (DESIGN.md section 6).

Propose, don't assume. A mistake written again (`similarity.same_text`) is merged on its
own; one a writer says recurs (`update --same-as ID`) is joined to that mistake's group
and the confirmation journalled as `linked`. Either way it goes on top with its count
raised (`(xN)`, N counting every occurrence in its group, `grouping.occurrences`) and the
group's other active lines leave as `recurred`. Any other new mistake is added alone, with
the earlier ones it looks like proposed (`proposals.propose`).

A write's mistakes are judged in date order against what is there and against each other
(`pending`): one batch (`update --from`, an import) ends as the same entries written by
separate updates would.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from rolebook.notebook import Entry, InputError
from rolebook.notebook.markdown import add_entries, entry_positions, remove_parts
from rolebook.notebook.store import Change, Index, Layout, Recorder, refresh

from . import ledger
from .grouping import groups_holding, occurrences
from .ledger import Mistake
from .proposals import Likeness, Proposal, propose
from .similarity import same_text


@dataclass(slots=True)
class Recurrence:
    """The hooks `update` journals a write's mistakes through, and what they found.

    `same_as`: new mistake id -> the earlier mistake its writer says it recurs (resolved
    ids). After the write, `proposed` holds the possible recurrences of each mistake added
    alone, and `linked` the (mistake id, earlier id, count) of each confirmation journalled.
    """

    likeness: Likeness = field(default_factory=Likeness)
    same_as: Mapping[str, str] = field(default_factory=dict)
    proposed: dict[str, tuple[Proposal, ...]] = field(default_factory=dict)
    linked: list[tuple[str, str, int]] = field(default_factory=list)

    def __call__(self, index: Index, record: Recorder, change: Change, new: Entry, extra: Mapping[str, Any]) -> Entry:
        """Journal a new mistake: as a recurrence of the mistakes it repeats or its writer
        names, else alone with what it looks like proposed. Returns the entry to add."""
        role = record.role
        nid = new.id(role)
        pending = _pending(change, role)
        earlier = _earlier(index, change, role, new.text, pending)
        earlier.pop(nid, None)
        matches = {i for i, (_, text, _) in earlier.items() if same_text(new.text, text)}
        target = self.same_as.get(nid)
        if target is not None:
            matches.add(target)
        if not matches:
            change.records.append(record("added", new, **extra, group=nid))
            self.proposed[nid] = propose(self.likeness, index, role, new.text, earlier, pending)
            return new
        recorded = ledger.groups_of(index, role, matches)
        recorded.update((m.id, m.group) for m in pending if m.id in matches and m.group)
        dated = {i: earlier[i][0] if i in earlier else "" for i in matches}
        first = min(matches, key=lambda i: (dated[i], i))
        group = recorded.get(first) or next(iter(recorded.values()), first)
        me = Mistake(nid, new.date, new.text, new.count, "added", True, group)
        links = [(nid, target)] if target is not None else []
        part = _part_of(index, role, nid, [*pending, me], links)
        count = max(new.count, occurrences([m for m in part if m.id != nid]) + 1)
        recurred = replace(new, count=count, raw="")
        change.records.append(record("added", recurred, **extra, group=group, recurs=sorted(matches)))
        if target is not None:
            change.records.append(_link_record(record, nid, target))
            self.linked.append((nid, target, count))
        _leave(change, record, {m.id for m in part if m.id != nid}, group)
        return recurred

    def after(self, index: Index, record: Recorder, change: Change) -> None:
        """Journal the confirmations of mistakes the write did not add (written before:
        `update --same-as ID` run again with the same mistake): the mistake joins the
        group, whose newest active line shows the count and the others leave as recurred."""
        role = record.role
        done = {nid for nid, _, _ in self.linked}
        for nid, target in self.same_as.items():
            if nid in done or nid in self.proposed:
                continue
            if target in {m.id for m in _part_of(index, role, nid, _pending(change, role), [])}:
                continue  # already one mistake: nothing to journal
            part = _part_of(index, role, nid, _pending(change, role), [(nid, target)])
            count = occurrences(part)
            change.records.append(_link_record(record, nid, target))
            self.linked.append((nid, target, count))
            active = [
                (si, pi, e) for si, pi, e in entry_positions(change.notebook) if e.id(role) in {m.id for m in part}
            ]
            if not active:
                continue
            kept = max(active, key=lambda x: (x[2].id(role) == nid, x[2].date))[2]
            _leave(change, record, {e.id(role) for _, _, e in active} - {kept.id(role)}, None)
            at = {(si, pi) for si, pi, e in entry_positions(change.notebook) if e.id(role) == kept.id(role)}
            change.notebook = add_entries(remove_parts(change.notebook, at), [replace(kept, count=count, raw="")])


def _pending(change: Change, role: str) -> list[Mistake]:
    """The mistakes this write has journalled so far, as the index will know them."""
    gone = {e.id(role) for _, e in change.left}
    return [
        Mistake(r.id, r.date, r.text, r.count, "added", r.id not in gone, r.extra.get("group"))
        for r in change.records
        if r.op == "added" and r.section == "mistakes"
    ]


def _earlier(
    index: Index, change: Change, role: str, text: str, pending: Sequence[Mistake]
) -> dict[str, tuple[str, str, int]]:
    """id -> (date, text, count) of the earlier mistakes worth comparing with `text`: those
    that share its telling words, those in the notebook, and this write's own."""
    from rolebook.notebook.search import candidates

    out = {cid: (date, said, count) for cid, date, said, count in candidates(index, role, "mistakes", text)}
    for e in change.notebook.entries("mistakes"):
        out.setdefault(e.id(role), (e.date, e.text, e.count))
    for m in pending:
        out.setdefault(m.id, (m.date, m.text, m.count))
    return out


def _part_of(
    index: Index, role: str, mid: str, pending: Sequence[Mistake], links: Sequence[tuple[str, str]]
) -> list[Mistake]:
    """The group that holds `mid`, with the links this write adds."""
    held = groups_holding(index, role, [mid], pending, links)
    return held[0] if held else []


def _leave(change: Change, record: Recorder, ids: set[str], group: str | None) -> None:
    """The active lines of these mistakes leave as `recurred`: in the notebook, and those
    this write added that are not in it yet."""
    role = record.role
    gone = {e.id(role) for _, e in change.left}
    leaving = [(si, pi, e) for si, pi, e in entry_positions(change.notebook) if e.id(role) in ids]
    waiting = [e for e in change.added if e.section == "mistakes" and e.id(role) in ids and e.id(role) not in gone]
    extra = {"group": group} if group else {}
    for e in [*(e for _, _, e in leaving), *waiting]:
        change.records.append(record("recurred", e, **extra))
        change.left.append(("recurred", e))
    change.notebook = remove_parts(change.notebook, {(si, pi) for si, pi, _ in leaving})


def _link_record(record: Recorder, mid: str, earlier: str) -> Any:
    """The journal's word that a writer confirmed `mid` recurs `earlier` (op `linked`)."""
    rid = "li" + hashlib.sha256(f"{record.role}\x1f{mid}\x1f{earlier}".encode()).hexdigest()[:10]
    today = dt.date.today().isoformat()
    return record.record("linked", rid, "review", today, f"#{mid} recurs #{earlier}", entry=mid, same_as=earlier)


def find_mistake(layout: Layout, role: str, key: str) -> str:
    """The id of the role's mistake (active or archived) whose id starts with `key` (a
    leading `#` is fine): the earlier mistake `update --same-as` names.

    Raises:
        InputError: fewer than 4 characters, no such mistake of this role, or several.
    """
    prefix = key.strip().lstrip("#").lower()
    if len(prefix) < 4 or not prefix.isalnum():
        raise InputError(f"{key!r}: give the earlier mistake's id (#ID from update's proposal, at least 4 characters)")
    with Index(layout) as index:
        refresh(layout, index)
        hits = sorted({row[0] for row in index.with_id_prefix(prefix) if row[1] == role and row[3] == "mistakes"})
    if not hits:
        raise InputError(f"{role} has no mistake #{prefix}: `rolebook search` or `read` shows the ids")
    if len(hits) > 1:
        raise InputError(f"#{prefix} names {len(hits)} mistakes of {role} ({', '.join(hits[:5])}): give more of the id")
    return str(hits[0])
