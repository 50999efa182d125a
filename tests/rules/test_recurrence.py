"""Recurrence proposes instead of assuming: a mistake written twice is merged, one in other
words is proposed and counted only on the writer's word (`--same-as`, journalled as
`linked`); a batch ends as separate updates would; one definition of a group."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rolebook.agents.cli import app
from rolebook.agents.config import load_config
from rolebook.agents.session import open_session
from rolebook.notebook.markdown import parse
from rolebook.notebook.model import entry_id
from rolebook.notebook.store.archive import ArchiveRecord, read_records
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.layout import Layout
from rolebook.rules.similarity import same_text
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from roots import project

runner = CliRunner()
FIRST = ("2026-02-05", "Forgot to debounce the search input, so every keystroke fired an API request")
OTHER = ("2026-03-01", "typeahead hammered /api/search once per character typed; debounce the input")
FIRST_ID = entry_id("coder", "mistakes", *FIRST)


def rolebook(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, as a user (or an agent) runs it."""
    project(root)
    exe = Path(sys.executable).parent / "rolebook"
    return subprocess.run([str(exe), "--root", str(root), *args], capture_output=True, text=True)


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    project(root)
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def records(root: Path, role: str = "coder") -> list[ArchiveRecord]:
    return [r for _, _, r in read_records(Layout.default(root).archive_path(role)) if isinstance(r, ArchiveRecord)]


def mistakes(root: Path, role: str = "coder") -> list[tuple[str, str, int]]:
    """(date, text, count) of the notebook's mistakes, newest first."""
    text = Layout.default(root).notebook_path(role).read_text(encoding="utf-8")
    return [(e.date, e.text, e.count) for e in parse(text).entries("mistakes")]


def test_a_rewording_is_proposed_not_merged_and_the_printed_command_counts_it(tmp_path: Path) -> None:
    first_id = FIRST_ID
    assert rolebook(tmp_path, "update", "coder", "-m", FIRST[1], "--date", FIRST[0]).returncode == 0
    done = rolebook(tmp_path, "update", "coder", "-m", OTHER[1], "--date", OTHER[0], "--json")
    assert done.returncode == 0, done.stderr
    (added,) = json.loads(done.stdout)["added"]
    assert added["count"] == 1 and [r.op for r in records(tmp_path)] == ["added", "added"]  # not merged
    (proposal,) = added["possible_recurrences"]
    assert proposal["id"] == first_id and proposal["text"] == FIRST[1] and proposal["dates"] == [FIRST[0]]
    assert 0 < proposal["score"] <= 1
    # the text line names it and the command that counts it, which runs as printed
    shutil.rmtree(tmp_path / "agents")
    rolebook(tmp_path, "update", "coder", "-m", FIRST[1], "--date", FIRST[0])
    done = rolebook(tmp_path, "update", "coder", "-m", OTHER[1], "--date", OTHER[0])
    summary, line = done.stdout.splitlines()
    assert summary == "coder: +1 entry, 11/80 lines"
    assert line.startswith(f'coder: looks like #{first_id} (2026-02-05) "Forgot to debounce the search input')
    command = line.split("if it is the same mistake, ", 1)[1].removesuffix(" counts it")
    assert command.startswith(f"rolebook update coder --same-as {first_id} --mistake ")
    confirmed = rolebook(tmp_path, *shlex.split(command)[1:])
    assert confirmed.returncode == 0, confirmed.stderr
    assert (
        confirmed.stdout.splitlines()[1]
        == f"coder: #{entry_id('coder', 'mistakes', *OTHER)} recurs #{first_id}, confirmed (x2)"
    )
    assert mistakes(tmp_path) == [(OTHER[0], OTHER[1], 2)]
    (link,) = [r for r in records(tmp_path) if r.op == "linked"]
    assert (link.section, link.extra["same_as"]) == ("review", first_id)
    again = rolebook(tmp_path, *shlex.split(command)[1:])  # said twice: nothing more to write
    assert again.returncode == 1 and [r.op for r in records(tmp_path)].count("linked") == 1


