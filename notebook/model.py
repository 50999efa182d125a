"""The notebook as values: Notebook, Section, Entry, Foreign. Pure; no I/O.

A notebook is its head (BOM, frontmatter, title, anything before the first `##`
heading) and its sections in file order. A section is its heading lines and its parts:
entries rolebook manages and foreign text it keeps verbatim. Every part carries its
exact source text (`raw`), so rendering is concatenation and never reformats a byte.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

#: Managed sections, in the order a new notebook lists them.
SECTIONS: tuple[str, ...] = ("mistakes", "learnings", "feedback", "session_log")

TITLES: dict[str, str] = {
    "mistakes": "Mistakes",
    "learnings": "Learnings",
    "feedback": "Feedback",
    "session_log": "Session Log",
}

# Heading text (case-folded, spaces collapsed) -> section key.
_ALIASES: dict[str, str] = {
    "mistakes": "mistakes",
    "learnings": "learnings",
    "feedback": "feedback",
    "shareholder feedback": "feedback",
    "stakeholder feedback": "feedback",
    "session log": "session_log",
}

_COUNT = re.compile(r"\s*\(x(\d{1,9})\)\s*$")
_ROLE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def section_key(heading_text: str) -> str | None:
    """The managed section a heading names, or None for a section rolebook leaves alone."""
    return _ALIASES.get(" ".join(heading_text.split()).casefold())


def is_role(name: str) -> bool:
    """Whether `name` is a valid role name (`[a-z0-9][a-z0-9_-]{0,63}`)."""
    return _ROLE.fullmatch(name) is not None


def normalize(text: str) -> str:
    """Text as compared for identity: NFKC, case-folded, whitespace collapsed, no `(xN)`."""
    text = unicodedata.normalize("NFKC", text)
    text = _COUNT.sub("", text)
    return " ".join(text.split()).casefold()


def split_count(text: str) -> tuple[str, int]:
    """Split a trailing `(xN)` occurrence count off an entry's text."""
    match = _COUNT.search(text)
    if match is None:
        return text, 1
    count = int(match.group(1))
    return text[: match.start()], max(count, 1)


def entry_id(role: str, section: str, date: str, text: str) -> str:
    """A content-derived id: the same entry written twice gets the same id."""
    import hashlib  # here, not at the top: OpenSSL's loading costs 3 ms a hook needs not pay

    key = "\x1f".join((role, section, date, normalize(text)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True, slots=True)
class Entry:
    """One dated item of a managed section, with all its continuation lines."""

    section: str
    date: str
    text: str
    count: int = 1
    raw: str = field(default="", compare=False)

    def id(self, role: str) -> str:
        return entry_id(role, self.section, self.date, self.text)

    @property
    def line_count(self) -> int:
        return count_lines(self.raw)


@dataclass(frozen=True, slots=True)
class Foreign:
    """Text rolebook does not manage, kept byte for byte where it stands."""

    raw: str


Part = Entry | Foreign


@dataclass(frozen=True, slots=True)
class Section:
    """A `##` section: its heading lines and its parts. `key` is None when unmanaged."""

    key: str | None
    heading: str
    parts: tuple[Part, ...] = ()

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(p for p in self.parts if isinstance(p, Entry))


@dataclass(frozen=True, slots=True)
class Notebook:
    """A whole notebook: head (BOM, frontmatter, title, prose) and sections in order."""

    head: str = ""
    sections: tuple[Section, ...] = ()
    newline: str = "\n"
    #: 1-based line where nesting went past what the parser follows (its structure is unsure)
    too_deep: int | None = None

    def entries(self, key: str | None = None) -> list[Entry]:
        """Entries of one managed section (all of them when key is None), file order."""
        return [e for s in self.sections if s.key is not None and (key is None or s.key == key) for e in s.entries]


def count_lines(text: str) -> int:
    """Lines as an editor counts them: `\\r\\n`, `\\r` and `\\n` each end one."""
    if not text:
        return 0
    n = text.count("\n") + text.count("\r") - text.count("\r\n")
    return n if text[-1] in "\r\n" else n + 1
