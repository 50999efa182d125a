"""Many writers at once, and writers killed at random points: nothing is lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rolebook.notebook.limits import Limits, prune
from rolebook.notebook.markdown import parse
from rolebook.notebook.store.archive import ArchiveRecord, read_records
from rolebook.notebook.store.changes import tidy
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout

WORKER = """
import sys
from pathlib import Path
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.changes import update
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout
from rolebook.notebook.limits import Limits

root, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
layout = Layout.default(root)
limits = Limits(mistakes=5, learnings=5, session_log=5, lines=30)
sections = ["mistakes", "learnings", "session_log", "feedback"]
for i in range(count):
    entry = new_entry(sections[i % 4], f"{name} entry {i}", f"2026-01-{1 + i % 28:02d}")
    update(layout, "coder", [entry], limits, Writer(session=name))
    print(entry.id("coder"), flush=True)  # acknowledged: update returned
"""


def where_entries_are(layout: Layout) -> tuple[list[str], dict[str, str]]:
    path = layout.notebook_path("coder")
    live = [e.id("coder") for e in parse(path.read_text(encoding="utf-8")).entries()] if path.exists() else []
    last: dict[str, str] = {}
    for _, _, rec in read_records(layout.archive_path("coder")):
        assert isinstance(rec, ArchiveRecord)
        last[rec.id] = rec.op
    return live, last


def strays(root: Path, layout: Layout) -> list[str]:
    """Files a `git add -A` would pick up that no writer meant to leave: anything but the
    notebooks, the archives and what git ignores (the derived folder)."""
    out = []
    for path in root.rglob("*"):
        if path.is_dir() or path.is_relative_to(layout.derived) or ".git" in path.relative_to(root).parts:
            continue
        if path.parent == layout.memory and path.name.endswith(".md"):
            continue
        if path.parent == layout.archive and path.name.endswith(".jsonl"):
            continue
        out.append(str(path.relative_to(root)))
    return sorted(out)


def test_eight_processes_of_25_updates_lose_nothing_and_duplicate_nothing(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path), f"w{n}", "25"], stdout=subprocess.PIPE, text=True
        )
        for n in range(8)
    ]
    acked = []
    for p in procs:
        out, _ = p.communicate(timeout=300)
        assert p.returncode == 0
        acked += out.split()
    assert len(set(acked)) == 200
    live, last = where_entries_are(layout)
    assert set(acked) <= set(live) | set(last)
    assert len(live) == len(set(live))
    added = [r.id for _, _, r in read_records(layout.archive_path("coder")) if r.op == "added"]  # type: ignore[union-attr]
    assert sorted(added) == sorted(acked)  # journalled exactly once each
    limits = Limits(mistakes=5, learnings=5, session_log=5, lines=30)
    assert prune(parse(layout.notebook_path("coder").read_text()), limits)[1] == []  # caps held
    assert all(last[i] == "added" for i in live)


@pytest.mark.load
def test_writers_killed_at_random_points_lose_nothing_and_the_next_run_reconciles(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    rounds = int(os.environ.get("ROLEBOOK_CRASH_ROUNDS", "25"))
    rng = random.Random(int(os.environ.get("ROLEBOOK_CRASH_SEED", "7")))
    acked: set[str] = set()
    for n in range(rounds):
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path), f"k{n}", "1000"], stdout=subprocess.PIPE, text=True
        )
        time.sleep(rng.uniform(0.15, 0.45))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        acked |= set(out.split())
        live, last = where_entries_are(layout)
        assert acked <= set(live) | set(last), f"round {n}: acknowledged entries lost"
        assert strays(tmp_path, layout) == [], f"round {n}: a killed writer left files git would commit"
    tidy(layout, "coder", Limits(mistakes=5, learnings=5, session_log=5, lines=30), Writer())
    live, last = where_entries_are(layout)
    assert acked <= set(live) | set(last)
    assert all(last[i] == "added" for i in live), "an entry is both archived as gone and in the notebook"
    assert len(acked) > rounds  # the writers got real work done between kills


#: Runs the rolebook command line, killed (SIGKILL) the moment it renames its new `argv[1]`
#: into place: the instant a temp file exists and the file is not replaced yet.
KILLED_AT_RENAME = """
import os, signal, sys
real = os.replace
def replace(src, dst, *args, **kwargs):
    if str(dst).endswith(sys.argv[1]):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst, *args, **kwargs)
