"""Recurrence, promotion review, rules and violations, through the library and the CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.notebook.limits import Limits
from rolebook.notebook.markdown import parse
from rolebook.notebook.model import entry_id
from rolebook.notebook.store.archive import ArchiveRecord, read_records
from rolebook.notebook.store.changes import update
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout
from rolebook.rules.grouping import candidates
from rolebook.rules.recurrence import Recurrence
from typer.testing import CliRunner

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

runner = CliRunner()
# the same mistake three times: the second in other words (its writer confirms it with
# --same-as), the third written again ("again": merged on its own)
WORDINGS = [
    ("2026-02-05", "floating speech bubble broke the die-cut; keep the bubble inside the outline"),
    ("2026-03-01", "speech bubble floating off the sticker broke the die cut; keep the bubble inside the outline"),
    ("2026-03-15", "the floating speech bubble broke the die-cut again; keep the bubble inside the outline"),
]
FIRST = entry_id("designer", "mistakes", *WORDINGS[0])


def rb(root: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def records(root: Path, role: str = "designer") -> list[ArchiveRecord]:
    path = Layout.default(root).archive_path(role)
    return [r for _, _, r in read_records(path) if isinstance(r, ArchiveRecord)]


def notebook(root: Path, role: str = "designer") -> str:
    return Layout.default(root).notebook_path(role).read_text(encoding="utf-8")


def three_incidents(root: Path) -> None:
    (first, text), (second, other), (third, again) = WORDINGS
    assert rb(root, "update", "designer", "-m", text, "--date", first)[0] == 0
    assert rb(root, "update", "designer", "-m", other, "--date", second, "--same-as", FIRST)[0] == 0
    assert rb(root, "update", "designer", "-m", again, "--date", third)[0] == 0


def test_a_mistake_pruned_in_february_recurs_in_march(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    first = new_entry("mistakes", WORDINGS[0][1], "2026-02-05")
    update(layout, "designer", [first], Limits(), Writer(), Recurrence())
    fillers = [new_entry("mistakes", f"unrelated slip number {i}", "2026-02-20") for i in range(20)]
    update(layout, "designer", fillers, Limits(), Writer(), Recurrence())
    assert WORDINGS[0][1] not in notebook(tmp_path)  # pruned to the archive
    again = new_entry("mistakes", WORDINGS[2][1], "2026-03-01")
    result = update(layout, "designer", [again], Limits(), Writer(), Recurrence())
    assert [e.count for e in result.added] == [2]
    assert f"- [2026-03-01] {WORDINGS[2][1]} (x2)\n" in notebook(tmp_path)
    added = records(tmp_path)[-2]
    assert added.op == "added" and added.extra["group"] == records(tmp_path)[0].id


def test_the_older_active_occurrence_leaves_as_recurred(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    mistakes = [e for e in parse(notebook(tmp_path)).entries("mistakes")]
    assert [(e.date, e.count) for e in mistakes] == [("2026-03-15", 3)]
    ops = [r.op for r in records(tmp_path)]
    assert ops == ["added", "added", "linked", "recurred", "added", "recurred"]
    assert {r.extra.get("group") for r in records(tmp_path) if r.section == "mistakes"} == {FIRST}


def test_distinct_mistakes_are_not_counted_together(tmp_path: Path) -> None:
    rb(tmp_path, "update", "coder", "-m", "SQLite WAL mode configuration was wrong", "--date", "2026-01-01")
    rb(tmp_path, "update", "coder", "-m", "SQLite WAL data loss during deploys", "--date", "2026-01-02")
    assert "(x2)" not in notebook(tmp_path, "coder")


def test_promote_json_lists_a_group_with_three_dates_and_its_id_is_stable(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    code, out, _ = rb(tmp_path, "promote", "--json")
    data = json.loads(out)
    (c,) = data["candidates"]
    assert (code, c["role"], c["count"], c["dates"]) == (0, "designer", 3, [d for d, _ in WORDINGS])
    assert c["rule"] == (
        "- Keep the bubble inside the outline. _(designer; incidents 2026-02-05, 2026-03-01, 2026-03-15)_"
    )
    rb(tmp_path, "update", "qa", "-m", "something else entirely")
    assert json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"][0]["id"] == c["id"]
    assert json.loads(rb(tmp_path, "promote", "--json", "--min", "4")[1])["candidates"] == []


def test_read_says_a_promotion_is_due(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    out = rb(tmp_path, "read", "designer")[1]
    assert out.splitlines()[-1] == (
        "rolebook: 1 promotion due (designer: mistakes that came back on 3 or more dates): "
        "`rolebook promote` reviews them"
    )


def test_apply_writes_the_rule_and_moves_the_active_entries_out(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    (tmp_path / "CLAUDE.md").write_bytes(b"# Rules\r\n\r\nBe kind.")
    gid = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"][0]["id"]
    code, out, _ = rb(tmp_path, "promote", "--apply", gid[:5], "--text", "merge floating elements before export")
    assert code == 0 and "promoted R" in out and "(1 notebook entry archived as promoted)" in out
    claude = (tmp_path / "CLAUDE.md").read_bytes()
    assert claude.startswith(b"# Rules\r\n\r\nBe kind.\r\n\r\n<!-- rolebook:rules:start -->\r\n")
    assert (
        b"- Merge floating elements before export. _(designer; incidents 2026-02-05, 2026-03-01, 2026-03-15)_\r\n"
    ) in claude
    assert not claude.endswith(b"\n")
    assert parse(notebook(tmp_path)).entries("mistakes") == []
    ops = [(r.op, r.section) for r in records(tmp_path)][-3:]
    assert ops == [("promoted", "mistakes"), ("promoted", "rules"), ("written", "review")]
    assert json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"] == []
    assert rb(tmp_path, "promote", "--apply", gid)[0] == 1  # no longer a candidate
    assert (tmp_path / "CLAUDE.md").read_bytes() == claude


def test_a_recurrence_after_promotion_is_a_violation_at_update_and_read(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    rb(tmp_path, "promote", "--yes")
    code, out, _ = rb(tmp_path, "update", "designer", "-m", WORDINGS[0][1].replace("die-cut", "die-cut again"))
    lines = out.splitlines()
    assert code == 0 and "a mistake that recurs (x4)" in lines[0]
    assert lines[1].startswith("designer: this mistake violates rule R") and " promoted 20" in lines[1]
    assert "violates rule R" in rb(tmp_path, "read", "designer")[1].splitlines()[-1]
    (rule,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    assert rule["violations"] == 1


def test_a_mistake_typed_by_hand_that_breaks_a_rule_is_named_at_read_after_tidy(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    gid = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"][0]["id"]
    assert rb(tmp_path, "promote", "--apply", gid, "--text", "keep the speech bubble inside the outline")[0] == 0
    assert "violates" not in rb(tmp_path, "read", "designer")[1]
    path = Layout.default(tmp_path).notebook_path("designer")
    text = path.read_text(encoding="utf-8")
    # a mistake that breaks the rule, typed into the notebook by hand (no rolebook command saw it)
    typed = "- [2026-04-02] did not keep the speech bubble inside the outline\n"
    path.write_text(text.replace("## Mistakes\n", "## Mistakes\n" + typed))
    assert rb(tmp_path, "tidy", "designer")[0] == 0
    last = rb(tmp_path, "read", "designer")[1].splitlines()[-1]
    assert last.startswith("rolebook: designer: a mistake in the notebook violates rule R")
    assert last.endswith("Keep the speech bubble inside the outline.")


def test_demote_takes_the_line_out_and_archives_it(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    rb(tmp_path, "promote", "--yes")
    (rule,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    code, out, _ = rb(tmp_path, "demote", rule["id"])
    assert code == 0 and out.startswith(f"designer: demoted {rule['id']}")
    assert rule["line"] not in (tmp_path / "CLAUDE.md").read_text()
    assert [(r.op, r.id) for r in records(tmp_path) if r.section == "rules"][-1] == ("demoted", rule["id"])
    assert rb(tmp_path, "demote", rule["id"])[0] == 1


def test_the_interactive_review_promotes_edits_and_skips_through_its_prompts(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    for date in ("2026-01-10", "2026-02-10", "2026-03-10"):
        rb(tmp_path, "update", "coder", "-m", "ran the migration against production instead of staging", "--date", date)
    code, out, _ = rb(tmp_path, "promote", "--interactive", input="e\nCheck DATABASE_URL before migrating\nn\n")
    assert code == 0
    assert out.count("[p/e/x/s/n/q]") == 2
    rules = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    assert [(r["role"], r["text"]) for r in rules] == [("coder", "Check DATABASE_URL before migrating.")]
    code, out, _ = rb(tmp_path, "promote", "--interactive", input="q\n")
    assert code == 0 and "nothing promoted" in out


def test_a_broken_rules_block_is_an_error_and_the_file_is_untouched(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    claude = tmp_path / "CLAUDE.md"
    claude.write_text("<!-- rolebook:rules:start -->\n<!-- rolebook:rules:start -->\n<!-- rolebook:rules:end -->\n")
    before = claude.read_bytes()
    code, _, err = rb(tmp_path, "promote", "--yes")
    assert code == 2 and err.startswith(f"rolebook: {claude}:2: a second <!-- rolebook:rules:start -->")
    assert claude.read_bytes() == before


def test_hand_typed_rewordings_are_one_mistake_only_once_a_writer_links_them(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    layout.memory.mkdir(parents=True)
    typed = [
        ("2026-03-03", "tested only in Chrome, the date picker broke in Safari"),
        ("2026-02-02", "date picker broken in Safari; only tested in Chrome"),
        ("2026-01-01", "only tested in Chrome and missed the Safari date picker bug"),
    ]
    layout.notebook_path("qa").write_text("## Mistakes\n" + "".join(f"- [{d}] {t}\n" for d, t in typed))
    assert candidates(layout, tmp_path / "CLAUDE.md", "qa") == []  # no judgement groups them at review time
    oldest = entry_id("qa", "mistakes", *typed[2])
    for day, text in typed[:2]:  # the writer's word, on the mistakes as they stand
        assert rb(tmp_path, "update", "qa", "-m", text, "--date", day, "--same-as", oldest)[0] == 0
    (c,) = candidates(layout, tmp_path / "CLAUDE.md", "qa")
    assert (c.count, len(c.dates), len(c.active)) == (3, 3, 1)
    assert parse(notebook(tmp_path, "qa")).entries("mistakes")[0].count == 3


def test_the_promotion_alert_follows_writes_without_a_full_recount(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    assert "promotion due" in rb(tmp_path, "read", "designer")[1]
    rb(tmp_path, "update", "designer", "-l", "an unrelated learning")  # touches no group: the alert stays
    assert "1 promotion due" in rb(tmp_path, "read", "designer")[1]
    rb(tmp_path, "promote", "--yes")
    assert "promotion due" not in rb(tmp_path, "read", "designer")[1]
    code, _, _ = rb(tmp_path, "obsolete", "designer", "speech bubble")
    assert code == 1  # promoted: no longer in the notebook


def test_a_scoped_writer_cannot_promote_or_demote_another_roles_rule_and_nothing_changes(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    (tmp_path / "CLAUDE.md").write_text("# Rules\n")
    gid = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"][0]["id"]
    code, _, err = rb(tmp_path, "--as", "coder", "promote", "--apply", gid)
    assert code == 2 and "scoped to role 'coder'" in err
    assert (tmp_path / "CLAUDE.md").read_text() == "# Rules\n"
    rb(tmp_path, "promote", "--apply", gid)
    before = (tmp_path / "CLAUDE.md").read_text()
    rule_id = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"][0]["id"]
    code, _, err = rb(tmp_path, "--as", "coder", "demote", rule_id)
    assert code == 2 and (tmp_path / "CLAUDE.md").read_text() == before


def test_the_proposed_rule_is_the_instruction_and_the_review_lists_every_incident(tmp_path: Path) -> None:
    wordings = (
        ("2026-01-05", "ran the migration on prod; use the staging DB first"),
        ("2026-02-05", "migration ran against prod again; use the staging DB first"),
        ("2026-03-05", "ran the prod migration once more; use the staging DB first"),
    )
    first = entry_id("coder", "mistakes", *wordings[0])
    for n, (day, wording) in enumerate(wordings):
        link = ["--same-as", first] if n else []
        assert rb(tmp_path, "update", "coder", "-m", wording, "--date", day, *link)[0] == 0
    listed = runner.invoke(app, ["--root", str(tmp_path), "promote", "--no-interactive"]).stdout
    assert "-> - Use the staging DB first. _(coder; incidents 2026-01-05, 2026-02-05, 2026-03-05)_" in listed
    for day, wording in wordings:
        assert f"    [{day}] {wording}" in listed
    data = json.loads(runner.invoke(app, ["--root", str(tmp_path), "promote", "--json"]).stdout)
    (candidate,) = data["candidates"]
    assert [i["date"] for i in candidate["incidents"]] == ["2026-01-05", "2026-02-05", "2026-03-05"]
    assert candidate["incidents"][0] == {
        "date": "2026-01-05",
        "role": "coder",
        "text": "ran the migration on prod; use the staging DB first",
    }


def test_promote_yes_skips_a_group_whose_incidents_say_no_instruction_and_says_why(tmp_path: Path) -> None:
    for date in ("2026-01-10", "2026-02-10", "2026-03-10"):
        rb(tmp_path, "update", "designer", "-m", "The floating speech bubble broke the die-cut again.", "--date", date)
    listed = rb(tmp_path, "promote", "--no-interactive")[1]
    assert "(no rule proposed: no incident says what to do instead" in listed
    (c,) = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"]
    assert c["rule"] is None and c["needs_text"].startswith("no incident says what to do instead")
    code, out, err = rb(tmp_path, "promote", "--yes")
    said = f"rolebook: {c['id']} designer: not promoted by --yes: no incident says what to do instead"
    assert code == 0 and err.startswith(said) and out.startswith("nothing promoted")
    assert f'`rolebook promote --apply {c["id"]} --text "RULE"`' in err
    assert not (tmp_path / "CLAUDE.md").exists()
    skipped = json.loads(rb(tmp_path, "promote", "--yes", "--json")[1])
    assert skipped["promoted"] == [] and [s["id"] for s in skipped["skipped"]] == [c["id"]]
    code, _, err = rb(tmp_path, "promote", "--apply", c["id"])
    assert code == 2 and "give the rule's text" in err
    code, out, _ = rb(tmp_path, "promote", "--apply", c["id"], "--text", "keep speech bubbles inside the outline")
    assert code == 0 and "Keep speech bubbles inside the outline." in (tmp_path / "CLAUDE.md").read_text()


def test_the_interactive_review_asks_for_the_rule_when_no_incident_has_one(tmp_path: Path) -> None:
    for date in ("2026-01-10", "2026-02-10", "2026-03-10"):
        rb(tmp_path, "update", "designer", "-m", "The floating speech bubble broke the die-cut again.", "--date", date)
    code, out, _ = rb(tmp_path, "promote", "--interactive", input="p\nmerge the bubble into the outline\n")
    assert code == 0 and "rule text" in out
    assert "- Merge the bubble into the outline. _(designer;" in (tmp_path / "CLAUDE.md").read_text()


def rolebook(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, as a user runs it."""
    exe = Path(sys.executable).parent / "rolebook"
    return subprocess.run([str(exe), "--root", str(root), *args], capture_output=True, text=True)


