"""What a writer hands rolebook, checked before anything is written.

Entries are refused, never cut or cleaned silently: empty, over the length cap,
holding control characters, or dated with something that is not a date. Values shaped
like secrets are redacted before any write, and `redactions` says which kinds were.
"""

from __future__ import annotations

import datetime as dt
import re

from ..errors import EntryError
from ..markdown import parse, split_lines
from ..model import SECTIONS, Entry, count_lines, split_count
from .secrets import redact, redactions

__all__ = [
    "MAX_ENTRY_CHARS",
    "check_date",
    "check_day",
    "check_text",
    "new_entry",
    "parse_snippet",
    "redact",
    "redactions",
]

MAX_ENTRY_CHARS = 1000

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Characters that change how text reads without showing: bidirectional overrides and
# isolates (an RTL override makes `read` show reordered text), zero-width characters
# (two entries that look the same, and are not), and the Unicode line and paragraph
# separators (a reader splitting on them sees a line rolebook does not). Entries lose
# them (the separators become line breaks).
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u2028\u2029\u061c]")


def check_date(value: str, path: str | None = None, line: int | None = None) -> str:
    """`value` if it is a calendar date written YYYY-MM-DD.

    Raises:
        EntryError: anything else.
    """
    try:
        if len(value) == 10:
            return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        pass
    raise EntryError(f"{value!r} is not a date: write YYYY-MM-DD, e.g. 2026-03-15", path, line)


#: How far past today an entry's date may be: a clock a day ahead (another time zone,
#: a machine set wrong by hours) is not a reason to refuse a lesson.
SKEW = dt.timedelta(days=1)


def check_day(value: str, path: str | None = None, line: int | None = None) -> str:
    """`value` if it is a date an entry can carry: a calendar date (`check_date`) no later
    than tomorrow. A date in the future would sit on top of its section and be pruned
    last, whatever it says.

    Raises:
        EntryError: not a date, or a date beyond a day of clock skew.
    """
    day = check_date(value, path, line)
    latest = max(dt.date.today(), dt.datetime.now(dt.UTC).date()) + SKEW
    if dt.date.fromisoformat(day) > latest:
        raise EntryError(
            f"{day} is in the future (latest accepted: {latest.isoformat()}): an entry carries the day it was "
            "learned; give that day, or leave the date out for today (nothing was written)",
            path,
            line,
        )
    return day


def check_text(text: str, path: str | None = None, line: int | None = None) -> str:
    """Entry text as it will be stored: lines stripped, blank lines dropped.

    Raises:
        EntryError: empty, longer than MAX_ENTRY_CHARS, or holding a control character.
    """
    text = text.replace("\r\n", "\n")
    bad = _CONTROL.search(text)
    if bad:
        raise EntryError(f"entry holds control character U+{ord(bad.group()):04X}; refused", path, line)
    # neutralized, not refused: real files carry stray ones (a BOM mid-file, say)
    text = _INVISIBLE.sub(lambda m: "\n" if m.group() in "\u2028\u2029" else "", text)
    text = redact(text)[0]
    text = "\n".join(ln.strip() for ln in text.split("\n") if ln.strip())
    if not text:
        raise EntryError("entry is empty", path, line)
    if len(text) > MAX_ENTRY_CHARS:
        raise EntryError(
            f"entry is {len(text)} characters, over the cap of {MAX_ENTRY_CHARS}: "
            "shorten it or split it (nothing was written)",
            path,
            line,
        )
    return text


def new_entry(section: str, text: str, date: str) -> Entry:
    """A checked entry for a managed section; a trailing `(xN)` sets its count.

    Raises:
        EntryError: bad text or date.
    """
    if section not in SECTIONS:
        raise EntryError(f"unknown section {section!r}")
    body, count = split_count(check_text(text))
    return Entry(section, check_day(date), check_text(body), count)


def parse_snippet(text: str, date: str, path: str = "<stdin>") -> tuple[list[Entry], int]:
    """Entries of a markdown snippet with notebook sections, and how many lines it ignored.

    Items without a date take `date`. Raises EntryError naming the snippet's line.
    """
    nb = parse(text, undated=check_day(date))
    entries: list[Entry] = []
    lineno = count_lines(nb.head) + 1
    ignored = 0
    for section in nb.sections:
        lineno += count_lines(section.heading)
        for part in section.parts:
            if isinstance(part, Entry):
                body = check_text(part.text, path, lineno)
                entries.append(Entry(part.section, check_day(part.date, path, lineno), body, part.count))
            else:
                ignored += sum(1 for ln in split_lines(part.raw) if ln.strip())
            lineno += count_lines(part.raw)
    return entries, ignored
