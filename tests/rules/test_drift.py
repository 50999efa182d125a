"""Instructions drift and cited code (issue 29, point 1): `read` names the one entry a
dropped instruction still lives in, `doctor` lists every one; cited lines edited or
deleted raise the same kind of alert."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from roots import project

runner = CliRunner()
COMPANY = "Mention the AI company angle in every reply."


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    project(root)
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def git(root: Path, *args: str, day: str = "2026-03-01") -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_AUTHOR_DATE": f"{day}T12:00:00",
        "GIT_COMMITTER_DATE": f"{day}T12:00:00",
    }
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


def alerts(out: str) -> list[str]:
    """The alert lines of a read: not the frame before the notebook (it ends with a colon)."""
    return [line for line in out.splitlines() if line.startswith("rolebook: ") and not line.endswith(":")]


def social_repo(root: Path) -> dict[str, str]:
    """The social agent's repository: instructions committed, entries written, then the
    company rule dropped in a later commit. The ids of its entries, by what they say."""
    git(root, "init", "-q", "-b", "main")
    (root / "CLAUDE.md").write_text(
        f"# Social agent\n\n- {COMPANY}\n- Keep replies under 280 characters.\n- Reply within the hour.\n"
    )
    rb(root, "init", "social")
    said = {
        "company": "AI company angle required on every reply",
        "short": "replies under 280 characters get more likes",
        "emoji": "one emoji at most; more reads as spam",
    }
    for text in said.values():
        rb(root, "update", "social", "-l", text, "--date", "2026-03-01")
    for w in json.loads(rb(root, "audit", "--role", "social", "--json")[1])["writes"]:
        if w["waits_for_confirmation"]:  # "on every reply" reads like an order: the user asked for it
            assert rb(root, "confirm", "#" + w["id"])[0] == 0
    git(root, "add", "-A")
    git(root, "commit", "-qm", "instructions and memory")
    (root / "src.txt").write_text("unrelated\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "unrelated work", day="2026-03-01")
    text = (root / "CLAUDE.md").read_text().replace(f"- {COMPANY}\n", "")
    (root / "CLAUDE.md").write_text(text)
    git(root, "commit", "-qam", "drop the company angle", day="2026-03-02")
    ids = {w["text"]: w["id"] for w in json.loads(rb(root, "audit", "--role", "social", "--json")[1])["writes"]}
    return {key: ids[value] for key, value in said.items()}


def test_the_social_agent_case_read_names_the_entry_the_dropped_rule_lives_in_and_only_it(tmp_path: Path) -> None:
    ids = social_repo(tmp_path)
    code, out, _ = rb(tmp_path, "read", "social")
    assert code == 0
    (alert,) = [a for a in alerts(out) if "CLAUDE.md" in a]
    assert alert == (
        f'rolebook: CLAUDE.md dropped "{COMPANY}" on 2026-03-02; the Learnings entry #{ids["company"]} '
        f"still says it: rolebook obsolete social #{ids['company']}"
    )
    assert not any(ids[key] in line for line in alerts(out) for key in ("short", "emoji"))
    code, out, _ = rb(tmp_path, "doctor")
    assert code == 1 and f"#{ids['company']}" in out and "drift: social: CLAUDE.md dropped" in out
    assert rb(tmp_path, "obsolete", "social", f"#{ids['company']}")[0] == 0
    assert [a for a in alerts(rb(tmp_path, "read", "social")[1]) if "CLAUDE.md" in a] == []
    assert rb(tmp_path, "doctor")[0] == 0


def test_an_entry_written_after_the_rule_was_dropped_is_not_named(tmp_path: Path) -> None:
    social_repo(tmp_path)
    rb(tmp_path, "obsolete", "social", "company angle")
    rb(tmp_path, "update", "social", "-l", "the AI company angle in every reply still works", "--date", "2026-03-05")
    assert [a for a in alerts(rb(tmp_path, "read", "social")[1]) if "CLAUDE.md" in a] == []


def test_a_changed_line_not_yet_committed_is_named_with_what_replaced_it(tmp_path: Path) -> None:
    social_repo(tmp_path)
    path = tmp_path / "CLAUDE.md"
    path.write_text(path.read_text().replace("Reply within the hour.", "Reply within the day."))
    rb(tmp_path, "update", "social", "-l", "reply within the hour or the thread dies", "--date", "2026-03-01")
    out = rb(tmp_path, "read", "social")[1]
    (first,) = [a for a in alerts(out) if "CLAUDE.md" in a]
    assert 'CLAUDE.md changed "Reply within the hour." to "Reply within the day." on ' in first
    assert first.endswith("(and 1 more: rolebook doctor lists them)")
    doctor = rb(tmp_path, "doctor")[1]
    assert doctor.count("drift: ") == 2


def test_a_cached_read_with_instructions_runs_neither_git_nor_a_database(tmp_path: Path) -> None:
    social_repo(tmp_path)
    code = (
        "import sys\n"
        "from rolebook.agents.main import main\n"
        f"main(['--root', {str(tmp_path)!r}, 'read', 'social'])\n"
        "heavy = ('subprocess', 'sqlite3', 'hashlib', 'markdown_it', 'typer')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True) for _ in "ab"]
    assert "dropped" in runs[1].stdout
    assert ast.literal_eval(runs[1].stdout.splitlines()[-1]) == []


def test_cited_lines_edited_moved_or_deleted(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    lines = [f"line {n}" for n in range(1, 11)]
    (src / "app.py").write_text("\n".join(lines) + "\n")
    code, _, err = rb(tmp_path, "update", "coder", "-l", "retry() backs off twice", "--cite", f"{src / 'app.py'}:3-4")
    assert code == 0, err
    (eid,) = [h["id"] for h in json.loads(rb(tmp_path, "search", "retry backs off", "--json")[1])["hits"]]
    assert alerts(rb(tmp_path, "read", "coder")[1]) == []
    (src / "app.py").write_text("\n".join(["new top", "another", *lines]) + "\n")  # moved down: still holds
    assert alerts(rb(tmp_path, "read", "coder")[1]) == []
    edited = [*lines]
    edited[3] = "line 4, now backing off three times"
    (src / "app.py").write_text("\n".join(edited) + "\n")
    (alert,) = alerts(rb(tmp_path, "read", "coder")[1])
    day = json.loads(rb(tmp_path, "search", "retry", "--json")[1])["hits"][0]["date"]
    assert alert == (
        f"rolebook: src/app.py:3-4 changed since the Learnings entry #{eid} cited it on {day}; "
        f"it may no longer hold: rolebook obsolete coder #{eid}"
    )
    (src / "app.py").unlink()
    (alert,) = alerts(rb(tmp_path, "read", "coder")[1])
    assert alert.startswith("rolebook: src/app.py:3-4 was deleted since the Learnings entry")
    code, _, err = rb(tmp_path, "update", "coder", "-l", "x y z", "--cite", "src/app.py:1")
    assert code == 2 and "no readable file at src/app.py" in err
    code, _, err = rb(tmp_path, "update", "coder", "-l", "x y z", "--cite", "/etc/hostname")
    assert code == 2 and "outside the project" in err


def test_a_stored_item_that_cites_code_is_named_when_its_lines_change(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("retries = 3\ntimeout = 10\n")
    said = "the client retries three times"
    assert rb(tmp_path, "store", "coder", "api_quirks", said, "--cite", "config.toml:1")[0] == 0
    rb(tmp_path, "update", "coder", "-l", "a learning so the notebook exists")
    assert alerts(rb(tmp_path, "read", "coder")[1]) == []
    (tmp_path / "config.toml").write_text("retries = 5\ntimeout = 10\n")
    (alert,) = alerts(rb(tmp_path, "read", "coder")[1])
    assert alert.startswith("rolebook: config.toml:1 changed since the api_quirks item #")
    step = alert.rsplit(": ", 1)[1].split()  # rolebook obsolete coder #id: the step works for an item too
    code, out, _ = rb(tmp_path, *step[1:])
    assert code == 0 and out.strip() == f"coder: made obsolete {step[-1]}"
    assert alerts(rb(tmp_path, "read", "coder")[1]) == []
    assert rb(tmp_path, "search", "retries three times")[0] == 1


def test_a_file_named_in_rolebook_yaml_is_checked_too_and_one_outside_the_root_is_refused(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "docs").mkdir()
    rules = tmp_path / "docs/agent-rules.md"
    rules.write_text("- Always run the integration suite before a release.\n- Tag releases as vX.Y.Z.\n")
    (tmp_path / "rolebook.yaml").write_text("instructions: [docs/agent-rules.md]\nroles: [qa]\n")
    rb(tmp_path, "update", "qa", "-l", "run the integration suite before every release", "--date", "2026-03-01")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "rules")
    rules.write_text("- Tag releases as vX.Y.Z.\n")
    git(tmp_path, "commit", "-qam", "the suite is gone", day="2026-03-04")
    (alert,) = alerts(rb(tmp_path, "read", "qa")[1])
    lost = "Always run the integration suite before a release."
    assert alert.startswith(f'rolebook: docs/agent-rules.md dropped "{lost}"')
    assert " on 2026-03-04; the Learnings entry #" in alert
    (tmp_path / "rolebook.yaml").write_text("instructions: [../elsewhere.md]\nroles: [qa]\n")
    code, _, err = rb(tmp_path, "read", "qa")
    assert code == 2 and "rolebook.yaml:1" in err and "outside the project root" in err


def git_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a `git` first on PATH that notes each call's arguments (one line a call) in the
    file returned, then runs the real git."""
    real = shutil.which("git")
    assert real is not None
    shim, calls = tmp_path / "shim", tmp_path / "git-calls.txt"
    shim.mkdir()
    (shim / "git").write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\nexec "{real}" "$@"\n')
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
    calls.write_text("")
    return calls