def candidate_ids(root: Path) -> list[str]:
    done = rolebook(root, "promote", "--json")
    assert done.returncode == 0, done.stderr
    return [c["id"] for c in json.loads(done.stdout)["candidates"]]


def test_split_dissolves_a_group_for_good_even_after_the_index_is_rebuilt(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    (gid,) = candidate_ids(tmp_path)
    done = rolebook(tmp_path, "promote", "--split", gid)
    assert done.returncode == 0 and done.stdout.startswith(f"{gid} designer: split")
    assert candidate_ids(tmp_path) == []
    assert "promotion due" not in rolebook(tmp_path, "read", "designer").stdout
    (decision,) = [r for r in records(tmp_path) if r.op == "split"]
    assert decision.section == "review" and len(decision.extra["members"]) == 3
    shutil.rmtree(Layout.default(tmp_path).derived)  # the decision lives in the archive, not the index
    assert candidate_ids(tmp_path) == []
    assert "review" not in rolebook(tmp_path, "search", "incidents not one mistake", "--status", "all").stdout
    # a new incident joins one of them, never all three together again
    rb(tmp_path, "update", "designer", "-m", WORDINGS[0][1], "--date", "2026-04-01")
    assert candidate_ids(tmp_path) == []


def test_skip_waits_for_a_new_incident_and_then_the_group_is_proposed_again(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    (gid,) = candidate_ids(tmp_path)
    done = rolebook(tmp_path, "promote", "--skip", gid[:6])
    assert done.returncode == 0 and "skipped until a new incident" in done.stdout
    assert candidate_ids(tmp_path) == []
    assert "promotion due" not in rolebook(tmp_path, "read", "designer").stdout
    assert rolebook(tmp_path, "promote", "--skip", gid).returncode == 0  # again: nothing more journalled
    assert [r.op for r in records(tmp_path)].count("skipped") == 1
    rb(
        tmp_path,
        "update",
        "designer",
        "-m",
        "floating speech bubble broke the die-cut once more; keep the bubble inside the outline",
        "--date",
        "2026-04-02",
    )
    assert candidate_ids(tmp_path) == [gid]
    assert "1 promotion due" in rolebook(tmp_path, "read", "designer").stdout


def test_a_skipped_candidate_can_still_be_promoted_by_its_id(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    (gid,) = candidate_ids(tmp_path)
    rolebook(tmp_path, "promote", "--skip", gid)
    done = rolebook(tmp_path, "promote", "--apply", gid)
    assert done.returncode == 0 and "promoted R" in done.stdout


def test_split_and_skip_refuse_an_unknown_id_or_a_second_action(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    (gid,) = candidate_ids(tmp_path)
    unknown = rolebook(tmp_path, "promote", "--split", "gffffff")
    assert unknown.returncode == 1 and "no promotion candidate" in unknown.stderr
    both = rolebook(tmp_path, "promote", "--split", gid, "--skip", gid)
    assert both.returncode == 2 and "give one of" in both.stderr
    assert [r.op for r in records(tmp_path)].count("split") == 0


def test_the_interactive_review_records_split_and_skip(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    for date in ("2026-01-10", "2026-02-10", "2026-03-10"):
        rb(tmp_path, "update", "coder", "-m", "ran the migration against production instead of staging", "--date", date)
    code, out, _ = rb(tmp_path, "promote", "--interactive", input="x\ns\n")
    assert code == 0 and "nothing promoted" in out
    decided = [r.op for role in ("coder", "designer") for r in records(tmp_path, role) if r.op != "linked"]
    assert sorted(op for op in decided if op in ("split", "skipped")) == [
        "skipped",
        "split",
    ]
    assert candidate_ids(tmp_path) == []


# -- the rules block edited by hand: read back as it stands, never duplicated or revived --------

REWORDED = "Export a sticker only after checking its outline by eye."


def promoted_block(root: Path) -> tuple[Path, str]:
    three_incidents(root)
    assert rb(root, "promote", "--yes")[0] == 0
    claude = root / "CLAUDE.md"
    return claude, claude.read_text(encoding="utf-8")


def test_a_rule_reworded_by_hand_is_the_rule_it_was_never_appended_again(tmp_path: Path) -> None:
    claude, text = promoted_block(tmp_path)
    (old,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    claude.write_text(text.replace("Keep the bubble inside the outline.", REWORDED), encoding="utf-8")
    edited = claude.read_bytes()
    for _ in range(2):
        code, out, _ = rb(tmp_path, "promote", "--yes")
        assert (code, out) == (0, "nothing promoted\n")
        assert json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"] == []
    assert claude.read_bytes() == edited
    (rule,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    assert rule["text"] == REWORDED and rule["id"] != old["id"]
    assert rule["promoted"] == old["promoted"] is not None  # the archive's promotion, through the reword
    # the mistake coming back breaks the rule as it now reads
    code, out, _ = rb(tmp_path, "update", "designer", "-m", WORDINGS[0][1].replace("die-cut", "die-cut again"))
    assert code == 0 and f"violates rule {rule['id']}" in out


def test_a_rule_line_deleted_by_hand_is_journalled_as_demoted_and_never_written_back(tmp_path: Path) -> None:
    claude, text = promoted_block(tmp_path)
    (rule,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    claude.write_text(text.replace(rule["line"] + "\n", ""), encoding="utf-8")
    edited = claude.read_bytes()
    for _ in range(2):
        assert rb(tmp_path, "promote", "--yes")[1] == "nothing promoted\n"
    assert claude.read_bytes() == edited
    assert "no rules" in rb(tmp_path, "rules")[1]
    demoted = [r for r in records(tmp_path) if r.op == "demoted"]
    assert [(r.id, r.extra.get("how")) for r in demoted] == [(rule["id"], "deleted from the rules file by hand")]
    # set aside, as a skip is: a new incident brings the group back to the review
    rb(tmp_path, "update", "designer", "-m", WORDINGS[2][1], "--date", "2026-04-02")
    (candidate,) = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"]
    assert "2026-04-02" in candidate["dates"]


def test_demote_sets_the_group_aside_until_a_new_incident(tmp_path: Path) -> None:
    claude, _ = promoted_block(tmp_path)
    (rule,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    assert rb(tmp_path, "demote", rule["id"])[0] == 0
    after = claude.read_bytes()
    assert rb(tmp_path, "promote", "--yes")[1] == "nothing promoted\n"
    assert claude.read_bytes() == after


def test_a_reworded_rule_demoted_by_its_new_id_leaves_no_promotion_behind(tmp_path: Path) -> None:
    claude, text = promoted_block(tmp_path)
    claude.write_text(text.replace("Keep the bubble inside the outline.", REWORDED), encoding="utf-8")
    (rule,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    assert rb(tmp_path, "demote", rule["id"])[0] == 0
    after = claude.read_bytes()
    assert rb(tmp_path, "promote", "--yes")[1] == "nothing promoted\n"
    assert claude.read_bytes() == after and "no rules" in rb(tmp_path, "rules")[1]


def test_a_promotion_cut_short_before_its_line_is_finished_once_and_a_later_deletion_stands(tmp_path: Path) -> None:
    from rolebook.rules.promotion import promote_entries

    three_incidents(tmp_path)
    (c,) = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"]
    layout = Layout.default(tmp_path)
    # the journal written, the process gone before the rule line
    promote_entries(
        layout,
        "designer",
        set(c["members"]),
        "R0",
        "Keep the bubble inside the outline.",
        tuple(c["dates"]),
        Limits(),
        Writer(source="cli"),
    )
    claude = tmp_path / "CLAUDE.md"
    assert not claude.exists()
    assert json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"] == []
    (rule,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    assert rule["text"] == "Keep the bubble inside the outline."
    claude.write_text(claude.read_text(encoding="utf-8").replace(rule["line"] + "\n", ""), encoding="utf-8")
    assert rb(tmp_path, "promote", "--yes")[1] == "nothing promoted\n"
    assert "no rules" in rb(tmp_path, "rules")[1]


def test_an_interrupted_review_keeps_what_was_decided_and_says_so(tmp_path: Path) -> None:
    three_incidents(tmp_path)
    for date in ("2026-01-10", "2026-02-10", "2026-03-10"):
        rb(
            tmp_path,
            "update",
            "coder",
            "-m",
            "ran the migration against production; use the staging database",
            "--date",
            date,
        )
    for date in ("2026-01-11", "2026-02-11", "2026-03-11"):
        rb(tmp_path, "update", "qa", "-m", "the upload suite flaked; retry it once before reporting", "--date", date)
    found = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"]
    assert len(found) == 3
    # the first promoted, the second skipped, then the input ends (as Ctrl-C at the prompt does: click aborts)
    code, out, err = rb(tmp_path, "promote", "--interactive", input="p\ns\n")
    assert code == 130 and "Aborted!" not in out + err
    (rule,) = json.loads(rb(tmp_path, "rules", "--json")[1])["rules"]
    assert rule["role"] == found[0]["role"] and f"promoted {rule['id']} to CLAUDE.md" in out
    assert err == (
        f"rolebook: review interrupted at [3/3]: kept what was decided, each applied when answered: "
        f"promoted {rule['id']}, skipped {found[1]['id']}; 1 candidate not reviewed: `rolebook promote` asks again\n"
    )
    # what was kept stands: the next review asks only about the one not reviewed
    (left,) = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"]
    assert left["id"] == found[2]["id"]
    code, _, err = rb(tmp_path, "promote", "--interactive", input="")
    assert code == 130 and "nothing decided; 1 candidate not reviewed" in err
