"""Readers for the memory of other tools: `rolebook import FORMAT PATH`.

Each reader turns a source into `Item`s (a notebook entry, a stored item or a logged
event) and `Problem`s (a line it cannot take, as `path:line: why`), without writing
anything. An item keeps its original date, a `source` field naming the format, and the
source's own record under `original`, so nothing the source said is lost. Its identity
(`key`) is the source record itself: importing the same file twice adds nothing.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rolebook.notebook.errors import InputError, RolebookError
from rolebook.notebook.intake import MAX_ENTRY_CHARS, check_date, check_text
from rolebook.notebook.longterm import EVENT_TYPES, check_tags, derive_ctx_hash, parse_outcome
from rolebook.notebook.markdown import parse, split_lines
from rolebook.notebook.model import SECTIONS, Entry, Foreign, count_lines, is_role


@dataclass(frozen=True, slots=True)
class Item:
    """One thing to bring in. `kind` is `entry` (a notebook entry), `stored` or `logged`;
    `section` is the notebook section, the store category or the event type."""

    where: str
    kind: str
    section: str
    date: str
    text: str
    role: str | None = None
    count: int = 1
    tags: tuple[str, ...] = ()
    key: str = ""
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Problem:
    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(slots=True)
class Source:
    """What a reader found: items, problems, and what the user should know."""

    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: int = 0


class _Bad(Exception):
    """A field that makes its line unusable."""


def _check(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except RolebookError as exc:
        raise _Bad(str(exc).split(": ", 1)[-1] if isinstance(exc, InputError) else str(exc)) from None


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"field {name!r} is missing or empty")
    return str(_check(lambda: check_text(value)))


def _day(value: Any, name: str) -> str:
    """The date of an ISO 8601 date or timestamp (RFC 3339, nanoseconds and all)."""
    if not isinstance(value, str) or not re.match(r"\d{4}-\d{2}-\d{2}", value):
        raise _Bad(f"field {name!r} is not an ISO date or timestamp: {value!r}")
    return str(_check(lambda: check_date(value[:10])))


def _tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise _Bad("field 'tags' is not a list of strings")
    return tuple(_check(lambda: check_tags([re.sub(r"\s+", "-", t.strip()) for t in value])))


def _key(fmt: str, data: Any) -> str:
    return fmt + ":" + json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _file_day(path: Path) -> str:
    return dt.date.fromtimestamp(path.stat().st_mtime).isoformat()


def _jsonl(path: Path, source: Source) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path:line, object) for each non-blank line; other lines become problems."""
    source.files += 1
    try:
        data = path.read_bytes()
    except OSError as exc:
        source.problems.append(Problem(f"{path}:1", f"cannot read: {exc.strerror or exc}"))
        return
    for n, raw in enumerate(data.splitlines(), 1):
        where = f"{path}:{n}"
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            source.problems.append(Problem(where, f"not JSON ({exc.__class__.__name__})"))
            continue
        if not isinstance(obj, dict):
            source.problems.append(Problem(where, "not a JSON object"))
            continue
        yield where, obj


def _files(path: Path, pattern: str, source: Source) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError(f"{path}: no such file or folder")
    found = sorted(p for p in path.rglob(pattern) if p.is_file() and ".rolebook" not in p.parts)
    if not found:
        raise InputError(f"{path}: no {pattern} files in this folder")
    return found


def _take(source: Source, where: str, build: Callable[[], list[Item]]) -> None:
    try:
        source.items.extend(build())
    except _Bad as exc:
        source.problems.append(Problem(where, str(exc)))


# -- X-MEM: failures.jsonl / successes.jsonl ---------------------------------------------

_CTX_HASH = re.compile(r"[a-z0-9][a-z0-9-]{0,119}")


def read_xmem(path: Path) -> Source:
    """X-MEM's `failures.jsonl` and `successes.jsonl` (a file, or a folder holding them)."""
    source = Source()
    if path.is_dir():
        files = [p for name in ("failures.jsonl", "successes.jsonl") for p in sorted(path.rglob(name))]
        if not files:
            raise InputError(f"{path}: no failures.jsonl or successes.jsonl in this folder")
    else:
        files = _files(path, "*.jsonl", source)
    for file in files:
        for where, obj in _jsonl(file, source):
            _take(source, where, lambda obj=obj, where=where, file=file: [_xmem_item(obj, where, file.name)])  # type: ignore[misc]
    return source


