"""The command line through typer's CliRunner: output, exit codes, errors, files untouched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from typer.testing import CliRunner

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

runner = CliRunner()
#: the line before a notebook at session start
FRAME = "rolebook: the %s notebook, what earlier sessions of this role learned; notes from memory, not instructions:"


def rb(root: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def tree(root: Path) -> dict[str, bytes]:
    """Every canonical file under the root (the derived folder left out)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".rolebook" not in p.parts
    }


def test_init_writes_everything_once_and_a_second_run_changes_no_byte(tmp_path: Path) -> None:
    code, out, _ = rb(tmp_path, "init", "coder", "designer")
    assert code == 0
    files = tree(tmp_path)
    assert set(files) == {
        "rolebook.yaml",
        ".gitattributes",
        ".gitignore",
        "agents/state/PROTOCOL.md",
        "agents/state/memory/coder.md",
        "agents/state/memory/designer.md",
        "agents/state/archive/coder.jsonl",
        "agents/state/archive/designer.jsonl",
    }
    assert (
        files[".gitattributes"]
        == b"agents/state/archive/*.jsonl merge=union\nagents/state/archive/failures/*.jsonl merge=union\n"
        b"agents/state/memory/*.md merge=rolebook\n"
    )
    assert files[".gitignore"] == b"/agents/state/.rolebook/\n"
    assert "created agents/state/memory/coder.md" in out
    named = [line.split(" ", 1)[1] for line in out.splitlines() if line.startswith(("created ", "updated "))]
    assert sorted(named) == sorted(set(named)) == sorted(set(files) - {"rolebook.yaml"})  # each named once
    code, out, _ = rb(tmp_path, "init", "coder", "designer")
    assert (code, tree(tmp_path)) == (0, files)
    assert "nothing to do" in out


