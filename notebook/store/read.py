"""The session-start read: the notebook as it is on disk, then at most five alerts.

This is the hot path (every agent session starts here), so it imports nothing heavy:
the alerts are cached in the derived folder under the notebook's file signature, and
the markdown parser is loaded only when a hand edit made the cache stale.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, InputError
from .fsutil import open_file
from .layout import Layout

if TYPE_CHECKING:
    from ..limits import Limits
    from ..model import Notebook

MAX_ALERTS = 5
NOT_A_FILE = "a folder stands where rolebook keeps a file; move it aside (nothing was written)"
_CACHE_VERSION = 2
_READ_CACHE_VERSION = 3  # the notebook's own alerts; 3: lines that look like entries and are not

#: The next step an alert points to, as each surface says it: (the CLI, an MCP client).
#: Alerts hold the step as data (`next_step`), and each adapter words it (`shown`), so an
#: agent on MCP is never told to run a command it cannot reach.
STEPS = {
    "create": (
        "`rolebook init {role}` creates it",
        "init creates it (or the update tool of a server scoped to {role})",
    ),
    "tidy": ("`rolebook tidy {role}` moves", "the next update moves"),
    "promote": ("`rolebook promote` reviews them", "the promote_review tool reviews them"),
    "confirm": ("`rolebook confirm #{role}` shows it again", "a person confirms it with `rolebook confirm #{role}`"),
}
SURFACES = ("cli", "mcp")
_STEP = re.compile(r"\{step:([a-z]+):([a-z0-9_-]*)\}")


def next_step(key: str, role: str = "") -> str:
    """The place in an alert's text where its next step goes (see STEPS)."""
    assert key in STEPS
    return f"{{step:{key}:{role}}}"


def shown(alert: str, surface: str = "cli") -> str:
    """An alert as a surface shows it: its next step worded for the CLI or for MCP."""
    column = SURFACES.index(surface)
    return _STEP.sub(lambda m: STEPS[m.group(1)][column].format(role=m.group(2)) if m.group(1) in STEPS else "", alert)


@dataclass(frozen=True, slots=True)
class ReadResult:
    """A notebook as read at session start."""

    role: str
    path: Path
    exists: bool
    data: bytes = b""
    alerts: list[str] = field(default_factory=list)  # each with its next step as data: `shown` words it

    def alert_lines(self, surface: str = "cli") -> list[str]:
        """The alerts as a surface shows them, escaped (they quote entries and rules)."""
        from ..display import shown as escaped

        return [escaped(shown(a, surface)) for a in self.alerts]

    def to_dict(self, surface: str = "cli") -> dict[str, Any]:
        text = self.data.decode("utf-8", errors="replace")
        return {
            "role": self.role,
            "path": str(self.path),
            "exists": self.exists,
            "text": text,
            "lines": _count_lines(text),
            "alerts": self.alert_lines(surface),
        }


def load_text(layout: Layout, path: Path) -> str | None:
    """A notebook's text, or None if it does not exist yet.

    Raises:
        InputError: the file is not UTF-8 (names the line), resolves outside the root, or is
            a pipe, device or socket.
    """
    try:
        with open_file(path, layout.root) as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise InputError(NOT_A_FILE, path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError("not UTF-8 text; fix or remove the bad bytes", path, line) from None


def shown_text(layout: Layout, path: Path) -> tuple[str | None, str | None]:
    """A notebook's text for a command that only shows or counts it (stats, report, the
    markdown export), and what is wrong with it: bytes that are not UTF-8 are read as
    U+FFFD, never refused (a write still is, `load_text`), and the problem names the line.

    Raises:
        InputError: the file resolves outside the root, or is a pipe, device or socket.
    """
    try:
        return load_text(layout, path), None
    except InputError as exc:
        if not exc.message.startswith("not UTF-8"):
            raise
        with open_file(path, layout.root) as f:
            text = f.read().decode("utf-8", errors="replace")
        problem = f"{exc.path}:{exc.line}: not UTF-8 text, read with U+FFFD in place of the bad bytes; {_NO_WRITE}"
        return text, problem


_NO_WRITE = "rolebook will not write this notebook until they are fixed"


def read_notebook(layout: Layout, role: str, limits: Limits) -> ReadResult:
    """The role's notebook bytes and its alerts (from the cache when it is fresh)."""
    path = layout.notebook_path(role)
    try:
        # the notebook, or a folder on the way, may be a link out of the root, or a pipe
        with open_file(path, layout.root) as f:
            data = f.read()
            st = os.fstat(f.fileno())
    except IsADirectoryError:
        raise InputError(NOT_A_FILE, path) from None
    except FileNotFoundError:
        return ReadResult(
            role,
            path,
            False,
            alerts=[
                f"no notebook for {role} yet: {next_step('create', role)}",
            ],
        )
    sig = [st.st_size, st.st_mtime_ns, st.st_ino]
    alerts = _cached(layout, role, sig, limits)
    if alerts is None:
        alerts = _alerts_from_bytes(role, path, data, limits)
        _store(layout, role, sig, limits, alerts)
    return ReadResult(role, path, True, data, (alerts + extra_alerts(layout, role))[:MAX_ALERTS])


def _extra_path(layout: Layout, role: str) -> Path:
    return layout.cache_path("rules", role)


def store_extra_alerts(layout: Layout, role: str, alerts: list[str], state: dict[str, Any] | None = None) -> None:
    """Keep the alerts other layers compute at write time (promotions due, rule violations),
    with whatever state they need to update them next time without starting over."""
    path = _extra_path(layout, role)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        data = {"v": _CACHE_VERSION, "alerts": alerts, "state": state or {}}
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)


