"""What the native memories of agent CLIs share: folders of markdown files, some with YAML
frontmatter, read as blocks (a list item with its continuation lines, or a paragraph),
each with its line and the heading it sits under. The readers of Claude Code's, Codex's
and Serena's memories (claude.py, codex.py) map those blocks onto rolebook's sections and
store categories."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rolebook.notebook import ConfigError, RolebookError
from rolebook.notebook.markdown import frontmatter_span, split_lines
from rolebook.notebook.model import section_key
from rolebook.notebook.store import MAX_ENTRY_CHARS, check_text

from .common import Item, Problem, Source, file_bytes, file_day, record_key

#: A memory file bigger than this is not a note (Claude asks for under 4 KB, Serena's are a page).
MAX_FILE_BYTES = 256 * 1024

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"( {0,3})(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$")
_DATED = re.compile(r"\[(\d{4}-\d{2}-\d{2})\]\s*(.*)$", re.DOTALL)
_COMMENT = re.compile(r"\A\s*<!--.*?-->\s*\Z", re.DOTALL)
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True, slots=True)
class Block:
    """A list item (`item`) or a paragraph (`prose`): its first line, its text, and the
    headings it sits under (outermost first, as `(level, text)`)."""

    line: int
    kind: str
    text: str
    headings: tuple[tuple[int, str], ...] = ()

    @property
    def heading(self) -> str:
        return self.headings[-1][1] if self.headings else ""

    def under(self, level: int) -> str:
        """The text of the nearest heading of this level ("" when none)."""
        return next((t for lv, t in reversed(self.headings) if lv == level), "")


@dataclass(slots=True)
class MemoryFile:
    """A memory file read: its frontmatter (a mapping, empty when none), the body's lines
    and the line the body starts on, and the file's date (its modification day)."""

    path: Path
    text: str
    meta: dict[str, Any] = field(default_factory=dict)
    body: list[str] = field(default_factory=list)
    body_line: int = 1
    day: str = ""


def read_file(path: Path, source: Source) -> MemoryFile | None:
    """The file, or None with a problem at `path:line` (not UTF-8, too big, frontmatter
    that is not YAML or not a mapping)."""
    source.files += 1
    data = file_bytes(path, source, MAX_FILE_BYTES)
    if data is None:
        return None
    if len(data) > MAX_FILE_BYTES:
        source.problems.append(Problem(f"{path}:1", f"over {MAX_FILE_BYTES:,} bytes: not a memory file"))
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        source.problems.append(Problem(f"{path}:1", f"cannot read as UTF-8 text ({exc.__class__.__name__})"))
        return None
    lines = split_lines(text)
    span = frontmatter_span(lines)
    if not span and lines and lines[0].rstrip("\r\n") == "---":
        source.problems.append(Problem(f"{path}:1", "frontmatter opened here is never closed by a '---' line"))
        return None
    meta: Any = {}
    if span:
        from rolebook.notebook.settings import load_yaml

        try:
            meta = load_yaml("".join(lines[1 : span - 1]), path, 2, "frontmatter is not YAML", span - 1) or {}
        except ConfigError as exc:
            source.problems.append(Problem(f"{path}:{exc.line or 2}", exc.message))
            return None
        if not isinstance(meta, dict):
            source.problems.append(Problem(f"{path}:2", "frontmatter is not a mapping of keys to values"))
            return None
    return MemoryFile(path, text, dict(meta), lines[span:], span + 1, file_day(path))


