"""What the read-only MCP tools answer, without the SDK: the SDK server (server.py) and
the start-up front (front.py) both call these, so a `read` or `search` answered before
the SDK has loaded carries the very text and structured content the SDK server's would.

A tool answer is (text, structured content): a compact text within a token budget and
the same data as structured content that carries what the text shows and no more
(Claude Code and Codex show the model only the structured content).
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from rolebook.notebook.display import shown, shown_value
from rolebook.notebook.store import Writer, check_role

from ..config import find_root, load_config
from ..session import Session, open_session
from .schema import Answer


class Where:
    """Where the server works: the client's workspace root when it offers one (asked
    once per connection, by the SDK server), else --root, else the working directory."""

    def __init__(self, root: Path | None, writer: Writer):
        self.root = root
        self.writer = writer
        self.from_client: Path | None = None
        self.asked = False  # the client is asked for its roots once per connection

    def session(self) -> Session:
        root = self.from_client or (self.root.absolute() if self.root else find_root())
        return open_session(load_config(root), self.writer)


def fit(
    lines: list[str],
    items: list[dict[str, Any]],
    budget: int,
    what: str,
    total: int | None = None,
    around: dict[str, Any] | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """The first n lines as text and the same n items as structured content, n as large as
    lets both together stay within `budget` tokens (characters / 4), counting the last line
    that says what was cut and the structured content `around` the items: Claude Code and
    Codex show the model the structured content, Copilot shows both."""
    total = len(lines) if total is None else total
    note = f"{total} of {total} {what} shown; refine, or raise budget"
    # the note goes into the text and, as "cut", into the structured content
    room = budget * 4 - 2 * (len(note) + 12) - len(json.dumps(around or {}, ensure_ascii=False)) - 2
    n = used = 0
    for line, item in zip(lines, items, strict=True):
        cost = _cost(line, item)
        if used + cost > room:
            break
        n, used = n + 1, used + cost
    shown, kept = lines[:n], items[:n]
    if n == 0 and items and isinstance(items[0].get("text"), str):  # one hit over the whole budget: cut its text
        line, item = lines[0], items[0]
        step = max(1, len(item["text"]) // 20)
        for size in [*range(len(item["text"]) - 1, 20, -step), 20]:
            cut_line, cut_item = (
                line[: len(line) - len(item["text"]) + size] + "…",
                {**item, "text": item["text"][:size] + "…"},
            )
            if _cost(cut_line, cut_item) <= room:
                shown, kept = [cut_line], [cut_item]
                break
    if len(kept) < total:
        said = f"{len(kept)} of {total} {what} shown; refine, or raise budget"
        shown.append(said)
        if around is not None:
            around["cut"] = said
    return "\n".join(shown), kept


def _cost(line: str, item: dict[str, Any]) -> int:
    """Characters a line and its item add to a result: the line in the text, the item in the structured content."""
    return len(line) + 1 + len(json.dumps(item, ensure_ascii=False)) + 2


def _hit(hit: Any) -> dict[str, Any]:
    """A hit as structured content: what its line shows, no copy of its archive record."""
    shown = ("id", "origin", "role", "section", "status", "date", "text", "count", "imported")
    escaped: dict[str, Any] = shown_value({k: v for k, v in hit.to_dict().items() if k in shown})
    return escaped  # every field escaped, as the line shows it


def framed_fit(
    lines: list[str],
    items: list[dict[str, Any]],
    budget: int,
    around: dict[str, Any],
    title: str,
    total: int | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """`fit` for hits an agent reads: framed as notes from memory, not orders (a first
    line in the text, `note` in the structured content), within the same budget. Where no
    hit fits beside the frame, none is shown (never one unframed): the result says so."""
    from rolebook.notebook.search import framed

    head = framed(["-"], title)[0]
    with_note = {"note": head, **around}
    text, kept = fit(lines, items, budget - (len(head) + 4) // 4, "hits", total, with_note)
    if kept:
        around.clear()
        around.update(with_note)
        return f"{head}\n{text}", kept
    return fit([], [], budget, "hits", len(lines) if total is None else total, around)


def _warn(warnings: Any) -> None:
    for warning in warnings:
        sys.stderr.write(f"rolebook mcp: warning: {shown(warning)}\n")


def read(session: Session, role: str, task: str | None, budget: int) -> Answer:
    """Session start: the role's notebook as it is, then at most 5 alerts (and, with task, relevant memory)."""
    started = session.start(role, task, budget)
    notebook = replace(started, found=None)
    text = notebook.render("mcp").decode("utf-8", errors="replace")  # next steps as MCP tools
    data = notebook.to_dict("mcp")
    if started.found is not None:
        found = started.found
        _warn(found.warnings)
        lines, items = [h.line() for h in found.hits], [_hit(h) for h in found.hits]
        around: dict[str, Any] = {"query": task, "total": found.total}
        hits_text, hits = framed_fit(lines, items, budget, around, started.about())  # as the CLI frames them
        if hits_text:
            text += f"\n{hits_text}\n"
        data["task"] = {**around, "hits": hits}
    return text, data


def search(
    session: Session,
    query: str,
    role: str | None = None,
    section: str | None = None,
    tag: str | None = None,
    status: str | None = None,
    since: str | None = None,
    until: str | None = None,
    limit: int = 5,
    budget: int = 500,
    root_only: bool = False,
) -> Answer:
    """Search everything the roles remember: one line a hit."""
    from rolebook.notebook.search import Query

    q = Query(
        query,
        (check_role(role),) if role else (),
        (section,) if section else (),
        (tag.lower(),) if tag else (),
        (status,) if status else (),
        since,
        until,
        limit,
        mode=None,
    )
    found = session.search(q, root_only=root_only)
    _warn(found.warnings)
    around: dict[str, Any] = {"query": query, "total": found.total}
    note = shown(" ".join(found.notes))  # how the answer was made (meaning still catching up)
    if note:
        around["embedding"] = note
    lines, hits = [h.line() for h in found.hits], [_hit(h) for h in found.hits]
    # the note goes into the text too: its room comes out of the budget first
    room = budget - (len(note) + 8) // 4 if note else budget
    text, hits = framed_fit(lines, hits, room, around, "hits for this search", found.total)
    text = "\n".join(t for t in (text or "no match", f"note: {note}" if note else "") if t)
    return text, {**around, "hits": hits}