def test_same_as_with_a_new_mistake_counts_it_at_once_with_its_group(tmp_path: Path) -> None:
    first_id = FIRST_ID
    rb(tmp_path, "update", "coder", "-m", FIRST[1], "--date", FIRST[0])
    code, out, _ = rb(tmp_path, "update", "coder", "-m", OTHER[1], "--date", OTHER[0], "--same-as", f"#{first_id[:6]}")
    assert code == 0 and "a mistake that recurs (x2)" in out and "confirmed (x2)" in out
    assert mistakes(tmp_path) == [(OTHER[0], OTHER[1], 2)]
    third = ("2026-04-01", "search box sent a request per key press again; debounce the input")
    code, out, _ = rb(tmp_path, "update", "coder", "-m", third[1], "--date", third[0], "--same-as", first_id)
    assert mistakes(tmp_path) == [(third[0], third[1], 3)]
    assert "1 promotion due" in rb(tmp_path, "read", "coder")[1]
    (c,) = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"]
    assert c["count"] == 3 and c["rule"].startswith("- Debounce the input.")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["-m", OTHER[1], "-m", "another slip; another fix", "--same-as", FIRST_ID], "exactly one mistake (2 given)"),
        (["-l", "a learning", "--same-as", FIRST_ID], "exactly one mistake (0 given)"),
        (["-m", OTHER[1], "--same-as", "#ab"], "at least 4 characters"),
        (["-m", OTHER[1], "--same-as", "ffffff"], "coder has no mistake #ffffff"),
    ],
)
def test_same_as_refuses_what_it_cannot_link_and_writes_nothing(tmp_path: Path, args: list[str], said: str) -> None:
    rb(tmp_path, "update", "coder", "-m", FIRST[1], "--date", FIRST[0])
    before = Layout.default(tmp_path).archive_path("coder").read_bytes()
    code, _, err = rb(tmp_path, "update", "coder", *args)
    assert code == 2 and said in err
    assert Layout.default(tmp_path).archive_path("coder").read_bytes() == before


def test_same_as_does_not_go_with_from_or_name_the_mistake_itself(tmp_path: Path) -> None:
    rb(tmp_path, "update", "coder", "-m", FIRST[1], "--date", FIRST[0])
    first_id = FIRST_ID
    snippet = tmp_path / "s.md"
    snippet.write_text(f"## Mistakes\n- [2026-03-01] {OTHER[1]}\n")
    assert "not with --from" in rb(tmp_path, "update", "coder", "--from", str(snippet), "--same-as", first_id)[2]
    code, _, err = rb(tmp_path, "update", "coder", "-m", FIRST[1], "--date", FIRST[0], "--same-as", first_id)
    assert code == 2 and "is this very mistake" in err


def test_short_mistakes_are_never_merged_on_a_shared_word_or_two(tmp_path: Path) -> None:
    for day, text in (("2026-01-01", "crlf bom one"), ("2026-01-02", "after crlf"), ("2026-01-03", "forgot the seed")):
        assert rb(tmp_path, "update", "coder", "-m", text, "--date", day)[0] == 0
    _code, out, _ = rb(tmp_path, "update", "coder", "-m", "forgot the seed data", "--date", "2026-01-04", "--json")
    assert [m[2] for m in mistakes(tmp_path)] == [1, 1, 1, 1]
    assert "recurred" not in {r.op for r in records(tmp_path)}
    assert json.loads(out)["added"][0]["possible_recurrences"][0]["text"] == "forgot the seed"  # proposed, not merged


def test_update_proposes_a_rewording_that_shares_only_a_piece_of_a_word_and_only_the_likely_one(tmp_path: Path) -> None:
    for day, text in (("2026-01-01", "docker runs as root"), ("2026-01-02", "the deploy key expired")):
        assert rb(tmp_path, "update", "coder", "-m", text, "--date", day)[0] == 0
    code, out, _ = rb(tmp_path, "update", "coder", "-m", "no USER in Dockerfile", "--date", "2026-01-03", "--json")
    assert code == 0
    assert [p["text"] for p in json.loads(out)["added"][0]["possible_recurrences"]] == ["docker runs as root"]


WORDS = ["crlf", "bom", "seed", "migration", "cache", "flaky", "retry", "again", "the", "forgot", "data", "test"]


@settings(max_examples=300)
@given(
    st.lists(st.sampled_from(WORDS), min_size=2, max_size=4), st.lists(st.sampled_from(WORDS), min_size=2, max_size=4)
)
def test_two_short_mistakes_are_one_only_when_they_are_the_same_words_in_the_same_order(
    a: list[str], b: list[str]
) -> None:
    drop = {"again", "the"}  # a recurrence's mark and an article say nothing of which mistake
    if same_text(" ".join(a), " ".join(b)):
        assert [w for w in a if w not in drop] == [w for w in b if w not in drop]


