"""rolebook: per-role memory for AI agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rolebook.agents.integrations.memory_tool import RolebookMemoryTool

__version__ = "0.1.0"
__all__ = ["RolebookMemoryTool"]


def __getattr__(name: str) -> Any:
    # loaded on first use: `import rolebook` (every command does) never imports the Anthropic SDK
    if name != "RolebookMemoryTool":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from rolebook.agents.integrations.memory_tool import RolebookMemoryTool
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != "anthropic":
            raise
        raise ImportError(
            "RolebookMemoryTool needs the Anthropic SDK: pip install 'rolebook[anthropic]'", name=exc.name
        ) from exc
    return RolebookMemoryTool
