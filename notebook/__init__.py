"""rolebook.notebook: the notebook model, the archive, the one write path, search.

The layer everything stands on; it imports neither `rolebook.rules` nor `rolebook.agents`.
`__all__` is what those layers use, and they import it from here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .archive import ArchiveRecord, read_records
    from .changes import Recur, obsolete, restore, tidy, tidy_check, update
    from .doctor import diagnose, index_state
    from .errors import ConfigError, InputError, NoMatch, RolebookError, StorageError
    from .exchange import MAX_RECORD_BYTES, export_lines, read_export
    from .fsutil import atomic_write, role_lock
    from .index import Index, Mistake
    from .intake import MAX_ENTRY_CHARS, check_date, check_text, new_entry, parse_snippet
    from .journal import Change, Recorder, Writer, WriteResult, append, check_scope, transact
    from .layout import Layout, check_role
    from .limits import MAX_YAML_DEPTH, Limits, frontmatter_limits, yaml_depth
    from .longterm import (
        EVENT_TYPES,
        Keep,
        StoreResult,
        check_tags,
        derive_ctx_hash,
        keep,
        known,
        log_event,
        parse_outcome,
        store,
    )
    from .markdown import (
        add_entries,
        code_lines,
        entry_positions,
        new_notebook_text,
        parse,
        remove_parts,
        render,
        split_lines,
    )
    from .model import SECTIONS, Entry, Foreign, Notebook, count_lines, entry_id, is_role, normalize
    from .read import ReadResult, extra_state, load_text, next_step, read_notebook, store_extra_alerts
    from .retrieval import STATUSES, Query, SearchResult, candidates, refresh, render_hits, search_roots
    from .secrets import redact_value, redactions
    from .sharing import Shared, share
    from .vocabulary import names

# Loaded on first use, so that importing one name (the read path does) does not import
# every module of the package.
_WHERE = {
    "ArchiveRecord": "archive",
    "read_records": "archive",
    "Recur": "changes",
    "obsolete": "changes",
    "restore": "changes",
    "tidy": "changes",
    "tidy_check": "changes",
    "update": "changes",
    "diagnose": "doctor",
    "index_state": "doctor",
    "ConfigError": "errors",
    "InputError": "errors",
    "NoMatch": "errors",
    "RolebookError": "errors",
    "StorageError": "errors",
    "MAX_RECORD_BYTES": "exchange",
    "export_lines": "exchange",
    "read_export": "exchange",
    "atomic_write": "fsutil",
    "role_lock": "fsutil",
    "Index": "index",
    "Mistake": "index",
    "MAX_ENTRY_CHARS": "intake",
    "check_date": "intake",
    "check_text": "intake",
    "new_entry": "intake",
    "parse_snippet": "intake",
    "Change": "journal",
    "Recorder": "journal",
    "WriteResult": "journal",
    "Writer": "journal",
    "append": "journal",
    "check_scope": "journal",
    "transact": "journal",
    "Layout": "layout",
    "check_role": "layout",
    "Limits": "limits",
    "MAX_YAML_DEPTH": "limits",
    "frontmatter_limits": "limits",
    "yaml_depth": "limits",
    "EVENT_TYPES": "longterm",
    "Keep": "longterm",
    "StoreResult": "longterm",
    "check_tags": "longterm",
    "derive_ctx_hash": "longterm",
    "keep": "longterm",
    "known": "longterm",
    "log_event": "longterm",
    "parse_outcome": "longterm",
    "store": "longterm",
    "add_entries": "markdown",
    "code_lines": "markdown",
    "entry_positions": "markdown",
    "new_notebook_text": "markdown",
    "parse": "markdown",
    "remove_parts": "markdown",
    "render": "markdown",
    "split_lines": "markdown",
    "Entry": "model",
    "Foreign": "model",
    "Notebook": "model",
    "SECTIONS": "model",
    "count_lines": "model",
    "entry_id": "model",
    "is_role": "model",
    "normalize": "model",
    "ReadResult": "read",
    "extra_state": "read",
    "load_text": "read",
    "next_step": "read",
    "read_notebook": "read",
    "store_extra_alerts": "read",
    "Query": "retrieval",
    "STATUSES": "retrieval",
    "SearchResult": "retrieval",
    "candidates": "retrieval",
    "refresh": "retrieval",
    "render_hits": "retrieval",
    "search_roots": "retrieval",
    "redact_value": "secrets",
    "redactions": "secrets",
    "Shared": "sharing",
    "share": "sharing",
    "names": "vocabulary",
}

__all__ = [
    "EVENT_TYPES",
    "MAX_ENTRY_CHARS",
    "MAX_RECORD_BYTES",
    "MAX_YAML_DEPTH",
    "SECTIONS",
    "STATUSES",
    "ArchiveRecord",
    "Change",
    "ConfigError",
    "Entry",
    "Foreign",
    "Index",
    "InputError",
    "Keep",
    "Layout",
    "Limits",
    "Mistake",
    "NoMatch",
    "Notebook",
    "Query",
    "ReadResult",
    "Recorder",
    "Recur",
    "RolebookError",
    "SearchResult",
    "Shared",
    "StorageError",
    "StoreResult",
    "WriteResult",
    "Writer",
    "add_entries",
    "append",
    "atomic_write",
    "candidates",
    "check_date",
    "check_role",
    "check_scope",
    "check_tags",
    "check_text",
    "code_lines",
    "count_lines",
    "derive_ctx_hash",
    "diagnose",
    "entry_id",
    "entry_positions",
    "export_lines",
    "extra_state",
    "frontmatter_limits",
    "index_state",
    "is_role",
    "keep",
    "known",
    "load_text",
    "log_event",
    "names",
    "new_entry",
    "new_notebook_text",
    "next_step",
    "normalize",
    "obsolete",
    "parse",
    "parse_outcome",
    "parse_snippet",
    "read_export",
    "read_notebook",
    "read_records",
    "redact_value",
    "redactions",
    "refresh",
    "remove_parts",
    "render",
    "render_hits",
    "restore",
    "role_lock",
    "search_roots",
    "share",
    "split_lines",
    "store",
    "store_extra_alerts",
    "tidy",
    "tidy_check",
    "transact",
    "update",
    "yaml_depth",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