def logs(calls: Path) -> list[str]:
    """The `git log` calls noted since the last look (and forget them)."""
    seen = [line for line in calls.read_text().splitlines() if " log " in f" {line}"]
    calls.write_text("")
    return seen


def test_an_edit_not_committed_reads_no_history_again_and_a_commit_only_what_came_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    ids = social_repo(root)
    calls = git_calls(tmp_path, monkeypatch)
    assert any(ids["company"] in a for a in alerts(rb(root, "read", "social")[1]))
    (full,) = logs(calls)
    assert ".." not in full  # the first read: the history, bounded
    claude = root / "CLAUDE.md"
    claude.write_text(claude.read_text().replace("- Keep replies under 280 characters.\n", ""))
    (out,) = alerts(rb(root, "read", "social")[1])  # the newest loss, and a count of the rest
    assert ids["short"] in out and "(and 1 more" in out
    assert logs(calls) == []  # the edit is `git diff`'s; the history was kept by commit
    git(root, "commit", "-qam", "shorter rules", day="2026-03-03")
    claude.write_text(claude.read_text().replace("- Reply within the hour.\n", "- Reply within a day.\n"))
    git(root, "commit", "-qam", "slower replies", day="2026-03-04")
    (out,) = alerts(rb(root, "read", "social")[1])
    assert ids["short"] in out and "on 2026-03-03" in out and "(and 1 more" in out
    (since,) = logs(calls)
    assert ".." in since  # only the two new commits were read


