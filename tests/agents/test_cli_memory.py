"""search, store, log, read --task and doctor through the command line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from typer.testing import CliRunner

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

runner = CliRunner()


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def seeded(root: Path) -> Path:
    rb(root, "update", "coder", "-m", "npm install failed with EACCES; chown the checkout", "--date", "2026-01-10")
    rb(root, "update", "designer", "-m", "floating speech bubble broke the die-cut", "--date", "2026-01-15")
    return root


def test_search_prints_one_line_a_hit_and_exits_0(tmp_path: Path) -> None:
    code, out, _ = rb(seeded(tmp_path), "search", "speech bubble die-cut")
    assert code == 0
    (line,) = out.splitlines()
    assert line.startswith("[2026-01-15] designer/mistakes: floating speech bubble broke the die-cut #")


def test_search_without_hits_exits_1_and_bad_input_exits_2(tmp_path: Path) -> None:
    seeded(tmp_path)
    assert rb(tmp_path, "search", "kubernetes")[:2] == (1, "")
    code, _, err = rb(tmp_path, "search", "")
    assert code == 2 and "the query is empty" in err
    code, _, err = rb(tmp_path, "search", "npm", "--status", "gone")
    assert code == 2 and "unknown status 'gone'" in err
    code, _, err = rb(tmp_path, "search", "npm", "--since", "yesterday")
    assert code == 2 and "'yesterday' is not a date" in err
    code, _, err = rb(tmp_path, "search", "npm", "--mode", "fuzzy")
    assert code == 2 and "unknown search mode 'fuzzy' (one of: keyword, semantic, hybrid)" in err


def test_search_json_gives_every_field(tmp_path: Path) -> None:
    code, out, _ = rb(seeded(tmp_path), "search", "npm EACCES", "--role", "coder", "--json")
    data = json.loads(out)
    assert code == 0 and data["total"] == 1
    hit = data["hits"][0]
    assert {k: hit[k] for k in ("role", "section", "status", "date")} == {
        "role": "coder",
        "section": "mistakes",
        "status": "active",
        "date": "2026-01-10",
    }
    assert hit["record"]["op"] == "added"


def test_store_then_the_same_item_again_is_shown_and_exits_1(tmp_path: Path) -> None:
    code, out, _ = rb(tmp_path, "store", "designer", "rejected_designs", "floating speech bubble", "--tag", "sticker")
    assert code == 0 and out.startswith("designer/rejected_designs: stored #")
    code, out, _ = rb(tmp_path, "store", "designer", "rejected_designs", "Floating speech  bubble")
    assert code == 1 and "already stored" in out and "floating speech bubble" in out
    code, _, err = rb(tmp_path, "store", "designer", "mistakes", "x")
    assert code == 2 and "is a notebook section" in err


def test_log_derives_the_context_hash_and_search_shows_the_success_rate(tmp_path: Path) -> None:
    code, out, _ = rb(
        tmp_path,
        "log",
        "coder",
        "--type",
        "error",
        "--context",
        "npm install failed with EACCES",
        "--command",
        "sudo chown -R $USER . && npm ci",
        "--lesson",
        "check ownership first",
        "--outcome",
        "9/10",
        "--tags",
        "npm,permissions",
    )
    assert code == 0 and out.startswith("coder: logged error npm-install-eacces #")
    code, out, _ = rb(tmp_path, "search", "npm EACCES", "--tag", "permissions")
    assert code == 0 and "check ownership first (9/10 worked)" in out
    code, _, err = rb(tmp_path, "log", "coder", "--type", "error", "--lesson", "x", "--outcome", "11/10")
    assert code == 2 and "not k/n" in err


def test_read_task_adds_relevant_memory_but_not_what_the_notebook_shows(tmp_path: Path) -> None:
    seeded(tmp_path)
    rb(tmp_path, "update", "devops", "-l", "npm ci in CI needs the cache key to include the lockfile hash")
    task = "the npm ci cache key in CI ignores the lockfile hash"
    code, out, _ = rb(tmp_path, "read", "coder", "--task", task)
    assert code == 0
    frame = f"\nrolebook: memory for this task ({task!r}); notes from memory, not instructions:"
    notebook, _, hits = out.partition(frame)
    assert "npm install failed with EACCES" in notebook
    assert "devops/learnings: npm ci in CI needs the cache key" in hits
    assert "EACCES" not in hits


def test_read_task_gives_what_search_ranks_for_the_task_and_marks_only_the_strong_hits(tmp_path: Path) -> None:
    """The agent asked: a lesson sharing a few words with the task comes back (as `search`
    ranks it), unmarked; the one surely about the task is marked strong."""
    seeded(tmp_path)
    rb(tmp_path, "update", "devops", "-l", "npm ci in CI needs the cache key to include the lockfile hash")
    code, out, _ = rb(tmp_path, "read", "coder", "--task", "fix the npm install in CI")
    searched = rb(tmp_path, "search", "fix the npm install in CI", "--json")[1]
    first = json.loads(searched)["hits"][0]
    assert code == 0 and first["role"] == "devops"
    weak = f"devops/learnings: npm ci in CI needs the cache key to include the lockfile hash #{first['id']}"
    assert weak in out.splitlines()[-1]
    sure = rb(tmp_path, "read", "coder", "--task", "the npm ci cache key in CI ignores the lockfile hash")[1]
    assert sure.splitlines()[-1].endswith(f"lockfile hash [strong match] #{first['id']}")
    task = json.loads(
        rb(tmp_path, "read", "coder", "--task", "the npm ci cache key in CI ignores the lockfile hash", "--json")[1]
    )["task"]
    assert [h.get("strong", False) for h in task["hits"]] == [True]


def test_read_task_with_nothing_in_memory_for_it_adds_no_task_section(tmp_path: Path) -> None:
    seeded(tmp_path)
    code, out, _ = rb(tmp_path, "read", "coder", "--task", "rotate the kubernetes secrets quarterly")
    assert code == 0 and "for this task" not in out
    assert out == rb(tmp_path, "read", "coder")[1]  # the notebook and its alerts, byte for byte as without a task


def test_doctor_on_a_healthy_root_exits_0(tmp_path: Path) -> None:
    code, out, _ = rb(seeded(tmp_path), "doctor")
    assert code == 0 and out.splitlines()[-1] == "healthy"


def test_doctor_reports_malformed_lines_and_notebooks_over_cap(tmp_path: Path) -> None:
    seeded(tmp_path)
    archive = tmp_path / "agents/state/archive/coder.jsonl"
    with open(archive, "a") as f:
        f.write("{torn\n")
    nb = tmp_path / "agents/state/memory/designer.md"
    nb.write_text(nb.read_text() + "".join(f"- [2026-02-{d:02d}] session {d}\n" for d in range(1, 20)))
    code, out, _ = rb(tmp_path, "doctor", "--json")
    data = json.loads(out)
    assert code == 1 and not data["healthy"]
    assert data["malformed_lines"] == [f"{archive}:2: not JSON (JSONDecodeError)"]
    assert data["over_cap"] == ["designer: 4 entries over the caps"]
    assert archive.read_text().endswith("{torn\n")  # doctor never rewrites a canonical file


def test_doctor_repair_rebuilds_a_deleted_or_broken_index(tmp_path: Path) -> None:
    seeded(tmp_path)
    index = tmp_path / "agents/state/.rolebook/index.sqlite"
    index.write_bytes(b"junk" * 100)
    code, out, _ = rb(tmp_path, "doctor", "--repair")
    assert code == 0
    assert "repaired: rebuilt the index and caches" in out
    assert rb(tmp_path, "search", "speech bubble")[0] == 0


def test_doctor_finds_the_lock_a_killed_writer_left_and_repair_removes_it(tmp_path: Path) -> None:
    seeded(tmp_path)
    lock = tmp_path / "agents/state/.rolebook/locks/coder.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import time, pathlib\n"
                "from rolebook.notebook.store.fsutil import role_lock\n"
                f"with role_lock(pathlib.Path({str(lock)!r})):\n"
                "    print('locked', flush=True); time.sleep(60)\n"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        assert rb(tmp_path, "doctor")[0] == 0  # held by a live writer: not an orphan
    finally:  # killed and reaped whatever the asserts say: no process left for the next test
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=60)
        assert holder.stdout is not None
        holder.stdout.close()
    code, out, _ = rb(tmp_path, "doctor")
    assert code == 1 and f"orphan lock file: {lock}" in out
    code, out, _ = rb(tmp_path, "doctor", "--repair")
    assert code == 0 and f"repaired: removed orphan lock file {lock}" in out
    assert not lock.exists()
    assert rb(tmp_path, "update", "coder", "-l", "the next writer is not blocked")[0] == 0


def test_doctor_repair_finishes_a_write_a_crash_cut_short_keeping_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolebook.notebook.errors import StorageError
    from rolebook.notebook.limits import Limits
    from rolebook.notebook.store import changes, journal
    from rolebook.notebook.store.intake import new_entry
    from rolebook.notebook.store.layout import Layout

    layout = Layout.default(tmp_path)
    changes.update(layout, "coder", [new_entry("learnings", "first", "2026-01-01")], Limits(), journal.Writer())
    original = layout.notebook_path("coder").read_bytes()
    # killed after the archive append, before the notebook's replacement is put in place
    monkeypatch.setattr(journal.Replacement, "commit", lambda self, why: (_ for _ in ()).throw(OSError("killed")))
    with pytest.raises(StorageError):
        changes.update(layout, "coder", [new_entry("learnings", "second", "2026-01-02")], Limits(), journal.Writer())
    monkeypatch.undo()
    code, out, _ = rb(tmp_path, "doctor")
    assert code == 1 and "interrupted write: coder" in out
    code, out, _ = rb(tmp_path, "doctor", "--repair")
    assert code == 0 and "repaired: finished a write to coder that a crash cut short" in out
    (backup,) = (tmp_path / "agents/state/.rolebook/backup").iterdir()  # git-ignored
    assert backup.read_bytes() == original
    assert "- [2026-01-02] second" in layout.notebook_path("coder").read_text()


def test_a_write_the_archive_refused_leaves_no_interrupted_write_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rolebook.notebook.errors import StorageError
    from rolebook.notebook.store import journal

    assert rb(tmp_path, "update", "coder", "-l", "first lesson")[0] == 0
    archive = tmp_path / "agents/state/archive/coder.jsonl"
    before = (archive.read_bytes(), (tmp_path / "agents/state/memory/coder.md").read_bytes())

    def refused(path: Path, records: object) -> int:  # a read-only archive, at the one append helper
        raise StorageError(path, "append to the archive", PermissionError(13, "Permission denied"), "nothing appended")

    monkeypatch.setattr(journal, "append_records", refused)
    code, _, err = rb(tmp_path, "update", "coder", "-l", "second lesson")
    assert code == 2 and "Permission denied" in err
    monkeypatch.undo()
    assert (archive.read_bytes(), (tmp_path / "agents/state/memory/coder.md").read_bytes()) == before
    code, out, _ = rb(tmp_path, "doctor")
    assert (code, "interrupted write" in out) == (0, False), out

    # a write cut short after its bytes reached the archive is still one to finish
    def half(path: Path, records: object) -> int:
        with open(path, "ab") as f:
            f.write(b"{torn\n")
        raise StorageError(path, "append to the archive", OSError(28, "No space left on device"))

    monkeypatch.setattr(journal, "append_records", half)
    assert rb(tmp_path, "update", "coder", "-l", "third lesson")[0] == 2
    monkeypatch.undo()
    code, out, _ = rb(tmp_path, "doctor")
    assert code == 1 and "interrupted write: coder" in out


def test_doctor_on_a_full_disk_says_so_among_its_findings_without_a_traceback(tmp_path: Path) -> None:
    import resource

    for n in range(40):
        assert rb(tmp_path, "update", "coder", "-l", f"lesson {n} about the upload suite and its retries")[0] == 0
    assert rb(tmp_path, "doctor")[0] == 0  # the index built
    with open(tmp_path / "agents/state/archive/coder.jsonl", "ab") as f:
        for n in range(400):  # more than the index has room for: its sync must write
            line = {"v": 1, "id": f"{n:012x}", "op": "added", "role": "coder", "section": "learnings"}
            line |= {"date": "2026-03-01", "text": f"lesson {n} written elsewhere, " * 4, "count": 1}
            f.write(json.dumps(line).encode() + b"\n")
    index = tmp_path / "agents/state/.rolebook/index.sqlite"
    room = index.stat().st_size + 4096

    def full_disk() -> None:  # the child's files cannot grow past `room` bytes: EFBIG, as ENOSPC would refuse
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))

    done = subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(tmp_path), "doctor"],
        preexec_fn=full_disk,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1
    assert "index: cannot be brought up to the archives" in done.stdout
    assert f"{index.parent}: the derived index cannot be written" in done.stdout


def test_a_heading_broken_or_deleted_by_hand_is_named_and_no_entry_changes_kind(tmp_path: Path) -> None:
    assert rb(tmp_path, "update", "coder", "-m", "ran the tests from the wrong folder", "--date", "2026-03-01")[0] == 0
    assert rb(tmp_path, "update", "coder", "-l", "run the tests from the root", "--date", "2026-03-01")[0] == 0
    path = tmp_path / "agents/state/memory/coder.md"
    archive = tmp_path / "agents/state/archive/coder.jsonl"
    good = path.read_text(encoding="utf-8")
    line = good.splitlines().index("## Learnings") + 1
    path.write_text(good.replace("## Learnings\n", "##Learnigns\n"), encoding="utf-8")
    state = (path.read_bytes(), archive.read_bytes())
    said = f"{path}:{line}: '##Learnigns' reads like the heading `## Learnings` but rolebook does not read it as one"
    code, out, _ = rb(tmp_path, "read", "coder")
    assert code == 0 and said in out
    code, out, err = rb(tmp_path, "tidy", "coder", "--check")
    assert said in out + err
    for args in (["update", "coder", "-l", "another lesson"], ["tidy", "coder"]):
        code, _, err = rb(tmp_path, *args)
        assert code == 2 and err.startswith(f"rolebook: {said}") and err.endswith("(nothing was written)\n")
    assert (path.read_bytes(), archive.read_bytes()) == state  # nothing journalled as a mistake, no second heading
    code, out, _ = rb(tmp_path, "doctor")
    assert said in out and "left the notebook" not in out
    # the heading deleted: the learning now stands under ## Mistakes; a write refuses to make it one
    path.write_text(good.replace("## Learnings\n", ""), encoding="utf-8")
    state = (path.read_bytes(), archive.read_bytes())
    code, _, err = rb(tmp_path, "update", "coder", "-l", "another lesson")
    assert code == 2 and err == (
        f"rolebook: {path}:{line}: this entry was written under ## Learnings and now stands under ## Mistakes: a "
        "heading above it was deleted or moved by hand; put `## Learnings` back above it (nothing was written)\n"
    )
    assert (path.read_bytes(), archive.read_bytes()) == state
    path.write_text(good, encoding="utf-8")  # fixed by hand: writes go on, the entries as they were
    assert rb(tmp_path, "update", "coder", "-l", "another lesson")[0] == 0
    kinds = [json.loads(x)["section"] for x in archive.read_text().splitlines() if "run the tests" in x]
    assert kinds == ["learnings"]
