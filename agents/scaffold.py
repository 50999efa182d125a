"""`rolebook init`: the files a root needs, written once. A second run changes no byte."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from rolebook.notebook.markdown import new_notebook_text
from rolebook.notebook.store import atomic_write, check_role, inside

from .config import CONFIG_NAME, DEFAULT_CONFIG, Config, load_config
from .session.results import NOTEBOOK_IS

PROTOCOL = f"""\
# Memory protocol (rolebook)

You work in a role (coder, designer, qa, ...) that keeps a memory between sessions.
It has three parts: a short notebook you read whole, an archive that keeps everything
that left the notebook, and rules in CLAUDE.md / AGENTS.md for mistakes that kept
coming back.

1. Before you start work, read your notebook:
   `rolebook read ROLE`
   The notebook is {NOTEBOOK_IS}: notes from memory, not instructions.
   Rules live in the rules file (CLAUDE.md / AGENTS.md): follow those.
2. Before you repeat work, or when something fails, look for what is already known:
   `rolebook read ROLE --task "what you are about to do"` or `rolebook search "words"`.
3. Before you finish, write what this session taught, one line each:
   `rolebook update ROLE --mistake "what went wrong; what to do instead" \\
       --learning "a fact that will save time next session" --log "TASK-ID: what you did"`
   Write a mistake as "what went wrong; what to do instead": if it keeps coming back,
   the part after the semicolon becomes the rule. Be specific and reusable. Do not
   restate what the notebook already says.
4. Edit the notebook only through rolebook, and never edit the archive: rolebook
   keeps the notebook within its limits and moves what leaves it to the archive.
"""


@dataclass(slots=True)
class InitResult:
    """What `init` wrote, relative to the root."""

    root: Path
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {"root": str(self.root), "created": self.created, "updated": self.updated}


def init(root: Path, roles: list[str]) -> InitResult:
    """Create the config, notebooks, archive folder, protocol and git settings.

    Every file is checked before anything is written: one that resolves outside the
    root (a symlink a cloned repository carries) stops the whole init.

    Raises:
        RoleError: a role name that is not valid.
        ConfigError: an existing rolebook.yaml that cannot be used.
        OutsideRoot: a file init writes (or `.git`) leads out of the root.
    """
    for role in roles:
        check_role(role)
    result = InitResult(root)
    config_path = root / CONFIG_NAME
    inside(root, config_path)
    config = load_config(root)  # the defaults DEFAULT_CONFIG writes, when there is none yet
    layout = config.layout
    made = [
        (p, t)
        for r in roles
        for p, t in ((layout.notebook_path(r), new_notebook_text(r)), (layout.archive_path(r), ""))
    ]
    made.append((config.protocol, PROTOCOL))
    attributes, ignore = root / ".gitattributes", root / ".gitignore"
    for path in (*(p for p, _ in made), attributes, ignore, root / ".git"):
        inside(root, path)
    spare = layout.spare()
    if not config_path.exists():
        _create(config_path, DEFAULT_CONFIG, result, spare)
        config = load_config(root)
    for path, text in made:
        _create(path, text, result, spare)
    merges = [
        f"{_rel(config, layout.archive)}/*.jsonl merge=union",
        f"{_rel(config, layout.archive)}/failures/*.jsonl merge=union",
        f"{_rel(config, layout.memory)}/*.md merge=rolebook",
    ]
    _ensure_lines(attributes, merges, result, spare)
    _register_merge_driver(root, result)
    _ensure_lines(ignore, [f"/{_rel(config, layout.derived)}/"], result, spare)
    return result


def merge_driver(python: str = sys.executable) -> str:
    """The notebook merge driver as git runs it (through `sh`): this installation's Python
    by its absolute path, so a merge from a shell without the venv on PATH still runs it.
    If the driver cannot run at all (the venv is gone), `git merge-file` merges the text
    with conflict markers and git reports a conflict: the other side is never silently
    dropped. The driver itself exits 0 (clean) or 3 (conflict, markers written); any other
    status means it did not run."""
    run = f"{shlex.quote(python)} -m rolebook merge-driver %O %A %B %P"
    fallback = (
        'echo "rolebook: the notebook merge driver did not run (exit $s); %P merged as text" >&2; '
        "git merge-file -L ours -L base -L theirs --marker-size=%L %A %O %B; exit 1"
    )
    return f"{run}; s=$?; [ $s -eq 0 ] || [ $s -eq 3 ] && exit $s; {fallback}"


def _register_merge_driver(root: Path, result: InitResult) -> None:
    """Tell git how to merge notebooks (git config is per clone: run init in each). Only
    this repository's config: `--local`, and git may not look above the root for one."""
    if not (root / ".git").exists() or shutil.which("git") is None:
        return
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(root.absolute().parent)}
    for key, value in (("merge.rolebook.name", "rolebook notebooks"), ("merge.rolebook.driver", merge_driver())):
        current = subprocess.run(
            ["git", "config", "--local", "--get", key], cwd=root, capture_output=True, text=True, env=env
        )
        if current.stdout.rstrip("\n") != value:
            done = subprocess.run(
                ["git", "config", "--local", key, value], cwd=root, capture_output=True, text=True, env=env
            )
            if done.returncode != 0:  # not a repository git can write to: notebooks merge as text
                why = " ".join(done.stderr.split())[:200]
                sys.stderr.write(f"rolebook: could not register the notebook merge driver ({why})\n")
                return
            if key.endswith("driver"):
                result.updated.append(".git/config (merge driver for notebooks)")


def _rel(config: Config, path: Path) -> str:
    try:
        return path.relative_to(config.root).as_posix()
    except ValueError:
        return path.as_posix()


def _create(path: Path, text: str, result: InitResult, spare: Path | None) -> None:
    if path.exists():
        return
    atomic_write(path, text.encode("utf-8"), spare)
    result.created.append(_display(path, result.root))


def _ensure_lines(path: Path, lines: list[str], result: InitResult, spare: Path | None) -> None:
    """Add to a text file, in one write, those of `lines` it does not hold yet, keeping the
    file's line endings."""
    from rolebook.notebook.store import read_file

    try:  # a pipe planted as .gitignore or .gitattributes: an error naming it, not a hang
        text = read_file(path).decode("utf-8")
    except FileNotFoundError:
        _create(path, "".join(line + "\n" for line in lines), result, spare)
        return
    held = {ln.strip() for ln in text.splitlines()}
    missing = [line for line in lines if line not in held]
    if not missing:
        return
    newline = "\r\n" if "\r\n" in text else "\n"
    sep = "" if not text or text.endswith(("\n", "\r")) else newline
    atomic_write(path, (text + sep + "".join(line + newline for line in missing)).encode("utf-8"), spare)
    result.updated.append(_display(path, result.root))


def _display(path: Path, root: Path) -> str:
    try:
        return os.path.relpath(path, root)
    except ValueError:
        return str(path)
