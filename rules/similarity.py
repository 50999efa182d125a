"""Whether two mistakes are the same mistake, and how much one resembles another.

Recurrence merges on its own only where that is near-certain: the same text once the
marks of a recurrence are set aside (`fingerprint`: case, punctuation, "(again)", a date,
a ticket number). On the held-out half of tests/fixtures/recurrence/pairs.jsonl nothing
else reached a precision of 0.95 (keywords nor meaning: their best-scoring pairs on the
fit half are different mistakes in the same words), so nothing else merges: a likeness
is proposed to the writer instead (`rules.proposals`).

The keyword similarity below is the judgement of a rule violation and of a stored
item's dedup (the proposer has its own likeness, `proposals.keyword_likeness`): content
words (stop words and the generic words every mistake uses dropped, common abbreviations
spelled out, lightly stemmed), scored as the mean of the Dice coefficient and the overlap with the
shorter text; two texts about different things (`differs`: other identifiers, or other
well-known things such as YAML and markdown) are apart whatever words they share.
Calibrated on tests/fixtures/similarity/pairs.jsonl (62 duplicate pairs, 62
related-but-distinct pairs): at THRESHOLD, precision 1.00 and recall 0.48; on 605
labelled pairs of real text (corpus_pairs.jsonl), fit half: precision 0.64, recall 0.24;
held-out half: precision 1.00, recall 0.21 (5 of 24, no false merge). A false merge
inflates counts and can promote the wrong rule, so the threshold favours precision. The
semantic extra adds `meaning_judge`; callers pass the judgement they were built with,
there is no process-wide one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from rolebook.notebook.errors import ModelError
from rolebook.notebook.model import normalize
from rolebook.notebook.search import names

THRESHOLD = 0.65

_STOP = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in into "
    "is it its me my of on or our so than that the their them then there these they this to was we "
    "were what when where which while who why will with would you your instead because after before "
    "during without not no too only again also just got get use used using".split()
)
# Words nearly every mistake uses: they say that something went wrong, not what.
_GENERIC = frozenset(
    "wrong broke broken break fail failed fails failure error errors issue bug problem mistake "
    "forgot forget accidentally".split()
)
_ALIASES = {
    "prod": "production",
    "db": "database",
    "dbs": "database",
    "env": "environment",
    "envs": "environment",
    "k8s": "kubernetes",
    "pr": "pull",
    "prs": "pull",
    "js": "javascript",
    "ts": "typescript",
    "deps": "dependency",
    "dep": "dependency",
    "config": "configuration",
    "repo": "repository",
    "msg": "message",
    "auth": "authentication",
    "perms": "permission",
    "mail": "email",
    "emails": "email",
    "pkg": "package",
    "dir": "directory",
    "docs": "doc",
}
_WORD = re.compile(r"[a-z0-9]+")


def _undouble(word: str) -> str:
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouylsz" else word


def stem(word: str) -> str:
    """A light English stemmer: plurals, -ed, -ing, -ation, a final e."""
    if len(word) <= 3:
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        return word[:-3] + "y"
    for suffix in ("ations", "ation"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ing") and len(word) > 5:
        word = _undouble(word[:-3])
    elif word.endswith("ed") and len(word) > 4:
        word = _undouble(word[:-2])
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def plain_words(text: str) -> list[str]:
    """The words of a text that say what it is about, as written (lowercase, common
    abbreviations spelled out): no stop words, none of the generic words of a mistake."""
    out = []
    for word in _WORD.findall(text.lower()):
        word = _ALIASES.get(word, word)
        if word in _STOP or word in _GENERIC or (len(word) < 2 and not word.isdigit()):
            continue
        out.append(word)
    return out


@lru_cache(maxsize=4096)
def content_words(text: str) -> frozenset[str]:
    """The words of a text that say what it is about, stemmed."""
    return frozenset(stem(word) for word in plain_words(text))


def name_differs(a: str, b: str) -> bool:
    """Evidence that two texts are about different things: each names something and no
    name of one is found in (or holds) a name of the other (`click.group` and
    `click.open_file`; `sqlite-utils insert` and `--no-headers`). Not when only one names
    anything: a rewording often drops the identifier."""
    na, nb = names(a), names(b)
    if not na or not nb:
        return False
    return not any(x == y or (len(x) >= 3 and x in y) or (len(y) >= 3 and y in x) for x in na for y in nb)


#: Things a plain word names, one kind of evidence like an identifier: file formats,
#: platforms, shells, languages, browsers, databases, package tools. Written from the kinds
#: the issue's report of false merges names ("a file format, a platform"), not from the
#: labelled pairs (one held-out pair among them, YAML and markdown, was seen before);
#: words that are also common English or another thing (node, go, edge, fish) are left out.
#: Each group is one thing (yml is yaml).
_THINGS = (
    "yaml yml|json|toml|csv|tsv|xml|html|markdown md|rst restructuredtext|ini|jsonl ndjson|pdf|png|jpeg jpg"
    "|svg|zip|tar|windows win32|linux|macos mac osx darwin|ios|android|wsl|freebsd|ubuntu|debian|alpine"
    "|bash|zsh|powershell pwsh|python|nodejs|deno|ruby|golang|java|kotlin|typescript|javascript|php|perl"
    "|chrome chromium|firefox|safari|sqlite|postgres postgresql|mysql|redis|mongodb|npm|pip|yarn|pnpm|poetry"
    "|conda|homebrew brew"
)
_THING = {w: group.split()[0] for group in _THINGS.split("|") for w in group.split()}


def things(text: str) -> frozenset[str]:
    """The well-known things a text names by a plain word (`_THINGS`), one word each."""
    return frozenset(_THING[w] for w in _WORD.findall(text.lower()) if w in _THING)


def differs(a: str, b: str) -> bool:
    """Evidence that two texts are about different things: their names differ
    (`name_differs`), or each names a well-known thing (`things`: YAML, Windows, ...) and
    they share none ("malformed YAML" and "malformed markdown")."""
    if name_differs(a, b):
        return True
    ta, tb = things(a), things(b)
    return bool(ta and tb and not ta & tb)


_COUNT = re.compile(r"\s*\(x\d+\)\s*$", re.IGNORECASE)
_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
# a ticket, order or job number, written as agents write them: "(#412)", "OPS-2291",
# "[job 7731]", "order #55812", "ticket INFRA-1023"
_BRACKETED_NUMBER = re.compile(r"[\[(]\s*(?:[^\W\d_]+\s+)?#?\d+\s*[\])]")
_TICKET = re.compile(r"(?:\b(?:ticket|order|job|issue|bug|case|pr)\s*)?(?:#\d+|\b[^\W\d_]{2,}-\d+\b)")
# how a writer says it happened before: it does not change which mistake it is
_AGAIN = re.compile(r"\b(?:yet\s+)?again\b|\bonce more\b|\bone more time\b|\b\d+(?:st|nd|rd|th) time\b")
_ARTICLES = frozenset(("a", "an", "the", "and"))


@lru_cache(maxsize=8192)
def fingerprint(text: str) -> str:
    """A mistake's text with what does not change the mistake set aside: case, punctuation,
    spacing and hyphens, articles, a trailing `(xN)`, a date, a ticket or order number, and
    the marks of a recurrence ("again", "(2nd time)"). Two texts with one fingerprint are one
    mistake written twice; nothing else is merged without the writer's word."""
    text = unicodedata.normalize("NFKC", text).casefold()
    for pattern in (_COUNT, _DAY, _BRACKETED_NUMBER, _TICKET, _AGAIN):
        text = pattern.sub(" ", text)
    return "".join(w for w in re.findall(r"[^\W_]+", text) if w not in _ARTICLES)


