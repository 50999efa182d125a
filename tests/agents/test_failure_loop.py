"""The failure loop (DESIGN.md section 6b), end to end through the installed command and
the hooks' own payloads: a session's failed command is recorded, the lesson written at the
session's end is linked to it, and in a later session the same failure with other names
brings that lesson back, whatever its words; a near miss brings nothing."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rolebook.agents.config import load_config
from rolebook.agents.session import open_session
from rolebook.agents.session.failures import named, seen
from rolebook.notebook.search import failure_of
from rolebook.notebook.store import read_failures

from tests.agents.payloads import FORMS, payload
from tests.roots import project

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")

FIRST = (
    "python app.py",
    'Traceback (most recent call last):\n  File "/tmp/shop/app.py", line 3, in <module>\n'
    "    import requests\nModuleNotFoundError: No module named 'requests'",
)
#: the same failure in another project: another folder, file, module and line
AGAIN = (
    "python3 tools/report.py --month 11",
    'Traceback (most recent call last):\n  File "/home/ana/billing/tools/report.py", line 41, in <module>\n'
    "    import yaml\nModuleNotFoundError: No module named 'yaml'",
)
#: the same tool, another problem
NEAR = (
    "python app.py",
    "  File \"/tmp/shop/app.py\", line 7\n    def total(items)\n                   ^\nSyntaxError: expected ':'",
)
#: written in other words than the error: not one word of it is in the error
LESSON = "activate the project's virtualenv first (source .venv/bin/activate); the system interpreter lacks deps"


def rb(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([ROLEBOOK, "--root", str(root), *args], input=stdin, capture_output=True, text=True)


def failed(root: Path, form: str, session: str, call: tuple[str, str]) -> str:
    """What the recall hook prints for a failed call, sent as the agent CLI `form` sends it."""
    stdin, args = payload(form, call[0], 1, call[1], root)
    if stdin:
        stdin = json.dumps({**json.loads(stdin), "session_id": session})
        done = rb(root, "recall", "--role", "coder", *args, stdin=stdin)
    else:  # `rolebook recall --command --error`: the session is the global option
        done = rb(root, "--session", session, "recall", "--role", "coder", *args)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


@pytest.mark.parametrize("form", FORMS)
def test_the_same_failure_again_brings_the_lesson_written_in_its_session_in_other_words(
    tmp_path: Path, form: str
) -> None:
    root = project(tmp_path / "p")
    assert rb(root, "init", "coder").returncode == 0
    start = json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart"})
    assert rb(root, "hook", "session-start", "--role", "coder", stdin=start).returncode == 0
    assert failed(root, form, "s-1", FIRST) == ""  # nothing remembered yet
    wrote = rb(root, "--session", "s-1", "update", "coder", "-m", LESSON, "--json")
    assert wrote.returncode == 0, wrote.stderr
    linked = json.loads(wrote.stdout)["failures"]["linked"]
    assert len(linked) == 1 and linked[0]["id"] == json.loads(wrote.stdout)["added"][0]["id"]

    shown = failed(root, form, "s-2", AGAIN)
    assert LESSON[:60] in shown
    assert failed(root, form, "s-2", NEAR) == ""  # same tool, another failure: silence


def test_what_reaches_the_agent_is_the_lesson_once_within_the_recall_budget(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    rb(root, "--session", "s-1", "update", "coder", "-m", LESSON)
    context = json.loads(failed(root, "claude", "s-2", AGAIN))["hookSpecificOutput"]["additionalContext"]
    assert context.count(LESSON[:40]) == 1 and len(context) <= 400
    assert "notes from memory, not instructions" in context and "this failure came before" in context


def test_a_lesson_about_the_one_package_does_not_answer_another_package_missing(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    about = "requests is not in the base image: pip install requests==2.32 in the service's venv"
    rb(root, "--session", "s-1", "update", "coder", "-l", about)
    assert failed(root, "claude", "s-2", AGAIN) == ""  # 'yaml' missing: the lesson names 'requests'
    elsewhere = (FIRST[0], FIRST[1].replace("/tmp/shop/app.py", "/srv/api/main.py").replace("line 3", "line 12"))
    assert about[:40] in failed(root, "claude", "s-3", elsewhere)


def test_a_mistake_that_answers_a_failure_an_earlier_mistake_answers_is_counted_with_it(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    rb(root, "--session", "s-1", "update", "coder", "-m", LESSON, "--date", "2026-11-02")
    failed(root, "claude", "s-2", AGAIN)
    again = "ran the report with the system interpreter again; activate the project's virtualenv first"
    wrote = rb(root, "--session", "s-2", "update", "coder", "-m", again, "--date", "2026-11-20", "--json")
    data = json.loads(wrote.stdout)
    assert [x["count"] for x in data["linked"]] == [2], data  # counted without asking
    notebook = (root / "agents/state/memory/coder.md").read_text(encoding="utf-8")
    assert "(x2)" in notebook and again in notebook


def test_a_mistake_in_unlike_words_on_the_same_failure_is_not_merged(tmp_path: Path) -> None:
    # the failure alone is not enough: one failure can have two causes (a missing venv, a
    # typo in the requirements): the words must be alike too, or the count would lie
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    rb(root, "--session", "s-1", "update", "coder", "-m", LESSON, "--date", "2026-11-02")
    failed(root, "claude", "s-2", AGAIN)
    other = "misspelled pyyaml in requirements.txt; copy package names from pypi.org"
    wrote = rb(root, "--session", "s-2", "update", "coder", "-m", other, "--date", "2026-11-20", "--json")
    data = json.loads(wrote.stdout)
    assert data["linked"] == [], data
    notebook = (root / "agents/state/memory/coder.md").read_text(encoding="utf-8")
    assert "(x2)" not in notebook and other in notebook and LESSON in notebook


def test_with_several_open_failures_the_lesson_that_names_one_is_linked_and_the_rest_proposed(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    docker = ("docker compose up", "Error response from daemon: driver failed programming external connectivity")
    failed(root, "claude", "s-1", docker)
    failed(root, "claude", "s-1", ("make deploy", "make: *** No rule to make target 'deploy'.  Stop."))
    docker_lesson = "docker compose: free the port"
    wrote = json.loads(rb(root, "--session", "s-1", "update", "coder", "-l", docker_lesson, "--json").stdout)
    book = read_failures(load_config(root).layout, "coder")
    by_command = {f.command: f.id for f in book.failures.values()}
    assert [x["failure"] for x in wrote["failures"]["linked"]] == [by_command["docker compose up"]]
    open_ = [by_command["make deploy"], by_command["python app.py"]]  # newest first
    assert [x["failure"] for x in wrote["failures"]["proposed"]] == open_
    # a lesson in other words is not guessed between two: proposed, then linked by --failure
    vague = json.loads(rb(root, "--session", "s-1", "update", "coder", "-l", LESSON, "--json").stdout)
    assert vague["failures"]["linked"] == [] and [x["failure"] for x in vague["failures"]["proposed"]] == open_
    fid = by_command["python app.py"]
    text = rb(root, "--session", "s-1", "update", "coder", "-m", "ran it outside the venv", "--failure", fid[:6])
    assert text.returncode == 0 and f"answers failure #{fid}" in text.stdout
    bad = rb(root, "update", "coder", "-m", "x; y", "--failure", "fffffff")
    assert bad.returncode == 2 and "no failure of 'coder'" in bad.stderr


def test_the_stop_reminder_names_the_failures_no_lesson_answers_then_stays_quiet(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    start = json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart"})
    rb(root, "hook", "session-start", "--role", "coder", stdin=start)
    for n in range(5):
        failed(
            root, "claude", "s-1", (f"make target{n}", f"make: *** No rule to make target 'target{n}'.  Stop.\nE{n}01")
        )
    stop = json.dumps({"session_id": "s-1", "hook_event_name": "Stop"})
    reason = json.loads(rb(root, "hook", "stop", "--role", "coder", stdin=stop).stdout)["reason"]
    listed = [line for line in reason.splitlines() if line.startswith("#f")]
    assert len(listed) == 3 and sum(map(len, listed)) <= 300  # at most 3, about 300 characters
    assert "rolebook --session s-1 update coder" in reason
    assert rb(root, "hook", "stop", "--role", "coder", stdin=stop).stdout == ""  # once per session


def test_the_reminder_comes_when_the_session_wrote_but_left_its_failure_unanswered(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    start = json.dumps({"session_id": "s-1", "hook_event_name": "SessionStart"})
    rb(root, "hook", "session-start", "--role", "coder", stdin=start)
    rb(root, "--session", "s-1", "update", "coder", "--log", "refactored the cart")  # no lesson, no failure yet
    stop = json.dumps({"session_id": "s-1", "hook_event_name": "Stop"})
    assert rb(root, "hook", "stop", "--role", "coder", stdin=stop).stdout == ""
    start2 = json.dumps({"session_id": "s-2", "hook_event_name": "SessionStart"})
    rb(root, "hook", "session-start", "--role", "coder", stdin=start2)
    failed(root, "claude", "s-2", FIRST)
    rb(root, "--session", "s-2", "update", "coder", "--log", "wrote the report")  # a log answers nothing
    stop2 = json.dumps({"session_id": "s-2", "hook_event_name": "Stop"})
    assert (
        "No module named 'requests'"
        in json.loads(rb(root, "hook", "stop", "--role", "coder", stdin=stop2).stdout)["reason"]
    )


def test_an_mcp_style_write_with_no_session_takes_the_one_the_hooks_noted(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    start = json.dumps({"session_id": "s-9", "hook_event_name": "SessionStart"})
    rb(root, "hook", "session-start", "--role", "coder", stdin=start)
    failed(root, "claude", "s-9", FIRST)
    session = open_session(load_config(root), source="mcp")
    recorded = session.end("coder", session.entries("2026-11-28", learnings=[LESSON]))
    assert len(recorded.answered) == 1 and not recorded.unanswered


def test_a_session_records_a_failure_once_however_often_it_fails_and_redacts_it(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    token = "ghp_" + "a1B2c3D4e5" * 4
    call = (
        "git push",
        f"remote: Invalid username or password.\nfatal: Authentication failed for 'https://x:{token}@github.com/o/r.git/'",
    )
    for _ in range(20):
        failed(root, "claude", "s-1", call)
    journal = root / "agents/state/archive/failures/coder.jsonl"
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and token not in lines[0] and "REDACTED" in lines[0]
    record = json.loads(lines[0])
    assert len(record["excerpt"]) <= 300 and record["exit_code"] == 1


def test_recognition_needs_only_the_canonical_files(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    rb(root, "--session", "s-1", "update", "coder", "-m", LESSON)
    shutil.rmtree(root / "agents/state/.rolebook")  # the derived folder, as a fresh clone has none
    assert LESSON[:40] in failed(root, "claude", "s-2", AGAIN)
    attributes = (root / ".gitattributes").read_text(encoding="utf-8")
    assert "agents/state/archive/failures/*.jsonl merge=union" in attributes


def test_the_control_share_withholds_a_recognised_lesson_and_records_that_it_did(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    rb(root, "--session", "s-1", "update", "coder", "-m", LESSON)
    layout = load_config(root).layout
    chance = random.Random(7)
    answers = [
        seen(layout, "coder", f"s-{n + 2}", failure_of(*AGAIN, 1), AGAIN[0], AGAIN[1], 0.3, chance) for n in range(40)
    ]
    withheld = [a for a in answers if a.withheld]
    assert 4 <= len(withheld) <= 20 and all(a.lessons for a in answers)
    records = read_failures(layout, "coder").seen
    assert sum(bool(r.get("withheld")) for r in records) == len(withheld) and len(records) == 40


def test_recall_control_is_checked_where_it_is_set(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "rolebook.yaml").write_text("roles: [coder]\nrecall:\n  control: 2\n", encoding="utf-8")
    done = rb(root, "read", "coder")
    assert done.returncode == 2 and "recall.control" in done.stderr and "rolebook.yaml" in done.stderr
    (root / "rolebook.yaml").write_text("roles: [coder]\nrecall:\n  control: 0.1\n", encoding="utf-8")
    assert load_config(root).control == 0.1


def test_the_named_failures_hold_their_room() -> None:
    from rolebook.notebook.store import FailureRecord

    many = [FailureRecord(f"f{n:09d}", "s", "", "x " * 200, 1, {}, "y " * 300) for n in range(9)]
    lines = named(many)
    assert len(lines) == 3 and sum(map(len, lines)) <= 300 and all(line.endswith("…") for line in lines)


def test_a_piped_command_claude_code_reports_as_a_success_is_read_as_the_failure_it_was(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")

    def ran(command: str, stdout: str) -> None:
        body = {"session_id": "s-1", "hook_event_name": "PostToolUse", "tool_name": "Bash"}
        body |= {"tool_input": {"command": command}, "tool_response": {"stdout": stdout, "stderr": ""}}
        assert rb(root, "recall", "--role", "coder", stdin=json.dumps(body)).returncode == 0

    ran("npm test 2>&1 | tail -3", "Test Suites: 1 failed, 4 passed\nTests:       2 failed, 30 passed")
    ran("grep -rn Error src | head", "src/app.py:3: raise ValueError('no')")  # text about errors: no failure
    ran("ls | wc -l", "12")
    ran("npm test", "Tests: 2 failed")  # not piped: Claude Code said it succeeded, and it did exit 0
    book = read_failures(load_config(root).layout, "coder")
    assert [f.command for f in book.failures.values()] == ["npm test 2>&1 | tail -3"]


def test_stats_count_what_recurs_and_say_when_it_is_too_few(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    failed(root, "claude", "s-1", FIRST)  # the same session: one failure seen
    failed(root, "claude", "s-2", AGAIN)  # back before any lesson: a repeat, not after a lesson
    rb(root, "--session", "s-2", "update", "coder", "-m", LESSON)
    failed(root, "claude", "s-3", AGAIN)  # back after the lesson: shown
    layout = load_config(root).layout
    seen(layout, "coder", "s-4", failure_of(*AGAIN, 1), AGAIN[0], AGAIN[1], 1.0)  # withheld on purpose
    failed(root, "claude", "s-5", NEAR)  # another failure
    data = json.loads(rb(root, "stats", "coder", "--json").stdout)
    figures = data[0]["failures"] if isinstance(data, list) else data["roles"][0]["failures"]
    assert (figures["seen"], figures["distinct"], figures["repeats"]) == (5, 2, 3)
    assert figures["after_lesson"] == {"shown": 1, "withheld": 1, "not shown": 0}
    assert figures["too_few"] is True and sum(w["seen"] for w in figures["per_week"].values()) == 5
    text = rb(root, "stats", "coder").stdout
    assert (
        "5 failed commands seen, 2 distinct" in " ".join(text.split())
        and "3 repeats of an earlier one" in " ".join(text.split())
        and "too few" in text
    )


def test_the_report_draws_the_failed_commands_per_week(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    failed(root, "claude", "s-2", AGAIN)
    out = tmp_path / "report.html"
    assert rb(root, "report", "--output", str(out)).returncode == 0
    page = out.read_text(encoding="utf-8")
    assert (
        "Failed commands, and the ones that came back" in page
        and "2 failed commands seen, 1 distinct; 1 repeat of an earlier one" in page
    )


def test_a_logged_lesson_answers_the_session_s_one_open_failure(tmp_path: Path) -> None:
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    logged = rb(root, "--session", "s-1", "log", "coder", "--type", "error", "--lesson", LESSON, "--outcome", "1/1")
    assert logged.returncode == 0, logged.stderr
    assert LESSON[:40] in failed(root, "claude", "s-2", AGAIN)


def test_a_session_whose_start_the_hook_did_not_see_is_still_reminded_of_its_failures(tmp_path: Path) -> None:
    # an agent started before `integrate`, or a CLI whose session start did not reach us:
    # its failures are known all the same, so the Stop reminder names them, once
    root = project(tmp_path)
    rb(root, "init", "coder")
    stop = json.dumps({"session_id": "s-1", "hook_event_name": "Stop"})
    assert rb(root, "hook", "stop", "--role", "coder", stdin=stop).stdout == ""  # no failure: nothing to say
    failed(root, "claude", "s-1", FIRST)
    reason = json.loads(rb(root, "hook", "stop", "--role", "coder", stdin=stop).stdout)["reason"]
    assert "python app.py" in reason and "rolebook --session s-1 update coder" in reason
    assert rb(root, "hook", "stop", "--role", "coder", stdin=stop).stdout == ""  # once per session


def test_a_failure_the_hook_gave_a_lesson_for_by_its_words_is_not_asked_for_again(tmp_path: Path) -> None:
    # a hand-written lesson (linked to no failure) shown by its words: the agent has it, so
    # the Stop reminder does not ask for a lesson; an unrelated failure is still named
    root = project(tmp_path)
    rb(root, "init", "coder")
    lesson = "make: *** No rule to make target 'deploy' means the Makefile has no deploy target; use make release"
    rb(root, "update", "coder", "-l", lesson)
    shown = failed(root, "claude", "s-1", ("make deploy", "make: *** No rule to make target 'deploy'.  Stop."))
    assert "no deploy target" in shown
    failed(root, "claude", "s-1", FIRST)
    stop = json.dumps({"session_id": "s-1", "hook_event_name": "Stop"})
    reason = json.loads(rb(root, "hook", "stop", "--role", "coder", stdin=stop).stdout)["reason"]
    assert "python app.py" in reason and "make deploy" not in reason


def test_redact_takes_a_linked_lesson_out_of_the_failure_journal_too(tmp_path: Path) -> None:
    # a link copies its lesson's text into the journal: `redact` must reach it there as well
    root = project(tmp_path)
    rb(root, "init", "coder")
    failed(root, "claude", "s-1", FIRST)
    secret = "the staging box is db-7.corp.example with the shared admin login"
    wrote = json.loads(rb(root, "--session", "s-1", "update", "coder", "-l", secret, "--json").stdout)
    assert wrote["failures"]["linked"], wrote
    journal = root / "agents/state/archive/failures/coder.jsonl"
    assert secret in journal.read_text(encoding="utf-8")
    entry = wrote["entries"][0]["id"] if "entries" in wrote else wrote["added"][0]["id"]
    done = rb(root, "redact", entry, "--json")
    assert done.returncode == 0, done.stderr
    assert secret not in journal.read_text(encoding="utf-8")
    assert "agents/state/archive/failures/coder.jsonl" in json.loads(done.stdout)["files"]
    assert len(read_failures(load_config(root).layout, "coder").failures) == 1  # the failure stays
