"""Parse a notebook into values and render it back, byte for byte. Pure.

Structure comes from markdown-it-py's block tokens and their line maps, so a `## `
inside a code fence is not a heading and a dated line inside a fence is not an entry.
For any text, `render(parse(text)) == text`: every part keeps its exact source lines.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from .model import SECTIONS, TITLES, Entry, Foreign, Notebook, Part, Section, count_lines, section_key, split_count

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_NEWLINE = re.compile(r"\r\n|\r|\n")
_ITEM = re.compile(r" {0,3}([-*+])[ \t]+\[(\d{4}-\d{2}-\d{2})\][ \t]?(.*)", re.DOTALL)
_BARE_ITEM = re.compile(r" {0,3}([-*+])()[ \t]+(.*)", re.DOTALL)
_FM_OPEN = re.compile(r"---[ \t]*(?:\r\n|\r|\n)")
_FM_CLOSE = re.compile(r"(?:---|\.\.\.)[ \t]*(?:\r\n|\r|\n)?")
BOM = "\ufeff"


def split_lines(text: str) -> list[str]:
    """Lines with their endings; `"".join(split_lines(t)) == t`."""
    return _LINES.findall(text)


def frontmatter_span(lines: list[str]) -> int:
    """How many leading lines are YAML frontmatter (0 when there is none)."""
    if not lines or not _FM_OPEN.fullmatch(lines[0].removeprefix(BOM)):
        return 0
    for i in range(1, len(lines)):
        if _FM_CLOSE.fullmatch(lines[i]):
            return i + 1
    return 0


#: Past this many levels of nested blocks markdown-it stops parsing and folds the rest of
#: the file into the last block; deeper would also risk Python's recursion limit.
MAX_NESTING = 100


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # Only the block structure matters; inline parsing would cost time for nothing.
    return MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).disable(["inline", "text_join"])


def parse(text: str, undated: str | None = None) -> Notebook:
    """Parse notebook text into a Notebook. Total: never raises on any str.

    With `undated` (a date), top-level items of managed sections that carry no date
    become entries of that date: how an `update --from` snippet is read.
    """
    lines = split_lines(text)
    newline = m.group(0) if (m := _NEWLINE.search(text)) else "\n"
    fm = frontmatter_span(lines)
    # Frontmatter lines become blank lines for markdown-it, so line numbers still match.
    src = [("\n" if i < fm else line) for i, line in enumerate(lines)]
    if src and src[0].startswith(BOM):
        src[0] = src[0][1:]
    simple = simple_blocks(src)
    if simple is not None:
        (headings, items), too_deep = simple, None
    else:
        try:
            headings, items, too_deep = _blocks(src)
        except RecursionError:
            return Notebook(text, (), newline, too_deep=1)

    first = next((k for k, h in enumerate(headings) if h[2].startswith("h2 ")), len(headings))
    bounds = headings[first:]
    head_end = bounds[0][0] if bounds else len(lines)
    sections = []
    for k, (start, end, title) in enumerate(bounds):
        stop = bounds[k + 1][0] if k + 1 < len(bounds) else len(lines)
        key = section_key(title[3:]) if title.startswith("h2 ") else None
        body_items = [it for it in items if end <= it[0] < stop] if key else []
        sections.append(
            Section(key, "".join(lines[start:end]), tuple(_parts(lines, end, stop, key, body_items, undated)))
        )
    return Notebook("".join(lines[:head_end]), tuple(sections), newline, too_deep)


Headings = list[tuple[int, int, str]]  # start, end, "h1 "/"h2 " + text of level-0 h1/h2
Items = list[tuple[int, int, bool]]  # start, end, is last item of its list (level-0 bullet lists)


def _blocks(src: list[str]) -> tuple[Headings, Items, int | None]:
    """The headings and list items markdown-it finds, and where nesting went too deep."""
    tokens = _parser().parse("".join(src))
    too_deep = next((t.map[0] + 1 for t in tokens if t.level >= MAX_NESTING - 1 and t.map), None)
    headings: Headings = []
    items: Items = []
    pending_items: list[tuple[int, int]] = []
    for i, tok in enumerate(tokens):
        if tok.level == 0 and tok.type == "heading_open" and tok.tag in ("h1", "h2") and tok.map:
            headings.append((tok.map[0], tok.map[1], tok.tag + " " + tokens[i + 1].content))
        elif tok.type == "bullet_list_open" and tok.level == 0:
            pending_items = []
        elif tok.type == "list_item_open" and tok.level == 1 and tok.map:
            pending_items.append((tok.map[0], tok.map[1]))
        elif tok.type == "bullet_list_close" and tok.level == 0:
            items.extend((a, b, k == len(pending_items) - 1) for k, (a, b) in enumerate(pending_items))
    return headings, items, too_deep


# A line that can only be paragraph text wherever it stands: none of what starts another
# block (a heading, list, quote, fence, thematic break, setext underline, HTML, table,
# link definition, escape), no tab or other whitespace first, no ordered-list marker.
_PLAIN = re.compile(r"(?=[^\s#>*+\-=_`~<|\[\\])(?!\d{1,9}[.)])")
_ATX = re.compile(r"(#{1,6}) +([^\s#\\](?:[^#\\\r\n]*[^\s#\\])?) *")
_DATED_START = re.compile(r"\[\d{4}-\d{2}-\d{2}\](?![:(\[])")


def simple_blocks(src: list[str]) -> tuple[Headings, Items] | None:
    """What `_blocks` finds, without markdown-it, for a notebook made only of ATX headings
    with plain text, `- ` items starting with plain text or a date, their indented plain
    continuation lines, plain paragraphs and blank lines: the notebooks rolebook writes and
    most people keep. None for anything else (markdown-it decides). Importing markdown-it
    costs more than the whole of `update` otherwise does; tests hold this to markdown-it's
    answer on generated text and every corpus file."""
    headings: Headings = []
    items: Items = []
    pending: list[int] = []  # the item starts of the open list
    blank = True  # the line before was blank (or there was none)

    def close(at: int) -> None:
        items.extend(
            (a, pending[k + 1] if k + 1 < len(pending) else at, k == len(pending) - 1) for k, a in enumerate(pending)
        )
        pending.clear()

    for i, full in enumerate(src):
        line = full.rstrip("\r\n")
        body = line.lstrip(" ")
        if not body:
            blank = True
            continue
        indent = len(line) - len(body)
        if indent == 0 and body[0] == "#":
            m = _ATX.fullmatch(line)
            if m is None:
                return None
            close(i)
            if len(m.group(1)) <= 2:
                headings.append((i, i + 1, f"h{len(m.group(1))} {m.group(2)}"))
        elif indent == 0 and body.startswith("- "):
            content = body[2:]
            if not (_PLAIN.match(content) or _DATED_START.match(content)):
                return None
            pending.append(i)
        elif not _PLAIN.match(body) or (indent >= 6 and pending):  # (code inside an item: markdown-it)
            return None
        elif indent < 2 and pending and blank:  # not indented enough for the item: the list ends
            close(i)
        blank = False
    close(len(src))
    return headings, items


def _parts(
    lines: list[str],
    start: int,
    stop: int,
    key: str | None,
    items: list[tuple[int, int, bool]],
    undated: str | None,
) -> Iterable[Part]:
    pos = start
    for a, b, last in items:
        b = min(b, stop)
        if last:  # a list's trailing blank lines stay put, so what follows never joins it
            while b > a + 1 and not lines[b - 1].strip():
                b -= 1
        entry = _entry(key, lines[a:b], undated) if key else None
        if entry is None:
            continue
        if a > pos:
            yield Foreign("".join(lines[pos:a]))
        yield entry
        pos = b
    if stop > pos:
        yield Foreign("".join(lines[pos:stop]))


def _entry(key: str, lines: list[str], undated: str | None) -> Entry | None:
    first = lines[0].rstrip("\r\n")
    match = _ITEM.fullmatch(first)
    if match is None:
        bare = _BARE_ITEM.fullmatch(first) if undated else None
        if bare is None or undated is None:
            return None
        match, date = bare, undated
    else:
        date = match.group(2)
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        return None
    body = [match.group(3).strip()] + [ln.strip() for ln in lines[1:]]
    text, count = split_count("\n".join(ln for ln in body if ln))
    if not text:
        return None
    return Entry(key, date, text, count, "".join(lines))


def render(notebook: Notebook) -> str:
    """The notebook's text: the exact source for every part that was parsed."""
    out = [notebook.head]
    for section in notebook.sections:
        out.append(section.heading)
        out.extend(part.raw for part in section.parts)
    return "".join(out)


