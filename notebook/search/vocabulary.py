"""The words keyword search adds to what it is given: the parts of identifiers, and the
other words agents and changelogs use for the same thing.

BM25 finds only the words it is asked for. A lesson written "the console was 80 wide on
Windows" is missed by "terminal width wrong on win32"; one about `supportsInterface` is
missed by "supports interface". Each search also looks up the synonyms of its words
(weighted below the words themselves, `SYNONYM_WEIGHT` in retrieval.py), and each
document is indexed with its camelCase identifiers split. Measured on the real-lesson set
(tests/fixtures/retrieval_corpus, `python tests/bench/bench_retrieval_corpus.py`); the
groups are general developer vocabulary, not fitted to those queries.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: Groups of words that name one thing in developer notes. A word may sit in more than
#: one group; a search adds every other word of each group its words are in.
SYNONYMS = (
    "remove delete drop erase purge wipe",
    "crash panic exception fail failure error blow abort",
    "restart reboot relaunch respawn",
    "start startup launch boot init initialize",
    "folder directory dir",
    "slow lag latency sluggish stutter performance",
    "lost dropped missing vanished disappear disappeared gone swallowed",
    "windows win32 microsoft",
    "mac macos osx darwin apple",
    "settings setting config configuration options preferences",
    "install setup installation installer",
    "login signin auth authentication credential token session",
    "signup onboarding registration register",
    "stale outdated old cached cache",
    "timeout hang stuck freeze frozen",
    "duplicate duplicated twice double repeated",
    "terminal console shell tty cli",
    "stdout output print printed echo",
    "stderr diagnostics warning warnings log logs logging",
    "serialize serialization encode encoding dump json",
    "parse parser parsing read load loader",
    "test tests testing pytest spec",
    "build compile compiler tsc",
    "deploy deployment release ship publish",
    "database db sqlite postgres sql",
    "table schema column columns",
    "migration migrate upgrade schema",
    "id ids identifier identifiers key",
    "quote quotes quoting escape escaping",
    "path paths filename file files",
    "dependency dependencies package packages library libraries",
    "container docker image",
    "ci pipeline workflow actions",
    "schedule scheduled cron timer",
    "email mail notification alert alerts",
    "message messages chat conversation",
    "screen page view ui",
    "button control widget",
    "prompt prompts input",
    "search query lookup find",
    "index indexes indexing fts",
    "thread async concurrent concurrency parallel race",
    "memory ram leak",
    "flag option switch argument parameter arg",
    "default fallback",
    "color colour",
    "voice speech audio tts",
    "model llm",
    "error message complaint",
)


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


_PROPER = re.compile(r"(?<=[\w,;:] )[A-Z][a-z]+(?:[A-Z][a-z]+)*\b")


def query_names(query: str) -> list[str]:
    """The names a query holds: identifiers (`names`) and capitalized words past its first
    ("what did Moss chew" -> Moss), in order, each once."""
    found = [*sorted(names(query)), *(m.casefold() for m in _PROPER.findall(query))]
    return list(dict.fromkeys(found))
