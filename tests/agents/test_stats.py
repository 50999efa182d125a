"""stats: known writes give known figures."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.agents.stats import last_weeks, week
from typer.testing import CliRunner

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

runner = CliRunner()


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


NPM = "npm install failed with EACCES; chown the checkout"


def known_root(root: Path) -> Path:
    # one mistake on 4 dates (3 of them recurrences), 2 one-off mistakes, a learning, a session
    for day in ("2026-03-02", "2026-03-09", "2026-03-10"):
        assert rb(root, "update", "coder", "-m", NPM, "--date", day)[0] == 0
    rb(root, "update", "coder", "-m", "deployed on a Friday evening", "--date", "2026-03-03")
    rb(root, "update", "coder", "-m", "forgot the changelog entry", "--date", "2026-03-16")
    rb(root, "update", "coder", "-l", "pin the event loop policy", "--date", "2026-03-16")
    rb(root, "update", "coder", "--log", "WQ-1: upload retries", "--date", "2026-03-16")
    code, _out, err = rb(root, "promote", "--yes", "--no-interactive")
    assert code == 0, err
    rb(root, "update", "coder", "-m", NPM, "--date", "2026-03-17")  # breaks the new rule
    with open(root / "agents/state/archive/coder.jsonl", "ab") as f:
        f.write(b"not json\n")
    return root


def test_stats_json_gives_the_known_figures(tmp_path: Path) -> None:
    root = known_root(tmp_path)
    code, out, err = rb(root, "stats", "coder", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["index"] == "behind the archives of coder (caught up on the next search)"  # the torn line
    (coder,) = data["roles"]
    nb = (root / "agents/state/memory/coder.md").read_text(encoding="utf-8")
    assert coder["notebook"] == {
        "lines": nb.count("\n"),
        "cap": 80,
        "entries": {"mistakes": 3, "learnings": 1, "feedback": 0, "session_log": 1},
    }
    ops = coder["archive"]["by_op"]
    # 8 entries added; of the first 3 npm occurrences 2 left as recurred, the 3rd by promotion
    assert ops["added"] == 8 and ops["recurred"] == 2
    assert ops["promoted"] >= 1
    assert coder["archive"]["malformed_lines"] == 1
    (top,) = coder["top_recurring_mistakes"]
    assert top["count"] == 4 and top["dates"] == ["2026-03-02", "2026-03-09", "2026-03-10", "2026-03-17"]
    assert top["rule"] is not None
    assert coder["rules"] == 1
    assert coder["violations"] == 1
    assert coder["mistakes_per_week"] == {"2026-W10": 2, "2026-W11": 2, "2026-W12": 2}
    assert coder["recurrences_per_week"] == {"2026-W11": 2, "2026-W12": 1}


def test_stats_prints_a_table_and_a_weekly_chart(tmp_path: Path) -> None:
    root = known_root(tmp_path)
    code, out, _ = rb(root, "stats")
    assert code == 0
    assert "coder" in out and "1 promoted, 1 violations since" in out
    assert "x4 on 4 days: npm install failed with EACCES" in out
    # the known history is months old: the chart of the last 12 weeks has nothing to draw
    assert "no mistakes recorded in the last 12 weeks" in out and "█" not in out


def test_stats_of_an_empty_root_says_so(tmp_path: Path) -> None:
    assert rb(tmp_path, "stats") == (0, "no roles yet: `rolebook init ROLE` starts one\n", "")
    code, _, err = rb(tmp_path, "stats", "../etc")
    assert code == 2 and "role" in err


def test_weeks_are_iso_weeks_ending_this_week() -> None:
    assert week("2026-03-02") == "2026-W10" and week("2027-01-01") == "2026-W53"
    weeks = last_weeks(dt.date(2026, 3, 18), 3)
    assert weeks == ["2026-W10", "2026-W11", "2026-W12"]


def test_the_chart_draws_this_weeks_mistakes_and_recurrences(tmp_path: Path) -> None:
    today = dt.date.today().isoformat()
    rb(tmp_path, "update", "coder", "-m", NPM, "--date", today)
    rb(tmp_path, "update", "coder", "-m", NPM + " again", "--date", today)
    rb(tmp_path, "update", "coder", "-m", "deployed on a Friday evening", "--date", today)
    code, out, _ = rb(tmp_path, "stats", "coder")
    assert code == 0
    (row,) = [line for line in out.splitlines() if line.startswith(week(today))]
    assert row.rstrip().endswith("3 (1 again)")
    assert row.count("█") == 20 and row.count("▒") == 10  # 30 cells for the busiest week, a third recurrences


def test_mistakes_written_before_their_rule_was_promoted_are_no_violations_of_it(tmp_path: Path) -> None:
    # rule 1 is promoted; a second mistake then recurs on 3 dates, becomes rule 2, and comes back once
    for day in ("2026-03-02", "2026-03-09", "2026-03-10"):
        rb(tmp_path, "update", "coder", "-m", NPM, "--date", day)
    assert rb(tmp_path, "promote", "--yes", "--no-interactive")[0] == 0
    friday = "deployed on a Friday evening; deploy before Thursday noon"
    for day in ("2026-04-03", "2026-04-10", "2026-04-17"):
        rb(tmp_path, "update", "coder", "-m", friday, "--date", day)
    assert rb(tmp_path, "promote", "--yes", "--no-interactive")[0] == 0
    rb(tmp_path, "update", "coder", "-m", friday, "--date", "2026-04-24")
    code, out, err = rb(tmp_path, "stats", "coder", "--json")
    assert code == 0, err
    assert json.loads(out)["roles"][0]["violations"] == 1


def test_a_recurrence_confirmed_with_same_as_counts_as_a_recurrence_not_a_new_mistake(tmp_path: Path) -> None:
    first = "the CI cache key ignored the lockfile; hash package-lock.json into the key"
    code, out, _ = rb(tmp_path, "update", "coder", "-m", first, "--date", "2026-03-02", "--json")
    earlier = json.loads(out)["added"][0]["id"]
    other = "stale node_modules restored in CI because the cache did not follow the lock file"
    # the documented way: update says it looks like an earlier one; the same update with --same-as counts it
    assert rb(tmp_path, "update", "coder", "-m", other, "--date", "2026-03-10")[0] == 0
    code, out, _ = rb(tmp_path, "update", "coder", "-m", other, "--date", "2026-03-10", "--same-as", earlier)
    assert code == 0 and "confirmed" in out
    # written again in the same words: update finds it recurring on its own, and it is counted once
    assert rb(tmp_path, "update", "coder", "-m", other + " again", "--date", "2026-03-17")[0] == 0
    (coder,) = json.loads(rb(tmp_path, "stats", "coder", "--json")[1])["roles"]
    assert coder["mistakes_per_week"] == {"2026-W10": 1, "2026-W11": 1, "2026-W12": 1}
    assert coder["recurrences_per_week"] == {"2026-W11": 1, "2026-W12": 1}


def test_a_notebook_with_bytes_that_are_not_utf8_is_read_by_every_read_and_refused_for_writing(tmp_path: Path) -> None:
    assert rb(tmp_path, "update", "coder", "-l", "run the tests from the root", "--date", "2026-03-02")[0] == 0
    path = tmp_path / "agents/state/memory/coder.md"
    data = path.read_bytes().replace(b"run the tests", b"run the caf\xe9 tests")
    path.write_bytes(data)
    line = data[: data.index(b"\xe9")].count(b"\n") + 1
    said = f"rolebook: warning: {path}:{line}: not UTF-8 text, read with U+FFFD in place of the bad bytes"
    code, out, err = rb(tmp_path, "stats", "coder", "--json")
    assert code == 0 and err.startswith(said)
    (coder,) = json.loads(out)["roles"]
    assert coder["notebook"]["entries"]["learnings"] == 1
    code, out, err = rb(tmp_path, "report", "-o", str(tmp_path / "report.html"))
    assert code == 0 and said in err and (tmp_path / "report.html").exists()
    code, out, err = rb(tmp_path, "export", "--format", "markdown")
    assert code == 0 and "- [2026-03-02] run the caf\ufffd tests" in out
    code, out, err = rb(tmp_path, "read", "coder")
    assert code == 0 and "run the caf\ufffd tests" in out
    # a write, and the lossless export, still refuse it, naming the line; nothing changes
    for args in (["update", "coder", "-l", "another"], ["export"]):
        code, out, err = rb(tmp_path, *args)
        assert code == 2 and err == f"rolebook: {path}:{line}: not UTF-8 text; fix or remove the bad bytes\n"
    assert path.read_bytes() == data
