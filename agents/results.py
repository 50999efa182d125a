"""What the session API's two moments return: `Started` (a session's start: the notebook,
its alerts, the task hits) and `Recorded` (its end: what the write did, the rules its
new mistakes break). Both render themselves for every adapter: the CLI prints them, MCP
returns them, the hooks inject them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rolebook.notebook.search import SearchResult
    from rolebook.notebook.store import ReadResult, WriteResult
    from rolebook.rules import Rule


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
        alerts = "".join(f"rolebook: {a}\n" for a in self.read.alert_lines(surface))
        if data and alerts:
            alerts = "\n" + alerts
        lines = self.task_lines()
        hits = "\n" + "\n".join(lines) + "\n" if lines else ""
        return data + (alerts + hits).encode("utf-8")

    def to_dict(self, surface: str = "cli") -> dict[str, Any]:
        data = self.read.to_dict(surface)
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


def _shown(task: str, room: int = 80) -> str:
    one = " ".join(task.split())
    return repr(one if len(one) <= room else one[: room - 3] + "...")


@dataclass(frozen=True, slots=True)
class Recorded:
    """What a session-end update did, and the rules its new mistakes break."""

    result: WriteResult
    violations: tuple[tuple[str, Rule, str | None], ...] = ()
    redacted: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()  # what went wrong after the write, which stands

    def lines(self) -> list[str]:
        """The summary line, then one line per violation."""
        from rolebook.rules import violation_line

        role = self.result.role
        return [self.result.summary()] + [
            f"{role}: this mistake {violation_line(r, day)}" for _, r, day in self.violations
        ]

    def to_dict(self) -> dict[str, Any]:
        data = self.result.to_dict()
        data["violations"] = [
            {"text": text, "rule": rule.id, "rule_text": rule.text, "promoted": day}
            for text, rule, day in self.violations
        ]
        data["redacted"] = list(self.redacted)
        data["warnings"] = [*data["warnings"], *self.warnings]
        return data