def blocks(lines: list[str], first_line: int = 1) -> Iterator[Block]:
    """The list items and paragraphs of markdown `lines`, in order. A fenced code block
    belongs to the paragraph or item it follows; headings are context, not blocks; HTML
    comments are left out."""
    headings: list[tuple[int, str]] = []
    kind, start = "", 0  # the open block
    text: list[str] = []
    fence = ""

    def close() -> Block | None:
        body = "\n".join(text).strip()
        if kind and body and not _COMMENT.match(body):
            return Block(start, kind, body, tuple(headings))
        return None

    for n, raw in enumerate(lines, first_line):
        line = raw.rstrip("\r\n")
        if fence:
            text.append(line)
            if line.strip().startswith(fence):
                fence = ""
            continue
        opened = _FENCE.match(line)
        if opened:
            if not kind:
                kind, start, text = "prose", n, []
            text.append(line)
            fence = opened.group(1)[0] * 3
            continue
        heading = _HEADING.match(line)
        if heading:
            if (done := close()) is not None:
                yield done
            kind, text = "", []
            level = len(heading.group(1))
            headings = [h for h in headings if h[0] < level] + [(level, (heading.group(2) or "").strip())]
            continue
        if not line.strip():
            if kind == "prose" and (done := close()) is not None:
                yield done
            if kind == "prose":
                kind, text = "", []
            continue
        item = _ITEM.match(line)
        if item and not item.group(1):
            if (done := close()) is not None:
                yield done
            kind, start, text = "item", n, [item.group(2)]
            continue
        if kind == "item" and (line[:1] in " \t" or item):
            text.append(item.group(2) if item else line.strip())  # a nested item or a continuation
            continue
        if kind == "item":
            if (done := close()) is not None:
                yield done
            kind = ""
        if not kind:
            kind, start, text = "prose", n, []
        text.append(line)
    if (done := close()) is not None:
        yield done


def section_of(heading: str) -> str | None:
    """The notebook section a heading names (`Mistakes`, `Stakeholder Feedback`...), if any."""
    return section_key(heading.strip().strip("#").strip()) if heading else None


def one_line(text: str) -> str:
    """Markdown text as one line: list markers, bold and extra space gone."""
    text = re.sub(r"\*\*([^*]+)\*\*", r"\1", text)
    return " ".join(
        ln.strip().lstrip("-*+ ").strip() if ln.strip()[:2] in ("- ", "* ", "+ ") else ln.strip()
        for ln in text.split("\n")
        if ln.strip()
    )


def dated(text: str, day: str) -> tuple[str, str]:
    """(date, text): a leading `[YYYY-MM-DD]` when there is one, else `day`."""
    m = _DATED.match(text)
    return (m.group(1), m.group(2).strip()) if m else (day, text)


def day_of(value: Any) -> str | None:
    """The day of a frontmatter timestamp (a string, or what YAML made of it), or None."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str) and _TIMESTAMP.match(value.strip()):
        try:
            return dt.date.fromisoformat(value.strip()[:10]).isoformat()
        except ValueError:
            return None
    return None


def check(text: str, where: str, source: Source) -> str | None:
    """`text` as rolebook stores it, or None with a problem (a control character, empty)."""
    try:
        return check_text(text)
    except RolebookError as exc:
        source.problems.append(Problem(where, str(exc).split(": ", 1)[-1]))
        return None


def fits(text: str) -> bool:
    return len(text) <= MAX_ENTRY_CHARS


def pieces(text: str) -> list[str]:
    """`text` cut at line ends (or spaces) into pieces that fit an item."""
    from .notes import _pieces

    return _pieces(text)


def stored(
    source: Source,
    where: str,
    fmt: str,
    category: str,
    day: str,
    text: str,
    role: str | None,
    fields: dict[str, Any],
    key: Any,
) -> None:
    """`text` kept as stored items (one, or several pieces when it is long) in `category`."""
    for n, piece in enumerate(pieces(text)):
        body = check(piece, where, source)
        if body is None:
            return
        k = record_key(fmt, [key, n] if n else key)
        source.add(Item(where, "stored", category, day, body, role, key=k, fields=dict(fields)))


def entry(
    source: Source, where: str, section: str, day: str, text: str, role: str | None, fields: dict[str, Any]
) -> None:
    """A notebook entry; text too long for one is stored in the archive instead (`notes`)."""
    body = check(text, where, source)
    if body is None:
        return
    if fits(body):
        source.add(Item(where, "entry", section, day, body, role, fields=fields))
    else:
        stored(source, where, str(fields.get("source", "")), "notes", day, text, role, fields, [where, text])


def category_of(name: str, fallback: str = "notes") -> str:
    """A store category made of a name (`Suggested Commands` -> `suggested_commands`)."""
    from rolebook.notebook.model import SECTIONS

    cat = re.sub(r"[^a-z0-9_-]+", "_", name.strip().lower()).strip("_-")[:64] or fallback
    return f"{cat}_notes" if cat in SECTIONS else cat
