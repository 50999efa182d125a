"""One stemmer: the terms Python makes of a text are the terms the index's FTS5 tokenizer makes."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from rolebook.notebook.search.stemmer import stem, terms
from rolebook.notebook.store import TOKENIZER


def fts5_terms(texts: list[str]) -> list[list[str]]:
    """What FTS5, with the index's tokenizer, makes of each text."""
    out: list[list[str]] = [[] for _ in texts]
    with contextlib.closing(sqlite3.connect(":memory:")) as db:  # closed, not left to the GC
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", list(enumerate(texts)))
        for term, doc in db.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
            out[doc].append(term)
    return out


def test_every_word_of_the_real_lessons_stems_as_the_index_stems_it(corpus: Callable[..., Path]) -> None:
    lines = (corpus("retrieval") / "entries.jsonl").read_text(encoding="utf-8").splitlines()
    texts = [json.loads(line)["text"] for line in lines]
    words = sorted({w for t in texts for w in re.findall(r"[A-Za-z0-9]+", t)})
    assert len(words) > 2000
    assert [[stem(w)] for w in words] == fts5_terms(words)
    assert [list(terms(t)) for t in texts] == fts5_terms(texts)


def test_porter_rules_and_their_edges_match_fts5() -> None:
    words = "caresses ponies ties caress cats feed agreed plastered motoring sing conflated troubled sized hopping "
    words += "tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci "
    words += "digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator "
    words += "feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative "
    words += "formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic "
    words += "adjustable defensible irritant replacement adjustment dependent adoption homologou communism "
    words += "activate angulariti homologous effective bowdlerize probate rate cease controll roll sses ies "
    words += (
        "aed eed ied oed ued ing bed xes zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzing a an"
    )
    split = words.split()
    assert [[stem(w)] for w in split] == fts5_terms(split)


@given(st.text(alphabet="aeiouybcdlmnstgrzxwkASZ", min_size=1, max_size=14))
def test_any_ascii_word_stems_as_fts5_stems_it(word: str) -> None:
    assert [[stem(word)]] == fts5_terms([word])


@given(st.text(max_size=60))
def test_any_text_is_cut_into_the_terms_fts5_makes(text: str) -> None:
    """Unicode included: dashes and quotes cut words as in unicode61; letters beyond ASCII
    (folded, diacritics removed) are left to FTS5 itself."""
    assert [list(terms(text))] == fts5_terms([text])
