"""The recall hook in every agent CLI's form: it fires on failures only (decided from the
tool's own result fields), says nothing when no lesson is surely about the failure, stays
within its budget, and reads a bounded part of any output, however large."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rolebook.agents.hooks import HEAD_BYTES, RECALL_CHARS, TAIL_BYTES, failed_call, read_bounded, recall
from rolebook.notebook.search import bounded
from rolebook.notebook.search.failure import HEAD_CHARS, TAIL_CHARS

sys.path.insert(0, str(Path(__file__).resolve().parent))
from payloads import FORMS, output_of, payload

FAILURES = Path(__file__).resolve().parents[1] / "fixtures" / "failures"
ROLEBOOK = str(Path(sys.executable).parent / "rolebook")
LESSON = "npm ci failed with EACCES on the root-owned checkout; chown it first"
NPM_EACCES = "npm error code EACCES\nnpm error syscall mkdir\nnpm error Error: EACCES: permission denied, mkdir"


def cases(name: str) -> list[dict[str, Any]]:
    rows = []
    for folder in ("a", "b", "c"):
        with (FAILURES / folder / name).open(encoding="utf-8") as f:
            rows += [json.loads(line) for line in f if line.strip()]
    return rows


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose coder remembers an npm lesson, and other things."""
    from rolebook.agents.config import load_config
    from rolebook.agents.session import open_session

    project = tmp_path_factory.mktemp("project")
    (project / "rolebook.yaml").write_text("roles: [coder]\nsearch:\n  mode: keyword\n", encoding="utf-8")
    session = open_session(load_config(project))
    texts = {"mistakes": [LESSON], "learnings": ["the staging database is db-stg", "Smaller pull requests, please."]}
    session.end("coder", session.entries("2026-03-01", **texts))
    session.end("coder", session.entries("2026-03-02", learnings=["pip install needs the venv active"]))
    return project


def _code(options: dict[str, str]) -> int | None:
    return int(options["--exit-code"]) if "--exit-code" in options else None


def answer(root: Path, stdin: str, extra: list[str]) -> str:
    """What the hook adds to the agent's context ('' for nothing), as the CLI would read it."""
    options = dict(zip(extra[::2], extra[1::2], strict=True))
    out = recall(
        stdin, root, None, options.get("--command"), options.get("--error"), options.get("--agent"), _code(options)
    )
    if not out.startswith("{"):
        return out
    data = json.loads(out)
    return str(data.get("hookSpecificOutput", data)["additionalContext"])


@pytest.mark.parametrize("form", FORMS)
def test_every_form_recalls_the_lesson_after_the_failure_it_is_about(root: Path, tmp_path: Path, form: str) -> None:
    stdin, extra = payload(form, "npm ci", 1, NPM_EACCES, tmp_path)
    context = answer(root, stdin, extra)
    assert "chown it first" in context and "Smaller pull requests" not in context
    assert len(context) <= RECALL_CHARS and "hits shown" not in context


@pytest.mark.parametrize("form", FORMS)
def test_every_form_says_nothing_after_a_failure_no_lesson_is_about(root: Path, tmp_path: Path, form: str) -> None:
    output = "error[E0308]: mismatched types\n --> src/main.rs:4:5\nerror: could not compile `ledger`"
    stdin, extra = payload(form, "cargo build", 101, output, tmp_path)
    assert answer(root, stdin, extra) == ""


@pytest.mark.parametrize("form", ["claude", "gemini", "copilot", "codex", "cursor"])
def test_no_form_fires_on_the_real_successes_of_every_set_that_print_failure_words(form: str, tmp_path: Path) -> None:
    """Commands that exit 0 and print error, failed, denied, warning (set a: 41, set b: 42)."""
    fired = []
    for case in cases("successes.jsonl"):
        stdin, extra = payload(form, case["command"], 0, output_of(case), tmp_path)
        if failed_call(json.loads(stdin), extra[1] if extra else None) is not None:
            fired.append(case["id"])
    assert fired == []


@pytest.mark.parametrize("form", ["claude", "gemini", "copilot", "codex", "cursor"])
def test_every_form_sees_every_real_failure_of_every_set_as_a_failure(form: str, tmp_path: Path) -> None:
    missed = []
    for case in cases("failures.jsonl"):
        stdin, extra = payload(form, case["command"], case["exit_code"], output_of(case), tmp_path)
        if failed_call(json.loads(stdin), extra[1] if extra else None) is None:
            missed.append(case["id"])
    assert missed == []


