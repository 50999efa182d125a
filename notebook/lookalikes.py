"""Lines of a managed section that look like entries but are not. Pure.

A hand-written item whose date is not a real YYYY-MM-DD day (`[2026-02-30]`,
`[26-1-5]`, `[2026-13-01]`), or a dated item indented with a tab (markdown reads a tab
as four columns: code, or a part of the item above), is kept as text like any text
rolebook does not manage: never pruned, searched or counted. Silently so, until now:
`read` alerts about them, `tidy --check` and `doctor` list them as `path:line`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from .markdown import split_lines
from .model import TITLES, Entry, Notebook, count_lines, section_key

_DATE_LIKE = re.compile(r"( {0,3})[-*+][ \t]+\[(\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4})\]")
_INDENTED = re.compile(r"([ \t]+)[-*+][ \t]+\[\d{4}-\d{2}-\d{2}\]")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Lookalike:
    """A line (1-based) that a person meant as an entry, and why it is not one."""

    line: int
    why: str


def lookalikes(nb: Notebook) -> list[Lookalike]:
    """The lines of managed sections that look like entries and are not, and the lines
    that look like a managed heading and are not one (`broken_headings`), in file order."""
    return sorted(_entry_lookalikes(nb) + broken_headings(nb), key=lambda x: x.line)


_HEADING_LIKE = re.compile(r" {0,3}(#{1,6})([ \t]*)(.*?)[ \t#]*")
_TITLES = {"".join(t.split()).casefold(): t for t in TITLES.values()}


def broken_headings(nb: Notebook) -> list[Lookalike]:
    """Lines outside code that a person meant as a managed section's heading and that
    markdown (or rolebook) does not read as one: `##Learnings` (no space), `## Learnigns`
    (a typo), `# Mistakes` (another level). What follows such a line is read as part of
    the section above it, so its entries would change kind: a write refuses the notebook
    until the heading is fixed, and `read`, `tidy --check` and `doctor` name the line."""
    out: list[Lookalike] = []
    fence = None
    for n, text in enumerate(
        split_lines("".join([nb.head, *(s.heading + "".join(p.raw for p in s.parts) for s in nb.sections)])), 1
    ):
        text = text.rstrip("\r\n")
        opens = _FENCE.match(text)
        if opens and (fence is None or opens.group(1).startswith(fence)):
            fence = None if fence is not None else opens.group(1)[0] * 3
            continue
        m = _HEADING_LIKE.fullmatch(text) if fence is None and text.lstrip().startswith("#") else None
        if m is None or len(m.group(1)) > 2:
            continue
        words = m.group(3)
        title = _TITLES.get(near := "".join(words.split()).casefold()) or next(
            (t for k, t in _TITLES.items() if _distance(near, k) <= 2), None
        )
        if title is None or (m.group(1) == "##" and m.group(2) and section_key(words) is not None):
            continue  # not like a managed heading, or one as written
        out.append(
            Lookalike(
                n,
                f"{text.strip()!r} reads like the heading `## {title}` but rolebook does not read it as one: "
                f"the entries below it count as the section above; write it `## {title}`",
            )
        )
    return out


def _distance(a: str, b: str, most: int = 2) -> int:
    """Edit distance (a transposition counts one), or `most` + 1 when more."""
    if abs(len(a) - len(b)) > most:
        return most + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[-1]


def _entry_lookalikes(nb: Notebook) -> list[Lookalike]:
    out: list[Lookalike] = []
    line = count_lines(nb.head) + 1
    for section in nb.sections:
        line += count_lines(section.heading)
        for part in section.parts:
            if section.key is not None:
                out += _scan(part.raw, line, isinstance(part, Entry))
            line += count_lines(part.raw)
    return out


def _scan(raw: str, first: int, entry: bool) -> list[Lookalike]:
    found = []
    fence = None
    for n, text in enumerate(split_lines(raw)):
        text = text.rstrip("\r\n")
        opens = _FENCE.match(text)
        if opens and (fence is None or opens.group(1).startswith(fence)):
            fence = None if fence is not None else opens.group(1)[0] * 3
            continue
        if fence is not None or (entry and n == 0):
            continue
        why = _why(text, entry)
        if why:
            found.append(Lookalike(first + n, why))
    return found


def _why(text: str, in_entry: bool) -> str | None:
    dated = _DATE_LIKE.match(text)
    if dated and not in_entry:
        date = dated.group(2)
        shaped = _ISO.fullmatch(date) is not None
        try:
            real = shaped and dt.date.fromisoformat(date) is not None
        except ValueError:
            real = False
        if not real:
            what = "not a real day" if shaped else "not a YYYY-MM-DD date"
            return (
                f"[{date}] is {what}, so this item is not an entry: it is kept as text, never pruned, "
                "searched or counted; write the date as YYYY-MM-DD"
            )
    indented = _INDENTED.match(text)
    if indented and ("\t" in indented.group(1) or not in_entry):
        pad = indented.group(1)
        how = "with a tab, which markdown counts as four spaces" if "\t" in pad else f"{len(pad)} spaces"
        where = "part of the entry above" if in_entry else "code, or part of the item above"
        return (
            f"this dated item is indented {how}: it reads as {where}, not as an entry of its own; "
            "start it at the beginning of the line"
        )
    return None
