"""The ways out that are not rolebook's own export format: the markdown form of `rolebook
export` (to read), and a role's notebook as a Claude Code subagent's MEMORY.md."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from rolebook.notebook import InputError
from rolebook.notebook.store import ArchiveRecord, Layout, known, load_text, read_records, shown_text


def export_markdown(layout: Layout, roles: list[str]) -> Iterator[str]:
    """Each role's notebook as it is, then its archive, a line a record, oldest first."""
    for n, role in enumerate(roles):
        if n:
            yield "\n"
        yield f"<!-- rolebook export: role {role} -->\n"
        text, problem = shown_text(layout, layout.notebook_path(role))  # a form to read: shown as read
        if problem:
            yield f"<!-- {problem} -->\n"
        if text is not None:
            yield text if text.endswith("\n") else text + "\n"
        else:
            yield f"# {role}\n\n(no notebook)\n"
        yield f"\n## Archive of {role}\n\n"
        bad = 0
        for _, _, item in read_records(layout.archive_path(role)):
            if not isinstance(item, ArchiveRecord):
                bad += 1
                continue
            text_ = " ".join(item.text.split())
            count = f" (x{item.count})" if item.count > 1 else ""
            tags = "".join(f" #{t}" for t in item.tags)
            yield f"- [{item.date}] {item.op} {item.section}: {text_}{count}{tags} `{item.id}`\n"
        if bad:
            yield f"\n({bad} malformed archive line(s) not shown: `rolebook doctor` lists them)\n"


def export_agent_memory(layout: Layout, role: str, folder: Path) -> Path:
    """Write the role's notebook as `folder/MEMORY.md`, a Claude Code subagent's memory.

    Raises:
        InputError: the role has no notebook, or the MEMORY.md there holds memory the
            role's archive does not (import it first).
    """
    from rolebook.notebook.store import atomic_write

    from .claude import INDEX, agent_memory, unimported

    text = load_text(layout, layout.notebook_path(role))
    if text is None:
        raise InputError(f"role {role!r} has no notebook yet: nothing to export")
    missing = unimported(folder, role, lambda r, ids: known(layout, r, ids))
    if missing:
        raise InputError(
            f"{folder / INDEX} holds memory rolebook does not have (first: {missing[0]}): import it first "
            f"with `rolebook import claude-memory {folder} --role {role}`"
        )
    path = folder / INDEX
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write(path, agent_memory(text, role).encode("utf-8"))
    return path