def format_entry(entry: Entry, newline: str = "\n", marker: str = "-") -> str:
    """An entry as rolebook writes it: `- [date] text (xN)`, continuation lines indented."""
    lines = entry.text.split("\n")
    if entry.count > 1:
        lines[-1] += f" (x{entry.count})"
    out = [f"{marker} [{entry.date}] {lines[0]}"] + ["  " + ln for ln in lines[1:]]
    return newline.join(out) + newline


def _ends_line(text: str) -> bool:
    return not text or text[-1] in "\r\n"


def add_entries(notebook: Notebook, entries: Iterable[Entry]) -> Notebook:
    """Insert entries at the top of their sections (newest first), creating sections.

    A section that holds no entry yet, only text with an indented line in it (a
    tab-indented item), gets them at its end instead when at the top that line would
    join the new entry (markdown reads it as the item's continuation)."""
    by_key: dict[str, list[Entry]] = {}
    for entry in entries:
        by_key.setdefault(entry.section, []).append(entry)
    nb = notebook
    for key in SECTIONS:
        if key in by_key:
            top = _add_to_section(nb, key, by_key[key])
            nb = _below_indented(nb, key, by_key[key], top)
    return nb


def _below_indented(nb: Notebook, key: str, new: list[Entry], top: Notebook) -> Notebook:
    """`top`, unless the section had no entry and an indented line of its text would join
    the new entries there: then the section with them at its end, if that keeps them apart."""
    section = next((s for s in nb.sections if s.key == key), None)
    if section is None or section.entries or not any(_indented(p.raw) for p in section.parts):
        return top
    if hidden_entry_line(top, render(top)) is None:
        return top
    nl = nb.newline
    lines = split_lines("".join(p.raw for p in section.parts))
    last = max(i for i, line in enumerate(lines) if line.strip())
    body, blank = "".join(lines[: last + 1]), "".join(lines[last + 1 :])
    body += nl + nl if not _ends_line(body) else nl
    parts: list[Part] = [Foreign(body)]
    parts += [replace(e, raw=format_entry(e, nl)) for e in sorted(new, key=lambda e: e.date, reverse=True)]
    parts += [Foreign(blank)] if blank else []
    sections = [Section(s.key, s.heading, tuple(parts)) if s is section else s for s in nb.sections]
    below = replace(nb, sections=tuple(sections))
    return below if hidden_entry_line(below, render(below)) is None else top