def same_text(a: str, b: str) -> bool:
    """Whether two mistakes are one written twice (`fingerprint`): the one automatic merge.
    On tests/fixtures/recurrence/pairs.jsonl: fit 26 merges, held-out 24, none of them two
    different mistakes (`python tests/bench/bench_recurrence.py`)."""
    return bool(fp := fingerprint(a)) and fp == fingerprint(b)


def similarity(a: str, b: str) -> float:
    """0.0 (nothing in common) to 1.0 (the same words); 0.0 as well when the two are about
    different things (`differs`)."""
    if normalize(a) == normalize(b):
        return 1.0
    if differs(a, b):
        return 0.0
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return 0.0
    shared = len(wa & wb)
    return (2 * shared / (len(wa) + len(wb)) + shared / min(len(wa), len(wb))) / 2


#: A judgement: whether two mistake texts describe the same mistake. Built once from the
#: config (keywords, or `meaning_judge`) and passed down as a value.
Judge = Callable[[str, str], bool]


def keyword_same_mistake(a: str, b: str) -> bool:
    """Whether two mistake texts describe the same mistake, by keywords."""
    return similarity(a, b) >= THRESHOLD


#: With the semantic extra: the same mistake when the keywords say so and the meaning does
#: not say otherwise (the cosine of the shorter text with the longer one, or with its
#: closest sentence, reaches SEMANTIC_VETO), or when that cosine alone reaches
#: SEMANTIC_THRESHOLD. Fitted, precision first, on the "fit" half of the 605 real-text
#: pairs in tests/fixtures/similarity/corpus_pairs.jsonl (all-MiniLM-L6-v2; fit half:
#: precision 0.67, recall 0.28), reported on the other half: precision 1.00, recall 0.25
#: (the keywords alone: 1.00, 0.21); on our own 124 pairs precision 1.00, recall 0.52. A
#: near paraphrase by cosine still yields to `differs` (before it did not: held-out 0.86).
SEMANTIC_THRESHOLD = 0.86
SEMANTIC_VETO = 0.6
_SENTENCE = re.compile(r"(?<=[.;!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE.split(text) if len(p.strip()) > 3]
    return parts or [text]


def semantic_judge(model: Any = None) -> Judge | None:
    """The judgement with meaning, or None when no model loads."""
    from rolebook.notebook.search import semantic

    model = model or semantic.load(asked=True)
    if model is None:
        return None
    vectors: dict[str, Any] = {}
    failed: list[bool] = []

    def vec(texts: list[str]) -> Any:
        missing = [t for t in dict.fromkeys(texts) if t not in vectors]
        if missing:
            vectors.update(zip(missing, model.encode(missing), strict=True))
        return [vectors[t] for t in texts]

    def judge(a: str, b: str) -> bool:
        if normalize(a) == normalize(b):
            return True
        short, long = sorted((a, b), key=len)
        if failed:
            return keyword_same_mistake(a, b)
        try:
            (vs,) = vec([short])
            whole, *parts = vec([long, *sentences(long)])
        except ModelError:  # the model failed as it ran (said once): the keywords judge from now on
            failed.append(True)
            return keyword_same_mistake(a, b)
        cosine = max(float(vs @ whole), *(float(vs @ p) for p in parts))
        # the same words about another thing read apart by meaning: that evidence counts too
        if cosine >= SEMANTIC_THRESHOLD:  # a near paraphrase, unless they name different things
            return not differs(a, b)
        return keyword_same_mistake(a, b) and cosine >= SEMANTIC_VETO

    return judge


def meaning_judge(model_setting: str | None = None) -> Judge:
    """The judgement by keywords and meaning (`semantic_judge`): the model loads when a pair
    first needs it (equal texts need none); without a model it stays keywords."""
    from rolebook.notebook.search import semantic

    state: dict[str, Judge | None] = {}

    def judge(a: str, b: str) -> bool:
        if normalize(a) == normalize(b):
            return True
        if "judge" not in state:
            model = semantic.load(model_setting)
            state["judge"] = semantic_judge(model) if model is not None else None
        by_meaning = state["judge"]
        return by_meaning(a, b) if by_meaning is not None else keyword_same_mistake(a, b)

    return judge
