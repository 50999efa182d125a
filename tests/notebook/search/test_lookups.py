"""The index's lookups: how many documents hold a word, exact whatever the index went
through, and a common word's count remembered so that asking again is cheap."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rolebook.notebook.search import lookups
from rolebook.notebook.store import Index
from rolebook.notebook.store.layout import Layout

#: words and their index terms ("deploy" -> "deploi", "caches" -> "cach")
WORDS = ("npm", "deploy", "lock", "yarn", "flaki", "caches", "running")
TERMS = ("npm", "deploi", "lock", "yarn", "flaki", "cach", "run", "absent")


def add(index: Index, text: str) -> int:
    n = lookups.top_rowid(index) + 1
    index.db.execute(
        "INSERT INTO docs(id, role, op, section, date, text, count, tags, ctx_hash, journalled, search, data) "
        "VALUES (?, 'coder', 'added', 'learnings', '2026-01-01', ?, 1, '', NULL, 1, '', NULL)",
        (f"{n:012x}", text),
    )
    return n


def truth(index: Index) -> dict[str, int]:
    """What fts5vocab says, walking every posting list: the answer to hold to."""
    out = {}
    for term in TERMS:
        row = index.db.execute("SELECT doc FROM docs_vocab WHERE term = ?", (term,)).fetchone()
        if row is not None and row[0]:
            out[term] = int(row[0])
    return out


def remembered(index: Index) -> dict[str, tuple[int, int]]:
    return {t: (n, upto) for t, n, upto in index.db.execute("SELECT term, doc, upto FROM vocab")}


@pytest.fixture
def index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(lookups, "REMEMBERED_FROM", 2)
    with Index(Layout.default(tmp_path)) as idx:
        yield idx


def test_a_common_word_is_remembered_and_then_counted_from_the_newer_documents(index: Index) -> None:
    for i in range(5):
        add(index, f"npm deploy number {i}")
    add(index, "yarn lock")
    assert lookups.document_counts(index, ["npm", "yarn", "absent"]) == {"npm": 5, "yarn": 1}
    assert remembered(index) == {"npm": (5, 6)}  # yarn is rare: asked each time
    statements: list[str] = []
    index.db.set_trace_callback(statements.append)
    add(index, "npm again")
    assert lookups.document_counts(index, ["npm", "deploi"]) == {"npm": 6, "deploi": 5}
    index.db.set_trace_callback(None)
    # npm: the remembered 5 plus the documents past rowid 6, not its whole posting list
    assert not [s for s in statements if "docs_vocab" in s and "'npm'" in s]
    assert [s for s in statements if "rowid > 6" in s and '"npm"' in s]
    assert remembered(index) == {"npm": (6, 7), "deploi": (5, 7)}


def test_a_document_gone_or_reworded_forgets_every_count(index: Index) -> None:
    for i in range(4):
        add(index, f"npm deploy {i}")
    lookups.document_counts(index, ["npm", "deploi"])
    assert set(remembered(index)) == {"npm", "deploi"}
    index.db.execute("UPDATE docs SET count = 2 WHERE rowid = 1")  # the same words: kept
    assert set(remembered(index)) == {"npm", "deploi"}
    index.db.execute("UPDATE docs SET text = 'yarn lock' WHERE rowid = 1")
    assert remembered(index) == {}
    assert lookups.document_counts(index, ["npm", "yarn"]) == {"npm": 3, "yarn": 1}
    index.db.execute("DELETE FROM docs WHERE rowid = 2")
    assert remembered(index) == {}
    assert lookups.document_counts(index, ["npm"]) == {"npm": 2}


def test_a_count_another_writer_made_stale_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lookups, "REMEMBERED_FROM", 2)
    layout = Layout.default(tmp_path)
    with Index(layout) as index, Index(layout) as other:
        for i in range(3):
            add(index, f"npm {i}")

        def meddle(statement: str) -> None:  # another process adds a document between the count and the write
            if statement.startswith("INSERT OR REPLACE INTO vocab"):
                index.db.set_trace_callback(None)
                add(other, "npm from elsewhere")

        index.db.set_trace_callback(meddle)
        assert lookups.document_counts(index, ["npm"]) == {"npm": 3}  # its snapshot's answer
        assert remembered(index) == {}  # refused at once: no stale count kept
        assert not index.db.in_transaction
        assert lookups.document_counts(index, ["npm"]) == {"npm": 4}


def test_a_read_only_index_counts_without_remembering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lookups, "REMEMBERED_FROM", 2)
    layout = Layout.default(tmp_path)
    with Index(layout) as index:
        for i in range(3):
            add(index, f"npm {i}")
    with Index(layout) as index:
        index.db.execute("PRAGMA query_only = ON")
        assert lookups.document_counts(index, ["npm"]) == {"npm": 3}
        assert remembered(index) == {}


OPS = st.one_of(
    st.tuples(st.just("add"), st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)),
    st.tuples(st.just("reword"), st.integers(0, 30), st.lists(st.sampled_from(WORDS), max_size=3)),
    st.tuples(st.just("same"), st.integers(0, 30)),
    st.tuples(st.just("delete"), st.integers(0, 30)),
    st.tuples(st.just("ask"), st.lists(st.sampled_from(TERMS), min_size=1, max_size=8)),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(OPS, max_size=25), st.integers(1, 3))
def test_counts_are_always_what_the_posting_lists_say(ops: list[tuple[object, ...]], threshold: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, Index(Layout.default(Path(tmp))) as index:
        original = lookups.REMEMBERED_FROM
        lookups.REMEMBERED_FROM = threshold
        try:
            for op in ops:
                rowids = [r for (r,) in index.db.execute("SELECT rowid FROM docs ORDER BY rowid")]
                kind = op[0]
                if kind == "add":
                    add(index, " ".join(op[1]))  # type: ignore[arg-type]
                elif kind == "ask":
                    asked = list(op[1])  # type: ignore[call-overload]
                    want = {t: n for t, n in truth(index).items() if t in asked}
                    assert lookups.document_counts(index, asked) == want
                elif rowids:
                    rowid = rowids[int(op[1]) % len(rowids)]  # type: ignore[call-overload]
                    if kind == "reword":
                        index.db.execute("UPDATE docs SET text = ? WHERE rowid = ?", (" ".join(op[2]), rowid))  # type: ignore[arg-type]
                    elif kind == "same":
                        index.db.execute("UPDATE docs SET count = count + 1 WHERE rowid = ?", (rowid,))
                    else:
                        index.db.execute("DELETE FROM docs WHERE rowid = ?", (rowid,))
            assert lookups.document_counts(index, list(TERMS)) == truth(index)
        finally:
            lookups.REMEMBERED_FROM = original
