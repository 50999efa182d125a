"""Readers of notes: a markdown notebook or lessons file, and an agent-cerebro home
(`rolebook import`)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from rolebook.notebook import SECTIONS, Entry, Foreign, InputError, parse
from rolebook.notebook.markdown import split_lines
from rolebook.notebook.model import count_lines, is_role
from rolebook.notebook.store import MAX_ENTRY_CHARS

from .common import (
    BadRecord,
    Item,
    Problem,
    Source,
    day_field,
    file_bytes,
    file_day,
    files_of,
    opened,
    record_key,
    tags_field,
    take,
    text_field,
)

# -- markdown: a notebook, or any notebook-like lessons file ---------------------------------

_COMMENT = re.compile(r"\A\s*<!--.*?-->\s*\Z", re.DOTALL)


def read_markdown(path: Path, source: Source | None = None) -> Source:
    """A markdown file (or a folder of `.md` files, each a role named by its file).

    Dated items of Mistakes / Learnings / Feedback / Session Log become notebook entries;
    undated items there take the file's modification date. Any other text (prose, other
    sections, lists elsewhere) is kept as stored items in the `notes` category, a
    paragraph each, under its heading: nothing is dropped. HTML comments, the frontmatter
    and the `#` title are template, not memory, and are left out.
    """
    source = Source() if source is None else source
    for file in files_of(path, "*.md", source):
        _markdown_file(file, source)
    return source


def _markdown_file(path: Path, source: Source) -> None:
    """The role is the file's name when that is a role name (`coder.md`), else `--role`."""
    source.files += 1
    data = file_bytes(path, source)
    if data is None:
        return
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        source.problems.append(Problem(f"{path}:1", f"cannot read as UTF-8 text ({exc.__class__.__name__})"))
        return
    stem = path.stem.lower()
    role = stem if is_role(stem) else None
    day = file_day(path)
    nb = parse(text, undated=day)
    undated = {n for n, ln in enumerate(split_lines(text), 1) if _is_undated_item(ln)}
    lineno = count_lines(nb.head) + 1
    notes: list[tuple[int, str, str]] = [(1, "", chunk) for chunk in _head_prose(nb.head)]
    for section in nb.sections:
        heading = section.heading.strip().lstrip("#").strip()
        lineno += count_lines(section.heading)
        for part in section.parts:
            where = f"{path}:{lineno}"
            if isinstance(part, Entry):
                entry = part

                def build(entry: Entry = entry, where: str = where, at: int = lineno) -> list[Item]:
                    body = text_field(entry.text, "entry")
                    fields: dict[str, Any] = {"source": "markdown"}
                    if at in undated:
                        fields["undated"] = True
                    return [Item(where, "entry", entry.section, entry.date, body, role, entry.count, fields=fields)]

                take(source, where, build)
            elif isinstance(part, Foreign):
                notes += [(lineno + off, heading, chunk) for off, chunk in _paragraphs(part.raw)]
            lineno += count_lines(part.raw)
    for at, heading, chunk in notes:
        where = f"{path}:{at}"
        for piece in _pieces(chunk):
            text_ = f"{heading}: {piece}" if heading else piece
            fields = {"source": "markdown", "heading": heading} if heading else {"source": "markdown"}
            take(
                source,
                where,
                lambda t=text_, w=where, f=fields: [  # type: ignore[misc]
                    Item(
                        w, "stored", "notes", day, text_field(t, "text"), role, key=record_key("markdown", t), fields=f
                    )
                ],
            )


def _is_undated_item(line: str) -> bool:
    return bool(re.match(r"[-*+] (?!\s*\[\d{4}-\d{2}-\d{2}\])\S", line))


def _head_prose(head: str) -> list[str]:
    """Paragraphs above the first section, without frontmatter and `#` title."""
    lines = split_lines(head)
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        lines = lines[end + 1 :] if end is not None else lines
    body = "".join(ln for ln in lines if not re.match(r"\s{0,3}# ", ln))
    return [chunk for _, chunk in _paragraphs(body)]


def _paragraphs(raw: str) -> list[tuple[int, str]]:
    """(line offset, text) of each blank-line separated block that is not only a comment."""
    out: list[tuple[int, str]] = []
    block: list[str] = []
    start = 0
    for n, line in enumerate([*split_lines(raw), ""]):
        if line.strip():
            if not block:
                start = n
            block.append(line.rstrip("\r\n"))
            continue
        if block:
            text = "\n".join(block)
            if not _COMMENT.match(text) and text.strip():
                out.append((start, text))
            block = []
    return out