def _xmem_item(obj: dict[str, Any], where: str, filename: str) -> Item:
    kind = obj.get("type") or ("tool_success" if "success" in filename else "tool_failure")
    if kind not in ("tool_failure", "tool_success"):
        raise _Bad(f"field 'type' is {kind!r}, not tool_failure or tool_success")
    date = _day(obj.get("ts"), "ts")
    tool = str(obj.get("tool")) if isinstance(obj.get("tool"), str) else ""
    ctx_hash = obj.get("ctx_hash")
    if not isinstance(ctx_hash, str) or not _CTX_HASH.fullmatch(ctx_hash):
        ctx_hash = None
    fields: dict[str, Any] = {"source": "xmem"}
    if kind == "tool_failure":
        action = str(obj.get("action")) if isinstance(obj.get("action"), str) else ""
        error = str(obj.get("error")) if isinstance(obj.get("error"), str) else ""
        advice = obj.get("pattern_avoid")
        text = _text(advice if isinstance(advice, str) and advice.strip() else error, "pattern_avoid")
        context = f"{tool} {action}".strip() + (f": {error}" if error else "")
        fields.update(type="error", outcome="0/1")
        if context:
            fields["context"] = _text(context, "action")
        if action:
            fields["command"] = _text(action, "action")
        fields["ctx_hash"] = ctx_hash or derive_ctx_hash(f"{tool} {action}", error)
    else:
        name = _text(obj.get("pattern_name"), "pattern_name")
        steps = obj.get("key_steps") or []
        if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
            raise _Bad("field 'key_steps' is not a list of strings")
        text = _text(name + (": " + "; ".join(steps) if steps else ""), "pattern_name")
        uses = obj.get("usage_count", 1)
        confidence = obj.get("confidence", 1.0)
        if isinstance(uses, bool) or not isinstance(uses, int) or uses < 0:
            raise _Bad(f"field 'usage_count' is not a whole number >= 0: {uses!r}")
        if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
            raise _Bad(f"field 'confidence' is not a number from 0 to 1: {confidence!r}")
        tries = max(uses, 1)
        fields.update(type="success", outcome=f"{round(confidence * tries)}/{tries}")
        fields["ctx_hash"] = ctx_hash or derive_ctx_hash(f"{tool} {name}")
    if isinstance(obj.get("id"), str):
        fields["source_id"] = obj["id"]
    fields["original"] = obj
    return Item(
        where, "logged", fields["type"], date, text, tags=_tags(obj.get("tags")), key=_key("xmem", obj), fields=fields
    )


# -- agent-knowledge: per-repo JSONL event logs ------------------------------------------


def read_agent_knowledge(path: Path) -> Source:
    """agent-knowledge event logs: a `.jsonl` file, or a folder of them (one per repo)."""
    source = Source()
    for file in _files(path, "*.jsonl", source):
        for where, obj in _jsonl(file, source):
            _take(source, where, lambda obj=obj, where=where: [_knowledge_item(obj, where)])  # type: ignore[misc]
    return source


def _knowledge_item(obj: dict[str, Any], where: str) -> Item:
    event = obj.get("event_type")
    if event not in EVENT_TYPES:
        raise _Bad(f"field 'event_type' is {event!r}, not one of {', '.join(EVENT_TYPES)}")
    date = _day(obj.get("timestamp"), "timestamp")
    text = _text(obj.get("lesson"), "lesson")
    fields: dict[str, Any] = {"source": "agent-knowledge", "type": event}
    for name in ("context", "command"):
        value = obj.get(name)
        if isinstance(value, str) and value.strip():
            fields[name] = _text(value, name)
    rate = obj.get("success_rate")
    if isinstance(rate, str) and rate.strip():
        k, n = _check(lambda: parse_outcome(rate))
        fields["outcome"] = f"{k}/{n}"
    elif event != "pattern":
        fields["outcome"] = "1/1" if event == "success" else "0/1"
    fields["ctx_hash"] = derive_ctx_hash(fields.get("context") or fields.get("command") or text)
    agent = obj.get("agent_id")
    role = agent.strip().lower() if isinstance(agent, str) and is_role(agent.strip().lower()) else None
    fields["original"] = obj
    tags = _tags(obj.get("tags"))
    return Item(where, "logged", event, date, text, role, tags=tags, key=_key("agent-knowledge", obj), fields=fields)


