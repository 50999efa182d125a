"""Long work shows how far it is (a bar on a terminal, a line a stage elsewhere), and
Ctrl-C says what was written and exits 130. The interrupts are real: the installed
command, paused at a known point through a named pipe (ROLEBOOK_PAUSE), sent SIGINT."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from rolebook.agents.watch import Shown
from rolebook.notebook import progress

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from children import interruptible, read_pipe
from roots import project

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")


def lessons(folder: Path, roles: dict[str, int]) -> Path:
    """A folder of markdown lessons files, `n` dated learnings for each role."""
    folder.mkdir()
    for role, n in roles.items():
        items = "".join(f"- [2026-01-{i % 28 + 1:02d}] {role} learning {i} about widget {i * 7}\n" for i in range(n))
        (folder / f"{role}.md").write_text("## Learnings\n" + items, encoding="utf-8")
    return folder


def rolebook(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    project(root)
    return subprocess.run(
        [ROLEBOOK, "--root", str(root), *args], capture_output=True, text=True, env={**os.environ, **(env or {})}
    )


def interrupted_at(root: Path, pause: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a command that stops at `pause` (JOB/STAGE, once that stage is done), then send it SIGINT."""
    project(root)
    pipe = root.parent / f"pause-{os.getpid()}"
    os.mkfifo(pipe)
    env = {**os.environ, "ROLEBOOK_PAUSE": f"{pause}:{pipe}"}
    command = interruptible([ROLEBOOK, "--root", str(root), *args])  # SIGINT handled even if this run ignores it
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert read_pipe(pipe, proc) == "paused\n"  # returns once the command is at the pause
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.returncode is None:
            proc.kill()
            proc.communicate()
        pipe.unlink()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_a_long_import_off_a_terminal_says_one_line_a_stage_on_stderr(tmp_path: Path) -> None:
    source = lessons(tmp_path / "src", {"coder": 600, "qa": 500})
    done = rolebook(tmp_path / "root", "import", "markdown", str(source))
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "rolebook: importing 600 records into coder",
        "rolebook: importing 500 records into qa",
    ]
    assert done.stdout.startswith("coder: added 600 notebook entries")


def test_a_short_import_says_nothing_of_its_progress(tmp_path: Path) -> None:
    source = lessons(tmp_path / "src", {"coder": 5, "qa": 5})
    done = rolebook(tmp_path / "root", "import", "markdown", str(source))
    assert done.returncode == 0 and done.stderr == ""


def test_ctrl_c_during_an_import_says_what_was_written_and_exits_130(tmp_path: Path) -> None:
    source = lessons(tmp_path / "src", {"coder": 12, "qa": 7, "designer": 3})
    root = tmp_path / "root"
    stopped = interrupted_at(root, "import/coder", "import", "markdown", str(source))
    assert stopped.returncode == 130
    assert stopped.stderr.splitlines()[-1] == (
        "rolebook: interrupted: coder 12 records written, designer, qa not started; "
        "run the import again to finish, it is idempotent"
    )
    assert "Traceback" not in stopped.stderr and stopped.stdout == ""
    assert (root / "agents/state/memory/coder.md").exists()
    assert not (root / "agents/state/memory/qa.md").exists()
    again = rolebook(root, "import", "markdown", str(source))
    assert again.returncode == 0
    assert again.stdout.splitlines() == [
        "coder: added 0 notebook entries, 0 archived; 12 already there",
        "designer: added 3 notebook entries, 0 archived",
        "qa: added 7 notebook entries, 0 archived",
    ]


def test_ctrl_c_during_an_index_build_says_which_roles_are_indexed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert rolebook(root, "import", "markdown", str(lessons(tmp_path / "src", {"coder": 30, "qa": 30}))).returncode == 0
    derived = root / "agents/state/.rolebook"
    for file in derived.glob("index*"):
        file.unlink()
    stopped = interrupted_at(root, "index/coder", "search", "widget")
    assert stopped.returncode == 130
    last = stopped.stderr.splitlines()[-1]
    assert last.startswith("rolebook: interrupted: coder ") and last.endswith(
        " MB indexed, qa not started; the index is derived: the next search builds the rest"
    )
    assert rolebook(root, "search", "widget").returncode == 0


def test_a_stage_cut_short_counts_what_it_kept_or_nothing_when_it_keeps_nothing() -> None:
    for kept, says in ((True, "a 40 of 100 records written"), (False, "a not finished")):
        work = progress.job("import", [("a", 100), ("b", 5)], unit="records", verb="written", then="", kept=kept)
        work.start("a").advance(40)
        assert work.summary() == f"{says}, b not started"
        work.finish()
    assert progress.under_way() is None


def test_on_a_terminal_a_job_is_drawn_as_a_bar_and_taken_off_when_done() -> None:
    screen = io.StringIO()
    progress.watch(Shown(screen, terminal=True))
    try:
        work = progress.job("import", [("coder", 10)], unit="records", verb="written", then="")
        stage = work.start("coder", "importing 10 records into coder")
        stage.advance(10)
        stage.finish()
        work.finish()
    finally:
        progress.watch(None)
    drawn = screen.getvalue()
    assert "import coder" in drawn and "10/10" in drawn and "\x1b[" in drawn


@pytest.mark.parametrize("shown", [False, True])
def test_off_a_terminal_only_a_job_long_enough_is_shown(shown: bool) -> None:
    lines = io.StringIO()
    progress.watch(Shown(lines, terminal=False))
    try:
        work = progress.job("import", [("coder", 10)], unit="records", verb="written", then="", shown=shown)
        work.start("coder", "importing 10 records into coder").finish()
        work.finish()
    finally:
        progress.watch(None)
    assert lines.getvalue() == ("rolebook: importing 10 records into coder\n" if shown else "")


def test_ctrl_c_while_restoring_an_export_names_the_roles_restored(tmp_path: Path) -> None:
    first = tmp_path / "first"
    assert rolebook(first, "import", "markdown", str(lessons(tmp_path / "src", {"coder": 25, "qa": 4}))).returncode == 0
    backup = tmp_path / "backup.jsonl"
    assert rolebook(first, "export", "-o", str(backup)).returncode == 0
    stopped = interrupted_at(tmp_path / "second", "import/coder", "import", "rolebook", str(backup))
    assert stopped.returncode == 130
    last = stopped.stderr.splitlines()[-1]  # coder's archive: its 25 entries added, 5 of them pruned since
    assert last.startswith("rolebook: interrupted: coder 30 records written, qa not started;")


def test_a_job_left_by_an_error_gives_way_to_the_same_job_begun_again() -> None:
    progress.watch(None)
    progress.job("index", [("coder", 10)], unit="bytes", verb="indexed", then="")
    again = progress.job("index", [("coder", 10)], unit="bytes", verb="indexed", then="")
    assert progress.under_way() is again
    again.finish()
    assert progress.under_way() is None
