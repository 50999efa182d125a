"""rolebook.notebook: the notebook model, the archive, the one write path, search.

The layer everything stands on; it imports neither `rolebook.rules` nor `rolebook.agents`.
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use, so importing one module of the package (the read path does)
# does not import them all.
_WHERE = {
    "ArchiveRecord": "archive",
    "MalformedLine": "archive",
    "append_records": "archive",
    "read_records": "archive",
    "ConfigError": "errors",
    "EntryError": "errors",
    "InputError": "errors",
    "LockTimeout": "errors",
    "NoMatch": "errors",
    "RoleError": "errors",
    "RolebookError": "errors",
    "ScopeError": "errors",
    "StorageError": "errors",
    "new_entry": "intake",
    "parse_snippet": "intake",
    "redact": "intake",
    "WriteResult": "journal",
    "Writer": "journal",
    "obsolete": "journal",
    "promote_entries": "journal",
    "tidy": "journal",
    "tidy_check": "journal",
    "update": "journal",
    "Layout": "layout",
    "check_role": "layout",
    "Limits": "limits",
    "frontmatter_limits": "limits",
    "prune": "limits",
    "parse": "markdown",
    "render": "markdown",
    "Entry": "model",
    "Foreign": "model",
    "Notebook": "model",
    "Section": "model",
    "ReadResult": "read",
    "read_notebook": "read",
    "Hit": "search",
    "Query": "search",
    "SearchResult": "search",
    "search": "search",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