def _pieces(text: str) -> list[str]:
    """`text` cut at line ends (or spaces) into pieces that fit an item."""
    cap = MAX_ENTRY_CHARS - 100  # room for the heading in front
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > cap:
            cut = line.rfind(" ", 0, cap)
            cut = cut if cut > cap // 2 else cap
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:cut])
            line = line[cut:].lstrip()
        if current and len(current) + 1 + len(line) > cap:
            pieces.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current.strip():
        pieces.append(current)
    return pieces


# -- agent-cerebro: memory.sqlite3 and its markdown notebooks ------------------------------


def read_cerebro(path: Path, source: Source | None = None) -> Source:
    """An agent-cerebro home: `memory.sqlite3` (long-term entries: role, category, text,
    tags, dates; invalidated ones too, marked) and the `<role>.md` notebooks beside it.
    Either may be given alone. Embeddings are not carried over: rolebook computes its own."""
    source = Source() if source is None else source
    if path.is_dir():
        db = path / "memory.sqlite3"
        notebooks = sorted(p for p in path.glob("*.md") if is_role(p.stem.lower()))
        if not db.exists() and not notebooks:
            raise InputError(f"{path}: neither memory.sqlite3 nor <role>.md notebooks in this folder")
    elif path.suffix == ".md":
        db, notebooks = None, [path]
    else:
        db, notebooks = path, []
    if db is not None and db.exists():
        _cerebro_db(db, source)
    for nb in notebooks:
        _markdown_file(nb, source)
    return source


def _cerebro_db(db: Path, source: Source) -> None:
    source.files += 1
    check = opened(db, source)  # SQLite would wait on a pipe, and follow a link out
    if check is None:
        return
    check.close()
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{db}: not a readable SQLite database ({exc})") from None
    try:
        keep, rows = _cerebro_rows(db, conn)
        # a thousand rows at a time: a database of any size is never held whole
        while batch := _fetch(db, rows):
            for row in batch:
                obj = dict(zip(keep, row, strict=True))
                where = f"{db}:{obj.get('id', '?')}"
                take(source, where, lambda obj=obj, where=where: [_cerebro_item(obj, where)])  # type: ignore[misc]
    finally:
        conn.close()


def _cerebro_rows(db: Path, conn: sqlite3.Connection) -> tuple[list[str], sqlite3.Cursor]:
    try:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(entries)")]
        if not {"role", "category", "text"} <= set(cols):
            raise InputError(f"{db}: not an agent-cerebro database (no entries table with role, category, text)")
        keep = [c for c in cols if c != "embedding"]
        return keep, conn.execute(f"SELECT {', '.join(keep)} FROM entries ORDER BY rowid")
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{db}: not a readable SQLite database ({exc})") from None


def _fetch(db: Path, rows: sqlite3.Cursor) -> list[Any]:
    try:
        return rows.fetchmany(1000)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{db}: not a readable SQLite database ({exc})") from None


def _cerebro_item(obj: dict[str, Any], where: str) -> Item:
    role = obj.get("role")
    if not isinstance(role, str) or not is_role(role.strip().lower()):
        raise BadRecord(f"role {role!r} is not a role name (lowercase letters, digits, '-', '_')")
    category = str(obj.get("category") or "").strip().lower()
    category = re.sub(r"[^a-z0-9_-]+", "_", category).strip("_-") or "general"
    if category in SECTIONS:
        category = f"{category}_longterm"  # a notebook section's name is not a store category
    tags = obj.get("tags")
    if isinstance(tags, str):
        raw = tags
        try:
            tags = json.loads(raw) if raw.strip() else []
        except ValueError:
            tags = [t for t in raw.split(",") if t.strip()]
    fields: dict[str, Any] = {"source": "cerebro"}
    if obj.get("id") is not None:
        fields["source_id"] = obj["id"]
    if obj.get("invalidated_at"):
        fields["invalidated"] = obj.get("invalidation_reason") or True
    fields["original"] = obj
    return Item(
        where,
        "stored",
        category[:64],
        day_field(obj.get("created_at"), "created_at"),
        text_field(obj.get("text"), "text"),
        role.strip().lower(),
        tags=tags_field(tags),
        key=record_key("cerebro", obj),
        fields=fields,
    )
