"""A query: what it asks (its telling words), how it is checked, and its filters.

Any text is a valid query: it is cut into words and each word is quoted, so FTS5 syntax
in it (quotes, NEAR, *, -, parentheses) is only text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InputError
from ..store import Index
from . import lookups
from .lookups import Filters, filters

MAX_QUERY_CHARS = 1000
COUNT_CAP = 1000
STATUSES = ("active", "archived", "promoted", "obsolete", "rule", "all")
MODES = ("keyword", "semantic", "hybrid")
#: A phrase's documents are counted up to this many (or half the documents): past it,
#: its weight in BM25 barely changes, and counting costs a pass over them.
PHRASE_COUNT_CAP = 10_000

# Words too common to say what a query is about; dropped unless nothing else is left.
STOP_WORDS = frozenset(
    "a an and are as at be been but by can could do does for from had has have how i if in into is "
    "it its me my of on or our so than that the their them then there these they this to was we were "
    "what when where which while who why will with would you your".split()
)
WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Query:
    """A search: words, filters, and how many hits at most. Empty filters match all."""

    text: str
    roles: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()  # empty: everything but obsolete
    since: str | None = None
    until: str | None = None
    limit: int = 5
    skip_active_of: str | None = None  # a role whose notebook the reader already has
    rarest: int | None = None  # match on only this many of the query's rarest words
    mode: str | None = "keyword"  # keyword, semantic or hybrid; None: hybrid when the extra loads
    # by meaning: seconds this search may spend giving vectors to records that have none
    # yet (in steps, one at least; the rest are found by keywords); None: all of them first
    embed_budget: float | None = None


def check_query(text: str) -> tuple[str, str | None]:
    """The query to run, cut to MAX_QUERY_CHARS, and a warning when it was cut.

    Raises:
        InputError: an empty query.
    """
    if not text.strip():
        raise InputError('the query is empty: say what to look for, e.g. rolebook search "npm EACCES"')
    if len(text) <= MAX_QUERY_CHARS:
        return text, None
    cut = text[:MAX_QUERY_CHARS]
    if text[MAX_QUERY_CHARS].isalnum() and " " in cut:
        cut = cut.rsplit(" ", 1)[0]  # not in the middle of a word
    return cut, f"the query was cut to its first {len(cut)} of {len(text)} characters"


def fts_expression(words: list[str]) -> str:
    """An FTS5 expression matching any of these words, each quoted: whatever a word
    holds, FTS5 reads it as text, never as its syntax."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def query_words(text: str, stop_words: bool = False) -> list[str]:
    """The words of a query that say what it is about (all of them if only stop words),
    each once, at most 64; with `stop_words`, all its words."""
    words = list(dict.fromkeys(w.casefold() for w in WORD.findall(text)))
    if not stop_words:
        words = [w for w in words if w not in STOP_WORDS] or words
    return words[:64]


def word_frequencies(index: Index, words: list[str]) -> tuple[dict[int, int], int]:
    """For each word (by position), how many documents hold it, stemmed as the index
    stems (a word the tokenizer splits, `test_login_redirect`, is a phrase and is counted
    as one, up to PHRASE_COUNT_CAP); and how many documents there are."""
    from .stemmer import terms

    total = lookups.sizes(index)[0]
    split = [terms(w) for w in words]
    df = lookups.document_counts(index, [t for ts in split for t in ts])
    freq = {}
    for i, ts in enumerate(split):
        freq[i] = min((df.get(t, 0) for t in ts), default=0)
        if len(ts) > 1 and freq[i]:  # a phrase: count it, up to what matters (half)
            freq[i] = lookups.phrase_count(index, fts_expression([words[i]]), min(total // 2 + 1, PHRASE_COUNT_CAP))
    return freq, total


def telling_words(
    index: Index, words: list[str], rarest: int | None = None, counted: tuple[dict[int, int], int] | None = None
) -> tuple[list[str], bool]:
    """The words worth matching: those in at most half the documents (the rarest if none).

    A word in most documents adds next to nothing to BM25 but makes every one of them a
    match to score; the index's own tokenizer stems the words to look them up. The flag
    says that only such common words were left (BM25 cannot rank by them).
    """
    freq, total = counted or word_frequencies(index, words)
    kept = [w for i, w in enumerate(words) if 0 < freq[i] <= total / 2]
    if rarest is not None:
        kept = sorted(kept, key=lambda w: freq[words.index(w)])[:rarest]
    if not kept:
        present = [i for i in range(len(words)) if freq[i] > 0]
        return ([words[min(present, key=lambda i: freq[i])]] if present else []), True
    return kept, False


def filters_of(query: Query) -> Filters:
    return filters(
        query.roles, query.sections, query.tags, query.statuses, query.since, query.until, query.skip_active_of
    )
