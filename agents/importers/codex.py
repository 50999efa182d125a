"""Codex's memories (`~/.codex/memories/`) and Serena's (`.serena/memories/`), read by
`rolebook import codex-memory` and `rolebook import serena`.

Codex consolidates its sessions into `MEMORY.md` (blocks `# Task Group: ...` with `scope:`
and `applies_to:`, `## Task N: ...` sections citing `rollout_summaries/` files with their
`updated_at=`, then `## User preferences`, `## Reusable knowledge` and `## Failures and how
to do differently`), `memory_summary.md` (`v1`, `## User Profile`, `## User preferences`,
`## General Tips`, `## What's in Memory`), `rollout_summaries/*.md`, `skills/*/SKILL.md`
and a scratch `raw_memories.md`.

Serena keeps one markdown file per named memory (`suggested_commands.md`,
`core/architecture.md`), some with frontmatter `serena_frontmatter_version: 1` and a `type`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError

from .common import Source, files_under, not_a_source
from .memfiles import MemoryFile, blocks, category_of, day_of, entry, one_line, read_file, section_of, stored

CODEX = "codex-memory"
SERENA = "serena"

#: Codex's block-level sections, onto rolebook's.
_CODEX_SECTIONS = {
    "user preferences": "feedback",
    "reusable knowledge": "learnings",
    "general tips": "learnings",
    "failures and how to do differently": "mistakes",
}
_UPDATED = re.compile(r"updated_at[=:]\s*([0-9]{4}-[0-9]{2}-[0-9]{2}[0-9T:.+Z-]*)")
_TASK = re.compile(r"Task \d+:\s*(.+)$", re.DOTALL)


def read_codex_memory(path: Path, source: Source | None = None) -> Source:
    """A Codex memories folder (or one of its files)."""
    source = Source() if source is None else source
    files = _markdown(path, "memory_summary.md or MEMORY.md", source)
    root = path if path.is_dir() else path.parent
    for file in files:
        rel = file.relative_to(root).as_posix()
        if rel == "raw_memories.md":
            source.notes.append("raw_memories.md is Codex's scratch input to MEMORY.md: not imported")
            continue
        mf = read_file(file, source)
        if mf is None:
            continue
        if rel in ("MEMORY.md", "memory_summary.md"):
            _handbook(mf, rel, source)
        elif rel.startswith("skills/") and file.name == "SKILL.md":
            _skill(mf, rel, source)
        else:
            category = "rollout_summaries" if rel.startswith("rollout_summaries/") else "notes"
            day = _newest(mf.text) or mf.day
            fields: dict[str, Any] = {"source": CODEX, "file": rel}
            text = "".join(mf.body).strip()
            if text:
                stored(source, f"{file}:{mf.body_line}", CODEX, category, day, text, None, fields, [rel, text])
    return source


def _markdown(path: Path, expected: str, source: Source) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise not_a_source(path)
    files = files_under(path, "*.md", source)
    if not files and not source.problems:
        raise InputError(f"{path}: no markdown files here (expected {expected})")
    return files


def _handbook(mf: MemoryFile, rel: str, source: Source) -> None:
    """MEMORY.md and memory_summary.md: their block-level sections become notebook
    entries, each `## Task N:` a Session Log entry, the profile a stored `user` item;
    routing lines (rollout file lists, keywords, the summary's index) are left out."""
    groups = _group_days(mf)
    for block in blocks(mf.body, mf.body_line):
        where = f"{mf.path}:{block.line}"
        if block.text.strip() == "v1" and block.kind == "prose":
            continue  # memory_summary.md's version line
        h1, h2, h3 = block.under(1), block.under(2), block.under(3)
        day = groups.get(h1) or mf.day
        fields: dict[str, Any] = {"source": CODEX, "file": rel}
        if h1:
            fields["task_group"] = h1.removeprefix("Task Group:").strip()
        if h3 in ("rollout_summary_files", "keywords") or h2.lower().startswith("what's in memory"):
            continue
        section = _CODEX_SECTIONS.get(h2.lower()) or section_of(h2)
        if block.kind == "item" and section:
            entry(source, where, section, day, one_line(block.text), None, fields)
        elif h2.lower() == "user profile":
            stored(source, where, CODEX, "user", day, block.text, None, fields, [rel, block.text])
        else:
            label = next((h for h in (h2, h1) if h), "")
            text = f"{label}: {block.text}" if label else block.text
            stored(source, where, CODEX, "notes", day, text, None, fields, [rel, block.text])
    tasks: dict[tuple[str, str], tuple[int, list[str]]] = {}
    for block in blocks(mf.body, mf.body_line):
        if _TASK.match(block.under(2)):
            line, days = tasks.setdefault((block.under(1), block.under(2)), (block.line, []))
            days += [d for d in (day_of(m) for m in _UPDATED.findall(block.text)) if d]
    for (h1, h2), (line, days) in tasks.items():
        task = _TASK.match(h2)
        assert task is not None
        fields = {"source": CODEX, "file": rel, "task_group": h1.removeprefix("Task Group:").strip()}
        day = max(days, default=groups.get(h1) or mf.day)
        entry(source, f"{mf.path}:{line}", "session_log", day, one_line(task.group(1)), None, fields)


def _group_days(mf: MemoryFile) -> dict[str, str]:
    """Per `# Task Group` heading, the newest `updated_at` its rollouts cite."""
    days: dict[str, str] = {}
    for block in blocks(mf.body, mf.body_line):
        found = [d for d in (day_of(m) for m in _UPDATED.findall(block.text)) if d]
        if found and block.under(1):
            days[block.under(1)] = max([*found, days.get(block.under(1), "")])
    return days


def _newest(text: str) -> str | None:
    found = [d for d in (day_of(m) for m in _UPDATED.findall(text)) if d]
    return max(found, default=None)


def _skill(mf: MemoryFile, rel: str, source: Source) -> None:
    """A skill is kept as what it is for (its name and description), pointing at its file."""
    name = mf.meta.get("name") or Path(rel).parent.name
    description = mf.meta.get("description") or one_line("".join(mf.body))[:300]
    text = f"{name}: {description}".strip()
    fields = {"source": CODEX, "file": rel}
    stored(source, f"{mf.path}:{1 if mf.meta else mf.body_line}", CODEX, "skills", mf.day, text, None, fields, [rel])


# -- Serena -------------------------------------------------------------------------------------


def read_serena(path: Path, source: Source | None = None) -> Source:
    """Serena's memories folder (`.serena/memories`, or the project or `.serena` folder
    holding it), or one memory file. Each memory is kept as stored items in a category
    named after it, a paragraph or list item each; list items under a heading that names a
    notebook section (Mistakes, Learnings...) become entries of that section."""
    source = Source() if source is None else source
    for inner in (path / ".serena" / "memories", path / "memories"):
        if path.is_dir() and inner.is_dir():
            path = inner
            break
    root = path if path.is_dir() else path.parent
    for file in _markdown(path, "Serena memory files", source):
        rel = file.relative_to(root).with_suffix("").as_posix()
        if rel == "memory_maintenance":
            source.notes.append("memory_maintenance.md is Serena's own guide to its memories: not imported")
            continue
        mf = read_file(file, source)
        if mf is not None:
            _serena_file(mf, rel, source)
    return source


def _serena_file(mf: MemoryFile, name: str, source: Source) -> None:
    category = category_of(name.replace("/", "_"))
    fields: dict[str, Any] = {"source": SERENA, "memory": name}
    if isinstance(mf.meta.get("type"), str):
        fields["type"] = mf.meta["type"]
    for block in blocks(mf.body, mf.body_line):
        where = f"{mf.path}:{block.line}"
        section = section_of(block.heading)
        extra = {**fields, "heading": block.heading} if block.heading else fields
        if block.kind == "item" and section:
            entry(source, where, section, mf.day, one_line(block.text), None, extra)
            continue
        label = f"{block.heading}: " if block.heading else ""
        stored(source, where, SERENA, category, mf.day, label + block.text, None, extra, [name, block.text])
