"""The index's own words, in Python: the terms SQLite FTS5's `porter unicode61
remove_diacritics 2` tokenizer (the index's, `rolebook.notebook.store.TOKENIZER`) makes of
a text, so that ranking, coverage and the vocabulary stem as the index does: one stemmer.

ASCII text is cut and stemmed here (Porter's 1980 algorithm, as FTS5 runs it: the steps
on the token's bytes, tokens under 3 or over 64 bytes left alone), and so is text whose
other characters FTS5 only cuts at (dashes, arrows, quotes: asked once a character); a
text with a letter beyond ASCII is given to FTS5 itself, whose Unicode folding is not
worth copying. Tests hold the two equal on every word and text of the real-lesson corpus
and on generated words and texts (tests/notebook/search/test_stemmer.py).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

#: unicode61's token characters in ASCII: letters and digits (an underscore separates)
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9]+")
_VOWELS = frozenset("aeiou")
_MAX = 64


def _consonant_runs(word: str, start: int, previous_consonant: bool) -> int:
    """Where the first vowel-then-consonant run of `word[start:]` ends (0: none): one
    unit of Porter's measure m. `y` after a consonant is a vowel."""
    consonant = previous_consonant
    i = start
    while i < len(word):
        consonant = not _is_vowel(word[i], consonant)
        i += 1
        if not consonant:
            break
    else:
        return 0
    while i < len(word):
        consonant = not _is_vowel(word[i], consonant)
        i += 1
        if consonant:
            return i
    return 0


def _is_vowel(c: str, y_is_vowel: bool) -> bool:
    return c in _VOWELS or (y_is_vowel and c == "y")


def _m_gt0(stem: str) -> bool:
    return bool(_consonant_runs(stem, 0, False))


def _m_gt1(stem: str) -> bool:
    n = _consonant_runs(stem, 0, False)
    return bool(n) and bool(_consonant_runs(stem, n, True))


def _m_eq1(stem: str) -> bool:
    n = _consonant_runs(stem, 0, False)
    return bool(n) and not _consonant_runs(stem, n, True)


def _cvc(stem: str) -> bool:
    """Porter's *o: the stem ends consonant-vowel-consonant, the last not w, x or y."""
    if not stem or stem[-1] in "wxy":
        return False
    kinds = []
    consonant = False
    for c in stem:
        consonant = not _is_vowel(c, consonant)
        kinds.append(consonant)
    return kinds[-3:] == [True, False, True]


def _has_vowel(stem: str) -> bool:
    return any(_is_vowel(c, i > 0) for i, c in enumerate(stem))


# (suffix, replacement, condition) per step, looked up by the word's next-to-last letter
# as FTS5 does: the first suffix of that letter's list that the word ends with decides,
# whether or not its condition then holds.
_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("logi", "log"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = "al ance ence er ic able ible ant ement ment ent ion ou ism ate iti ous ive ize".split()


def _by_letter(rules: tuple[tuple[str, str], ...]) -> dict[str, list[tuple[str, str]]]:
    table: dict[str, list[tuple[str, str]]] = {}
    for suffix, out in rules:
        table.setdefault(suffix[-2], []).append((suffix, out))
    return table


_STEP2_AT = _by_letter(_STEP2)
_STEP3_AT = _by_letter(_STEP3)
_STEP4_AT = _by_letter(tuple((s, "") for s in _STEP4))


def _replace(word: str, table: dict[str, list[tuple[str, str]]], condition: Any) -> str:
    for suffix, out in table.get(word[-2], ()):
        if len(word) > len(suffix) and word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + out if condition(stem) else word
    return word


def _step4(word: str) -> str:
    for suffix, _ in _STEP4_AT.get(word[-2], ()):
        if len(word) > len(suffix) and word.endswith(suffix):
            stem = word[: -len(suffix)]
            if suffix == "ion":
                return stem if stem[-1] in "st" and _m_gt1(stem) else word
            return stem if _m_gt1(stem) else word
    return word


def _porter(word: str) -> str | None:
    """Porter's stem of a lowercase ASCII token as FTS5 makes it; None where FTS5's own
    code reads outside the token (stems shorter than two letters: FTS5 decides)."""
    if len(word) < 3 or len(word) > _MAX:
        return word
    # step 1a
    if word[-1] == "s":
        if word[-2] == "e":
            word = (
                word[:-2]
                if (len(word) > 4 and word.endswith("sses")) or (len(word) > 3 and word[-3] == "i")
                else word[:-1]
            )
        elif word[-2] != "s":
            word = word[:-1]
    # step 1b
    if len(word) < 2:
        return None
    cut = False
    if word[-2] == "e":
        if len(word) > 3 and word.endswith("eed"):
            if _m_gt0(word[:-3]):
                word = word[:-1]
        elif len(word) > 2 and word.endswith("ed") and _has_vowel(word[:-2]):
            word, cut = word[:-2], True
    elif word[-2] == "n" and len(word) > 3 and word.endswith("ing") and _has_vowel(word[:-3]):
        word, cut = word[:-3], True
    if cut:
        if len(word) < 2:
            return None
        if len(word) > 2 and word[-2:] in ("at", "bl", "iz"):
            word += "e"
        elif word[-1] not in _VOWELS and word[-1] not in "lsz" and word[-1] == word[-2]:
            word = word[:-1]
        elif _m_eq1(word) and _cvc(word):
            word += "e"
    # step 1c
    if word[-1] == "y" and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    if len(word) < 2:
        return None
    word = _replace(word, _STEP2_AT, _m_gt0)
    word = _replace(word, _STEP3_AT, _m_gt0)
    word = _step4(word)
    # step 5a, 5b
    if word[-1] == "e" and (_m_gt1(word[:-1]) or (_m_eq1(word[:-1]) and not _cvc(word[:-1]))):
        word = word[:-1]
    if len(word) > 1 and word.endswith("ll") and _m_gt1(word[:-1]):
        word = word[:-1]
    return word


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """The index's term for one token (a run of letters and digits, any case)."""
    if token.isascii():
        out = _porter(token.lower())
        if out is not None:
            return out
    found = _fts5_terms(token)
    return found[0] if found else token.casefold()


@lru_cache(maxsize=8192)
def terms(text: str) -> tuple[str, ...]:
    """The index's terms for a text, in order (what FTS5 would index)."""
    if not text.isascii():
        if not all(_separator(c) for c in set(_NON_ASCII.findall(text))):
            return tuple(_fts5_terms(text))
        text = _NON_ASCII.sub(" ", text)  # dashes, arrows, quotes: separators to FTS5 too
    return tuple(stem(t) for t in _ASCII_TOKEN.findall(text))


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


@lru_cache(maxsize=4096)
def _separator(c: str) -> bool:
    """Whether FTS5's tokenizer cuts words at this character (asked once a character:
    its Unicode tables are its own)."""
    return _fts5_terms(f"a{c}b") == ["a", "b"]


_fts5: Any = None


def _fts5_terms(text: str) -> list[str]:
    """FTS5's own terms for a text (an in-memory table with the index's tokenizer)."""
    global _fts5
    import sqlite3

    from ..store import TOKENIZER

    if _fts5 is None:
        db = sqlite3.connect(":memory:", check_same_thread=False)
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        _fts5 = db
    _fts5.execute("DELETE FROM t")
    _fts5.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (text,))
    return [term for (term,) in _fts5.execute("SELECT term FROM v ORDER BY offset")]
