"""Keyword ranking: BM25 as FTS5 computes it, over a bounded set of candidates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from rolebook.notebook.limits import Limits
from rolebook.notebook.search import ranking
from rolebook.notebook.search.query import Query, fts_expression, query_words
from rolebook.notebook.search.ranking import Sample, Term, bm25
from rolebook.notebook.search.retrieval import search
from rolebook.notebook.search.stemmer import terms
from rolebook.notebook.store import Index
from rolebook.notebook.store.changes import update
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout

TODAY = dt.date(2026, 4, 1)
LESSONS = [
    "npm install failed with EACCES; chown the checkout first",
    "npm ci needs the lockfile committed, or the build drifts",
    "The supportsInterface check in SpendingLimitGuard returned false",
    "Flaky tests: fix the login redirect race by waiting for the page",
    "test_login_redirect is flaky on CI because of a sleep",
    "Docker image rebuilt on every push: cache the pip layer",
    "pip install in the image ran as root; use a virtualenv",
    "The checkout of large files needs git lfs pull after clone",
    "Windows consoles were reported 80 characters wide instead of 79",
    "Pin the linter version in CI so upgrades do not break the build",
]


def root(tmp_path: Path, texts: list[str], date: str = "2026-03-01") -> Layout:
    layout = Layout.default(tmp_path)
    update(layout, "coder", [new_entry("learnings", t, date) for t in texts], Limits(learnings=3), Writer())
    return layout


@pytest.mark.parametrize(
    "query", ["npm install the build", "flaky login redirect test", "supports interface guard", "image pip root"]
)
def test_the_score_of_a_document_is_the_bm25_fts5_gives_it(tmp_path: Path, query: str) -> None:
    """Term counts, lengths and the mean length from the index's own terms and records:
    where nothing is cut, ranking is exactly FTS5's bm25 (both columns, their weights)."""
    layout = root(tmp_path, LESSONS)
    with Index(layout) as index:
        sample = Sample(index)
        words = query_words(query, stop_words=True)
        sample.read([terms(w) for w in words])
        matched = [Term(w, terms(w), sample.documents(terms(w)), i) for i, w in enumerate(words)]
        rows = index.db.execute(
            "SELECT rowid, -bm25(docs_fts, 1.0, 0.4) FROM docs_fts WHERE docs_fts MATCH ?", (fts_expression(words),)
        ).fetchall()
        texts = {r: (t, s) for r, t, s in index.db.execute("SELECT rowid, text, search FROM docs")}
        ours = bm25(texts, matched, [], sample.total, sample.avg)
    assert rows and ours.keys() == {r for r, _ in rows}
    for rowid, theirs in rows:
        assert ours[rowid] == pytest.approx(theirs, rel=1e-9)


def test_a_word_counts_once_by_itself_or_by_its_best_other_word(tmp_path: Path) -> None:
    """`terminal` and its synonym `console` in one lesson: the lesson is credited with the
    word, not with both; the lesson saying only `console` comes after the one saying `terminal`."""
    both = "The terminal froze; the console showed nothing"
    word, other = "The terminal froze after resize", "The console froze after resize"
    layout = root(tmp_path, [both, word, other, *LESSONS])
    hits = search(layout, Query("terminal froze", mode="keyword"), today=TODAY).hits
    assert [h.text for h in hits].index(word) < [h.text for h in hits].index(other)
    with Index(layout) as index:
        found = ranking.keyword_search(index, Query("terminal froze"))
        assert found is not None
        synonym = [t for t in found.matched if t.word == "console"]
        assert synonym and synonym[0].weight == ranking.SYNONYM_WEIGHT


def test_a_bounded_search_still_finds_the_old_document_holding_every_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past PER_WORD documents a word, the newest are read from each posting list, and the
    newest holding all the long-listed words: an old lesson with every word still wins."""
    monkeypatch.setattr(ranking, "PER_WORD", 4)
    monkeypatch.setattr(ranking, "SCORED", 3)
    layout = Layout.default(tmp_path)
    wanted = "docker cache miss: pin the base layer digest"
    update(layout, "coder", [new_entry("learnings", wanted, "2025-01-01")], Limits(learnings=3), Writer())
    noise = [f"{w} note {i}" for i in range(12) for w in ("docker", "cache", "other", "more", "else")]
    update(layout, "coder", [new_entry("learnings", t, "2026-03-01") for t in noise], Limits(learnings=3), Writer())
    with Index(layout) as index:
        found = ranking.keyword_search(index, Query("docker cache"))
        assert found is not None and found.ranked().cut  # the posting lists were read in part
    hits = search(layout, Query("docker cache", mode="keyword", limit=1), today=TODAY).hits
    assert [h.text for h in hits] == [wanted]


def test_filters_that_leave_few_candidates_widen_the_bounded_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranking, "PER_WORD", 3)
    monkeypatch.setattr(ranking, "SCORED", 2)
    layout = Layout.default(tmp_path)
    update(layout, "qa", [new_entry("learnings", "flaky test: the timer raced", "2025-01-01")], Limits(), Writer())
    many = [new_entry("learnings", f"flaky test number {i} retried", "2026-03-01") for i in range(30)]
    update(layout, "coder", many, Limits(learnings=3), Writer())
    hits = search(layout, Query("flaky test", roles=("qa",), mode="keyword"), today=TODAY).hits
    assert [h.text for h in hits] == ["flaky test: the timer raced"]


@pytest.mark.parametrize(
    "query",
    [
        "shell helpers break on Windows checkouts because git converts them to CRLF",
        "GitHub Actions: shell helpers break after checkout because git converts them to CRLF",
        "on macOS the shell helpers are fine, after checkout elsewhere git converts them to CRLF",
    ],
)
def test_a_capitalised_common_word_does_not_act_as_a_name(tmp_path: Path, query: str) -> None:
    """Issue 27: "Windows", "GitHub Actions", "macOS" taken for names put the few lessons
    holding them first, above the lesson that holds the query's words. They rank as the
    words they are: the same order as the query in lower case."""
    answer = "git converts the shell helpers to CRLF on checkout; mark them eol=lf in .gitattributes"
    named = [
        "Windows runners are slow to start",
        "GitHub Actions caches expire after a week",
        "macOS notarization needs an app-specific password",
    ]
    layout = root(tmp_path, [answer, *named, *LESSONS])
    hits = [h.text for h in search(layout, Query(query, mode="keyword"), today=TODAY).hits]
    lower = [h.text for h in search(layout, Query(query.lower(), mode="keyword"), today=TODAY).hits]
    assert hits[0] == answer
    assert hits == lower


def test_stop_words_rank_the_matches_but_never_make_one(tmp_path: Path) -> None:
    """BM25 weighs "when" by how rare it is, so it ranks; but a lesson holding only the
    query's stop words is no match ("no match" stays exit 1)."""
    older = "lockfile drifts when the registry is down"
    newer = "lockfile drifts after the registry is down"
    layout = root(tmp_path, [older], date="2026-01-01")
    update(layout, "coder", [new_entry("learnings", t, "2026-03-01") for t in [newer, *LESSONS]], Limits(), Writer())
    hits = search(layout, Query("what to do when the lockfile drifts", mode="keyword"), today=TODAY).hits
    assert [h.text for h in hits[:2]] == [older, newer]
    assert search(layout, Query("quarterly revenue slides for the board", mode="keyword"), today=TODAY).hits == ()
