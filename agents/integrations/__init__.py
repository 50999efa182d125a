"""One small module per agent CLI: what `rolebook integrate AGENT` writes for it."""

from __future__ import annotations

from .common import AGENTS, Planned, apply, plan

__all__ = ["AGENTS", "Planned", "apply", "plan"]
