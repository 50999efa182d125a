"""The words keyword search adds to what it is given: the parts of identifiers, and the
other words agents and changelogs use for the same thing.

BM25 finds only the words it is asked for. A lesson written "the console was 80 wide on
Windows" is missed by "terminal width wrong on win32"; one about `supportsInterface` is
missed by "supports interface". Each search also looks up the synonyms of its words
(weighted below the words themselves, `SYNONYM_WEIGHT` in ranking.py), and each
document is indexed with its camelCase identifiers split. Measured on the real-lesson
sets (`python tests/bench/bench_retrieval_heldout.py`); the groups are general developer
vocabulary, not fitted to those queries. The names a query holds are its identifiers:
never a word for its capital, nor a product spelled like an identifier.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

#: The word tables, as data beside this module (vocabulary.json): `synonyms`, groups of
#: words that name one thing in developer notes (a word may sit in more than one group;
#: a search adds every other word of each group its words are in), and `not_names`,
#: products and common words spelled like identifiers.
_DATA = json.loads((Path(__file__).with_name("vocabulary.json")).read_text(encoding="utf-8"))
SYNONYMS: tuple[str, ...] = tuple(_DATA["synonyms"])
NOT_NAMES = frozenset(_DATA["not_names"])


def _table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in SYNONYMS:
        words = group.split()
        for word in words:
            table.setdefault(word, set()).update(w for w in words if w != word)
    return {w: frozenset(s) for w, s in table.items()}


_TABLE = _table()


def synonyms(word: str) -> frozenset[str]:
    """The other words for what this (casefolded) word names."""
    return _TABLE.get(word, frozenset())


def related_words(words: list[str]) -> list[str]:
    """The synonyms of these (casefolded) words that are not among them, in a stable order."""
    asked = set(words)
    return sorted({s for w in words for s in _TABLE.get(w, ())} - asked)


_SPAN = re.compile(r"`([^`]+)`")
# identifiers outside code spans: --flags, dotted names (table.extract, package-lock.json),
# paths (/auth/me, ~/.zshrc), camelCase, PascalCase with an inner capital, snake_case
_IDENT = re.compile(
    r"(?<![\w@/~.])(?:--?[a-z][\w-]*\w|[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+(?:\(\))?"
    r"|(?:~|\.)?/[\w.-]+(?:/[\w.-]+)*|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|[A-Za-z]\w*_\w+)"
)
_HASH = re.compile(r"^[0-9a-f]{7,40}$")


@lru_cache(maxsize=4096)
def names(text: str) -> frozenset[str]:
    """The things a text names: code spans and identifier-shaped words (not commit hashes)."""
    out = set()
    for found in (*_SPAN.findall(text), *_IDENT.findall(_SPAN.sub(" ", text))):
        name = re.sub(r"[()@\[\]'\"]", "", found).strip().strip(".").lower()
        if len(name) >= 2 and not _HASH.match(name):
            out.add(name)
    return frozenset(out)


def query_names(query: str) -> list[str]:
    """The identifiers a query names (`names`), in order, each once: not the products and
    common words spelled like one (GitHub, macOS: `NOT_NAMES`), and never a word only for
    its capital ("Windows", "Actions": a common word that starts a title is not a name)."""
    return [n for n in sorted(names(query)) if n not in NOT_NAMES]