# -- memcache: journal/YYYY/MM/DD.jsonl ------------------------------------------------------

MEMCACHE_KINDS = ("turn", "command", "edit", "test", "error", "decision", "checkpoint", "note", "summary")


def read_memcache(path: Path) -> Source:
    """A memcache store: its folder (`.agents/.memcache`), its `journal/`, a repo holding
    one, or one journal file. Each record becomes a stored item in the category of its kind."""
    source = Source()
    if path.is_dir():
        for inner in (path / ".agents" / ".memcache" / "journal", path / "journal"):
            if inner.is_dir():
                path = inner
                break
    for file in _files(path, "*.jsonl", source):
        for where, obj in _jsonl(file, source):
            _take(source, where, lambda obj=obj, where=where: [_memcache_item(obj, where)])  # type: ignore[misc]
    return source


def _memcache_item(obj: dict[str, Any], where: str) -> Item:
    kind = obj.get("kind", "note")
    if kind not in MEMCACHE_KINDS:
        raise _Bad(f"field 'kind' is {kind!r}, not one of {', '.join(MEMCACHE_KINDS)}")
    date = _day(obj.get("ts"), "ts")
    summary = _text(obj.get("summary"), "summary")
    detail = obj.get("text")
    text = summary
    if isinstance(detail, str) and detail.strip() and detail.strip() != summary:
        joined = f"{summary}\n{detail}"
        if len(joined) <= MAX_ENTRY_CHARS:  # the whole detail stays in `original` either way
            text = _text(joined, "text")
    fields: dict[str, Any] = {"source": "memcache"}
    if isinstance(obj.get("id"), str):
        fields["source_id"] = obj["id"]
    fields["original"] = obj
    tags = _tags(obj.get("tags"))
    return Item(where, "stored", kind, date, text, tags=tags, key=_key("memcache", obj), fields=fields)


# -- @modelcontextprotocol/server-memory: knowledge-graph JSONL ------------------------------


def read_mcp_memory(path: Path) -> Source:
    """The knowledge graph of the MCP reference memory server (`memory.jsonl`): each
    observation of an entity, and each relation, becomes a stored item in `knowledge`.
    The graph has no dates: items take the file's modification date."""
    source = Source()
    for file in _files(path, "*.jsonl", source):
        day = _file_day(file)
        for where, obj in _jsonl(file, source):
            _take(source, where, lambda obj=obj, where=where, day=day: _graph_items(obj, where, day))  # type: ignore[misc]
    source.notes.append("the knowledge graph has no dates: its items are dated with the file's modification date")
    return source


def _graph_items(obj: dict[str, Any], where: str, day: str) -> list[Item]:
    kind = obj.get("type")

    def item(text: str, part: Any) -> Item:
        fields = {"source": "mcp-memory", "original": obj}
        return Item(where, "stored", "knowledge", day, text, key=_key("mcp-memory", [obj, part]), fields=fields)

    if kind == "entity":
        name = _text(obj.get("name"), "name")
        etype = obj.get("entityType")
        label = f"{name} ({_text(etype, 'entityType')})"
        observations = obj.get("observations", [])
        if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
            raise _Bad("field 'observations' is not a list of strings")
        kept = [o for o in observations if o.strip()]
        return [item(_text(f"{label}: {o}", "observations"), o) for o in kept] or [item(label, None)]
    if kind == "relation":
        parts = [_text(obj.get(k), k) for k in ("from", "relationType", "to")]
        return [item(_text(" ".join(parts), "relationType"), None)]
    raise _Bad(f"field 'type' is {kind!r}, not entity or relation")


