"""rolebook inside the agents' own tools: one small module per agent CLI (what `rolebook
integrate AGENT` writes for it), and the Anthropic API's memory tool backed by rolebook
(`memory_tool.py`, `memory_edit.py`; `from rolebook import RolebookMemoryTool`)."""

from __future__ import annotations

from .common import AGENTS, Planned, apply, next_step, plan

__all__ = ["AGENTS", "Planned", "apply", "next_step", "plan"]
