"""The words keyword search adds: synonyms of the query's words, parts of identifiers."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from rolebook.notebook.limits import Limits
from rolebook.notebook.search.query import Query
from rolebook.notebook.search.retrieval import search
from rolebook.notebook.search.vocabulary import SYNONYMS, query_names, related_words, synonyms
from rolebook.notebook.store.changes import update
from rolebook.notebook.store.index import identifier_words
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout

TODAY = dt.date(2026, 4, 1)


def root(tmp_path: Path, *texts: str) -> Layout:
    layout = Layout.default(tmp_path)
    update(layout, "coder", [new_entry("learnings", t, "2026-03-01") for t in texts], Limits(), Writer())
    return layout


def found(tmp_path: Path, query: str, *texts: str) -> list[str]:
    """The texts a keyword search finds in a root holding these lessons, best first."""
    return [h.text for h in search(root(tmp_path, *texts), Query(query, mode="keyword"), today=TODAY).hits]


def test_the_synonyms_of_a_word_are_the_other_words_of_its_groups() -> None:
    assert {"console", "shell", "tty", "cli"} <= synonyms("terminal")
    assert "terminal" not in synonyms("terminal") and synonyms("zebra") == frozenset()
    assert related_words(["terminal", "console"]) == sorted(synonyms("terminal") - {"console"})
    assert all(g == g.lower() and len(g.split()) >= 2 for g in SYNONYMS)


def test_identifiers_are_split_into_their_words() -> None:
    assert identifier_words("missing `supportsInterface()` in SpendingLimitGuard") == (
        "supports Interface Spending Limit Guard"
    )
    assert identifier_words("plain words, snake_case and a.b stay as they are") == ""


def test_a_lesson_is_found_by_the_other_words_for_what_it_names(tmp_path: Path) -> None:
    windows = "Windows consoles were reported 80 characters wide instead of 79"
    other = "Pin the linter version in CI so upgrades do not break the build"
    assert found(tmp_path, "terminal width wrong on win32", windows, other)[:1] == [windows]


def test_a_camelcase_identifier_is_found_by_its_words(tmp_path: Path) -> None:
    guard = "The guard needs supportsInterface or setGuard never stores it"
    assert found(tmp_path, "supports interface", guard, "Regenerate the bytecode after any contract change") == [guard]


def test_the_words_asked_rank_above_their_synonyms(tmp_path: Path) -> None:
    console, terminal = "The console froze after resize", "The terminal froze after resize"
    assert found(tmp_path, "terminal froze", console, terminal) == [terminal, console]


def test_the_names_a_query_holds_are_its_identifiers() -> None:
    assert query_names("fix the flaky test_login_redirect") == ["test_login_redirect"]
    assert query_names("the --json-cols flag and supportsInterface()") == ["--json-cols", "supportsinterface"]
    assert query_names("Why does the build fail") == []


def test_a_capitalised_common_word_or_product_is_not_a_name() -> None:
    """ "Windows", "Actions" start with a capital; GitHub, macOS, Node.js are spelled like
    identifiers: none of them is an identifier the query names (issue 27: taken for names,
    they pushed the answer out)."""
    assert query_names("GitHub Actions job fails on Windows and macOS, not on Linux") == []
    assert query_names("What did Moss chew, and where is Vienna?") == []
    assert query_names("Node.js crashes under PowerShell") == []


def test_an_identifier_whose_parts_are_common_is_still_asked_for(tmp_path: Path) -> None:
    """`test_login_redirect` is a phrase: counted by its own documents (one), not by its
    commonest part (`login`, in all three), or it is dropped as too common to rank by."""
    flaky = "test_login_redirect is flaky on CI because of a sleep"
    race = "Flaky tests: fix the login redirect race by waiting for the page"
    hits = found(tmp_path, "fix the flaky test_login_redirect", flaky, race, "The login page redirects twice")
    assert hits[:1] == [flaky]


def test_a_query_cut_to_its_rarest_words_looks_up_no_synonyms(tmp_path: Path) -> None:
    """`recall` (a failed command's output, cut to its rarest words) wants precision: a
    lesson that only a synonym would match is not shown."""
    layout = root(tmp_path, "Windows consoles were reported 80 characters wide", "Pin the linter in CI")
    asked = Query("terminal width wrong on win32", mode="keyword")
    assert search(layout, asked, today=TODAY).hits
    assert not search(layout, Query(asked.text, mode="keyword", rarest=4), today=TODAY).hits
