"""Nothing silently lost or misplaced: a mistyped role, a write outside any project, entries
that are not entries, a read-only checkout, Ctrl-C in an import, a fresh project's doctor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


# -- a new role is made by init or on purpose, never by a typo


TYPO_WRITES = [
    ["update", "codr", "-m", "a mistake; do better"],
    ["update", "codr", "--from", "-"],
    ["store", "codr", "rejected_designs", "a floating bubble"],
    ["log", "codr", "--type", "error", "--lesson", "chown first"],
    ["obsolete", "codr", "anything"],
    ["tidy", "codr"],
    ["tidy", "codr", "--check"],
]


@pytest.mark.parametrize("args", TYPO_WRITES, ids=lambda a: " ".join(a[:2] + a[3:4]))
def test_a_mistyped_role_is_refused_naming_the_closest_known_role_and_nothing_is_written(
    project: Path, args: list[str]
) -> None:
    before = tree(project)
    code, out, err = rb(project, *args, stdin="## Learnings\n- a learning\n")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "no role 'codr' here (did you mean 'coder'? roles: coder, designer)" in err
    assert "`rolebook init codr` creates it" in err
    assert tree(project) == before


def test_the_installed_command_refuses_a_mistyped_role_on_its_fast_path(project: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(project), "update", "codr", "-l", "x"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "no role 'codr' here" in done.stderr
    assert not (project / "agents/state/memory/codr.md").exists()


def test_an_import_into_a_mistyped_role_is_refused_before_anything_is_written(project: Path) -> None:
    source = project / "lessons.md"
    source.write_text("## Learnings\n- [2026-01-05] a lesson\n")
    before = tree(project)
    code, _, err = rb(project, "import", "markdown", str(source), "--role", "codr")
    assert code == 2 and "no role 'codr' here" in err
    assert tree(project) == before


@pytest.mark.parametrize(
    "args",
    [
        ["update", "qa", "--new-role", "-l", "a first learning"],
        ["store", "qa", "--new-role", "notes", "a first note"],
        ["log", "qa", "--new-role", "--type", "success", "--lesson", "it worked"],
    ],
)
def test_a_new_role_is_started_on_purpose_with_new_role(project: Path, args: list[str]) -> None:
    code, _, err = rb(project, *args)
    assert code == 0, err
    assert (
        "qa" in json.loads(rb(project, "stats", "--json")[1])["roles"]
        or (project / "agents/state/archive/qa.jsonl").exists()
    )


def test_a_role_listed_in_the_config_and_the_writers_own_role_may_be_started(project: Path) -> None:
    (project / "rolebook.yaml").write_text("roles: [coder, designer, qa]\n")
    assert rb(project, "update", "qa", "-l", "listed in rolebook.yaml")[0] == 0
    assert rb(project, "--as", "ops", "update", "ops", "-l", "the writer's own role")[0] == 0
    assert rb(project, "update", "ux", "-l", "neither")[0] == 2


def test_a_role_list_that_is_not_role_names_is_a_config_error_naming_the_line(project: Path) -> None:
    (project / "rolebook.yaml").write_text("version: 1\nroles: [Coder]\n")
    code, _, err = rb(project, "update", "coder", "-l", "x")
    assert code == 2 and f"{project / 'rolebook.yaml'}:2: 'roles' is a list of role names" in err


@pytest.mark.parametrize(
    "args",
    [
        ["update", "coder", "-l", "x"],
        ["update", "coder", "--new-role", "-l", "x"],
        ["store", "coder", "notes", "x", "--new-role"],
        ["log", "coder", "--type", "error", "--lesson", "x"],
    ],
)
def test_a_write_outside_any_rolebook_project_is_refused_like_the_hooks_and_makes_nothing(
    tmp_path: Path, args: list[str]
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code, _, err = rb(tmp_path, *args)
    assert code == 2 and f"no rolebook project at {tmp_path} (`rolebook init` makes one)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git"]


@pytest.mark.parametrize(
    "args",
    [
        ["search", "anything"],
        ["read", "coder", "--task", "anything"],
        ["doctor"],
        ["doctor", "--repair"],
        ["promote"],
        ["promote", "--yes"],
        ["stats"],
        ["recall", "--command", "npm ci", "--error", "EACCES"],
        ["--session", "s-1", "recall", "--role", "coder", "--command", "npm ci", "--error", "EACCES"],
    ],
)
def test_a_read_outside_any_rolebook_project_makes_no_folder_there(tmp_path: Path, args: list[str]) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    code, _, _ = rb(tmp_path, *args)
    assert code in (0, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git"]


def test_the_memory_tool_refuses_to_create_a_notebook_for_a_mistyped_role(project: Path) -> None:
    pytest.importorskip("anthropic")
    from anthropic.lib.tools import ToolError
    from rolebook import RolebookMemoryTool

    tool = RolebookMemoryTool(root=project)
    with pytest.raises(ToolError, match="no role 'codr' here"):
        tool.call({"command": "create", "path": "/memories/codr.md", "file_text": "## Learnings\n- [2026-01-05] x\n"})
    assert not (project / "agents/state/memory/codr.md").exists()
    scoped = RolebookMemoryTool(root=project, role="qa")  # its own role: started on purpose
    scoped.call({"command": "create", "path": "/memories/qa.md", "file_text": "## Learnings\n- [2026-01-05] x\n"})
    assert (project / "agents/state/memory/qa.md").exists()


def test_the_mcp_update_tool_refuses_a_mistyped_role(project: Path) -> None:
    import anyio
    from mcp import Client
    from served import served

    async def main() -> tuple[bool, str]:
        async with Client(served(project, None)) as client:
            result = await client.call_tool("update", {"role": "codr", "learnings": ["x"]})
            block = result.content[0]
            return result.is_error, getattr(block, "text", "")

    is_error, text = anyio.run(main)
    assert is_error and "no role 'codr' here" in text
    assert not (project / "agents/state/memory/codr.md").exists()


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
    frame, _, out = out.partition("\n")
    assert code == 0 and frame.startswith("rolebook: the coder notebook, ") and out.startswith(NOTEBOOK)
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


def test_doctor_on_a_freshly_initialised_project_says_healthy(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert rb(tmp_path, "init", "coder")[0] == 0
    code, out, _ = rb(tmp_path, "doctor")
    assert code == 0 and out.splitlines()[-1] == "healthy"
    assert "index: not built yet" in out


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
    assert code == 0 and out.partition("\n")[2].startswith(notebook)
    assert "npm ci failed with EACCES" in out


def test_the_recall_hook_in_a_read_only_checkout_still_brings_the_lesson(checkout: Path) -> None:
    failure = "npm error code EACCES\nnpm error syscall mkdir\nnpm error path /root/.npm/_cacache"
    code, out, _ = rb(checkout, "recall", "--role", "coder", "--command", "npm ci", "--error", failure)
    assert code == 0 and "npm ci failed with EACCES" in out


def test_read_task_prints_the_notebook_and_one_warning_whatever_breaks_the_search(project: Path) -> None:
    rb(project, "update", "coder", "-l", "a learning")
    broken = project / "agents/state/archive/designer.jsonl"
    broken.unlink()
    broken.mkdir()  # an archive no search can read
    notebook = (project / "agents/state/memory/coder.md").read_text()
    code, out, err = rb(project, "read", "coder", "--task", "anything at all")
    assert code == 0 and out.partition("\n")[2].startswith(notebook)
    (line,) = err.splitlines()
    assert line.startswith("rolebook: warning: memories for the task were not searched: ")


# -- Ctrl-C in a long import: tests/agents/test_progress.py (the progress job says what was written)
