"""Keeping the derived index in step with the files: `refresh` (each archive read from
where the last sync stopped, a job with progress when it is long) and `rebuilt_on_failure`
(a corrupt or half-made index is deleted and built again: it is derived)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from ... import progress
from ...errors import InputError
from ..layout import Layout
from .database import Index


def refresh(layout: Layout, index: Index) -> list[str]:
    """Bring the index up to every archive and notebook. Returns warnings to show once."""
    from ...markdown import parse
    from ..read import load_text

    roles = layout.roles()
    warnings = []
    work = _job(layout, index.pending(roles))
    for role in roles:
        planned = work.planned(role) if work is not None else None
        stage = None
        if work is not None and planned is not None:
            size = f"{(planned.total or 0) / 1e6:.0f} MB of {layout.archive_path(role).name}"
            stage = work.start(role, f"indexing {size} (once; later reads are quick)")
        index.sync(role, stage)
        if stage is not None:
            stage.finish()
        path = layout.notebook_path(role)
        try:
            st = path.stat()
            sig = (st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            sig = (-1, -1)  # no notebook: remembered like any other signature
        if index.notebook_fresh(role, sig):
            continue
        if sig == (-1, -1):
            index.set_active(role, [], sig)
            continue
        try:
            text = load_text(layout, path)
        except InputError as exc:
            warnings.append(f"{exc}; its entries are not searched")
            continue
        index.set_active(role, parse(text or "").entries(), sig)
    index.forget_roles(roles)
    bad = index.malformed()
    if bad:
        more = f" ({len(bad) - 1} more: `rolebook doctor` lists them)" if len(bad) > 1 else ""
        warnings.append(f"{bad[0]}; skipped, left in the archive as it is{more}")
    if work is not None:
        work.finish()
    return warnings


def _job(layout: Layout, pending: dict[str, int]) -> progress.Job | None:
    """An index build as a job of one stage a role with archive lines to read (None: none)."""
    if not any(pending.values()):
        return None
    return progress.job(
        "index",
        [(role, n) for role, n in pending.items() if n],
        unit="bytes",
        verb="indexed",
        then="the index is derived: the next search builds the rest",
        kept=False,  # a role's lines are indexed in one transaction: cut short, none are
        shown=sum(pending.values()) > progress.BIG_ARCHIVE_BYTES,
    )


T = TypeVar("T")


def rebuilt_on_failure(layout: Layout, work: Callable[[], T], attempts: int = 5) -> T:
    """`work`, done again on a fresh index if the index failed under it.

    The derived folder may be deleted at any moment (`git clean -fdX`), even while
    another process has the index open, and what is left can be half a database. Safe
    for writers: an index error can only come before their archive append (after it,
    they leave the index to the next reader), so doing the work again writes once.
    """
    for attempt in range(attempts):
        try:
            return work()
        except sqlite3.DatabaseError as exc:
            if attempt == attempts - 1:
                raise
            if not isinstance(exc, sqlite3.OperationalError) or "no such table" in str(exc):
                Index.remove(layout.index_path)  # a corrupt or half-made file: start over
    raise AssertionError("unreachable")
