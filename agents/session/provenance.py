"""Provenance you can act on, over a session (DESIGN.md section 10): `audit` lists what
was written, by whom, through what, when and what became of it; `retire_session` retires
everything one session wrote that still stands; `redact` takes one item's text (or part
of it) out of every file under the root. The session API's other calls are in
session.py; these are here so that each stays one concept of a readable size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rolebook.notebook import InputError
from rolebook.notebook.store import check_role

if TYPE_CHECKING:
    from rolebook.notebook.search import SearchResult
    from rolebook.notebook.store import Audit, Redacted, Retired

    from . import Session


def audit(
    session: Session,
    writer_session: str | None = None,
    roles: tuple[str, ...] = (),
    since: str | None = None,
    until: str | None = None,
    source: str | None = None,
    newest: int | None = None,
) -> Audit:
    """The items this root's archives say were made, oldest write first, as filtered: all
    of them, or the `newest` n (the counts are of all).

    Raises:
        EntryError: a bad date. InputError: a bad role name.
    """
    from rolebook.notebook.store import AuditFilters, audit_writes, check_date

    filters = AuditFilters(
        writer_session,
        tuple(check_role(r) for r in roles),
        check_date(since) if since else None,
        check_date(until) if until else None,
        source,
    )
    return audit_writes(session.layout, filters, newest)


def retire_session(session: Session, role: str, writer_session: str, reason: str | None = None) -> Retired:
    """Retire, in one write, every entry and long-term item of `role` that one session
    wrote and that still stands: archived as obsolete with the reason.

    Raises:
        NoMatch: that session wrote nothing that still stands. ScopeError: another role's.
    """
    from rolebook.notebook.store import obsolete_session
    from rolebook.rules import refresh_alerts

    retired = obsolete_session(session.layout, check_role(role), writer_session, session.limits, session.who, reason)
    refresh_alerts(
        session.layout, session.rules_path, role, touched=set(), min_dates=session.min_dates, same=session.recurrence
    )
    return retired


def drift(session: Session, role: str | None = None) -> list[str]:
    """Every drift alert of the root's notebooks (of one role): entries an instructions
    file dropped or changed a line of, or whose cited code changed, since they were written."""
    from rolebook.notebook.store import extra_state
    from rolebook.rules import drift_alerts, instruction_files

    files = instruction_files(session.layout.root, session.rules_path, session.instructions)
    out = []
    for name in [check_role(role)] if role else session.layout.roles():
        cites = [c for c in (extra_state(session.layout, name) or {}).get("cites") or () if isinstance(c, dict)]
        try:
            out += [f"{name}: {a}" for a in drift_alerts(session.layout, name, files, cites)]
        except InputError:
            continue  # a notebook that cannot be read (a pipe, a link out): doctor names it
    return out


def redact(session: Session, key: str, part: str | None = None) -> Redacted:
    """Take the text of the item whose id starts with `key` (or only `part` of it) out of
    every file under the root and out of the index; its id, date, role and a hash of what
    was removed stay.

    Raises:
        NoMatch: no item has that id. InputError: an ambiguous id, a part it does not hold.
        ScopeError: a writer scoped to another role.
    """
    from rolebook.notebook.store import redact_item
    from rolebook.rules import refresh_alerts

    shared = tuple((name, other.layout) for name, other in session.shared)  # where a copy may have gone
    done = redact_item(session.layout, key, part, session.who, session.rules_path, shared)
    refresh_alerts(session.layout, session.rules_path, done.role, min_dates=session.min_dates, same=session.recurrence)
    return done


def unasked(session: Session, found: SearchResult | None) -> SearchResult | None:
    """What a search found, without the items that read like orders and wait for
    confirmation: the hits that reach an agent unasked (the recall hook, `read --task`)
    never carry one; `search` still finds them."""
    if found is None or not found.hits:
        return found
    from dataclasses import replace

    from rolebook.notebook.store import waiting

    layouts = dict(session.roots())
    held: dict[tuple[str, str], dict[str, str]] = {}
    kept = []
    for hit in found.hits:
        key = (hit.origin, hit.role)
        if key not in held:
            layout = layouts.get(hit.origin)
            held[key] = waiting(layout, hit.role) if layout is not None else {}
        if hit.id not in held[key]:
            kept.append(hit)
    if len(kept) == len(found.hits):
        return found
    return replace(found, hits=tuple(kept), total=found.total - (len(found.hits) - len(kept)))


def confirm(session: Session, key: str, role: str | None = None) -> tuple[str, str]:
    """Confirm the entry that reads like an order whose id starts with `key` (of `role`,
    else of whichever role holds it): from now on it is shown unasked and may be
    promoted. Returns (role, id).

    Raises:
        InputError: no entry waits with such an id, or several do.
        ScopeError: a writer scoped to another role.
    """
    from rolebook.notebook.store import confirm as confirmed
    from rolebook.notebook.store import waiting

    prefix = key.strip().lstrip("#").lower()
    roles = [check_role(role)] if role else session.layout.roles()
    holding = [r for r in roles if prefix and any(i.startswith(prefix) for i in waiting(session.layout, r))]
    if len(holding) > 1:
        raise InputError(f"{key!r}: entries of {', '.join(holding)} wait with this id: give the role")
    name = holding[0] if holding else (roles[0] if len(roles) == 1 else "")
    if not name:
        raise InputError(f"{key!r}: no entries that wait for confirmation have this id (`rolebook audit` lists them)")
    return name, confirmed(session.layout, name, key, session.who)


def confirmed(role: str, rid: str) -> tuple[str, dict[str, Any]]:
    """What `confirm` says, in the CLI and over MCP: a line, and the same as data."""
    return f"{role}: #{rid} confirmed; it is shown as a note from memory from now on", {
        "role": role,
        "id": rid,
        "confirmed": True,
    }
