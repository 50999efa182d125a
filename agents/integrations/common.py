"""The shared edits of `integrate`: merge a JSON settings file, append a TOML table, add a
line or a managed block to a rules file. Every edit keeps what the user had, is
idempotent (a second run changes no byte), and can be printed instead of written."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError
from rolebook.notebook.store import atomic_write, inside

from ..scaffold import PROTOCOL

AGENTS = ("claude", "codex", "gemini", "copilot", "cursor")
PROTOCOL_START = "<!-- rolebook:protocol:start -->"
PROTOCOL_END = "<!-- rolebook:protocol:end -->"


@dataclass(frozen=True, slots=True)
class Planned:
    """One file and its text after the edit (unchanged when `after` equals `before`)."""

    path: Path
    before: str | None
    after: str
    what: str

    @property
    def changed(self) -> bool:
        return self.after != self.before


def place(root: Path, name: str) -> Path:
    """`root / name`, checked before it is read or written: a settings file, or a folder on
    its way (`.codex/`), that is a symlink out of the project is refused (`inside`), so a
    cloned repository can never make rolebook edit a user's global settings.

    Raises:
        OutsideRoot: it resolves outside the project.
    """
    return inside(root, root / name)


def read(path: Path) -> str | None:
    """A settings or instructions file's text (None: missing); a pipe or a device planted
    there is an error naming it, never waited on.

    Raises:
        InputError: not UTF-8, or not a regular file.
    """
    from rolebook.notebook.store import read_file

    try:
        return read_file(path).decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text; rolebook will not edit it", path) from exc


def json_edit(
    path: Path,
    what: str,
    change: Callable[[dict[str, Any]], None],
    comments: tuple[tuple[str, str], ...] = (),
) -> Planned:
    """Merge into a JSON object file, keeping every other key (and the file's indent).

    With `comments` (the paths of the members `change` sets, two keys deep), the file may
    hold `//` and `/* */` comments, as Gemini CLI's does: the members are set in place and
    every other byte kept; the result is read back before it may be written.
    """
    from . import jsonc

    before = read(path)
    data: Any = {}
    if before is not None and before.strip():
        try:
            data = jsonc.loads(before) if comments else json.loads(before)
        except (json.JSONDecodeError, ValueError) as exc:
            msg, line = getattr(exc, "msg", str(exc)), getattr(exc, "lineno", None)
            raise InputError(f"not valid JSON ({msg}); rolebook will not edit it", path, line) from None
        if not isinstance(data, dict):
            raise InputError("not a JSON object; rolebook will not edit it", path, 1)
    original = json.dumps(data, sort_keys=True)
    change(data)
    if json.dumps(data, sort_keys=True) == original and before is not None:
        return Planned(path, before, before, what)
    indent = _indent(before) if before else 2
    if comments and before is not None and before.strip() != jsonc.strip_comments(before).strip():
        try:
            after = before
            for outer, inner in comments:
                after = jsonc.set_member(after, (outer, inner), data[outer][inner], indent)
            same = jsonc.loads(after) == data
        except (ValueError, KeyError) as exc:
            raise InputError(f"cannot edit it keeping its comments ({exc}); nothing was written", path) from None
        if not same:
            raise InputError("cannot edit it keeping its comments; nothing was written", path)
        return Planned(path, before, after, what)
    return Planned(path, before, json.dumps(data, indent=indent, ensure_ascii=False) + "\n", what)


def _indent(text: str) -> int:
    match = re.search(r"\n( +)\S", text)
    return len(match.group(1)) if match else 2


def command() -> str:
    """How the agent CLI should start rolebook: `rolebook` when that, on PATH, is this very
    installation (the files are shared through git, and paths differ from machine to
    machine), else this installation's absolute path, which works wherever the agent's
    PATH leads (a venv that is not on it: the MCP server would not connect and the hooks
    would fail, silently)."""
    import shutil
    import sys

    here = Path(sys.executable).parent / ("rolebook.exe" if sys.platform == "win32" else "rolebook")
    found = shutil.which("rolebook")
    if not here.exists():
        return found or "rolebook"
    if found is not None and Path(found).resolve() == here.resolve():
        return "rolebook"
    return str(here)


def mcp_entry(role: str | None, **extra: Any) -> dict[str, Any]:
    """The MCP server entry: `rolebook mcp`, scoped to the role when one is given."""
    args = ["--as", role, "mcp"] if role else ["mcp"]
    return {**extra, "command": command(), "args": args}


def set_mcp_server(key: str, entry: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        servers = data.setdefault(key, {})
        if not isinstance(servers, dict):
            raise InputError(f"{key!r} is not an object; rolebook will not edit it")
        current = servers.get("rolebook")
        # merged, not replaced: two agent CLIs sharing one file (.mcp.json) keep each other's keys
        servers["rolebook"] = {**current, **entry} if isinstance(current, dict) else entry

    return change


def add_hooks(
    commands: dict[str, tuple[str | None, str]], timeout: int, name: str | None = None
) -> Callable[[dict[str, Any]], None]:
    """Merge rolebook's hook commands (event -> (matcher, command)) into a settings object
    of the shape Claude Code, Codex and Gemini CLI share: hooks.<event>[].hooks[]. A hook of
    rolebook's own for the same event and role is brought up to this command, never added
    twice; every other hook is kept. `timeout` is in the CLI's own unit."""

    def change(data: dict[str, Any]) -> None:
        hooks = data.setdefault("hooks", {})
        if not isinstance(hooks, dict):
            raise InputError("'hooks' is not an object; rolebook will not edit it")
        for event, (matcher, cmd) in commands.items():
            groups = hooks.setdefault(event, [])
            if not isinstance(groups, list):
                raise InputError(f"hooks.{event} is not a list; rolebook will not edit it")
            mine = [
                h
                for g in groups
                if isinstance(g, dict)
                for h in g.get("hooks", [])
                if isinstance(h, dict) and same_hook(h.get("command"), cmd)
            ]
            for h in mine:  # ours already: brought up to this installation's command
                h["command"] = cmd
            if not mine:
                hook: dict[str, Any] = {"type": "command", "command": cmd, "timeout": timeout}
                if name:
                    hook = {"name": f"{name}-{event}", **hook}
                group: dict[str, Any] = {"hooks": [hook]}
                if matcher:
                    group = {"matcher": matcher, **group}
                groups.append(group)

    return change


def same_hook(found: Any, wanted: str) -> bool:
    """Whether a hook command is rolebook's own for the same event and role, whichever
    rolebook executable it names."""
    if not isinstance(found, str):
        return False
    tail = wanted.split(" ", 1)[1]
    head = found[: -len(tail) - 1] if found.endswith(" " + tail) else ""
    return head.rstrip("'\"").endswith("rolebook")


def ensure_line(path: Path, line: str, what: str) -> Planned:
    """A rules file with `line` in it (appended after a blank line when missing)."""
    before = read(path) or ""
    if line in (ln.strip() for ln in before.splitlines()):
        return Planned(path, read(path), before, what)
    nl = "\r\n" if "\r\n" in before else "\n"
    return Planned(path, read(path), before + _separator(before, nl) + line + nl, what)


def _separator(text: str, nl: str) -> str:
    """What goes between a file's text and what is appended: one blank line."""
    if not text or text.endswith(nl + nl):
        return ""
    return nl if text.endswith(("\n", "\r")) else nl + nl


def ensure_block(path: Path, body: str, what: str) -> Planned:
    """A rules file holding the protocol between rolebook's markers, replaced in place if present."""
    before = read(path) or ""
    nl = "\r\n" if "\r\n" in before else "\n"
    block = PROTOCOL_START + nl + body.replace("\n", nl).rstrip(nl) + nl + PROTOCOL_END
    if PROTOCOL_START in before and PROTOCOL_END in before:
        head, _, rest = before.partition(PROTOCOL_START)
        _, _, tail = rest.partition(PROTOCOL_END)
        after = head + block + tail
    else:
        sep = (
            "" if not before else ("" if before.endswith(nl + nl) else nl if before.endswith(("\n", "\r")) else nl + nl)
        )
        after = before + sep + block + nl
    return Planned(path, read(path), after, what)


def protocol_for(role: str | None) -> str:
    return PROTOCOL.replace("ROLE", role) if role else PROTOCOL


def plan(agent: str, root: Path, role: str | None) -> list[Planned]:
    """The edits `integrate AGENT` makes in `root`.

    Raises:
        InputError: an unknown agent, or a file that cannot be safely merged into.
        OutsideRoot: a file it would edit resolves outside the project (nothing is written).
    """
    if agent not in AGENTS:
        raise InputError(f"unknown agent {agent!r} (one of: {', '.join(AGENTS)})")
    module = importlib.import_module(f"{__package__}.{agent}")
    planned: list[Planned] = module.plan(root, role)
    for p in planned:  # each module checks before it reads; this holds for one that forgot
        inside(root, p.path)
    return planned


def next_step(agent: str, root: Path, role: str | None) -> str:
    """The one step the user must still take in the agent CLI before it uses what
    `integrate` wrote (trust the folder, approve the MCP server or the hooks)."""
    module = importlib.import_module(f"{__package__}.{agent}")
    step: str = module.next_step(root, role)
    return step


def apply(planned: list[Planned], root: Path | None = None) -> list[Planned]:
    """Write what changed; returns those edits. With `root`, each file is checked inside it
    once more, and the temp files of the writes go in its derived folder.

    Raises:
        OutsideRoot: a file resolves outside `root` (checked before anything is written).
    """
    done = [p for p in planned if p.changed]
    spare = None
    if root is not None:
        from ..config import load_config

        for p in done:
            inside(root, p.path)
        spare = load_config(root).layout.spare()
    for p in done:
        atomic_write(p.path, p.after.encode("utf-8"), spare)
    return done
