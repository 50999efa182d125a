"""A rule's words from a mistake: the "what to do instead" part, as an instruction a reader
understands with no incident beside it, or None (the review then asks for the text).

A mistake is written "what went wrong; what to do instead". The turn is read at a `;`, a
`: `, a dash between spaces, a sentence's end, or the word "instead"; what follows it must
be an instruction: it starts with a verb in the imperative ("Keep ...", "Never ...", "Do
not ..."), or, once its subject is restored, says what a thing must or should be. A
pronoun that points back at the first part ("Merge it into the sticker shape") gets that
part's subject back ("Merge the floating speech bubble into the sticker shape"); where
the subject cannot be told, there is no rule. Measured on tests/fixtures/rules/wording
(real mistakes written by agents; its card says how it was made, fit and held-out).
"""

from __future__ import annotations

import re

#: where "what went wrong" turns into "what to do instead", earliest first
_TURN = re.compile(r";\s*|:\s+|\s+[-\u2013\u2014]{1,2}\s+|(?<=[a-z0-9)`'\"])[.!]\s+(?=[A-Z`])")
_INSTEAD = re.compile(r"(?:^|[,;.]\s*|\s)instead\s*[,:]?\s+(?!of\b)", re.IGNORECASE)
#: a leading "you should" and the like: the instruction is what follows
_LEAD = re.compile(
    r"^(?:so\s+|then\s+|and\s+|but\s+|fix(?:ed)?\s*:\s*|rule\s*:\s*|lesson\s*:\s*|instead\s*,?\s*)*"
    r"(?:(?:you|we|i|agents?)\s+(?:should|must|need to|have to|ought to)\s+(?:always\s+)?)?",
    re.IGNORECASE,
)
#: words an instruction opens with besides a verb
_OPENERS = frozenset({"always", "never", "don't", "do"})
#: words that open a clause before the instruction ("When you write it down, check ...")
_CLAUSES = frozenset({"when", "before", "after", "if", "once", "while", "whenever"})
#: what cannot open an instruction: pronouns, determiners, auxiliaries, conjunctions
_NOT_VERBS = frozenset(
    """a an the this that these those it its they them their there here he she we i you my our your
    is are was were be been being am has had have having does did doing will would could can may might
    shall should must no not nothing none nobody some any all each every one both either neither
    which what who whom whose why how where because since although though while until unless
    than so but and or nor yet for of in on at by with from to into onto about as like per via
    also still just even very too quite rather more most less least much many few
    new old other another same such own something anything everything someone somebody otherwise""".split()
)
#: verbs whose -s, -ed or -ing form would pass the suffix test as a base form
_VERBS = frozenset(
    """add adjust align apply ask assert avoid bump cache call cap check clean clear close commit compare
    confirm copy create debug define delete deploy disable document drop enable ensure escape explain export
    extract filter fix flush follow force gate guard handle import include inspect install keep kill leave
    let limit list load lock log make mark match measure merge mock move name normalize note open pass pause
    pin poll prefer process print prune pull push put quote read rebuild record reduce refresh register
    reload remove rename render replace report require rerun reset resolve restart restore retry return
    reuse review run save scope search send set show skip sort split start stop store strip swap switch
    sync tag test tell treat trim try turn unset update upgrade use validate verify wait watch wrap write
    access address focus process pass be build bind catch emit fetch give hide preserve raise rerun re-run
    retain route separate ship stage tie""".split()
)
#: what opens the object of a verb in the imperative
_OBJECTS = frozenset("the a an all every each your its their this that these those any".split())
_PRONOUN = re.compile(r"\b(it|them|they)\b", re.IGNORECASE)
#: what ends the subject of "what went wrong": its verb
_SUBJECT_END = frozenset(
    """is are was were be been has had have does did do will would could can may might should must
    broke broken failed fails went got kept took made ran caused became left lost missed""".split()
)


