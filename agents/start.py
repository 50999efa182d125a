"""What an agent's session starts with, as printed: the notebook's bytes as they are,
its alerts, and the task hits (`rolebook read`, the session-start hook)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rolebook.rules import Started


def run_read(root: Path | None, role: str, as_json: bool) -> int:
    """Print a role's notebook as it is on disk, then its alerts. Returns the exit code."""
    from rolebook.rules import Session

    from .config import find_root, load_config

    config = load_config(root.absolute() if root else find_root())
    started = Session(config.layout, config.limits, config.rules_file).start(role)
    if as_json:
        sys.stdout.write(json.dumps(started.to_dict(), ensure_ascii=False, indent=2) + "\n")
    else:
        write_started(started)
    return 0


def write_started(started: Started) -> None:
    """Write what a session starts with to stdout, the notebook's bytes as they are."""
    out = sys.stdout
    out.flush()
    out.buffer.write(started.render())
    out.buffer.flush()