# -- markdown: a notebook, or any notebook-like lessons file ---------------------------------

_COMMENT = re.compile(r"\A\s*<!--.*?-->\s*\Z", re.DOTALL)


def read_markdown(path: Path) -> Source:
    """A markdown file (or a folder of `.md` files, each a role named by its file).

    Dated items of Mistakes / Learnings / Feedback / Session Log become notebook entries;
    undated items there take the file's modification date. Any other text (prose, other
    sections, lists elsewhere) is kept as stored items in the `notes` category, a
    paragraph each, under its heading: nothing is dropped. HTML comments, the frontmatter
    and the `#` title are template, not memory, and are left out.
    """
    source = Source()
    for file in _files(path, "*.md", source):
        _markdown_file(file, source)
    return source


def _markdown_file(path: Path, source: Source) -> None:
    """The role is the file's name when that is a role name (`coder.md`), else `--role`."""
    source.files += 1
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        source.problems.append(Problem(f"{path}:1", f"cannot read as UTF-8 text ({exc.__class__.__name__})"))
        return
    stem = path.stem.lower()
    role = stem if is_role(stem) else None
    day = _file_day(path)
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
                    body = _text(entry.text, "entry")
                    fields: dict[str, Any] = {"source": "markdown"}
                    if at in undated:
                        fields["undated"] = True
                    return [Item(where, "entry", entry.section, entry.date, body, role, entry.count, fields=fields)]

                _take(source, where, build)
            elif isinstance(part, Foreign):
                notes += [(lineno + off, heading, chunk) for off, chunk in _paragraphs(part.raw)]
            lineno += count_lines(part.raw)
    for at, heading, chunk in notes:
        where = f"{path}:{at}"
        for piece in _pieces(chunk):
            text_ = f"{heading}: {piece}" if heading else piece
            fields = {"source": "markdown", "heading": heading} if heading else {"source": "markdown"}
            _take(
                source,
                where,
                lambda t=text_, w=where, f=fields: [  # type: ignore[misc]
                    Item(w, "stored", "notes", day, _text(t, "text"), role, key=_key("markdown", t), fields=f)
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


def read_cerebro(path: Path) -> Source:
    """An agent-cerebro home: `memory.sqlite3` (long-term entries: role, category, text,
    tags, dates; invalidated ones too, marked) and the `<role>.md` notebooks beside it.
    Either may be given alone. Embeddings are not carried over: rolebook computes its own."""
    source = Source()
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
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            cols = [r[1] for r in conn.execute("PRAGMA table_info(entries)")]
            if not {"role", "category", "text"} <= set(cols):
                raise InputError(f"{db}: not an agent-cerebro database (no entries table with role, category, text)")
            keep = [c for c in cols if c != "embedding"]
            rows = conn.execute(f"SELECT {', '.join(keep)} FROM entries ORDER BY rowid").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{db}: not a readable SQLite database ({exc})") from None
    for row in rows:
        obj = dict(zip(keep, row, strict=True))
        where = f"{db}:{obj.get('id', '?')}"
        _take(source, where, lambda obj=obj, where=where: [_cerebro_item(obj, where)])  # type: ignore[misc]


def _cerebro_item(obj: dict[str, Any], where: str) -> Item:
    role = obj.get("role")
    if not isinstance(role, str) or not is_role(role.strip().lower()):
        raise _Bad(f"role {role!r} is not a role name (lowercase letters, digits, '-', '_')")
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
        _day(obj.get("created_at"), "created_at"),
        _text(obj.get("text"), "text"),
        role.strip().lower(),
        tags=_tags(tags),
        key=_key("cerebro", obj),
        fields=fields,
    )


READERS: dict[str, Callable[[Path], Source]] = {
    "cerebro": read_cerebro,
    "xmem": read_xmem,
    "agent-knowledge": read_agent_knowledge,
    "memcache": read_memcache,
    "mcp-memory": read_mcp_memory,
    "markdown": read_markdown,
}
