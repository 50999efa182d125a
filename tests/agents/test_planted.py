"""What a cloned repository can plant where rolebook reads (a link out of the project, a
named pipe, a device) is never followed out, never blocks, never trusted, and `doctor`
names it. A pipe case runs the installed command in a subprocess with a time limit: the
bug it guards against is a process that waits for good."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rolebook.notebook.errors import NotAFile, OutsideRoot
from rolebook.notebook.store import open_file
from rolebook.notebook.store.fsutil import planted

from tests.roots import project

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")

#: Long enough for a loaded 2-core machine; a hang (the bug) runs into it and fails.
LIMIT = 120


def rb(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=LIMIT,
        stdin=subprocess.DEVNULL,
        cwd=cwd or root,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project with a coder notebook holding one lesson, and a private file outside it."""
    r = project(tmp_path / "project")
    assert rb(r, "update", "coder", "--new-role", "-l", "Run npm ci before the tests.").returncode == 0
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "private.md").write_text("PRIVATE-KEY-NOTES of the user\n", encoding="utf-8")
    return r


# -- the one helper


def test_open_file_refuses_a_pipe_without_waiting_for_a_writer(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(NotAFile, match="named pipe"):
        open_file(tmp_path / "pipe", tmp_path)


def test_open_file_refuses_a_device(tmp_path: Path) -> None:
    (tmp_path / "dev").symlink_to(os.devnull)
    with pytest.raises(NotAFile, match="device"):
        open_file(tmp_path / "dev")


def test_open_file_refuses_a_link_out_of_the_folder_and_a_folder_on_the_way(tmp_path: Path) -> None:
    inner, outer = tmp_path / "inner", tmp_path / "outer"
    inner.mkdir()
    outer.mkdir()
    (outer / "f").write_text("x", encoding="utf-8")
    (inner / "link").symlink_to(outer / "f")
    (inner / "dir").symlink_to(outer)
    for path in (inner / "link", inner / "dir" / "f"):
        with pytest.raises(OutsideRoot):
            open_file(path, inner)


def test_open_file_reads_through_a_link_that_stays_inside(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rules\n", encoding="utf-8")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    with open_file(tmp_path / "CLAUDE.md", tmp_path) as f:
        assert f.read() == b"rules\n"


def test_planted_names_links_out_and_pipes_and_leaves_plain_files_alone(tmp_path: Path) -> None:
    (tmp_path / "ok.md").write_text("x", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "out.md").symlink_to("/etc/hostname" if Path("/etc/hostname").exists() else os.devnull)
    found = planted(tmp_path, [tmp_path])
    assert len(found) == 2
    assert any("pipe.md: a named pipe" in f for f in found)
    assert any("out.md: a link leading outside the project" in f for f in found)


# -- reads through a link


def test_read_never_prints_a_notebook_whose_memory_folder_leads_out_of_the_root(root: Path, tmp_path: Path) -> None:
    memory = root / "agents" / "state" / "memory"
    outside = tmp_path / "home" / "memory"
    memory.rename(outside)
    (outside / "coder.md").write_text("# x\n\n## Learnings\n- [2026-01-01] OUTSIDE-TEXT\n", encoding="utf-8")
    memory.symlink_to(outside)
    run = rb(root, "read", "coder")
    assert run.returncode == 2
    assert "OUTSIDE-TEXT" not in run.stdout + run.stderr
    assert "leads outside the root" in run.stderr and len(run.stderr.strip().splitlines()) == 1


# -- named pipes never block


def test_cite_of_a_pipe_is_refused_at_once_and_nothing_is_written(root: Path) -> None:
    os.mkfifo(root / "app.py")
    archive = (root / "agents" / "state" / "archive" / "coder.jsonl").read_bytes()
    run = rb(root, "update", "coder", "-l", "Cited lesson.", "--cite", "app.py")
    assert run.returncode == 2
    assert "app.py: a named pipe (FIFO)" in run.stderr
    assert (root / "agents" / "state" / "archive" / "coder.jsonl").read_bytes() == archive


def test_read_and_the_session_start_hook_do_not_hang_on_a_pipe_where_a_cited_file_was(root: Path) -> None:
    (root / "app.py").write_text("x = 1\n", encoding="utf-8")
    assert rb(root, "update", "coder", "-l", "Cited lesson.", "--cite", "app.py").returncode == 0
    (root / "app.py").unlink()
    os.mkfifo(root / "app.py")
    run = rb(root, "read", "coder")
    assert run.returncode == 0 and "Cited lesson." in run.stdout
    assert "app.py is no longer a readable file" in run.stdout + run.stderr
    hook = rb(root, "hook", "session-start", "--role", "coder")
    assert hook.returncode == 0 and "Cited lesson." in hook.stdout


def test_a_pipe_as_the_rules_file_is_read_as_nothing_by_read_and_refused_by_promote(root: Path) -> None:
    os.mkfifo(root / "CLAUDE.md")
    assert rb(root, "read", "coder").returncode == 0
    run = rb(root, "promote", "--yes")
    assert run.returncode == 2 and "CLAUDE.md: a named pipe (FIFO)" in run.stderr


def test_a_pipe_as_rolebook_yaml_is_an_error_naming_it(root: Path) -> None:
    (root / "rolebook.yaml").unlink()
    os.mkfifo(root / "rolebook.yaml")
    run = rb(root, "read", "coder")
    assert run.returncode == 2 and "rolebook.yaml: a named pipe (FIFO)" in run.stderr


def test_a_pipe_in_the_derived_folder_is_no_cache_and_blocks_nothing(root: Path) -> None:
    cache = root / "agents" / "state" / ".rolebook" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    for name in ("read-coder.json", "rules-coder.json", "drift-coder.json"):
        (cache / name).unlink(missing_ok=True)
        os.mkfifo(cache / name)
    run = rb(root, "read", "coder")
    assert run.returncode == 0 and "Run npm ci" in run.stdout


# -- doctor names what was planted


def test_doctor_names_every_planted_thing_and_does_not_hang(root: Path, tmp_path: Path) -> None:
    state = root / "agents" / "state"
    (state / "memory" / "qa.md").symlink_to(tmp_path / "home" / "private.md")
    os.mkfifo(state / "archive" / "qa.jsonl")
    os.mkfifo(root / "CLAUDE.md")
    run = rb(root, "doctor", "--json")
    assert run.returncode == 1
    found = json.loads(run.stdout)["planted"]
    assert len(found) == 3
    assert any("memory/qa.md: a link leading outside the project" in f for f in found)
    assert any("archive/qa.jsonl: a named pipe" in f for f in found)
    assert any("CLAUDE.md: a named pipe" in f for f in found)
    assert "PRIVATE-KEY-NOTES" not in run.stdout


# -- imports never follow a link out of the folder imported


def _archive_text(root: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in (root / "agents" / "state" / "archive").glob("*.jsonl"))


@pytest.mark.parametrize(
    ("fmt", "folder", "good"),
    [
        ("claude-memory", ".claude/agent-memory/coder", "good.md"),
        ("serena", ".serena/memories", "good.md"),
        ("codex-memory", "codex", "MEMORY.md"),
    ],
)
def test_import_never_reads_a_link_out_of_its_folder_into_the_archive(
    root: Path, tmp_path: Path, fmt: str, folder: str, good: str
) -> None:
    where = root / folder
    where.mkdir(parents=True)
    (where / good).write_text("# Memory\n\n- Use ruff for lint.\n", encoding="utf-8")
    (where / "leak.md").symlink_to(tmp_path / "home" / "private.md")
    run = rb(root, "import", fmt, str(where), "--role", "coder")
    assert run.returncode == 2
    assert "leak.md:1: a link leads outside the folder imported" in run.stderr
    assert "PRIVATE-KEY-NOTES" not in _archive_text(root)
    run = rb(root, "import", fmt, str(where), "--role", "coder", "--skip-bad")
    assert run.returncode == 0, run.stderr
    assert "Use ruff" in _archive_text(root) and "PRIVATE-KEY-NOTES" not in _archive_text(root)


def test_import_of_a_subagent_folder_that_is_a_link_out_reads_nothing_through_it(root: Path, tmp_path: Path) -> None:
    agents = root / ".claude" / "agent-memory"
    (agents / "coder").mkdir(parents=True)
    (agents / "coder" / "good.md").write_text("Use ruff for lint.\n", encoding="utf-8")
    (agents / "qa").symlink_to(tmp_path / "home")
    run = rb(root, "import", "claude-memory", str(agents), "--skip-bad")
    assert "qa/private.md:1: a link leads outside the folder imported" in run.stderr
    assert "PRIVATE-KEY-NOTES" not in _archive_text(root)


def test_import_names_a_pipe_in_its_folder_and_does_not_hang(root: Path) -> None:
    where = root / ".serena" / "memories"
    where.mkdir(parents=True)
    (where / "good.md").write_text("Use ruff for lint.\n", encoding="utf-8")
    os.mkfifo(where / "pipe.md")
    run = rb(root, "import", "serena", str(where), "--role", "coder")
    assert run.returncode == 2 and "pipe.md:1: not a regular file" in run.stderr


# -- what init, integrate and the hooks read


def test_integrate_and_init_name_a_pipe_planted_as_a_file_they_edit(root: Path) -> None:
    (root / ".claude").mkdir()
    os.mkfifo(root / ".claude" / "settings.json")
    run = rb(root, "integrate", "claude", "--role", "coder")
    assert run.returncode == 2 and "settings.json: a named pipe (FIFO)" in run.stderr
    os.mkfifo(root / ".gitattributes")
    run = rb(root, "init", "coder")
    assert run.returncode == 2 and ".gitattributes: a named pipe (FIFO)" in run.stderr


def test_the_hooks_never_wait_on_a_pipe_in_the_derived_folder(root: Path) -> None:
    derived = root / "agents" / "state" / ".rolebook"
    payload = json.dumps({"session_id": "abc-123", "hook_event_name": "SessionStart"})

    def hook(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "rolebook", "--root", str(root), *args],
            input=payload,
            capture_output=True,
            text=True,
            timeout=LIMIT,
            cwd=root,
        )

    assert hook("hook", "session-start", "--role", "coder").returncode == 0
    notes = [
        derived / "sessions" / "abc-123.json",
        derived / "current" / "coder",
        derived / "cache" / "gate-coder.json",
    ]
    for note in notes:
        assert note.is_file(), note
        note.unlink()
        os.mkfifo(note)
    run = hook("hook", "session-start", "--role", "coder")
    assert run.returncode == 0 and "Run npm ci" in run.stdout
    assert hook("hook", "stop", "--role", "coder").returncode == 0


def test_the_rules_file_is_never_read_through_a_link_out_of_the_project(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "home" / "CLAUDE.md"
    outside.write_text(
        "<!-- rolebook:rules:start -->\n- Outside rule. _(coder; incidents 2026-01-01)_\n<!-- rolebook:rules:end -->\n",
        encoding="utf-8",
    )
    (root / "CLAUDE.md").symlink_to(outside)
    run = rb(root, "rules")
    assert run.returncode == 2 and "a link leads outside the root" in run.stderr
    assert "Outside rule" not in run.stdout + run.stderr