def test_a_success_whose_output_says_error_everywhere_is_silent_in_every_form(root: Path, tmp_path: Path) -> None:
    """rolebook's own search output (what Copilot's hook used to answer) is no failure."""
    output = f"[2026-01-01] coder/mistakes: {LESSON} #abc\nerror error EACCES failed denied Traceback"
    for form in ("claude", "gemini", "copilot", "codex", "cursor"):
        stdin, extra = payload(form, "rolebook search npm", 0, output, tmp_path)
        assert answer(root, stdin, extra) == "", form


def test_gemini_decides_from_its_tool_error_and_exit_code_lines_not_from_words() -> None:
    base = {"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": {"command": "npm ci"}}
    error = {"message": "npm error code EACCES", "type": "shell_execution_error"}
    said = "<untrusted_context>\nOutput: Exit Code: 1 is what it printed\nProcess Group PGID: 7\n</untrusted_context>"
    assert failed_call({**base, "tool_response": {"llmContent": "", "error": error}}, "gemini") is not None
    assert failed_call({**base, "tool_response": {"llmContent": said, "returnDisplay": "x"}}, "gemini") is None
    killed = "<untrusted_context>\nOutput: (empty)\nSignal: 9\nProcess Group PGID: 7\n</untrusted_context>"
    assert failed_call({**base, "tool_response": {"llmContent": killed}}, "gemini") is not None


def test_copilot_decides_from_its_result_type_and_its_last_shell_line() -> None:
    base = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "make"}}

    def result(kind: str, text: str) -> dict[str, Any]:
        return {**base, "tool_result": {"result_type": kind, "text_result_for_llm": text}}

    assert failed_call(result("failure", "could not run"), "copilot") is not None
    assert failed_call(result("success", "ok\n<shellId: 3 completed with exit code 2>"), "copilot") is not None
    assert failed_call(result("success", "<shellId: 3 completed with exit code 1>\nok"), "copilot") is None
    note = "ok\n<shellId: 3 completed with exit code 0>\n<sandbox is active for this command>"
    assert failed_call(result("success", note), "copilot") is None
    camel = {"toolArgs": {"command": "make"}, "toolResult": {"resultType": "success", "textResultForLlm": "x"}}
    assert failed_call(camel, "copilot") is None


def test_codex_reads_the_exit_code_from_its_transcript_and_is_silent_when_it_is_not_there(tmp_path: Path) -> None:
    stdin, _extra = payload("codex", "npm ci", 1, NPM_EACCES, tmp_path)
    data = json.loads(stdin)
    assert failed_call(data, "codex") == ("npm ci", NPM_EACCES, 1)
    assert failed_call({**data, "tool_use_id": "call_other"}, "codex") is None
    assert failed_call({**data, "transcript_path": str(tmp_path / "gone.jsonl")}, "codex") is None
    assert failed_call({**data, "tool_response": {"output": "x", "exit_code": 2}}, "codex") is not None


def test_cursor_decides_from_its_event_and_says_no_exit_code_it_does_not_give() -> None:
    """Fields as cursor.com/docs/hooks names them and cursor-agent 2026.10.01 sent them:
    postToolUseFailure is a failed Shell call unless the user interrupted or refused it;
    afterShellExecution (after every command) is one only when it states a non-zero exit code."""
    stdin, _ = payload("cursor", "go build ./...", 1, "cmd/app/main.go:4:2: undefined: greet")
    data = json.loads(stdin)
    assert failed_call(data, "cursor") == ("go build ./...", "cmd/app/main.go:4:2: undefined: greet", None)
    assert failed_call({**data, "is_interrupt": True}, "cursor") is None
    assert failed_call({**data, "failure_type": "permission_denied"}, "cursor") is None
    assert failed_call({**data, "failure_type": "timeout"}, "cursor") is not None
    assert failed_call({**data, "tool_name": "Read"}, "cursor") is None
    after = json.loads(payload("cursor", "go build ./...", 0, "cmd/app/main.go:4:2: undefined: greet")[0])
    assert failed_call(after, "cursor") is None  # no exit code: not sure it failed
    assert failed_call({**after, "exit_code": 2}, "cursor") == ("go build ./...", after["output"], 2)
    assert failed_call({**after, "exit_code": 0}, "cursor") is None
    assert failed_call({**after, "hook_event_name": "stop", "exit_code": 2}, "cursor") is None


