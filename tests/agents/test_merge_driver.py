"""The notebook merge driver `init` registers runs from any shell, and a driver that cannot
run never costs the other branch its entries: git reports a conflict instead."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NOTEBOOK = "agents/state/memory/coder.md"


def bare_path() -> str:
    """A PATH with git on it and no trace of this virtual environment."""
    git = shutil.which("git")
    assert git is not None
    venv = str(Path(sys.executable).parent)
    keep = [p for p in os.environ["PATH"].split(os.pathsep) if p and p != venv and "venv" not in p]
    return os.pathsep.join(dict.fromkeys([str(Path(git).parent), *keep]))


def git(root: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "PATH": path or os.environ["PATH"],
    }
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env=env)


def rolebook(root: Path, *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "rolebook", "--root", str(root), *args], capture_output=True)
    assert done.returncode == 0, done.stderr


def two_branches(root: Path) -> None:
    """main and feature, each with an entry of its own since their base."""
    git(root, "init", "-q", "-b", "main")
    rolebook(root, "init", "coder")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    rolebook(root, "update", "coder", "-l", "the feature branch learned this", "--date", "2026-02-01")
    git(root, "commit", "-qam", "feature")
    git(root, "checkout", "-q", "main")
    rolebook(root, "update", "coder", "-l", "the main branch learned that", "--date", "2026-03-01")
    git(root, "commit", "-qam", "main")


def registered_with(root: Path, python: str) -> None:
    """The driver `init` registered, with another Python in place of this one."""
    driver = git(root, "config", "--get", "merge.rolebook.driver").stdout.strip()
    git(root, "config", "merge.rolebook.driver", driver.replace(sys.executable, python))


def test_init_registers_the_driver_by_this_pythons_absolute_path() -> None:
    from rolebook.agents.scaffold import merge_driver

    assert merge_driver().startswith(f"{sys.executable} -m rolebook merge-driver %O %A %B %P;")
    assert merge_driver("/opt/my python/bin/python").startswith("'/opt/my python/bin/python' -m rolebook")


def test_a_merge_from_a_shell_without_the_venv_on_path_runs_the_driver(tmp_path: Path) -> None:
    two_branches(tmp_path)
    assert shutil.which("rolebook", path=bare_path()) is None
    merged = git(tmp_path, "merge", "-q", "feature", "-m", "merge", path=bare_path())
    assert merged.returncode == 0, merged.stderr + merged.stdout
    text = (tmp_path / NOTEBOOK).read_text()
    assert "the feature branch learned this" in text and "the main branch learned that" in text


def test_a_driver_that_cannot_run_gives_a_conflict_that_keeps_the_other_branchs_entry(tmp_path: Path) -> None:
    two_branches(tmp_path)
    registered_with(tmp_path, str(tmp_path / "gone/bin/python"))
    merged = git(tmp_path, "merge", "-q", "feature", "-m", "merge", path=bare_path())
    assert merged.returncode != 0
    assert f"CONFLICT (content): Merge conflict in {NOTEBOOK}" in merged.stdout
    assert "the notebook merge driver did not run (exit 127)" in merged.stderr
    text = (tmp_path / NOTEBOOK).read_text()
    assert "the feature branch learned this" in text and "the main branch learned that" in text
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text


@pytest.mark.parametrize("broken", ["python", "module"])
def test_a_driver_that_fails_to_start_never_leaves_ours_as_the_silent_result(tmp_path: Path, broken: str) -> None:
    two_branches(tmp_path)
    fake = tmp_path / "fake-python"
    # a Python that is not executable, or one without rolebook (it exits 1, as a conflict used to)
    fake.write_text("#!/bin/sh\necho 'No module named rolebook' >&2\nexit 1\n")
    fake.chmod(0o644 if broken == "python" else 0o755)
    registered_with(tmp_path, str(fake))
    merged = git(tmp_path, "merge", "-q", "feature", "-m", "merge", path=bare_path())
    assert merged.returncode != 0
    assert "the feature branch learned this" in (tmp_path / NOTEBOOK).read_text()


def test_a_notebook_the_driver_cannot_read_is_merged_as_text_with_markers(tmp_path: Path) -> None:
    two_branches(tmp_path)
    notebook = tmp_path / NOTEBOOK
    notebook.write_bytes(notebook.read_bytes() + b"caf\xe9 notes typed in latin-1\n")
    git(tmp_path, "commit", "-qam", "latin-1 on main")
    merged = git(tmp_path, "merge", "-q", "feature", "-m", "merge", path=bare_path())
    assert merged.returncode != 0 and "merged as text" in merged.stderr
    data = notebook.read_bytes()
    assert b"the feature branch learned this" in data and b"caf\xe9" in data
