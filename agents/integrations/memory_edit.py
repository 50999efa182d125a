"""What the memory tool (`memory_tool.py`) reads and writes, without the SDK. Pure.

    notebook_role     a `/memories` path to the role whose notebook it names, or a refusal
    numbered          a file's text as the SDK's `view` numbers it
    file_size         a size as the SDK's folder listing writes it
    plan_edit         an edit of a notebook's text, read as the entries it adds and retires
    snippet           the lines around the first entry an edit wrote, as the SDK answers an edit

The answers match the SDK's own backend (`BetaLocalFilesystemMemoryTool`) word for word
where the tool does what it does (tests compare them), so a model that knows one knows both.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from rolebook.notebook import Entry, InputError, Notebook, RolebookError, parse
from rolebook.notebook.markdown import split_lines
from rolebook.notebook.model import TITLES, count_lines, section_key
from rolebook.notebook.store import check_role

ROOT = "/memories"
LINE_NUMBER_WIDTH = 6  # the SDK's: len(str(999999))
#: How an entry is written, as the answers tell the model.
FORMAT = "`- [YYYY-MM-DD] text` under " + ", ".join(f"## {t}" for t in TITLES.values()).replace(", ## S", " or ## S")
ENTRIES_ONLY = (
    f"the memory tool writes dated entries only ({FORMAT}); edit the rest of a notebook by hand. Nothing was written."
)
ELSEWHERE = (
    f"rolebook keeps memory in one notebook per role, {ROOT}/<role>.md (a role: 1-64 of a-z 0-9 - _), and "
    f"nothing else; view {ROOT} to see them, and write dated entries there: {FORMAT}"
)


def notebook_role(path: str) -> str | None:
    """The role `/memories/<role>.md` names; None for `/memories` itself.

    Raises:
        InputError: a path outside `/memories` (`..`, plain or percent-encoded, once or
            more), or any other file (a one-line pointer to the notebooks).
    """
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise InputError(f"Path must start with /memories, got: {path}")
    decoded = path
    for _ in range(4):  # %2e%2e, %252e%252e, ...
        if (once := unquote(decoded)) == decoded:
            break
        decoded = once
    if ".." in decoded.replace("\\", "/").split("/"):
        raise InputError(f"Path {path} would escape /memories directory")
    parts = [p for p in path[len(ROOT) :].split("/") if p not in ("", ".")]
    if not parts:
        return None
    if len(parts) == 1 and parts[0].endswith(".md") and decoded == path:
        try:
            return check_role(parts[0][:-3])
        except RolebookError:
            pass
    raise InputError(f"{path}: {ELSEWHERE}")


def numbered(text: str, path: str, view_range: list[int] | None = None) -> str:
    """A file's text as the SDK's `view` shows it: a header, then `%6d\\t` and each line."""
    lines = text.split("\n")
    start = 0
    if view_range and len(view_range) == 2:
        start = max(1, view_range[0]) - 1
        lines = lines[start : None if view_range[1] == -1 else view_range[1]]
    body = [f"{str(i + start + 1).rjust(LINE_NUMBER_WIDTH)}\t{line}" for i, line in enumerate(lines)]
    return f"Here's the content of {path} with line numbers:\n" + "\n".join(body)


def file_size(size: int) -> str:
    """A size as the SDK's listing writes it: 0B, 512B, 4K, 1.5M."""
    if size == 0:
        return "0B"
    i = min((size.bit_length() - 1) // 10, 3)
    value = size / 1024**i
    return f"{int(value)}{'BKMG'[i]}" if value == int(value) else f"{value:.1f}{'BKMG'[i]}"


@dataclass(frozen=True, slots=True)
class Edit:
    """What an edit does to a notebook's entries."""

    adds: list[Entry]  # new or changed entries, as the edit wrote them (undated ones dated `day`)
    retires: list[Entry]  # entries the edit dropped or changed


def plan_edit(role: str, old: str, new: str, day: str, creating: bool = False) -> Edit:
    """The entries an edit of a notebook's text (`old` -> `new`) adds and retires.

    Top-level items of the managed sections without a date are entries of `day` (as in
    `update --from`). When `creating`, a title and the section headings may stand beside
    the entries (rolebook writes its own).

    Raises:
        InputError: the edit changes anything but entries (names the line).
    """
    path = f"{ROOT}/{role}.md"
    before, after = parse(old, undated=day), parse(new, undated=day)
    dated = {e.id(role) for e in parse(old).entries()}
    was = {e.id(role): e for e in before.entries()}
    now = {e.id(role): e for e in after.entries()}
    for line, entry in entry_lines(before):
        if entry.id(role) not in now and entry.id(role) not in dated:  # an undated item rolebook keeps as it is
            raise InputError(f"the edit removes line {line}, `{_first(entry.raw)}`: {ENTRIES_ONLY}", path)
    fixed, kept = _fixed_lines(before), _fixed_lines(after)
    if creating:
        kept = [(n, t) for n, t in kept if not _skeleton(t)]
    matcher = difflib.SequenceMatcher(None, [t for _, t in fixed], [t for _, t in kept], autojunk=False)
    for op, i1, _, j1, _ in matcher.get_opcodes():
        if op in ("insert", "replace"):
            n, text = kept[j1]
            raise InputError(f"`{_first(text)}` is not a dated entry: {ENTRIES_ONLY}", path, n)
        if op == "delete":
            n, text = fixed[i1]
            raise InputError(f"the edit removes line {n}, `{_first(text)}`: {ENTRIES_ONLY}", path)
    adds = [e for i, e in now.items() if i not in was]
    retires = [e for i, e in was.items() if i not in now and i in dated]
    return Edit(adds, retires)


def snippet(text: str, role: str, ids: Collection[str]) -> list[str]:
    """The SDK's answer to an edit: five numbered lines around the first of these entries."""
    at = next((n for n, e in entry_lines(parse(text)) if e.id(role) in ids), None)
    if at is None:
        return ["The memory file has been edited."]
    lines = text.split("\n")
    shown = range(max(0, at - 3), min(len(lines), at + 2))
    around = [f"{str(k + 1).rjust(LINE_NUMBER_WIDTH)}\t{lines[k]}" for k in shown]
    return ["The memory file has been edited. Here is the snippet showing the change (with line numbers):", *around]


def entry_lines(nb: Notebook) -> list[tuple[int, Entry]]:
    """(first line, entry) of every entry of a notebook, in file order."""
    return [(n, e) for n, e, _ in _chunks(nb) if e is not None]


def _chunks(nb: Notebook) -> Iterator[tuple[int, Entry | None, str]]:
    """(first line, the entry or None, raw text) of every piece of a notebook, in order."""
    line = 1
    pieces: list[tuple[Entry | None, str]] = [(None, nb.head)]
    for section in nb.sections:
        pieces.append((None, section.heading))
        pieces += [(p if isinstance(p, Entry) else None, p.raw) for p in section.parts]
    for entry, raw in pieces:
        yield line, entry, raw
        line += count_lines(raw)


def _fixed_lines(nb: Notebook) -> list[tuple[int, str]]:
    """The non-blank lines that are not entries, with their line numbers: what an edit must keep."""
    out = []
    for n, entry, raw in _chunks(nb):
        if entry is None:
            out += [(n + k, ln.rstrip("\r\n")) for k, ln in enumerate(split_lines(raw)) if ln.strip()]
    return out


def _skeleton(line: str) -> bool:
    """A line a new notebook may carry beside its entries: its `#` title, a section heading."""
    return (line.startswith("# ") and bool(line[2:].strip())) or (
        line.startswith("## ") and section_key(line[3:].strip()) is not None
    )


def _first(raw: str) -> str:
    return raw.split("\n", 1)[0].strip()[:80]


__all__ = [
    "ELSEWHERE",
    "ENTRIES_ONLY",
    "ROOT",
    "Edit",
    "entry_lines",
    "file_size",
    "notebook_role",
    "numbered",
    "plan_edit",
    "snippet",
]
