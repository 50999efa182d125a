"""Notices of slow work (over about a second), for whoever listens. The library never
prints: an adapter (the CLI) sets a listener that writes them to stderr."""

from __future__ import annotations

from collections.abc import Callable

_listener: Callable[[str], object] | None = None

#: Sizes past which the work below takes about a second on an ordinary machine.
BIG_ARCHIVE_BYTES = 4_000_000
BIG_NOTEBOOK_BYTES = 1_000_000


def listen(listener: Callable[[str], object] | None) -> None:
    """Send notices to `listener` (None: drop them)."""
    global _listener
    _listener = listener


def notice(message: str) -> None:
    if _listener is not None:
        _listener(message)