def test_claude_codes_post_tool_use_is_a_success_and_its_failure_event_drops_the_exit_code_line() -> None:
    assert failed_call({"hook_event_name": "PostToolUse", "tool_response": {"stdout": "error"}}, None) is None
    failed = {"hook_event_name": "PostToolUseFailure", "tool_input": {"command": "ls x"}, "error": "Exit code 2\nls: x"}
    assert failed_call(failed, None) == ("ls x", "ls: x", 2)


def test_every_form_hands_over_the_exit_code_its_cli_reports(tmp_path: Path) -> None:
    """The exit code is evidence ("grep exits 1", "curl exit 7" in a lesson): each CLI's
    own field gives it; `--command/--error` says none."""
    for form in ("claude", "gemini", "copilot", "codex"):
        stdin, extra = payload(form, "curl localhost:8080", 7, "curl: (7) Failed to connect", tmp_path)
        failed = failed_call(json.loads(stdin), extra[1] if extra else None)
        assert failed is not None and failed.exit_code == 7, form


def test_the_hook_reads_a_bounded_head_and_tail_of_a_huge_payload_and_still_parses_it() -> None:
    """50 MB of output: what is kept is at most HEAD_BYTES + TAIL_BYTES (the rest is read
    and dropped as it comes), the JSON still parses, and its start and end are there."""
    output = "npm error code EACCES\n" + "progress 42%\\n" * 4_000_000 + "\nnpm error EACCES: permission denied"
    raw = json.dumps({"hook_event_name": "PostToolUseFailure", "tool_input": {"command": "npm ci"}, "error": output})
    assert len(raw) > 50_000_000
    kept, total = read_bounded(io.BytesIO(raw.encode()))
    assert total == len(raw.encode())
    assert len(kept.encode()) <= HEAD_BYTES + TAIL_BYTES + 16
    data = json.loads(kept)
    assert data["tool_input"]["command"] == "npm ci"
    assert data["error"].startswith("npm error code EACCES") and data["error"].endswith("permission denied")


@pytest.mark.parametrize("cut", range(12))
def test_a_cut_through_an_escape_still_parses(cut: int) -> None:
    """Wherever the head ends (inside \\u00e9, a \\\\ or a \\"), the joined text is JSON."""
    body = 'é\\"\\\\' * 40_000
    raw = json.dumps({"error": body + "x" * cut}).encode()
    kept, _ = read_bounded(io.BytesIO(raw), head=1000 + cut, tail=1000)
    assert isinstance(json.loads(kept)["error"], str)


def test_what_the_signal_is_read_from_is_bounded_whatever_the_output() -> None:
    output = "x" * 10_000_000 + "\nfatal: refusing to merge unrelated histories"
    assert len(bounded(output)) <= HEAD_CHARS + TAIL_CHARS + 1
    assert bounded(output).endswith("unrelated histories")