def _indented(text: str) -> bool:
    return any(line[:1] in (" ", "\t") and line.strip() for line in split_lines(text))


def _add_to_section(nb: Notebook, key: str, new: list[Entry]) -> Notebook:
    nl = nb.newline
    new = sorted(new, key=lambda e: e.date, reverse=True)  # stable: same-day order kept
    where = next((i for i, s in enumerate(nb.sections) if s.key == key), None)
    if where is None:
        return _add_section(nb, key, new)
    section = nb.sections[where]
    parts = list(section.parts)
    first = next((i for i, p in enumerate(parts) if isinstance(p, Entry)), None)
    heading = section.heading
    if first is None:
        if not _ends_line(heading):
            heading += nl
        first = 0
        later = nb.sections[where + 1].heading if where + 1 < len(nb.sections) else ""
        follows = parts[0].raw if parts else later
        if follows.strip() and not follows.lstrip(" \r\n").startswith("#"):
            # a paragraph right under a new list item would become part of that item
            parts.insert(0, Foreign(nl))
    # an entry that follows uses its list's marker, so the new lines join that list
    follower = parts[first] if first < len(parts) else None
    marker = follower.raw.lstrip()[:1] if isinstance(follower, Entry) else "-"
    # newest first: each goes above the first entry no newer than it (today's go on top;
    # an imported older entry goes among the entries of its time); oldest inserted first,
    # so a batch's same-day entries keep their order
    for e in reversed(new):
        entry = replace(e, raw=format_entry(e, nl, marker))
        dates = [(i, p.date) for i, p in enumerate(parts) if i >= first and isinstance(p, Entry)]
        at = next((i for i, d in dates if d <= e.date), dates[-1][0] + 1 if dates else first)
        parts.insert(at, entry)
    sections = list(nb.sections)
    sections[where] = Section(section.key, heading, tuple(parts))
    return replace(nb, sections=tuple(sections))


