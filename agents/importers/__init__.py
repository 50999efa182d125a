"""Readers for the memory of other tools: `rolebook import FORMAT PATH`.

Each reader turns a source into `Item`s (a notebook entry, a stored item or a logged
event) and `Problem`s (a line it cannot take, as `path:line: why`), without writing
anything. An item keeps its original date, a `source` field naming the format, and the
source's own record under `original`, so nothing the source said is lost. Its identity
(`key`) is the source record itself: importing the same file twice adds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .claude import read_claude_memory
from .codex import read_codex_memory, read_serena
from .common import Item, Problem, Source
from .logs import read_agent_knowledge, read_mcp_memory, read_memcache, read_xmem
from .notes import read_cerebro, read_markdown

READERS: dict[str, Callable[[Path, Source | None], Source]] = {
    "cerebro": read_cerebro,
    "xmem": read_xmem,
    "agent-knowledge": read_agent_knowledge,
    "memcache": read_memcache,
    "mcp-memory": read_mcp_memory,
    "markdown": read_markdown,
    "claude-memory": read_claude_memory,
    "codex-memory": read_codex_memory,
    "serena": read_serena,
}

__all__ = ["READERS", "Item", "Problem", "Source", "read_markdown"]