os.replace = replace
from rolebook.agents.main import main
sys.exit(main(sys.argv[2:]))
"""


def rolebook_killed_at_rename(root: Path, name: str, *args: str) -> None:
    done = subprocess.run([sys.executable, "-c", KILLED_AT_RENAME, name, "--root", str(root), *args], timeout=120)
    assert done.returncode == -signal.SIGKILL


def rolebook(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(root), *args], capture_output=True, text=True, timeout=120
    )


def test_a_writer_killed_as_it_replaces_the_notebook_leaves_nothing_git_would_commit(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    assert rolebook(tmp_path, "init", "coder").returncode == 0
    (tmp_path / ".gitignore").unlink()
    (tmp_path / ".gitattributes").unlink()
    (tmp_path / "rolebook.yaml").unlink()
    (tmp_path / "agents/state/PROTOCOL.md").unlink()
    rolebook_killed_at_rename(tmp_path, "coder.md", "update", "coder", "-l", "written before the kill")
    assert strays(tmp_path, layout) == []
    # the entry is in the archive; the next write puts it in the notebook
    assert rolebook(tmp_path, "tidy", "coder").returncode == 0
    assert "written before the kill" in layout.notebook_path("coder").read_text()


def test_a_writer_killed_as_it_replaces_the_rules_file_leaves_nothing_git_would_commit(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    assert rolebook(tmp_path, "init", "coder").returncode == 0
    for day in ("2026-01-05", "2026-02-05", "2026-03-05"):
        rolebook(tmp_path, "update", "coder", "-m", "pushed without the tests; run the tests first", "--date", day)
    before = sorted(p.name for p in tmp_path.iterdir())
    rolebook_killed_at_rename(tmp_path, "CLAUDE.md", "promote", "--yes")
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert not list(layout.memory.glob(".*"))


@pytest.mark.parametrize(
    ("name", "args"), [(".mcp.json", ["integrate", "claude", "--role", "coder"]), (".gitignore", ["init", "coder"])]
)
def test_init_and_integrate_killed_as_they_write_leave_no_temp_file_in_the_project(
    tmp_path: Path, name: str, args: list[str]
) -> None:
    if args[0] == "integrate":
        assert rolebook(tmp_path, "init", "coder").returncode == 0
    rolebook_killed_at_rename(tmp_path, name, *args)
    left = [p for p in tmp_path.rglob(".*.tmp") if not p.is_relative_to(tmp_path / "agents/state/.rolebook")]
    assert left == []


def test_doctor_reports_stale_temp_files_in_the_derived_folder_and_repair_removes_them(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    assert rolebook(tmp_path, "init", "coder").returncode == 0
    rolebook_killed_at_rename(tmp_path, "coder.md", "update", "coder", "-l", "killed")
    (stale,) = (layout.derived / "tmp").iterdir()
    os.utime(stale, (1, 1))
    found = rolebook(tmp_path, "doctor")
    assert found.returncode == 1 and f"temp file a killed writer left: {stale}" in found.stdout
    repaired = rolebook(tmp_path, "doctor", "--repair")
    assert f"removed the temp file a killed writer left: {stale}" in repaired.stdout
    assert not stale.exists()


def test_a_write_whose_derived_folder_is_deleted_before_the_rename_still_replaces_the_file(tmp_path: Path) -> None:
    import shutil

    from rolebook.notebook.store.fsutil import Replacement

    target, spare = tmp_path / "notebook.md", tmp_path / "derived" / "tmp"
    target.write_text("old\n")
    with Replacement(target, b"new\n", spare=spare) as new:
        assert new.tmp is not None and Path(new.tmp).parent == spare
        shutil.rmtree(tmp_path / "derived")  # git clean -fdX while the writer runs
        new.commit()
    assert target.read_bytes() == b"new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notebook.md"]