def rule_from(mistake: str) -> str | None:
    """The instruction in a mistake, standing alone, or None when it has none."""
    text = " ".join(mistake.split())
    for first, rest in _turns(text):
        said = _instruction(first, rest)
        if said is not None:
            return said
    return None


def _turns(text: str) -> list[tuple[str, str]]:
    """(what went wrong, what follows) at each turn the text offers, earliest first."""
    found = [(m.start(), m.end()) for m in _TURN.finditer(text)]
    found += [(m.start(), m.end()) for m in _INSTEAD.finditer(text) if m.start() > 0]
    if re.search(r"\binstead[.!]?$", text, re.IGNORECASE):  # "..., use staging instead"
        found += [(m.start(), m.end()) for m in re.finditer(r",\s+", text)]
    return [(text[:a].strip(), text[b:].strip()) for a, b in sorted(found)]


def _instruction(first: str, rest: str) -> str | None:
    rest = _LEAD.sub("", rest, count=1).strip()
    rest = re.sub(r"\s*\(\d{4}-\d{2}-\d{2}\)\s*$", "", rest)  # a trailing date written by hand
    rest = re.sub(r"\s+instead[.!]?$", "", rest, flags=re.IGNORECASE).rstrip(" .;,")
    words = rest.split()
    if len(words) < 2 or not any(c.isalpha() for c in rest):
        return None
    pronoun = _PRONOUN.search(" ".join(words[:6]))
    restored = False
    if pronoun is not None:
        subject = _subject(first)
        if subject is None:
            return None
        start = pronoun.start()
        rest = rest[:start] + subject + rest[pronoun.end() :]
        restored = start == 0
        words = rest.split()
    if not restored and not _imperative(words):
        return None
    if re.match(r"\S+\s+(?:those|these)\b", rest, re.IGNORECASE):  # "Keep those examples ...": which?
        return None
    if restored and not re.match(r"\S+(?:\s+\S+){0,6}?\s+(?:must|should|needs?|has to|have to)\b", rest):
        return None
    return rest[:1].upper() + rest[1:]


def _imperative(words: list[str]) -> bool:
    """Whether an instruction opens with these words: a verb of the list in its base form,
    "always", "never", "do not", or a "when ..." / "before ..." clause whose comma is
    followed by such a verb. Only listed verbs: a word that merely could be one ("Reach odds
    belong ...", "Late ACKs should ...") is no instruction, and precision comes first."""
    w = words[0].lower().rstrip(",:")
    if w in _CLAUSES:
        after = next((i for i, x in enumerate(words) if x.endswith(",")), None)
        return after is not None and after + 1 < len(words) and _imperative(words[after + 1 :])
    if w in _OPENERS or w in _VERBS:
        return True
    # a verb not listed passes when its object follows ("Debounce the input"): a noun or an
    # adjective opening a statement ("Late watch ACKs ...", "Similar failures ...") does not
    nxt = words[1].lower() if len(words) > 1 else ""
    return (
        w.isascii()
        and w.isalpha()
        and w not in _NOT_VERBS
        and not w.endswith(("ed", "ing", "ly"))
        and not (w.endswith("s") and not w.endswith(("ss", "us")))
        and (nxt in _OBJECTS or nxt.startswith("`"))
    )


def _subject(first: str) -> str | None:
    """The subject of "what went wrong", to stand where a pronoun pointed at it: the words
    before its verb, with "the" before them; None when they cannot be told."""
    words = first.rstrip(" .").split()
    for i, word in enumerate(words):
        w = word.lower().strip(",`*")
        if w in _SUBJECT_END or (i > 0 and w.endswith("ed") and len(w) > 4):
            head = words[:i]
            if not head or len(head) > 6 or head[0].lower() in _NOT_VERBS - {"a", "an", "the", "this", "that"}:
                return None
            if any(x.lower() in ("that", "which", "who") for x in head[1:]):
                return None  # "a resolver that is ...": its subject is more than these words
            if head[0].lower() in ("a", "an", "the", "this", "that"):
                head = head[1:]
            return "the " + " ".join(head) if head else None
    return None
