"""Under load and under SIGKILL: every acknowledged write is there exactly once."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stress

MIX = {"update": 2, "cli": 1, "mcp": 1, "store": 1, "log": 1, "promote": 1, "search": 1, "reader": 1}


@pytest.mark.load
def test_every_kind_of_writer_and_reader_at_once_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    lines = stress.run(tmp_path, MIX, seconds=4)
    report = stress.check(tmp_path, lines)
    done = report["acknowledged"]
    assert done["entry"] > 20 and done["stored"] > 5 and done["logged"] > 5 and done["op"] > 10
    assert not [line for line in lines if line.startswith("ERROR")]


@pytest.mark.load
def test_writers_of_every_kind_killed_at_random_lose_nothing(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("ROLEBOOK_CRASH_SEED", "11")))
    lines: list[str] = []
    for _ in range(max(1, int(os.environ.get("ROLEBOOK_CRASH_ROUNDS", "25")) // 4)):
        lines += stress.run(
            tmp_path,
            {"update": 1, "store": 1, "log": 1, "promote": 1, "reader": 1},
            seconds=30,
            kill_after=rng.uniform(0.6, 1.5),
        )
    stress.check(tmp_path, lines)


@pytest.mark.load
def test_deleting_the_derived_folder_while_writers_run_loses_nothing(tmp_path: Path) -> None:
    lines = stress.run(tmp_path, {"update": 4, "cli": 2, "store": 1, "log": 1, "search": 1, "clean": 1}, seconds=4)
    report = stress.check(tmp_path, lines)
    assert report["acknowledged"]["entry"] > 20 and lines.count("op clean") > 10
    assert not [line for line in lines if line.startswith("ERROR")]


def _git(cwd: Path, *args: str) -> None:
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    assert done.returncode == 0, (args, done.stdout, done.stderr)


@pytest.mark.load
@pytest.mark.parametrize("into", ["main", "feature"])
def test_a_real_git_merge_of_two_busy_branches_past_the_caps_loses_nothing(tmp_path: Path, into: str) -> None:
    """Writers on two worktrees of one repository, far past the caps, then `git merge`
    (either way round): every acknowledged entry is in the notebook or journalled."""
    import json
    import subprocess

    from rolebook.notebook.markdown import parse

    main, feature = tmp_path / "main", tmp_path / "feature"
    main.mkdir()
    _git(main, "init", "-q", "-b", "main")
    rolebook = [sys.executable, "-m", "rolebook"]
    subprocess.run([*rolebook, "--root", str(main), "init", "coder"], check=True, capture_output=True)
    (main / "rolebook.yaml").write_text("limits: {learnings: 6, mistakes: 4, session_log: 4}\n")
    _git(main, "add", "-A")
    _git(main, "commit", "-qm", "base")
    _git(main, "worktree", "add", "-q", "-b", "feature", str(feature))
    acknowledged: list[str] = []

    def writer(root: Path, name: str) -> list[subprocess.Popen[str]]:
        runs = []
        for n in range(12):
            section = ("-l", "-m", "--log")[n % 3]
            text = f"{name} entry {n} about widget {n * 7}"
            day = f"2026-0{1 + n % 9}-1{n % 10}"
            runs.append(
                subprocess.Popen(
                    [*rolebook, "--root", str(root), "update", "coder", section, text, "--date", day],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            acknowledged.append(text)
        return runs

    for run in writer(main, "main") + writer(feature, "feature"):  # both branches busy at once
        _, err = run.communicate()
        assert run.returncode == 0, err
    _git(main, "commit", "-qam", "main work")
    _git(feature, "commit", "-qam", "feature work")
    target, other = (main, "feature") if into == "main" else (feature, "main")
    _git(target, "merge", "-q", other, "-m", "merge")
    notebook = target / "agents/state/memory/coder.md"
    kept = {e.text for e in parse(notebook.read_text()).entries()}
    records = [json.loads(x) for x in (target / "agents/state/archive/coder.jsonl").read_text().splitlines()]
    last = {r["text"]: r["op"] for r in records}
    for text in acknowledged:
        assert text in kept or last.get(text) in ("pruned", "recurred"), (text, last.get(text))
    doctor = subprocess.run([*rolebook, "--root", str(target), "doctor"], capture_output=True, text=True)
    assert "left the notebook" not in doctor.stdout, doctor.stdout


LOOPER = r"""
import sys, time
from pathlib import Path
from rolebook.notebook.store.fsutil import role_lock
path, pause = Path(sys.argv[1]), float(sys.argv[2])
end, turns = time.monotonic() + 4, 0
while time.monotonic() < end:
    with role_lock(path):
        turns += 1
        held = time.monotonic()
        while time.monotonic() - held < 0.005:  # a write's work, holding the lock
            pass
    if pause:
        time.sleep(pause)
print(turns)
"""


@pytest.mark.load
def test_writers_that_take_the_lock_again_at_once_do_not_starve_the_others(tmp_path: Path) -> None:
    """Three writers looping on the lock without a pause and one that pauses 10 ms: each
    gets its turns (with waits growing to 50 ms one of them got 1 turn in 4 s)."""
    import subprocess

    lock = tmp_path / "coder.lock"
    procs = [
        subprocess.Popen([sys.executable, "-c", LOOPER, str(lock), pause], stdout=subprocess.PIPE, text=True)
        for pause in ("0", "0", "0", "0.01")
    ]
    turns = [int(p.communicate(timeout=60)[0]) for p in procs]
    assert min(turns) >= 6, turns
