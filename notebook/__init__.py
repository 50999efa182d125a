"""rolebook.notebook: the notebook model, and below it the store and search rooms.

The public API: a notebook parsed into values and rendered back byte for byte, its
limits, and the errors rolebook raises. Pure: no I/O here. `store/` (the archive and the
one write path) and `search/` have faces of their own for rolebook's layers."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .errors import ConfigError, InputError, NoMatch, RolebookError, StorageError
    from .limits import Limits, prune
    from .markdown import parse, render
    from .model import SECTIONS, Entry, Foreign, Notebook, Section

# Loaded on first use: importing one name (the read path does) does not import every module.
_WHERE = {
    "ConfigError": "errors",
    "InputError": "errors",
    "NoMatch": "errors",
    "RolebookError": "errors",
    "StorageError": "errors",
    "Limits": "limits",
    "prune": "limits",
    "parse": "markdown",
    "render": "markdown",
    "Entry": "model",
    "Foreign": "model",
    "Notebook": "model",
    "SECTIONS": "model",
    "Section": "model",
}

__all__ = [
    "SECTIONS",
    "ConfigError",
    "Entry",
    "Foreign",
    "InputError",
    "Limits",
    "NoMatch",
    "Notebook",
    "RolebookError",
    "Section",
    "StorageError",
    "parse",
    "prune",
    "render",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