def test_the_installed_command_answers_a_failure_and_is_silent_on_a_success(root: Path, tmp_path: Path) -> None:
    for code, expected in ((1, "chown it first"), (0, "")):
        stdin, extra = payload("copilot", "npm ci", code, NPM_EACCES, tmp_path)
        done = subprocess.run(
            [ROLEBOOK, "--root", str(root), "recall", "--role", "coder", *extra],
            input=stdin,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0 and done.stderr == ""
        assert (expected in done.stdout) if expected else done.stdout == ""


def test_a_logged_error_event_comes_first_when_the_same_command_fails_the_same_way(tmp_path: Path) -> None:
    """`log` an error event, then the same command fails with the same error: what the
    agent sees first is that event's lesson, before a notebook line about the same tool."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "rolebook.yaml").write_text("roles: [coder]\nsearch:\n  mode: keyword\n", encoding="utf-8")

    def rb(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([ROLEBOOK, "--root", str(project), *args], capture_output=True, text=True, check=False)

    assert rb("update", "coder", "-m", LESSON, "--date", "2026-03-01").returncode == 0
    lesson = "global npm installs need a user prefix: npm config set prefix ~/.npm-global"
    command = "npm install -g typescript"
    error = "npm error code EACCES\nnpm error syscall mkdir\nnpm error path /usr/lib/node_modules/typescript"
    logged = rb("log", "coder", "--type", "error", "--context", error, "--command", command, "--lesson", lesson)
    assert logged.returncode == 0, logged.stderr
    done = rb("recall", "--command", command, "--error", error)
    assert done.returncode == 0, done.stderr
    shown = [line for line in done.stdout.splitlines() if line.startswith("[")]
    assert shown and lesson in shown[0], done.stdout


def test_a_lesson_stating_the_tools_exit_code_is_shown_for_that_exit_code_only(tmp_path: Path) -> None:
    """`grep` prints nothing when it finds nothing: its exit code (1) is all the failure
    says, and "grep exits 1" in a lesson is the evidence; grep's exit 2 is another problem."""
    from rolebook.agents.config import load_config
    from rolebook.agents.session import open_session

    project = tmp_path / "project"
    project.mkdir()
    (project / "rolebook.yaml").write_text("roles: [coder]\nsearch:\n  mode: keyword\n", encoding="utf-8")
    session = open_session(load_config(project))
    lessons = [
        "grep exits 1 when it finds nothing; in CI steps append || true or test the count.",
        "Smaller pull requests, please.",
        "`npm outdated` exits with 1 whenever a dependency has a newer version.",
    ]
    session.end("coder", session.entries("2026-03-01", learnings=lessons))
    for form in ("claude", "gemini", "copilot", "codex"):
        stdin, extra = payload(form, "grep -c TODO src/app.py", 1, "", tmp_path)
        assert "grep exits 1" in answer(project, stdin, extra), form
        stdin, extra = payload(form, "grep -c TODO src/app.py", 2, "", tmp_path)
        assert answer(project, stdin, extra) == "", form
        stdin, extra = payload(form, "npm install", 1, "npm error code E404\nnpm error 404 Not Found", tmp_path)
        assert "outdated" not in answer(project, stdin, extra), form
    for code, shown in (("1", True), ("2", False)):  # `rolebook recall --command --error --exit-code`, installed
        args = ["--command", "grep -c TODO src/app.py", "--error", "", "--exit-code", code]
        done = subprocess.run([ROLEBOOK, "--root", str(project), "recall", *args], capture_output=True, text=True)
        assert done.returncode == 0 and ("grep exits 1" in done.stdout) == shown, done.stderr


def test_exit_mentions_read_the_word_before_and_the_code() -> None:
    from rolebook.notebook.search.failure import exit_mentions

    assert exit_mentions("grep exits 1 when it finds nothing") == {("grep", 1)}
    assert exit_mentions("curl exit 7 means nothing listens; pytest exit code 5: none collected") == {
        ("curl", 7),
        ("pytest", 5),
    }
    assert exit_mentions("`npm outdated` exits with 1 as soon as") == {("outdated", 1)}
    assert exit_mentions("the exit status is what counts") == frozenset()


def test_a_boxed_warning_is_not_the_failure_but_the_boxed_error_after_it_is() -> None:
    """terraform draws each diagnostic in a box; its warning (no .terraformrc) comes
    before every error and is noise."""
    from rolebook.notebook.search import failure_of

    output = (
        "There are some problems with the CLI configuration:\n╷\n│ Warning: Unable to open CLI configuration file\n"
        '│\n│ The CLI configuration file at "/root/.terraformrc" does not exist.\n╵\n\n'
        "╷\n│ Error: Failed to query available provider packages\n│\n"
        "│ Could not retrieve the list of available versions for provider hashicorp/aws\n╵\n"
    )
    lines = failure_of("terraform init", output).lines
    assert not any("configuration" in line for line in lines)
    assert lines[0] == "Error Failed to query available provider packages"
    assert any("available versions" in line for line in lines)


def test_a_numbered_name_is_found_by_its_name_too() -> None:
    """sqlite3's error finds the lesson that says "sqlite"; the index holds them apart."""
    from rolebook.notebook.search.failure import name_parts

    assert "sqlite" in name_parts("sqlite3.OperationalError: database is locked").split()
    assert name_parts("import psycopg2, boto3").split() == ["psycopg", "boto"]
    assert "lockfile Version" in name_parts("lockfileVersion 3")
    assert name_parts("dev1 v2 sha256 version 12") == ""