def _extra(layout: Layout, role: str) -> dict[str, Any]:
    try:
        with open_file(_extra_path(layout, role), layout.root) as f:
            data = json.load(f)
        return data if isinstance(data, dict) and data.get("v") == _CACHE_VERSION else {}
    except (OSError, ValueError, InputError):  # a planted thing in the derived folder: no cache
        return {}


def extra_alerts(layout: Layout, role: str) -> list[str]:
    alerts = _extra(layout, role).get("alerts")
    return [a for a in alerts if isinstance(a, str)] if isinstance(alerts, list) else []


def extra_state(layout: Layout, role: str) -> dict[str, Any] | None:
    """The state stored with the extra alerts, or None when there is none to build on."""
    state = _extra(layout, role).get("state")
    return state if isinstance(state, dict) and state else None


def alerts_for(role: str, path: Path, nb: Notebook, base: Limits) -> list[str]:
    """The alerts a read shows for this notebook: limits broken, limits unreachable."""
    from ..limits import frontmatter_limits, overflow, prune
    from ..markdown import render
    from ..model import count_lines

    alerts = []
    if nb.too_deep is not None:  # its structure is unsure: no other alert could be trusted
        return [
            f"{path}:{nb.too_deep}: lists or quotes nested over 100 levels deep; "
            "rolebook will not write this notebook until they are flattened"
        ]
    try:
        limits = frontmatter_limits(nb, base, str(path))
    except ConfigError as exc:
        alerts.append(f"{exc}; the defaults apply until it is fixed")
        limits = base
    after, left = prune(nb, limits)
    if left:
        n = len(left)
        alerts.append(
            f"over its limits ({'; '.join(overflow(nb, limits))}): {next_step('tidy', role)} the "
            f"{n} oldest {'entry' if n == 1 else 'entries'} to the archive"
        )
    lines = count_lines(render(after))
    if limits.lines is not None and lines > limits.lines:
        alerts.append(
            f"{lines} lines, over the cap of {limits.lines}, with nothing more rolebook may prune: "
            "Feedback and text it does not manage are never pruned; shorten them by hand"
        )
    from ..lookalikes import lookalikes

    if found := lookalikes(nb):  # items a person meant as entries: kept as text, so said here
        more = len(found) - 1
        tail = f" (and {more} more such {'line' if more == 1 else 'lines'})" if more else ""
        alerts.append(f"{path}:{found[0].line}: {found[0].why}{tail}")
    return alerts[:MAX_ALERTS]


def store_alerts(layout: Layout, role: str, nb: Notebook, base: Limits, limits: Limits) -> None:
    """Cache the alerts of a notebook just written, so the next read needs no parser."""
    path = layout.notebook_path(role)
    with contextlib.suppress(OSError):
        st = os.stat(path)
        _store(layout, role, [st.st_size, st.st_mtime_ns, st.st_ino], base, alerts_for(role, path, nb, base))


def _alerts_from_bytes(role: str, path: Path, data: bytes, base: Limits) -> list[str]:
    from ..markdown import parse

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return [f"{path}:{line}: not UTF-8 text; rolebook will not write this notebook until it is fixed"]
    return alerts_for(role, path, parse(text), base)


def _cache_path(layout: Layout, role: str) -> Path:
    return layout.cache_path("read", role)


def _cached(layout: Layout, role: str, sig: list[int], limits: Limits) -> list[str] | None:
    try:
        with open_file(_cache_path(layout, role), layout.root) as f:
            data = json.load(f)
        if data["v"] == _READ_CACHE_VERSION and data["sig"] == sig and data["limits"] == limits.to_dict():
            alerts = data["alerts"]
            if isinstance(alerts, list) and all(isinstance(a, str) for a in alerts):
                return alerts
    except (OSError, ValueError, KeyError, TypeError, InputError):
        pass
    return None


def _store(layout: Layout, role: str, sig: list[int], limits: Limits, alerts: list[str]) -> None:
    path = _cache_path(layout, role)
    data = {"v": _READ_CACHE_VERSION, "sig": sig, "limits": limits.to_dict(), "alerts": alerts}
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)


def _count_lines(text: str) -> int:
    from ..model import count_lines

    return count_lines(text)