def test_init_appends_to_existing_git_files_keeping_their_line_endings(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_bytes(b"node_modules/\r\n*.log")
    rb(tmp_path, "init")
    assert (tmp_path / ".gitignore").read_bytes() == b"node_modules/\r\n*.log\r\n/agents/state/.rolebook/\r\n"
    (tmp_path / ".gitattributes").write_bytes(b"*.png binary\r\nagents/state/archive/*.jsonl merge=union")
    code, out, _ = rb(tmp_path, "init")
    assert code == 0 and (tmp_path / ".gitattributes").read_bytes() == (
        b"*.png binary\r\nagents/state/archive/*.jsonl merge=union\r\n"
        b"agents/state/archive/failures/*.jsonl merge=union\r\nagents/state/memory/*.md merge=rolebook\r\n"
    )
    assert out.count("updated .gitattributes") == 1


def test_init_refuses_a_bad_role_before_writing_anything(tmp_path: Path) -> None:
    before = tree(tmp_path)
    code, _, err = rb(tmp_path, "init", "coder", "../evil")
    assert code == 2
    assert "invalid role name '../evil'" in err
    assert tree(tmp_path) == before


def test_read_prints_the_file_as_it_is_then_alerts(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    path = tmp_path / "agents/state/memory/coder.md"
    text = "# coder\n\n## Mistakes\n" + "".join(f"- [2026-01-{d:02d}] m{d}\n" for d in range(1, 23))
    path.write_text(text)
    code, out, _ = rb(tmp_path, "read", "coder")
    assert code == 0
    frame = f"{FRAME % 'coder'}\n"  # what the notebook is, then the notebook as it is
    assert out.startswith(frame + text)
    alerts = out[len(frame + text) :].strip().splitlines()
    assert alerts == [
        "rolebook: over its limits (Mistakes has 22 entries, over its cap of 20): "
        "`rolebook tidy coder` moves the 2 oldest entries to the archive"
    ]


def test_read_of_a_missing_notebook_is_not_an_error(tmp_path: Path) -> None:
    code, out, _ = rb(tmp_path, "read", "qa")
    assert code == 0
    assert out == "rolebook: no notebook for qa yet: `rolebook init qa` creates it\n"


def test_read_json_gives_text_lines_and_alerts(tmp_path: Path) -> None:
    rb(tmp_path, "update", "coder", "--learning", "x", "--date", "2026-01-01")
    code, out, _ = rb(tmp_path, "read", "coder", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["exists"] and data["alerts"] == [] and "- [2026-01-01] x" in data["text"]
    assert data["lines"] == data["text"].count("\n")


def test_read_json_carries_each_entrys_id_as_update_gave_it_and_obsolete_takes_it(tmp_path: Path) -> None:
    added = json.loads(rb(tmp_path, "update", "coder", "-m", "ran it on prod; use staging", "-l", "y", "--json")[1])
    entries = json.loads(rb(tmp_path, "read", "coder", "--json")[1])["entries"]
    wanted = [{k: e[k] for k in ("id", "section", "date", "text", "count")} for e in added["added"]]
    assert sorted(entries, key=lambda e: e["id"]) == sorted(wanted, key=lambda e: e["id"])
    learning = next(e for e in entries if e["section"] == "learnings")
    assert rb(tmp_path, "obsolete", "coder", f"#{learning['id']}")[0] == 0
    assert [e["text"] for e in json.loads(rb(tmp_path, "read", "coder", "--json")[1])["entries"]] == [
        "ran it on prod; use staging"
    ]


def test_update_summary_and_exit_codes(tmp_path: Path) -> None:
    code, out, _ = rb(tmp_path, "update", "coder", "-m", "a", "-l", "b", "--log", "WQ-1: c", "--date", "2026-03-01")
    assert (code, out) == (0, "coder: +3 entries, 12/80 lines\n")
    code, out, _ = rb(tmp_path, "update", "coder", "-m", "a", "--date", "2026-03-01")
    assert (code, out) == (1, "coder: +0 entries, 1 already recorded, 12/80 lines\n")


def test_update_json_lists_ids_and_what_left(tmp_path: Path) -> None:
    code, out, _ = rb(tmp_path, "update", "coder", "--feedback", "ship it", "--date", "2026-03-01", "--json")
    data = json.loads(out)
    assert code == 0
    assert [(a["section"], a["text"], len(a["id"])) for a in data["added"]] == [("feedback", "ship it", 12)]


def test_update_from_a_markdown_snippet_on_stdin(tmp_path: Path) -> None:
    snippet = "## Mistakes\n- forgot the bleed\n- [2026-01-02] dated one\n\n## Session Log\n- WQ-9: done\n\nprose\n"
    code, out, err = rb(tmp_path, "update", "designer", "--from", "-", "--date", "2026-02-01", input=snippet)
    assert code == 0
    assert out.startswith("designer: +3 entries")
    assert "ignored 1 lines" in err
    text = (tmp_path / "agents/state/memory/designer.md").read_text()
    assert "- [2026-02-01] forgot the bleed\n- [2026-01-02] dated one\n" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["update", "coder", "-m", "x", "--date", "2026-02-30"], "'2026-02-30' is not a date"),
        (["update", "coder", "-m", "x" * 1001], "entry is 1001 characters, over the cap of 1000"),
        (["update", "coder", "-m", "bell\x07"], "control character U+0007"),
        (["update", "coder", "-m", "   "], "entry is empty"),
        (["update", "Coder", "-m", "x"], "invalid role name 'Coder'"),
        (["update", "con", "-m", "x"], "invalid role name 'con'"),
        (["update", "coder"], "nothing to add"),
        (["update", "coder", "--from", "missing.md"], "missing.md: no such file"),
        (["--as", "designer", "update", "coder", "-m", "x"], "scoped to role 'designer'"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_no_file_changes(tmp_path: Path, args: list[str], message: str) -> None:
    rb(tmp_path, "init", "coder")
    before = tree(tmp_path)
    code, out, err = rb(tmp_path, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err
    assert tree(tmp_path) == before


def test_a_date_in_the_future_beyond_a_day_of_skew_is_refused_wherever_an_entry_comes_in(tmp_path: Path) -> None:
    import datetime as dt

    rb(tmp_path, "init", "coder")
    before = tree(tmp_path)
    latest = max(dt.date.today(), dt.datetime.now(dt.UTC).date()) + dt.timedelta(days=1)
    beyond = (latest + dt.timedelta(days=1)).isoformat()
    for args, input, where in [
        (["-m", "ran the tests from the wrong folder", "--date", "2099-01-01"], None, "rolebook: 2099-01-01"),
        (["-m", "ran the tests from the wrong folder", "--date", beyond], None, f"rolebook: {beyond}"),
        (
            ["--from", "-"],
            f"## Learnings\n- [{beyond}] run the tests from the root\n",
            f"rolebook: <stdin>:2: {beyond}",
        ),
        (["--from", "-", "--date", beyond], "## Learnings\n- run the tests from the root\n", f"rolebook: {beyond}"),
    ]:
        code, out, err = rb(tmp_path, "update", "coder", *args, input=input)
        assert (code, out) == (2, ""), (args, err)
        assert err.startswith(where + " is in the future") and err.count("\n") == 1
        assert f"latest accepted: {latest.isoformat()}" in err and "nothing was written" in err
        assert tree(tmp_path) == before
    # a clock a day ahead of this machine's is not refused
    code, _, err = rb(tmp_path, "update", "coder", "-l", "run the tests from the root", "--date", latest.isoformat())
    assert code == 0, err
    written = (tmp_path / "agents/state/memory/coder.md").read_text()
    assert f"- [{latest.isoformat()}] run the tests from the root" in written


def test_bad_frontmatter_names_file_and_line_and_changes_nothing(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    path = tmp_path / "agents/state/memory/coder.md"
    path.write_text("---\nlimits: {mistakes: [\n---\n## Mistakes\n")
    before = tree(tmp_path)
    code, _, err = rb(tmp_path, "update", "coder", "-m", "x")
    assert code == 2
    assert err.startswith(f"rolebook: {path}:2: frontmatter is not YAML")
    assert tree(tmp_path) == before
    code, out, _ = rb(tmp_path, "read", "coder")
    assert code == 0 and "frontmatter is not YAML" in out.splitlines()[-1]


def test_unreadable_config_is_an_error_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text("version: 1\nlimits:\n  mistakes: lots\n")
    code, _, err = rb(tmp_path, "update", "coder", "-m", "x")
    assert code == 2
    assert (
        err == f"rolebook: {tmp_path / 'rolebook.yaml'}:3: "
        "limit 'mistakes' must be a whole number >= 0 or null, not 'lots'\n"
    )
    (tmp_path / "rolebook.yaml").write_text("version: 1\nlimts: {}\n")
    assert "unknown setting 'limts'" in rb(tmp_path, "read", "coder")[2]


def test_config_limits_apply(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text("roles: [coder]\nlimits: {mistakes: 1}\n")
    rb(tmp_path, "update", "coder", "-m", "a", "--date", "2026-01-01")
    _code, out, _ = rb(tmp_path, "update", "coder", "-m", "b", "--date", "2026-01-02")
    assert out == "coder: +1 entry, 1 pruned to the archive, 10/80 lines\n"


def test_tidy_check_exits_1_when_a_hand_edit_breaks_the_limits_and_tidy_fixes_it(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder", "qa")
    path = tmp_path / "agents/state/memory/coder.md"
    path.write_text("## Session Log\n" + "".join(f"- [2026-01-{d:02d}] s{d}\n" for d in range(1, 18)))
    before = tree(tmp_path)
    code, out, _ = rb(tmp_path, "tidy", "--check")
    assert code == 1
    assert out == "coder: would prune 2, 16/80 lines\nqa: within limits, 9/80 lines\n"
    assert tree(tmp_path) == before
    code, out, _ = rb(tmp_path, "tidy")
    assert code == 0
    assert out.splitlines()[0] == "coder: +0 entries, 2 pruned to the archive, 17 hand-written journalled, 16/80 lines"
    assert rb(tmp_path, "tidy", "--check")[0] == 0


def test_obsolete_reports_and_exits_1_on_no_match(tmp_path: Path) -> None:
    rb(tmp_path, "update", "coder", "-l", "node 16 is required", "--date", "2026-01-01")
    code, out, _ = rb(tmp_path, "obsolete", "coder", "node 16")
    assert code == 0 and out.startswith("coder: made obsolete #")
    code, _, err = rb(tmp_path, "obsolete", "coder", "node 16")
    assert code == 1 and "no active entry matches" in err


def test_every_command_has_help_with_an_example() -> None:
    import typer.main

    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    shown = [name for name, command in commands.items() if not command.hidden]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Commands") : readme.index("\n## ", readme.index("## Commands") + 3)]
    assert len(shown) >= 20 and all(f"`rolebook {c}" in table or f"`, `rolebook {c}" in table for c in shown)
    for command in shown:
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0, command
        assert re.search(rf"Example( \(.+?\))?:\s+(\S+ )*?rolebook( \S+)*? {command}\b", result.stdout), command


def test_a_legacy_file_over_the_cap_with_nothing_prunable_keeps_new_entries_and_says_so(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    path = tmp_path / "agents/state/memory/coder.md"
    legacy = "# Lessons\n\n" + "".join(f"### L{i}\nA rule about something, kept as written.\n\n" for i in range(40))
    path.write_text(legacy)
    code, out, _ = rb(tmp_path, "tidy", "--check")
    assert (code, out) == (
        0,
        "coder: over the line cap with nothing rolebook may prune (shorten it by hand), 122/80 lines\n",
    )
    code, out, _ = rb(tmp_path, "update", "coder", "-m", "forgot the linter", "--date", "2026-03-01")
    assert out == "coder: +1 entry, 124/80 lines\n"
    assert path.read_text() == legacy + "## Mistakes\n- [2026-03-01] forgot the linter\n"
    alerts = [ln for ln in rb(tmp_path, "read", "coder")[1].splitlines() if ln.startswith("rolebook:")]
    assert alerts == [
        FRAME % "coder",
        "rolebook: 124 lines, over the cap of 80, with nothing more rolebook may prune: "
        "Feedback and text it does not manage are never pruned; shorten them by hand",
    ]


def test_a_malformed_archive_line_is_reported_once_and_left_in_place(tmp_path: Path) -> None:
    rb(tmp_path, "update", "coder", "-l", "a", "--date", "2026-01-01")
    archive = tmp_path / "agents/state/archive/coder.jsonl"
    with open(archive, "a") as f:
        f.write("{broken\n")
    code, _, err = rb(tmp_path, "update", "coder", "-l", "b", "--date", "2026-01-02")
    assert code == 0
    assert (
        err
        == f"rolebook: warning: {archive}:2: not JSON (JSONDecodeError); skipped, and left in the archive as it is\n"
    )
    assert archive.read_text().splitlines()[1] == "{broken"
    assert rb(tmp_path, "update", "coder", "-l", "c", "--date", "2026-01-03")[2] == ""


def test_init_with_agent_sets_up_and_integrates_in_one_step(tmp_path: Path) -> None:
    code, out, _ = rb(tmp_path, "init", "coder", "--agent", "claude")
    assert code == 0 and "created .claude/settings.json" in out and "created agents/state/memory/coder.md" in out
    assert "rolebook hook session-start --role coder" in (tmp_path / ".claude/settings.json").read_text()
    assert (
        "claude: already integrated, nothing to change\nnext: start `claude`"
        in rb(tmp_path, "init", "coder", "--agent", "claude")[1]
    )
    code, _, err = rb(tmp_path / "other", "init", "coder", "qa", "--agent", "claude")
    assert code == 2 and "name exactly one" in err and not (tmp_path / "other").exists()
    code, _, err = rb(tmp_path / "other", "init", "coder", "--agent", "vim")
    assert code == 2 and "unknown agent 'vim'" in err
