"""import claude-memory, codex-memory and serena (the agent CLIs' own memories), and export
to a Claude Code subagent's MEMORY.md, through the command line. The fixtures are shaped as
each tool writes its folder (Claude Code 2.1, Codex 0.169, Serena's MemoriesManager)."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.agents.importers import READERS
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from roots import canonical, project

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "importers"
AUTO = "claude-memory/projects/-home-dana-src-upload-client/memory"
AGENTS = "claude-memory/.claude/agent-memory"
runner = CliRunner()
#: Every fixture file's modification time: the date of what carries no date of its own.
MTIME = dt.datetime(2026, 3, 12, 12, tzinfo=dt.UTC).timestamp()


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    project(root)
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def records(root: Path, role: str) -> list[dict]:
    path = root / "agents" / "state" / "archive" / f"{role}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def notebook(root: Path, role: str) -> str:
    return (root / "agents" / "state" / "memory" / f"{role}.md").read_text(encoding="utf-8")


def fixture(name: str, tmp_path: Path) -> Path:
    """A copy of a fixture folder, every file dated MTIME."""
    dst = tmp_path / "src" / name
    shutil.copytree(FIX / name, dst)
    for p in dst.rglob("*"):
        os.utime(p, (MTIME, MTIME))
    return dst


# -- Claude Code ---------------------------------------------------------------------------------


def test_claude_auto_memory_feedback_goes_to_feedback_project_to_learnings_the_rest_to_the_archive(
    tmp_path: Path,
) -> None:
    src = fixture(AUTO, tmp_path)
    code, out, err = rb(tmp_path / "root", "import", "claude-memory", str(src), "--role", "coder")
    assert code == 0, err
    assert out == "coder: added 5 notebook entries, 2 archived\n"
    nb = notebook(tmp_path / "root", "coder")
    feedback = nb.split("## Feedback\n")[1].split("\n## ")[0]
    assert feedback.splitlines() == [  # dated by the frontmatter's `modified`, newest first
        "- [2026-03-09] Do not end answers with a summary of what was just done. Why: the team reads the diff; "
        "a recap costs them time. How to apply: stop after the last change or the question that needs an answer.",
        "- [2026-03-02] Integration tests must hit a real Postgres database, not mocks. Why: a mocked storage "
        "layer hid a broken migration that failed in production last quarter. How to apply: use the `testdb` "
        "fixture in `internal/testutil`; it starts a throwaway container. See [[project-release-freeze]].",
    ]
    learnings = nb.split("## Learnings\n")[1].split("\n## ")[0]
    assert "- [2026-02-27] Merge freeze begins 2026-03-05" in learnings  # `type: project` at the top level
    # MEMORY.md's own line, and the pointer whose file is gone, dated by the file
    assert "- [2026-03-12] Build with `make build`: `npm run build` skips the protobuf codegen step." in learnings
    assert "- [2026-03-12] Flaky e2e suite: rerun once before investigating" in learnings
    assert "Dana's background" not in nb  # a pointer to a file that is there: the file is the memory
    recs = {r["text"].split(":")[0]: r for r in records(tmp_path / "root", "coder")}
    user, ref = recs["user-role"], recs["reference-grafana"]
    assert (user["op"], user["section"], ref["section"]) == ("stored", "user", "reference")
    assert user["description"].startswith("Dana is a senior Go engineer") and user["original"].startswith("---\n")
    terse = next(r for r in records(tmp_path / "root", "coder") if r["text"].startswith("Do not end"))
    assert (terse["source"], terse["scope"]) == ("claude-memory", "team")
    assert terse["file"] == "team/feedback_terse_answers.md"


def test_claude_subagent_memory_is_imported_into_the_role_the_subagent_is_named_after(tmp_path: Path) -> None:
    src = fixture(AGENTS, tmp_path)
    code, out, err = rb(tmp_path / "root", "import", "claude-memory", str(src))  # every subagent's folder
    assert code == 0, err
    assert out == "code-reviewer: added 6 notebook entries, 2 archived\n"
    nb = notebook(tmp_path / "root", "code-reviewer")
    assert "## Mistakes\n- [2026-03-02] Approved a migration without checking its down step;" in nb
    assert (
        "- [2026-03-12] Tests sit next to the code as `*_test.go`, table-driven; ask for a case per branch. "
        "Subtests are named after the behaviour, not the input.\n" in nb
    )
    assert "- [2026-03-12] Exported functions get a doc comment" in nb  # its topic file, type project
    notes = [r for r in records(tmp_path / "root", "code-reviewer") if r["op"] == "stored"]
    assert notes[0]["text"] == "The team prefers questions over directives in review comments."
    assert notes[0]["heading"] == "Mistakes"
    # one subagent's folder names its role too; --role wins over it
    code, out, _ = rb(tmp_path / "other", "import", "claude-memory", str(src / "code-reviewer"), "--role", "qa")
    assert code == 0 and out.startswith("qa: added 6 notebook entries")


def test_claude_projects_folder_and_a_project_folder_find_the_memory_inside(tmp_path: Path) -> None:
    projects = fixture("claude-memory/projects", tmp_path)
    for path in (projects, projects / "-home-dana-src-upload-client"):
        code, out, _ = rb(tmp_path / "root", "import", "claude-memory", str(path), "--role", "coder", "--dry-run")
        assert code == 0 and out.startswith("coder: would add 5 notebook entries, 2 archived")
    code, _, err = rb(tmp_path / "root", "import", "claude-memory", str(projects))
    assert code == 2 and "pass --role ROLE" in err  # a project's memory names no role


@pytest.mark.parametrize(
    ("fmt", "name", "role"),
    [
        ("claude-memory", AUTO, "coder"),
        ("claude-memory", AGENTS, None),
        ("codex-memory", "codex-memory/memories", "coder"),
        ("serena", "serena", "coder"),
    ],
)
def test_importing_a_native_memory_twice_adds_nothing(tmp_path: Path, fmt: str, name: str, role: str | None) -> None:
    src = fixture(name, tmp_path)
    args = ["import", fmt, str(src)] + (["--role", role] if role else [])
    assert rb(tmp_path / "root", *args)[0] == 0
    before = canonical(tmp_path / "root")
    code, out, _ = rb(tmp_path / "root", *args)
    assert code == 0 and "added 0 notebook entries, 0 archived" in out
    assert canonical(tmp_path / "root") == before


BROKEN = [
    ("feedback_testing.md", "---\nname: x\ntype: [feedback\n---\nbody\n", 3, "frontmatter is not YAML"),
    ("feedback_testing.md", "---\nname: x\ntype: feedback\nbody with no closing fence\n", 1, "never closed"),
    ("MEMORY.md", "- fine line\n- a line with a \x07 bell in it\n", 2, "control character U+0007"),
    ("user_role.md", "---\n- a\n- list\n---\nbody\n", 2, "not a mapping"),
]


@pytest.mark.parametrize(("file", "text", "line", "why"), BROKEN)
def test_a_bad_line_in_a_claude_memory_is_named_and_nothing_is_written(
    tmp_path: Path, file: str, text: str, line: int, why: str
) -> None:
    src = fixture(AUTO, tmp_path)
    (src / file).write_text(text, encoding="utf-8")
    code, _, err = rb(tmp_path / "root", "import", "claude-memory", str(src), "--role", "coder")
    assert code == 2
    assert f"{src / file}:{line}: " in err and why in err and "nothing was written" in err
    assert canonical(tmp_path / "root") == {}


def test_a_secret_in_a_claude_memory_is_redacted_before_it_is_written(tmp_path: Path) -> None:
    src = fixture(AUTO, tmp_path)
    key = "sk-ant-api03-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3"  # a real key's shape
    with open(src / "reference_grafana.md", "a", encoding="utf-8") as f:
        f.write(f"Its API token is {key}\n")
    code, _, err = rb(tmp_path / "root", "import", "claude-memory", str(src), "--role", "coder")
    assert code == 0 and "redacted before writing" in err
    archive = (tmp_path / "root/agents/state/archive/coder.jsonl").read_text(encoding="utf-8")
    assert key not in archive


def test_an_imported_mistake_that_recurs_is_merged_with_the_earlier_one(tmp_path: Path) -> None:
    root = tmp_path / "root"
    earlier = (
        "Backoff without jitter made every client retry in lockstep after the outage -> add full jitter "
        "and test with the fake clock in retry_test.go [Task 1]"
    )
    assert rb(root, "update", "coder", "--mistake", earlier, "--date", "2026-02-01")[0] == 0
    src = fixture("codex-memory/memories", tmp_path)
    code, _, err = rb(root, "import", "codex-memory", str(src), "--role", "coder")
    assert code == 0, err
    mistakes = notebook(root, "coder").split("## Mistakes\n")[1].split("\n## ")[0]
    assert mistakes.strip().splitlines() == [f"- [2026-03-10] {earlier} (x2)"]


# -- Codex and Serena ----------------------------------------------------------------------------


def test_codex_memories_map_preferences_knowledge_failures_and_tasks_onto_the_notebook(tmp_path: Path) -> None:
    src = fixture("codex-memory/memories", tmp_path)
    code, out, err = rb(tmp_path / "root", "import", "codex-memory", str(src), "--role", "coder")
    assert code == 0, err
    assert out == "coder: added 7 notebook entries, 4 archived\n"
    assert "raw_memories.md is Codex's scratch input" in err
    nb = notebook(tmp_path / "root", "coder")
    section = {s.split("\n")[0]: s for s in nb.split("## ")[1:]}
    assert (
        '- [2026-03-10] when the agent proposed raising the timeout, the user corrected: "fix the retries'
        in (section["Feedback"])
    )  # dated by the newest updated_at its task group cites
    assert "- [2026-03-12] Keep commits to one concern each; she squashes nothing." in section["Feedback"]
    assert "- [2026-03-12] The protobuf code is generated" in section["Learnings"]
    assert "- [2026-03-10] Backoff without jitter made every client retry in lockstep" in section["Mistakes"]
    assert "- [2026-03-10] stop the retry storm after a storage outage, success" in section["Session Log"]
    assert "UPLOAD_MAX_RETRIES, internal/upload/retry.go\n" not in nb  # keywords route, they are not memory
    stored = {r["section"]: r for r in records(tmp_path / "root", "coder") if r["op"] == "stored"}
    assert set(stored) == {"notes", "user", "rollout_summaries", "skills"}
    assert stored["skills"]["text"].startswith("run-integration-tests: Run the storage integration tests")
    assert stored["rollout_summaries"]["date"] == "2026-03-10"
    assert stored["notes"]["task_group"] == "upload-client retries and backoff"


def test_serena_memories_are_kept_by_name_and_a_learnings_heading_fills_the_notebook(tmp_path: Path) -> None:
    src = fixture("serena", tmp_path)
    code, out, err = rb(tmp_path / "root", "import", "serena", str(src), "--role", "coder")  # the project folder
    assert code == 0, err
    assert out == "coder: added 1 notebook entry, 7 archived\n"
    assert "memory_maintenance.md is Serena's own guide" in err
    assert "- [2026-03-12] internal/storage owns every S3 call" in notebook(tmp_path / "root", "coder")
    by_category: dict[str, list[str]] = {}
    for r in records(tmp_path / "root", "coder"):
        if r["op"] == "stored":
            by_category.setdefault(r["section"], []).append(r["text"])
    assert by_category["suggested_commands"][0] == (
        "Suggested commands: `make build`: builds the service and runs the protobuf codegen"
    )
    assert by_category["core_architecture"] == [
        "Uploads flow api/ -> internal/upload (chunking, retries) -> internal/storage (S3 client)."
    ]
    arch = next(r for r in records(tmp_path / "root", "coder") if r["section"] == "core_architecture")
    assert (arch["memory"], arch["type"]) == ("core/architecture", "Architecture")


# -- export to a subagent's MEMORY.md ------------------------------------------------------------


def test_export_writes_the_notebook_as_a_subagent_memory_that_imports_back_to_nothing_new(tmp_path: Path) -> None:
    root, folder = tmp_path / "root", tmp_path / "agent-memory" / "coder"
    written = rb(root, "update", "coder", "-m", "Forgot the down migration; run it locally", "-l", "CI caches go mod")
    assert written[0] == 0
    code, _, err = rb(root, "export", "--format", "claude-agent-memory", "--role", "coder", str(folder))
    assert code == 0, err
    text = (folder / "MEMORY.md").read_text(encoding="utf-8")
    assert text.startswith("<!-- written by rolebook export for role coder")
    assert text.splitlines()[1:] == notebook(root, "coder").splitlines()
    before = canonical(root)
    code, out, _ = rb(root, "import", "claude-memory", str(folder))
    assert code == 0 and "added 0 notebook entries, 0 archived" in out
    assert canonical(root) == before


def test_export_keeps_within_claude_code_s_200_line_window(tmp_path: Path) -> None:
    root, folder = tmp_path / "root", tmp_path / "coder"
    args = [a for n in range(250) for a in ("--feedback", f"feedback number {n} from the reviewers")]
    assert rb(root, "update", "coder", *args)[0] == 0  # Feedback is never pruned: 250 lines
    assert rb(root, "export", "--format", "claude-agent-memory", "--role", "coder", str(folder))[0] == 0
    lines = (folder / "MEMORY.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 200
    assert lines[-1].endswith("more lines: `rolebook read coder` shows the whole notebook)")


def test_export_refuses_to_replace_a_memory_it_has_not_imported(tmp_path: Path) -> None:
    root = tmp_path / "root"
    src = fixture(AGENTS, tmp_path) / "code-reviewer"
    before = (src / "MEMORY.md").read_bytes()
    assert rb(root, "update", "code-reviewer", "-l", "something learned", "--new-role")[0] == 0
    code, _, err = rb(root, "export", "--format", "claude-agent-memory", "--role", "code-reviewer", str(src))
    assert code == 2 and "holds memory rolebook does not have" in err and "import claude-memory" in err
    assert (src / "MEMORY.md").read_bytes() == before
    assert rb(root, "import", "claude-memory", str(src))[0] == 0
    code, _, err = rb(root, "export", "--format", "claude-agent-memory", "--role", "code-reviewer", str(src))
    assert code == 0, err
    assert "something learned" in (src / "MEMORY.md").read_text(encoding="utf-8")


def test_export_to_a_subagent_memory_needs_one_role_and_a_folder(tmp_path: Path) -> None:
    code, _, err = rb(tmp_path, "export", "--format", "claude-agent-memory", str(tmp_path / "x"))
    assert code == 2 and "one --role and a folder" in err


@pytest.mark.parametrize("fmt", [*sorted(READERS), "rolebook"])
def test_a_pipe_given_as_the_source_is_refused_unread_and_never_hangs(tmp_path: Path, fmt: str) -> None:
    """A named pipe with no writer would block an open() for good: it is named and refused."""
    import subprocess

    root = project(tmp_path / "root")
    pipe = tmp_path / "memory.md"
    os.mkfifo(pipe)
    exe = Path(sys.executable).parent / "rolebook"
    done = subprocess.run(
        [str(exe), "--root", str(root), "import", fmt, str(pipe), "--role", "coder"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (
        done.returncode == 2
        and done.stderr == f"rolebook: {pipe}: not a regular file or folder (a pipe or a device); nothing was read\n"
    )
    assert not (root / "agents/state/archive").exists() and not (root / "agents/state/memory").exists()


def test_a_claude_memory_with_its_session_uuid_is_imported_with_nothing_reported_as_a_secret(tmp_path: Path) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    session = "1f3e7a9c-3b1d-4c2e-9a8b-7d6e5f4a3b2c"
    (folder / "testing.md").write_text(
        f"---\nname: testing\ndescription: how tests run\ntype: project\noriginSessionId: {session}\n---\n"
        "Run the tests with npm ci first.\n",
        encoding="utf-8",
    )
    code, _, err = rb(tmp_path / "root", "import", "claude-memory", str(folder), "--role", "coder")
    assert code == 0, err
    assert "redact" not in err
    assert session in json.dumps(records(tmp_path / "root", "coder"))
