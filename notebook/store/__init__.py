"""rolebook.notebook.store: the canonical files and the one write path.

The archive (append-only JSONL), the write path (lock, append and fsync, replace
atomically), what a writer hands in (intake, secrets), where files live (layout), long-term
items and events, sharing, the session-start read, doctor, and the derived index whose
state the write path reads. `__all__` is the face the layers above import; it is not
rolebook's public API (`rolebook.notebook` is)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .archive import ArchiveRecord, read_records
    from .changes import Held, Retired, obsolete, obsolete_session, restore, tidy, tidy_check, update
    from .doctor import diagnose, index_state
    from .exchange import MAX_RECORD_BYTES, export_lines, load_json, read_export
    from .failures import (
        FailureBook,
        FailureRecord,
        Link,
        append_failures,
        failure_id,
        failure_item,
        link_item,
        read_failures,
    )
    from .fsutil import atomic_write, open_file, read_file, role_lock
    from .index import TOKENIZER, Index, cited, origins, rebuilt_on_failure, refresh
    from .intake import MAX_ENTRY_CHARS, check_date, check_day, check_text, new_entry, parse_snippet
    from .journal import Change, Recorder, Writer, WriteResult, append, check_scope, transact
    from .layout import INSTRUCTIONS, Layout, check_role, inside
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
    from .provenance.audit import Audit, AuditFilters, audit_writes
    from .provenance.cites import cite_label, cite_state, parse_cite
    from .provenance.orders import confirm, flag_orders, gated, reads_as_order, waiting
    from .provenance.redaction import Redacted, redact_item
    from .read import MAX_ALERTS, ReadResult, extra_state, load_text, next_step, read_notebook, store_extra_alerts
    from .secrets import redact_value, redactions
    from .sharing import Shared, choose_shared, share

# Loaded on first use: importing one name (the read path does) does not import every module.
_WHERE = {
    "ArchiveRecord": "archive",
    "read_records": "archive",
    "Held": "changes",
    "Retired": "changes",
    "obsolete": "changes",
    "obsolete_session": "changes",
    "restore": "changes",
    "tidy": "changes",
    "tidy_check": "changes",
    "update": "changes",
    "diagnose": "doctor",
    "index_state": "doctor",
    "MAX_RECORD_BYTES": "exchange",
    "export_lines": "exchange",
    "load_json": "exchange",
    "read_export": "exchange",
    "FailureBook": "failures",
    "Link": "failures",
    "failure_id": "failures",
    "FailureRecord": "failures",
    "append_failures": "failures",
    "failure_item": "failures",
    "link_item": "failures",
    "read_failures": "failures",
    "atomic_write": "fsutil",
    "open_file": "fsutil",
    "read_file": "fsutil",
    "role_lock": "fsutil",
    "Index": "index",
    "TOKENIZER": "index",
    "cited": "index",
    "origins": "index",
    "rebuilt_on_failure": "index",
    "refresh": "index",
    "MAX_ENTRY_CHARS": "intake",
    "check_date": "intake",
    "check_day": "intake",
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
    "INSTRUCTIONS": "layout",
    "Layout": "layout",
    "check_role": "layout",
    "inside": "layout",
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
    "cite_label": "provenance.cites",
    "cite_state": "provenance.cites",
    "parse_cite": "provenance.cites",
    "confirm": "provenance.orders",
    "flag_orders": "provenance.orders",
    "gated": "provenance.orders",
    "waiting": "provenance.orders",
    "reads_as_order": "provenance.orders",
    "AuditFilters": "provenance.audit",
    "Audit": "provenance.audit",
    "audit_writes": "provenance.audit",
    "Redacted": "provenance.redaction",
    "redact_item": "provenance.redaction",
    "MAX_ALERTS": "read",
    "ReadResult": "read",
    "extra_state": "read",
    "load_text": "read",
    "next_step": "read",
    "read_notebook": "read",
    "store_extra_alerts": "read",
    "redact_value": "secrets",
    "redactions": "secrets",
    "Shared": "sharing",
    "share": "sharing",
    "choose_shared": "sharing",
}

__all__ = [
    "EVENT_TYPES",
    "INSTRUCTIONS",
    "MAX_ALERTS",
    "MAX_ENTRY_CHARS",
    "MAX_RECORD_BYTES",
    "TOKENIZER",
    "ArchiveRecord",
    "Audit",
    "AuditFilters",
    "Change",
    "FailureBook",
    "FailureRecord",
    "Held",
    "Index",
    "Keep",
    "Layout",
    "Link",
    "ReadResult",
    "Recorder",
    "Redacted",
    "Retired",
    "Shared",
    "StoreResult",
    "WriteResult",
    "Writer",
    "append",
    "append_failures",
    "atomic_write",
    "audit_writes",
    "check_date",
    "check_day",
    "check_role",
    "check_scope",
    "check_tags",
    "check_text",
    "choose_shared",
    "cite_label",
    "cite_state",
    "cited",
    "confirm",
    "derive_ctx_hash",
    "diagnose",
    "export_lines",
    "extra_state",
    "failure_id",
    "failure_item",
    "flag_orders",
    "gated",
    "index_state",
    "inside",
    "keep",
    "known",
    "link_item",
    "load_json",
    "load_text",
    "log_event",
    "new_entry",
    "next_step",
    "obsolete",
    "obsolete_session",
    "open_file",
    "origins",
    "parse_cite",
    "parse_outcome",
    "parse_snippet",
    "read_export",
    "read_failures",
    "read_file",
    "read_notebook",
    "read_records",
    "reads_as_order",
    "rebuilt_on_failure",
    "redact_item",
    "redact_value",
    "redactions",
    "refresh",
    "restore",
    "role_lock",
    "share",
    "store",
    "store_extra_alerts",
    "tidy",
    "tidy_check",
    "transact",
    "update",
    "waiting",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