def test_history_rewritten_is_read_again_and_a_lost_commit_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    ids = social_repo(root)
    assert any(ids["company"] in a for a in alerts(rb(root, "read", "social")[1]))
    git(root, "reset", "-q", "--hard", "HEAD~1")  # the commit that dropped the rule is gone
    calls = git_calls(tmp_path, monkeypatch)
    assert alerts(rb(root, "read", "social")[1]) == []
    (full,) = logs(calls)
    assert ".." not in full


def test_only_the_last_history_commits_of_a_file_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rolebook.rules import drift

    git(tmp_path, "init", "-q", "-b", "main")
    claude = tmp_path / "CLAUDE.md"
    rules = [f"- Rule number {i} of the house." for i in range(6)]
    claude.write_text("\n".join(rules) + "\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "rules")
    for i in range(5):  # each commit drops the oldest rule
        claude.write_text("\n".join(rules[i + 1 :]) + "\n")
        git(tmp_path, "commit", "-qam", f"drop {i}", day=f"2026-03-0{i + 2}")
    monkeypatch.setattr(drift, "HISTORY_COMMITS", 3)
    lost = drift.lost_lines(tmp_path, claude, tmp_path / "history.json")
    assert [x[0] for x in lost] == [
        "Rule number 4 of the house.",
        "Rule number 3 of the house.",
        "Rule number 2 of the house.",
    ]
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "unrelated")  # moved on: the kept history stays 3 long
    claude.write_text("- Rule number 5 of the house.\n- A new rule for the house.\n")
    git(tmp_path, "commit", "-qam", "a new rule", day="2026-03-09")
    lost = drift.lost_lines(tmp_path, claude, tmp_path / "history.json")
    assert [x[0] for x in lost] == ["Rule number 4 of the house.", "Rule number 3 of the house."]
