"""Claude Code's own memory, in and out: its auto memory
(`~/.claude/projects/<project>/memory/`) and a subagent's memory
(`.claude/agent-memory/<name>/`), read by `rolebook import claude-memory`; a role's
notebook written as a subagent's MEMORY.md by `rolebook export --format claude-agent-memory`.

A memory folder holds MEMORY.md (an index Claude loads at start, its first 200 lines:
`- [Title](file.md) — hook` pointers, and for a subagent often the memory itself) and
topic files, one memory each, with frontmatter `name`, `description` and a `type` (user,
feedback, project, reference; at the top level, or under `metadata:` as Claude Code 2.1
writes it) and an optional `modified` stamp; team memories sit in `team/`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError
from rolebook.notebook.model import is_role

from .common import Source, files_under, not_a_source
from .memfiles import MemoryFile, blocks, dated, day_of, entry, one_line, read_file, section_of, stored

FORMAT = "claude-memory"
INDEX = "MEMORY.md"
#: Claude Code loads this many lines of MEMORY.md into a session; the rest is cut.
WINDOW = 200
TYPES = {"feedback": ("entry", "feedback"), "project": ("entry", "learnings"), "user": ("stored", "user")}
TYPES["reference"] = ("stored", "reference")

_POINTER = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)\s*(?:[-\u2013\u2014:]+\s*)?(.*)$", re.DOTALL)
#: The first line of a MEMORY.md rolebook wrote: what `export` may replace.
MARKER = "<!-- written by rolebook export"


def read_claude_memory(path: Path, source: Source | None = None) -> Source:
    """A Claude Code memory folder (auto memory, or one subagent's), a folder of subagent
    memories (`.claude/agent-memory/`, one role per subagent), a project folder holding
    `memory/` or the folder of projects (`~/.claude/projects/`), or one memory file."""
    source = Source() if source is None else source
    for folder, role in _folders(path):
        files = [folder] if folder.is_file() else files_under(folder, "*.md", source)
        topics = _topics(folder if folder.is_dir() else folder.parent)
        for file in files:
            mf = read_file(file, source)
            if mf is None:
                continue
            if file.name == INDEX and (file.parent == folder or folder.is_file()):
                _index(mf, role, topics, source)
            else:
                _topic(mf, folder if folder.is_dir() else file.parent, role, source)
    return source


def _folders(path: Path) -> list[tuple[Path, str | None]]:
    """(memory folder or file, the role it names) for each memory folder under `path`."""
    if path.is_file():
        return [(path, _role_of(path.parent))]
    if not path.is_dir():
        raise not_a_source(path)
    if not any(path.glob("*.md")) and (path / "memory").is_dir():
        path = path / "memory"  # ~/.claude/projects/<project>/
    if any(path.glob("*.md")):
        return [(path, _role_of(path))]
    # `.claude/agent-memory/` (a folder per subagent) or `~/.claude/projects/` (a `memory/` per project)
    inner = [p if any(p.glob("*.md")) else p / "memory" for p in path.iterdir() if p.is_dir()]
    agents = sorted(p for p in inner if p.is_dir() and any(p.glob("*.md")))
    if not agents:
        raise InputError(f"{path}: no MEMORY.md or memory files here, nor subagent folders holding them")
    # a subagent's folder is named after it; a project's memory/ names no role
    return [
        (p, _role_of(p) or (p.name.lower() if p.name != "memory" and is_role(p.name.lower()) else None)) for p in agents
    ]


def _topics(folder: Path) -> set[Path]:
    """The topic files of a memory folder (every markdown file but its MEMORY.md)."""
    return {p.resolve() for p in folder.rglob("*.md") if p.is_file() and p != folder / INDEX}


def _role_of(folder: Path) -> str | None:
    """A subagent's memory folder names its role (`.claude/agent-memory/code-reviewer/`)."""
    if folder.parent.name in ("agent-memory", "agent-memory-local") and is_role(folder.name.lower()):
        return folder.name.lower()
    return None


def _topic(mf: MemoryFile, folder: Path, role: str | None, source: Source) -> None:
    """One memory: feedback to Feedback, project to Learnings, user and reference (and a
    file of no known type) kept as stored items."""
    meta = mf.meta
    inner: dict[str, Any] = meta["metadata"] if isinstance(meta.get("metadata"), dict) else {}
    kind = meta.get("type", inner.get("type"))
    name, description = meta.get("name"), meta.get("description")
    day = day_of(meta.get("modified", inner.get("modified"))) or mf.day
    body = "".join(mf.body).strip()
    rel = mf.path.relative_to(folder).as_posix() if mf.path.is_relative_to(folder) else mf.path.name
    where = f"{mf.path}:{mf.body_line}"
    fields: dict[str, Any] = {"source": FORMAT, "file": rel}
    for key, value in (("name", name), ("description", description), ("type", kind)):
        if isinstance(value, str) and value.strip():
            fields[key] = value.strip()
    if rel.startswith("team/"):
        fields["scope"] = "team"
    fields["original"] = mf.text
    if not body and not (isinstance(description, str) and description.strip()):
        return  # an empty memory: nothing to bring in
    text = one_line(body) if body else str(description).strip()
    how, section = TYPES.get(kind if isinstance(kind, str) else "", ("stored", "notes"))
    if how == "entry":
        if len(text) > 1000 and isinstance(description, str) and description.strip():
            text = description.strip()  # the whole memory stays in the record's `original`
        entry(source, where, section, day, text, role, fields)
    else:
        label = f"{fields['name']}: " if "name" in fields else ""
        stored(source, where, FORMAT, section, day, label + (body or text), role, fields, [rel, body or text])


def _index(mf: MemoryFile, role: str | None, topics: set[Path], source: Source) -> None:
    """MEMORY.md's own lines. A pointer to a topic file that is there is the index of a
    memory read from that file; any other list item is a notebook entry (under a heading
    naming a section, that section; else Learnings), a paragraph a stored note."""
    for block in blocks(mf.body, mf.body_line):
        where = f"{mf.path}:{block.line}"
        fields: dict[str, Any] = {"source": FORMAT, "file": INDEX}
        if block.heading:
            fields["heading"] = block.heading
        pointer = _POINTER.match(block.text) if block.kind == "item" else None
        if pointer and (mf.path.parent / pointer.group(2)).resolve() in topics:
            continue
        day, text = dated(block.text, mf.day)
        if pointer:  # its file is gone: the line is all that is left
            fields["link"] = pointer.group(2)
            text = f"{pointer.group(1)}: {pointer.group(3)}" if pointer.group(3).strip() else pointer.group(1)
        if block.kind == "item":
            entry(source, where, section_of(block.heading) or "learnings", day, one_line(text), role, fields)
        else:
            label = f"{block.heading}: " if block.heading and not section_of(block.heading) else ""
            stored(source, where, FORMAT, "notes", day, label + text, role, fields, [INDEX, text])


# -- out: a role's notebook as a subagent's MEMORY.md --------------------------------------


def agent_memory(notebook: str, role: str) -> str:
    """The notebook as a subagent's MEMORY.md: a marker line, then the notebook, cut to
    Claude Code's 200-line window with a last line saying how to read the rest."""
    head = [
        f"{MARKER} for role {role}: `rolebook update {role} ...` adds to it, "
        f"`rolebook export --format claude-agent-memory --role {role} DIR` rewrites it -->\n"
    ]
    lines = [ln if ln.endswith("\n") else ln + "\n" for ln in notebook.splitlines()]
    if lines and lines[0].strip() == "---":  # frontmatter (limits) is rolebook's, not Claude's
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        lines = lines[end + 1 :] if end is not None else lines
    room = WINDOW - len(head)
    if len(lines) > room:
        cut = len(lines) - room + 1
        lines = [*lines[: room - 1], f"({cut} more lines: `rolebook read {role}` shows the whole notebook)\n"]
    return "".join(head + lines)


def unimported(folder: Path, role: str, known: Any) -> list[str]:
    """Where the MEMORY.md in `folder` holds memory the role's archive does not: an export
    must not replace it. `known(role, ids)` answers which ids the archive holds."""
    from rolebook.notebook.model import entry_id

    path = folder / INDEX
    if not path.exists():
        return []
    from rolebook.notebook.store import read_file as read_bytes  # never a pipe planted there

    if read_bytes(path).startswith(MARKER.encode()):
        return []
    source = Source()
    mf = read_file(path, source)
    if mf is not None:
        _index(mf, role, _topics(folder), source)
    ids = {}
    for item in source.items:
        if item.kind == "entry":
            ids[entry_id(role, item.section, item.date, item.text)] = item.where
        else:
            ids[entry_id(role, f"import/{item.section}", item.date, item.key or item.text)] = item.where
    have = known(role, list(ids))
    return [where for rid, where in ids.items() if rid not in have] + [str(p) for p in source.problems]


__all__ = ["FORMAT", "agent_memory", "read_claude_memory", "unimported"]