def _add_section(nb: Notebook, key: str, new: list[Entry]) -> Notebook:
    nl = nb.newline
    order = SECTIONS.index(key)
    managed = [(i, SECTIONS.index(s.key)) for i, s in enumerate(nb.sections) if s.key is not None]
    before = [i for i, rank in managed if rank < order]
    after = [i for i, rank in managed if rank > order]
    at = before[-1] + 1 if before else (after[0] if after else len(nb.sections))
    parts: list[Part] = [replace(e, raw=format_entry(e, nl)) for e in new]
    sections = list(nb.sections)
    heading = f"## {TITLES[key]}{nl}"
    if at == len(sections):
        # appended at the end: the text before ends its line, then one blank line
        text = render(nb)
        fix = ("" if _ends_line(text) else nl) + (nl if text.strip() and not text.endswith(nl + nl) else "")
        if fix and sections:
            last = sections[-1]
            sections[-1] = replace(last, parts=(*last.parts, Foreign(fix)))
        elif fix:
            nb = replace(nb, head=nb.head + fix)
    else:
        parts.append(Foreign(nl))
    sections.insert(at, Section(key, heading, tuple(parts)))
    return replace(nb, sections=tuple(sections))


def remove_parts(nb: Notebook, positions: set[tuple[int, int]]) -> Notebook:
    """The notebook without the parts at (section index, part index) positions."""
    if not positions:
        return nb
    sections = []
    for si, section in enumerate(nb.sections):
        parts = tuple(p for pi, p in enumerate(section.parts) if (si, pi) not in positions)
        sections.append(section if len(parts) == len(section.parts) else replace(section, parts=parts))
    return replace(nb, sections=tuple(sections))


def entry_positions(nb: Notebook) -> list[tuple[int, int, Entry]]:
    """Every managed entry with its (section index, part index), in file order."""
    return [
        (si, pi, p)
        for si, s in enumerate(nb.sections)
        if s.key is not None
        for pi, p in enumerate(s.parts)
        if isinstance(p, Entry)
    ]


def new_notebook_text(role: str, newline: str = "\n") -> str:
    """The notebook `init` writes: a title and the four sections, empty."""
    out = [f"# {role} notebook", ""]
    for key in SECTIONS:
        out += [f"## {TITLES[key]}", ""]
    return newline.join(out[:-1]) + newline


def hidden_entry_line(expected: Notebook, text: str) -> int | None:
    """The 1-based line of the first entry of `expected` that parsing `text` would not see.

    None when every entry parses back: the check that keeps an unclosed code fence or
    HTML block in a notebook from swallowing entries written below it.
    """
    seen = Counter((e.section, e.date, e.text, e.count) for e in parse(text).entries())
    line = count_lines(expected.head) + 1
    for section in expected.sections:
        line += count_lines(section.heading)
        for part in section.parts:
            if isinstance(part, Entry) and section.key is not None:
                key = (part.section, part.date, part.text, part.count)
                if seen[key] <= 0:
                    return line
                seen[key] -= 1
            line += count_lines(part.raw)
    return None


def code_lines(text: str) -> set[int]:
    """0-based numbers of the lines inside code blocks (fenced or indented), at any depth."""
    src = split_lines(text)
    if src and src[0].startswith(BOM):
        src[0] = src[0][1:]
    out: set[int] = set()
    for tok in _parser().parse("".join(src)):
        if tok.type in ("fence", "code_block") and tok.map:
            out.update(range(tok.map[0], tok.map[1]))
    return out
