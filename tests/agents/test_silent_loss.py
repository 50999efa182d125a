"""Nothing silently lost or misplaced: a mistyped role, a write outside any project, entries
that are not entries, a read-only checkout, Ctrl-C in an import, a fresh project's doctor."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from typer.testing import CliRunner

runner = CliRunner()


def rb(root: Path, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with two roles, coder and designer, each with a notebook."""
    assert rb(tmp_path, "init", "coder", "designer")[0] == 0
    return tmp_path


# -- entries that are not entries are said, kept and never stop an update

NOTEBOOK = """\
# coder notebook

## Mistakes

- [2026-02-30] an impossible date
- [26-1-5] a short date
- [2026-01-04] a real entry

## Learnings

\t- [2026-01-05] a tab-indented learning

## Feedback

## Session Log
"""


def test_read_tidy_check_and_doctor_name_lines_that_are_not_entries_and_update_still_works(project: Path) -> None:
    path = project / "agents/state/memory/coder.md"
    path.write_text(NOTEBOOK)
    code, out, _ = rb(project, "read", "coder")
    assert code == 0 and out.startswith(NOTEBOOK)
    (alert,) = [line for line in out.splitlines() if line.startswith("rolebook: ")]
    assert alert.startswith(f"rolebook: {path}:5: [2026-02-30] is not a real day") and "and 2 more such lines" in alert
    code, _, err = rb(project, "tidy", "coder", "--check")
    assert code == 0
    assert f"{path}:6: [26-1-5] is not a YYYY-MM-DD date" in err
    assert f"{path}:11: this dated item is indented with a tab" in err and "code, or part of the item above" in err
    code, out, _ = rb(project, "doctor")
    assert code == 1 and out.count(f"not an entry: {path}:") == 3
    assert rb(project, "update", "coder", "-m", "a new mistake", "-l", "a new learning")[0] == 0
    text = path.read_text()
    for kept in ("- [2026-02-30] an impossible date", "- [26-1-5] a short date", "\t- [2026-01-05] a tab-indented"):
        assert kept in text
    assert rb(project, "search", "new learning")[0] == 0


# -- a read-only checkout still searches, and read --task always gives the notebook


def read_only(root: Path) -> None:
    """The derived folder cannot be made: a file stands in its place (what a read-only
    file system does to a process running as root, which no permission bit stops), and
    for anyone else every folder is read-only too."""
    derived = root / "agents/state/.rolebook"
    if derived.exists():
        import shutil

        shutil.rmtree(derived)
    derived.write_text("")
    if os.geteuid() != 0:
        for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
            folder.chmod(0o555)


@pytest.fixture
def checkout(project: Path) -> Path:
    rb(project, "update", "coder", "-m", "npm ci failed with EACCES; chown the npm cache first")
    rb(project, "update", "designer", "-l", "the die-cut needs one continuous shape")
    read_only(project)
    return project


def test_search_in_a_read_only_checkout_builds_its_index_in_memory_and_says_so(checkout: Path) -> None:
    code, out, err = rb(checkout, "search", "EACCES")
    assert code == 0 and "npm ci failed with EACCES" in out
    assert "cannot be written" in err and "searching an index built in memory for this run" in err


def test_read_task_in_a_read_only_checkout_prints_the_notebook_then_the_hits(checkout: Path) -> None:
    notebook = (checkout / "agents/state/memory/designer.md").read_text()
    code, out, _ = rb(checkout, "read", "designer", "--task", "npm ci fails with EACCES")
    assert code == 0 and out.startswith(notebook)
    assert "npm ci failed with EACCES" in out


def test_read_task_prints_the_notebook_and_one_warning_whatever_breaks_the_search(project: Path) -> None:
    rb(project, "update", "coder", "-l", "a learning")
    broken = project / "agents/state/archive/designer.jsonl"
    broken.unlink()
    broken.mkdir()  # an archive no search can read
    notebook = (project / "agents/state/memory/coder.md").read_text()
    code, out, err = rb(project, "read", "coder", "--task", "anything at all")
    assert code == 0 and out.startswith(notebook)
    (line,) = err.splitlines()
    assert line.startswith("rolebook: warning: memories for the task were not searched: ")
