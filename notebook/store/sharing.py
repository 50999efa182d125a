"""Sharing: one remembered item copied into a shared root's archive (DESIGN.md section 12).

A shared root is a rolebook root of its own (a team's knowledge repository); nothing
writes to it but `share`, through its own write path and lock. The copy keeps the
item's id, so sharing twice adds nothing and search shows it once, and says where it
came from (`origin`: the repository, the id there, what it was). Secrets are redacted
again on the way: the source may hold text written before a pattern was known.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InputError, NoMatch
from .archive import ArchiveRecord
from .index import Index
from .journal import Recorder, Writer, append
from .layout import Layout
from .secrets import redact_value

#: What a shared copy keeps of a record besides its text: what says what it was.
_KEPT = ("type", "context", "command", "ctx_hash", "outcome")


@dataclass(frozen=True, slots=True)
class Shared:
    """The record as the shared root holds it; `added` False when it was there already."""

    record: ArchiveRecord
    added: bool
    redacted: tuple[str, ...] = ()


def find_item(layout: Layout, key: str) -> dict[str, Any]:
    """The archive record (or the notebook entry, as a record) whose id starts with `key`.

    Raises:
        InputError: a key under 4 characters, or one several items start with.
        NoMatch: no item has that id.
    """
    from .index import refresh

    prefix = key.strip().lstrip("#").lower()
    if len(prefix) < 4 or not prefix.isalnum():
        raise InputError(f"{key!r} is not an id: give 4 or more of its characters, as search shows it (#3f2a9c1d)")
    with Index(layout) as index:
        refresh(layout, index)
        rows = index.with_id_prefix(prefix)
    if not rows:
        raise NoMatch(f"nothing remembered has an id starting {prefix!r}: `rolebook search` shows ids")
    if len({r[0] for r in rows}) > 1:
        raise InputError(f"{prefix!r} starts {len(rows)} ids; give more of it")
    eid, role, op, section, date, text, count, tags, data = rows[0]
    if data:
        return dict(json.loads(data))
    return {
        "id": eid,
        "role": role,
        "op": op,
        "section": section,
        "date": date,
        "text": text,
        "count": count,
        "tags": tags.split() if tags else [],
    }


def share(source: Layout, repo: str, target: Layout, key: str, writer: Writer) -> Shared:
    """Copy the item whose id starts with `key` from `source` (the repository `repo`) into
    `target`'s archive, under the same role, once.

    Raises:
        InputError, NoMatch: see `find_item`. ScopeError: a writer scoped to another role.
    """
    item = find_item(source, key)
    return share_record(item, repo, target, writer)


def share_record(item: dict[str, Any], repo: str, target: Layout, writer: Writer) -> Shared:
    """Copy one record (as a dict) into `target`'s archive, once; see `share`."""
    kept = {k: item[k] for k in _KEPT if item.get(k) is not None}
    (text, tags, kept), kinds = redact_value([str(item.get("text") or ""), list(item.get("tags") or []), kept])
    role, rid = str(item["role"]), str(item["id"])
    origin = {
        "repo": repo,
        "id": rid,
        "op": item.get("op"),
        "by": item.get("by"),
        "session": item.get("session"),
        "source": item.get("source"),
    }
    origin = {k: v for k, v in origin.items() if v is not None}
    found: list[ArchiveRecord] = []

    def build(index: Index, record: Recorder) -> list[ArchiveRecord]:
        there = index.shared_record(rid)
        if there is not None:
            held = ArchiveRecord.from_dict(there)
            seen = repos_of(held.extra.get("origin"))
            if repo in seen or not seen:
                found.append(held)
                return []
            # the same item (one id: same role, kind, day and words) from another repository:
            # the shared root records that this one saw it too, naming both, so recurrence
            # across repositories counts it in each (DESIGN.md section 12)
            both = {**there.get("origin", {}), "repos": sorted({*seen, repo})}
            extra = {**held.extra, "origin": both}
            return [replace(held, op="shared", at=record.at, by=writer.by, session=writer.session, extra=extra)]
        date = str(item.get("date") or dt.date.today().isoformat())
        section = str(item.get("section") or "learnings")
        copy = record.record("shared", rid, section, date, text, tuple(tags), origin=origin, source="share", **kept)
        count = item.get("count")
        return [replace(copy, count=count) if isinstance(count, int) and not isinstance(count, bool) else copy]

    written = append(target, role, writer, build)
    if written:
        return Shared(written[0], True, tuple(kinds))
    return Shared(found[0], False, tuple(kinds))


def repos_of(origin: Any) -> list[str]:
    """The repositories a shared record's origin names: `repos` when several saw it, else
    its `repo`."""
    if not isinstance(origin, dict):
        return []
    many = origin.get("repos")
    if isinstance(many, list) and all(isinstance(r, str) for r in many):
        return list(many)
    return [origin["repo"]] if isinstance(origin.get("repo"), str) else []


def choose_shared(names: list[str], name: str | None) -> int:
    """Which of the configured shared roots (`names`, in order) a command means: the one
    named, or the only one.

    Raises:
        InputError: none configured, an unknown name, or several and no name.
    """
    for i, n in enumerate(names):
        if n == name or (name is None and len(names) == 1):
            return i
    if name is not None:
        there = f"there are: {', '.join(names)}" if names else "none could be opened"
        raise InputError(f"no shared root named {name!r} ({there})")
    if names:
        raise InputError(f"several shared roots ({', '.join(names)}): say which with --to")
    raise InputError("no shared root: name one in rolebook.yaml, e.g. shared_roots: [{name: team, path: ../knowledge}]")
