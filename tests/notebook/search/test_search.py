"""Search: any text is a query, filters, statuses, budgets, freshness, ranking boosts."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rolebook.notebook.errors import InputError
from rolebook.notebook.limits import Limits
from rolebook.notebook.search.query import Query
from rolebook.notebook.search.render import SearchResult, render_hits
from rolebook.notebook.search.retrieval import search
from rolebook.notebook.store.changes import obsolete, update
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout
from rolebook.notebook.store.longterm import derive_ctx_hash, log_event, store

TODAY = dt.date(2026, 4, 1)


def texts(result: SearchResult) -> list[str]:
    return [h.text for h in result.hits]


@pytest.fixture
def root(tmp_path: Path) -> Layout:
    layout = Layout.default(tmp_path)
    update(
        layout,
        "coder",
        [
            new_entry("mistakes", "npm install failed with EACCES; chown the checkout first", "2026-01-10"),
            new_entry("learnings", "npm ci needs the lockfile committed", "2026-02-10"),
            new_entry("session_log", "WQ-7: fixed the npm cache in CI", "2026-03-10"),
        ],
        Limits(),
        Writer(),
    )
    update(
        layout,
        "designer",
        [
            new_entry("mistakes", "floating speech bubble broke the die-cut", "2026-01-15"),
        ],
        Limits(),
        Writer(),
    )
    return layout


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.text(max_size=300),
        st.lists(st.sampled_from(['"', "NEAR(", "*", "-", ":", "(", ")", "AND", "OR", "NOT", "^", "+", "EACCES"])).map(
            " ".join
        ),
    )
)
def test_any_text_is_a_valid_query_of_the_real_search(root: Layout, text: str) -> None:
    if not text.strip():
        with pytest.raises(InputError, match="empty"):
            search(root, Query(text))
        return
    found = search(root, Query(text, statuses=("all",)))
    assert found.total >= len(found.hits)
    if "EACCES" in text.split():  # a word among the syntax is still found
        assert "npm install failed with EACCES; chown the checkout first" in texts(found)


def test_fts_syntax_in_a_query_never_raises(root: Layout) -> None:
    for text in ['"unbalanced', "NEAR(npm ci)", "npm*", "-npm", "coder:npm", "((npm", "npm AND", "NOT", "***"]:
        search(root, Query(text))


def test_an_empty_query_is_refused(root: Layout) -> None:
    with pytest.raises(InputError, match="empty"):
        search(root, Query("   "))


def test_an_oversized_query_is_cut_and_says_so_never_refused(root: Layout) -> None:
    pasted = "npm EACCES " + "and then the whole issue text goes on " * 60
    found = search(root, Query(pasted))
    assert texts(found)[0] == "npm install failed with EACCES; chown the checkout first"
    cut = int(found.warnings[-1].split("first ")[1].split(" of")[0])
    assert found.warnings[-1] == f"the query was cut to its first {cut} of {len(pasted)} characters"
    assert 990 < cut <= 1000 and pasted[cut] == " "  # not in the middle of a word
    tail = search(root, Query("x" * 1000 + " EACCES"))  # what is past the cut is not searched
    assert tail.hits == () and tail.warnings[-1] == "the query was cut to its first 1000 of 1007 characters"


def test_search_finds_active_and_archived_entries_across_roles(root: Layout) -> None:
    assert texts(search(root, Query("speech bubble die-cut"))) == ["floating speech bubble broke the die-cut"]
    update(root, "coder", [new_entry("mistakes", f"filler {i}", "2026-03-20") for i in range(20)], Limits(), Writer())
    hit = search(root, Query("EACCES")).hits[0]
    assert (hit.status, hit.role, hit.section) == ("archived", "coder", "mistakes")


def test_filters_narrow_the_hits(root: Layout) -> None:
    assert texts(search(root, Query("npm", sections=("learnings",)))) == ["npm ci needs the lockfile committed"]
    assert texts(search(root, Query("npm broke", roles=("designer",)))) == ["floating speech bubble broke the die-cut"]
    assert len(search(root, Query("npm", since="2026-02-01")).hits) == 2
    assert len(search(root, Query("npm", until="2026-02-01")).hits) == 1
    assert search(root, Query("npm", statuses=("archived",))).hits == ()


def test_since_and_until_take_the_boundary_day_itself(root: Layout) -> None:
    """--since D is "on or after D", --until D "on or before D": an entry dated D is in both."""
    day = "2026-02-10"  # the lockfile learning's date
    lockfile = ["npm ci needs the lockfile committed"]
    assert texts(search(root, Query("lockfile", until=day))) == lockfile
    assert texts(search(root, Query("lockfile", since=day))) == lockfile
    assert texts(search(root, Query("lockfile", since=day, until=day))) == lockfile
    assert search(root, Query("lockfile", until="2026-02-09")).hits == ()
    assert search(root, Query("lockfile", since="2026-02-11")).hits == ()


def test_obsolete_entries_are_hidden_unless_asked_for(root: Layout) -> None:
    obsolete(root, "coder", "lockfile", Limits(), Writer())
    assert "npm ci needs the lockfile committed" not in texts(search(root, Query("lockfile npm")))
    assert texts(search(root, Query("lockfile", statuses=("obsolete",)))) == ["npm ci needs the lockfile committed"]
    assert texts(search(root, Query("lockfile", statuses=("all",)))) == ["npm ci needs the lockfile committed"]


def test_a_hand_edited_notebook_is_searched_as_it_is_now(root: Layout) -> None:
    path = root.notebook_path("coder")
    text = path.read_text().replace("- [2026-02-10] npm ci needs the lockfile committed\n", "")
    path.write_text(text.replace("## Learnings\n", "## Learnings\n- [2026-03-30] yarn berry needs corepack\n"))
    assert texts(search(root, Query("corepack"))) == ["yarn berry needs corepack"]
    hit = search(root, Query("lockfile")).hits[0]
    assert hit.status == "archived"  # journalled, then gone from the notebook by hand: kept, as archived


def test_deleting_the_derived_folder_loses_nothing(root: Layout) -> None:
    before = [h.to_dict() for h in search(root, Query("npm", limit=10), today=TODAY).hits]
    shutil.rmtree(root.derived)
    assert [h.to_dict() for h in search(root, Query("npm", limit=10), today=TODAY).hits] == before


def test_a_corrupt_index_is_rebuilt_from_the_files(root: Layout) -> None:
    (root.derived / "index.sqlite").write_bytes(b"garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        (root.derived / f"index.sqlite{suffix}").unlink(missing_ok=True)
    assert texts(search(root, Query("speech bubble"))) == ["floating speech bubble broke the die-cut"]


def test_a_malformed_archive_line_is_skipped_with_a_warning(root: Layout) -> None:
    with open(root.archive_path("coder"), "a", encoding="utf-8") as f:
        f.write("{not json\n")
    result = search(root, Query("npm"))
    assert len(result.hits) == 3
    assert result.warnings == (
        f"{root.archive_path('coder')}:4: not JSON (JSONDecodeError); skipped, left in the archive as it is",
    )


def test_newer_entries_rank_first_when_words_match_equally(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    update(
        layout,
        "qa",
        [
            new_entry("learnings", "cache warm up step", "2024-01-01"),
            new_entry("mistakes", "cache warm up step", "2026-03-30"),
        ],
        Limits(),
        Writer(),
    )
    assert [h.date for h in search(layout, Query("cache warm"), today=TODAY).hits] == ["2026-03-30", "2024-01-01"]


def test_a_higher_success_rate_ranks_a_logged_event_first(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    log_event(
        layout,
        "coder",
        event_type="success",
        lesson="pin the runner image",
        context="ci runner image",
        outcome="1/9",
        writer=Writer(),
        date="2026-03-01",
    )
    log_event(
        layout,
        "coder",
        event_type="success",
        lesson="pin the runner image tag",
        context="ci image pinning",
        outcome="9/9",
        writer=Writer(),
        date="2026-03-01",
    )
    hits = search(layout, Query("pin runner image"), today=TODAY).hits
    assert [(h.successes, h.trials) for h in hits] == [(9, 9), (1, 9)]


def test_outcomes_of_one_context_hash_add_up(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    for outcome in ("1/1", "0/1", "1/1"):
        log_event(
            layout,
            "coder",
            event_type="pattern",
            lesson="retry the flaky upload",
            context="s3 upload timeout",
            outcome=outcome,
            writer=Writer(),
        )
    (hit,) = search(layout, Query("flaky upload")).hits
    assert (hit.successes, hit.trials) == (2, 3)
    assert hit.line().endswith(f"(2/3 worked) #{hit.id}")


def test_ctx_hash_is_tool_action_pattern() -> None:
    assert derive_ctx_hash("npm install failed with EACCES") == "npm-install-eacces"
    assert derive_ctx_hash("sudo -E npm run build", "Error: Cannot find module 'react'") == "npm-run-cannot-find-module"
    assert derive_ctx_hash("") == "unknown"


def test_store_refuses_a_duplicate_within_role_and_category(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    first = store(layout, "designer", "rejected_designs", "Floating speech bubble", ["sticker"], Writer())
    again = store(layout, "designer", "rejected_designs", "floating   SPEECH bubble", [], Writer())
    other = store(layout, "designer", "published", "floating speech bubble", [], Writer())
    assert first.record is not None and other.record is not None
    assert again.record is None and again.existing is not None and again.existing["id"] == first.record.id
    assert [h.section for h in search(layout, Query("speech bubble", tags=("sticker",))).hits] == ["rejected_designs"]


def test_render_hits_keeps_to_the_budget_and_says_what_was_cut(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    update(
        layout,
        "coder",
        [new_entry("learnings", f"deploy note {i} " + "x" * 150, "2026-01-01") for i in range(12)],
        Limits(),
        Writer(),
    )
    result = search(layout, Query("deploy", limit=10))
    lines = render_hits(result, budget=100)
    assert sum(len(line) + 1 for line in lines[:-1]) <= 400
    assert lines[-1] == f"{len(lines) - 1} of 12 hits shown; refine the query or raise --limit/--budget"
    assert len(render_hits(result, budget=5000)) == 11  # 10 hits, then "10 of 12"


def test_a_word_in_most_documents_does_not_make_every_one_a_hit(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    entries = [new_entry("learnings", f"during deploy note number {i}", "2026-01-01") for i in range(9)]
    entries.append(new_entry("learnings", "during deploy the certificate expired", "2026-01-01"))
    update(layout, "devops", entries, Limits(learnings=None, lines=None), Writer())
    result = search(layout, Query("during certificate"))
    assert (result.total, texts(result)) == (1, ["during deploy the certificate expired"])
    assert search(layout, Query("during deploy")).total == 10  # only common words: the rarest still matches


def test_past_a_thousand_hits_the_count_says_so(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    entries = [new_entry("learnings", f"flaky {i}", "2026-01-01") for i in range(1100)]
    entries += [new_entry("mistakes", f"steady {i}", "2026-01-01") for i in range(1100)]
    update(layout, "qa", entries, Limits(), Writer())
    result = search(layout, Query("flaky"))
    assert result.total == 1000
    assert render_hits(result, 500)[-1] == "5 of 1000+ hits shown; refine the query or raise --limit/--budget"


def test_counts_under_filters_are_the_matches_that_pass_them(tmp_path: Path) -> None:
    """The count runs over the matches (not the role's documents): filters still apply
    to every match, whichever role or section is small."""
    layout = Layout.default(tmp_path)
    update(
        layout, "qa", [new_entry("learnings", f"flaky test {i}", "2026-01-01") for i in range(40)], Limits(), Writer()
    )
    update(layout, "qa", [new_entry("mistakes", f"flaky mock {i}", "2026-01-01") for i in range(3)], Limits(), Writer())
    update(
        layout, "ops", [new_entry("learnings", f"flaky deploy {i}", "2026-01-01") for i in range(2)], Limits(), Writer()
    )
    assert search(layout, Query("flaky", limit=50)).total == 45
    assert search(layout, Query("flaky", roles=("ops",))).total == 2
    assert search(layout, Query("flaky", roles=("qa",), sections=("mistakes",))).total == 3
    assert search(layout, Query("flaky", roles=("nobody",))).total == 0
    active = search(layout, Query("flaky", roles=("qa",), statuses=("active",), limit=50))
    assert 0 < active.total < 43 and all(h.status == "active" for h in active.hits)


def test_when_every_word_is_in_most_documents_the_newest_matches_come_first(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    for day in range(1, 9):
        update(
            layout,
            "devops",
            [new_entry("learnings", f"deploy note {day}", f"2026-01-0{day}")],
            Limits(learnings=None, lines=None),
            Writer(),
        )
    hits = search(layout, Query("deploy note", limit=3), today=TODAY).hits
    assert [h.text for h in hits] == ["deploy note 8", "deploy note 7", "deploy note 6"]