def test_a_confirmed_link_survives_deleting_the_index_and_split_undoes_it(tmp_path: Path) -> None:
    first_id = FIRST_ID
    rb(tmp_path, "update", "coder", "-m", FIRST[1], "--date", FIRST[0])
    rb(tmp_path, "update", "coder", "-m", OTHER[1], "--date", OTHER[0], "--same-as", first_id)
    third = ("2026-04-01", "search box sent a request per key press; debounce the input")
    rb(tmp_path, "update", "coder", "-m", third[1], "--date", third[0], "--same-as", first_id)
    shutil.rmtree(Layout.default(tmp_path).derived)  # the links live in the archive, not the index
    (c,) = json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"]
    assert c["count"] == 3 and c["dates"] == [FIRST[0], OTHER[0], third[0]]
    assert rb(tmp_path, "promote", "--split", c["id"])[0] == 0
    shutil.rmtree(Layout.default(tmp_path).derived)
    assert json.loads(rb(tmp_path, "promote", "--json")[1])["candidates"] == []
    assert "promotion due" not in rb(tmp_path, "read", "coder")[1]


# -- a batch is judged as separate updates would be --------------------------------------

POOL = [
    "ran the migration on prod; use the staging DB first",
    "Ran the migration on prod (again); use the staging DB first",
    "ran the migration on prod; use the staging DB first. OPS-2291",
    "ran the migration on staging twice; make migrations idempotent",
    "flaky login test; wait for the redirect",
    "Flaky login test again; wait for the redirect",
    "cache key missed the lockfile hash; key the cache on the lockfile",
]
DAYS = ["2026-01-05", "2026-02-05", "2026-03-05", "2026-04-05"]


def state(root: Path) -> tuple[object, ...]:
    """What the writes ended as: the notebook's mistakes and counts, the alerts, the candidates."""
    session = open_session(load_config(root))
    started = session.start("coder")
    counts = sorted((e.date, e.text, e.count) for e in parse(started.read.data.decode()).entries("mistakes"))
    alerts = [a for a in started.read.alert_lines("cli") if "promotion" in a]
    found = sorted((c.dates, c.count, c.members) for c in session.candidates())
    return counts, alerts, found


def write_separately(root: Path, items: list[tuple[str, str]]) -> None:
    session = open_session(load_config(root))
    for day, text in sorted(items, key=lambda i: i[0]):  # stable: same-day order kept
        session.end("coder", [new_entry("mistakes", text, day)])


@settings(max_examples=20)
@given(st.lists(st.tuples(st.sampled_from(DAYS), st.sampled_from(POOL)), min_size=1, max_size=6, unique=True))
def test_one_batch_ends_as_the_same_entries_written_by_separate_updates(
    tmp_path_factory: pytest.TempPathFactory, items: list[tuple[str, str]]
) -> None:
    batch, separate = project(tmp_path_factory.mktemp("batch")), project(tmp_path_factory.mktemp("separate"))
    newest_first = sorted(items, key=lambda i: i[0], reverse=True)  # a notebook's order; same-day order kept
    open_session(load_config(batch)).end("coder", [new_entry("mistakes", text, day) for day, text in newest_first])
    write_separately(separate, items)
    assert state(batch) == state(separate)


def test_update_from_and_import_end_as_separate_updates_with_counts_alerts_and_candidates(tmp_path: Path) -> None:
    items = [(DAYS[0], POOL[0]), (DAYS[1], POOL[1]), (DAYS[2], POOL[2]), (DAYS[1], POOL[4]), (DAYS[3], POOL[5])]
    snippet = tmp_path / "coder.md"
    snippet.write_text("## Mistakes\n" + "".join(f"- [{d}] {t}\n" for d, t in reversed(items)), encoding="utf-8")
    roots = {name: tmp_path / name for name in ("separate", "from", "import")}
    for root in roots.values():
        project(root)
    write_separately(roots["separate"], items)
    assert rb(roots["from"], "update", "coder", "--from", str(snippet))[0] == 0
    code, _, err = rb(roots["import"], "import", "markdown", str(snippet))
    assert code == 0, err
    counts, alerts, found = state(roots["separate"])
    assert (DAYS[2], POOL[2], 3) in counts and alerts and [f[1] for f in found] == [3]
    assert state(roots["from"]) == state(roots["import"]) == (counts, alerts, found)
