"""Where a root keeps its files (DESIGN.md section 2), and role names made safe."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import OutsideRoot, RoleError
from ..model import is_role

#: Instructions files (drift looks at them besides the rules file and the configured ones;
#: doctor looks for what was planted in their place).
INSTRUCTIONS = ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md")
_DEVICE_NAMES = {"con", "prn", "aux", "nul"} | {f"{d}{n}" for d in ("com", "lpt") for n in range(10)}


def check_role(role: str) -> str:
    """The role name, if it is safe to build a path from.

    Raises:
        RoleError: anything but `[a-z0-9][a-z0-9_-]{0,63}`, or a Windows device name.
    """
    if not is_role(role) or role in _DEVICE_NAMES:
        shown = repr(role) if len(role) <= 70 else repr(role[:67] + "...")
        raise RoleError(
            f"invalid role name {shown}: use 1-64 lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit (e.g. coder, qa, ui-designer)"
        )
    return role


def inside(root: Path, path: Path) -> Path:
    """`path`, when it resolves inside `root`: the one check of every file rolebook writes
    (the stores, and what `init`, `integrate`, the rules file and shared roots write).

    Symlinks are followed all the way, a folder on the way included, and a dangling link
    to its target: a link that stays inside the root is fine (CLAUDE.md -> AGENTS.md is
    a common convention), one that leads out is refused. A cloned repository can carry
    such a link; rolebook must never edit a user's global settings through it.

    Raises:
        OutsideRoot: the path resolves to a place outside `root`.
    """
    real = os.path.realpath(path)
    if not Path(real).is_relative_to(os.path.realpath(root)):
        raise OutsideRoot(f"refusing a file that resolves outside the root ({real}); nothing was written", path)
    return path


@dataclass(frozen=True, slots=True)
class Layout:
    """The folders of one rolebook root."""

    root: Path
    memory: Path
    archive: Path
    derived: Path

    @classmethod
    def default(cls, root: Path) -> Layout:
        state = root / "agents" / "state"
        return cls(root, state / "memory", state / "archive", state / ".rolebook")

    def notebook_path(self, role: str) -> Path:
        return self.memory / f"{check_role(role)}.md"

    def archive_path(self, role: str) -> Path:
        return self.archive / f"{check_role(role)}.jsonl"

    def lock_path(self, role: str) -> Path:
        """What a writer of the role locks: the archive folder, which nothing deletes while
        writers run (the derived folder may go at any moment: `git clean -fdX` does it).
        One lock for every role's writers: a write takes milliseconds. Windows cannot lock
        a folder: a lock file there."""
        check_role(role)
        if os.name == "nt":  # pragma: no cover - Windows only
            return self.derived / "locks" / "archive.lock"
        return self.archive

    @property
    def rules_lock(self) -> Path:
        """What a writer of the rules file locks: the root folder (the rules file itself is
        replaced by each write, so a lock on it would not hold)."""
        if os.name == "nt":  # pragma: no cover - Windows only
            return self.derived / "locks" / "rules-file.lock"
        return self.root

    # -- the derived folder: safe to delete at any time; every path in it is named here

    @property
    def index_path(self) -> Path:
        return self.derived / "index.sqlite"

    def pending_path(self, role: str) -> Path:
        """Where a write notes its change before it replaces the notebook (finished by the next)."""
        return self.derived / "pending" / f"{check_role(role)}.json"

    @property
    def pending(self) -> Path:
        return self.derived / "pending"

    @property
    def cache(self) -> Path:
        return self.derived / "cache"

    def cache_path(self, kind: str, role: str) -> Path:
        """A cached answer for the read path: `read` (the notebook's alerts) or `rules`."""
        return self.cache / f"{kind}-{check_role(role)}.json"

    @property
    def locks(self) -> Path:
        """Lock files of earlier versions (and of Windows): doctor looks here for orphans."""
        return self.derived / "locks"

    @property
    def vectors(self) -> Path:
        return self.derived / "vectors"

    @property
    def sessions(self) -> Path:
        """What the agent CLI hooks remember of each session."""
        return self.derived / "sessions"

    def roles(self) -> list[str]:
        """Roles that have a notebook or an archive, sorted."""
        found: set[str] = set()
        for folder, suffix in ((self.memory, ".md"), (self.archive, ".jsonl")):
            if folder.is_dir():
                found.update(p.name[: -len(suffix)] for p in folder.iterdir() if p.name.endswith(suffix))
        return sorted(r for r in found if is_role(r))

    def check_inside(self, path: Path) -> Path:
        """`path`, unless a symlink takes it outside the root (see `inside`).

        Raises:
            OutsideRoot: the file resolves to a place outside the root.
        """
        return inside(self.root, path)

    def spare(self) -> Path | None:
        """Where atomic writes keep their temp files: the derived folder's `tmp/`, which git
        ignores, so a writer killed mid-write leaves nothing `git add -A` would commit; None
        when the derived folder leads out of the root (then they go beside the file)."""
        folder = self.derived / "tmp"
        real = os.path.realpath(folder)
        return folder if Path(real).is_relative_to(os.path.realpath(self.root)) else None
