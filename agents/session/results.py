"""What the session API's two moments return: `Started` (a session's start: the notebook,
its alerts, the task hits) and `Recorded` (its end: what the write did, the rules its
new mistakes break). Both render themselves for every adapter: the CLI prints them, MCP
returns them, the hooks inject them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rolebook.notebook import Entry
    from rolebook.notebook.search import SearchResult
    from rolebook.notebook.store import FailureRecord, ReadResult, WriteResult
    from rolebook.rules import Proposal, Rule

#: What the notebook is, in the same words in the line before it at every session start,
#: in PROTOCOL.md (agents/scaffold.py) and in the MCP server's instructions (mcp/table.py)
NOTEBOOK_IS = "what earlier sessions of this role learned"


@dataclass(frozen=True, slots=True)
class Started:
    """What a session starts with: the notebook, its alerts, and the memories for the task."""

    read: ReadResult
    task: str | None = None
    found: SearchResult | None = None
    budget: int = 500

    def task_lines(self) -> list[str]:
        """The task hits as one line each, within the budget (with a last line saying what was cut)."""
        if self.found is None:
            return []
        from rolebook.notebook.search import FRAME_TOKENS, framed, render_hits

        return framed(render_hits(self.found, self.budget - FRAME_TOKENS), self.about())

    def frame(self) -> str:
        """The line before the notebook: what it is, as PROTOCOL.md says it."""
        from rolebook.notebook.search import framed

        return framed(["-"], f"the {self.read.role} notebook, {NOTEBOOK_IS}")[0]

    def about(self) -> str:
        """What the task hits are, as their frame says."""
        return f"memory for this task ({_shown(self.task or '')})"

    def render(self, surface: str = "cli") -> bytes:
        """What the agent reads: the notebook bytes as they are, a blank line, the alerts
        (their next steps worded for the `surface`: cli or mcp), then the task hits. The CLI
        prints it, the MCP `read` tool returns it."""
        data = self.read.data
        if data and not data.endswith(b"\n"):
            data += b"\n"
        if data:  # framed as every memory rolebook shows unasked, in PROTOCOL.md's words
            data = (self.frame() + "\n").encode("utf-8") + data
        alerts = "".join(f"rolebook: {a}\n" for a in self.read.alert_lines(surface))
        if data and alerts:
            alerts = "\n" + alerts
        lines = self.task_lines()
        hits = "\n" + "\n".join(lines) + "\n" if lines else ""
        return data + (alerts + hits).encode("utf-8")

    def to_dict(self, surface: str = "cli") -> dict[str, Any]:
        data = self.read.to_dict(surface)
        if self.read.data:
            data["note"] = self.frame()
        if surface == "cli":  # MCP's structured content stays within its text's budget (the mcp room's call)
            data["entries"] = self.entries()
        if self.found is not None:
            from rolebook.notebook.search import framed

            data["task"] = {
                "note": framed(["-"], self.about())[0],
                "query": self.task,
                "total": self.found.total,
                "hits": [h.to_dict() for h in self.found.hits],
                "warnings": list(self.found.warnings),
            }
        return data

    def entries(self) -> list[dict[str, Any]]:
        """The notebook's entries in file order, each with the id `obsolete`, `--same-as`
        and `--supersedes` take (as `update --json` gives them)."""
        from rolebook.notebook.markdown import parse

        text = self.read.data.decode("utf-8", errors="replace")
        return [
            {"id": e.id(self.read.role), "section": e.section, "date": e.date, "text": e.text, "count": e.count}
            for e in parse(text).entries()
        ]


def _shown(task: str, room: int = 80) -> str:
    one = " ".join(task.split())
    return repr(one if len(one) <= room else one[: room - 3] + "...")


@dataclass(frozen=True, slots=True)
class Recorded:
    """What a session-end update did, the rules its new mistakes break, the earlier
    mistakes each new one looks like (by entry id, for the writer to confirm), and the
    recurrences the writer confirmed: (mistake id, earlier id, count)."""

    result: WriteResult
    violations: tuple[tuple[str, Rule, str | None], ...] = ()
    redacted: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # what went wrong after the write, which stands
    proposals: Mapping[str, tuple[Proposal, ...]] = field(default_factory=dict)
    linked: tuple[tuple[str, str, int], ...] = ()
    # (entry id, failure id): the lessons linked to the session's failures they answer
    answered: tuple[tuple[str, str], ...] = ()
    unanswered: tuple[FailureRecord, ...] = ()  # the session's failures no lesson answers yet

    def lines(self, surface: str = "cli") -> list[str]:
        """The summary line, then one line per confirmed recurrence, per violation, and per
        possible recurrence with how to confirm it (worded for the `surface`: cli or mcp)."""
        from rolebook.rules import violation_line

        role = self.result.role
        out = [self.result.summary()]
        out += [f"{role}: #{mid} recurs #{earlier}, confirmed (x{count})" for mid, earlier, count in self.linked]
        out += [f"{role}: this mistake {violation_line(r, day)}" for _, r, day in self.violations]
        for e in self.result.added:
            for p in self.proposals.get(e.id(role), ()):
                out.append(f"{role}: looks like #{p.id} ({', '.join(p.dates)}) {_confirm(role, e, p, surface)}")
        out += [f"{role}: #{eid} answers failure #{fid}" for eid, fid in self.answered]
        out += self.unanswered_lines(surface)
        return out

    def unanswered_lines(self, surface: str = "cli") -> list[str]:
        """The session's failures no lesson answers yet (at most 3, one line each), and how
        to link a lesson to one."""
        from .failures import named

        if not self.unanswered:
            return []
        role = self.result.role
        how = (
            "update with failure ID and the mistake or learning it taught"
            if surface == "mcp"
            else f'rolebook update {role} --failure ID --mistake "..." (or --learning)'
        )
        head = f"{role}: this session's failures no lesson answers yet ({how}):"
        return [head, *(f"  {line}" for line in named(self.unanswered))]

    def to_dict(self) -> dict[str, Any]:
        data = self.result.to_dict()
        for item in data["added"]:
            item["possible_recurrences"] = [p.to_dict() for p in self.proposals.get(item["id"], ())]
        data["linked"] = [{"id": mid, "same_as": earlier, "count": count} for mid, earlier, count in self.linked]
        data["violations"] = [
            {"text": text, "rule": rule.id, "rule_text": rule.text, "promoted": day}
            for text, rule, day in self.violations
        ]
        data["failures"] = {
            "linked": [{"id": eid, "failure": fid} for eid, fid in self.answered],
            "proposed": [{"failure": f.id, "command": f.command, "line": f.line, "at": f.at} for f in self.unanswered],
        }
        data["redacted"] = list(self.redacted)
        data["warnings"] = [*data["warnings"], *self.warnings]
        return data


def _quoted(text: str, room: int = 70) -> str:
    one = " ".join(text.split())
    return '"' + (one if len(one) <= room else one[: room - 1] + "…") + '"'


def _confirm(role: str, entry: Entry, p: Proposal, surface: str) -> str:
    """The earlier mistake's text, and how the writer says the new one is the same: the
    same write again, with the link."""
    said = f"{_quoted(p.text)}: if it is the same mistake,"
    if surface == "mcp":
        return f'{said} update with same_as "{p.id}", this mistake and date {entry.date} counts it'
    import shlex

    text = shlex.quote(" ".join(entry.text.split()))
    return f"{said} rolebook update {role} --same-as {p.id} --mistake {text} --date {entry.date} counts it"
