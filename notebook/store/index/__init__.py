"""The derived index of a root: SQLite, rebuilt from the archives and notebooks, never the
other way round. Its state (each record's last word, the active entries, groups,
outcomes, malformed lines) is what the write path reads; its FTS5 table is what search
asks (`rolebook.notebook.search.lookups`).

    schema.py     the tables and the FTS5 index, kept in step by triggers
    documents.py  what a document is found by (identifier parts, section, tags, context)
    database.py   opening it, syncing it with the files, the archive's state
"""

from __future__ import annotations

from .database import EntryState, Index, rebuilt_on_failure, refresh
from .documents import identifier_words
from .origins import ADAPTERS, MAKING_OPS, Origin, cited, made_in_session, origins, redactions
from .schema import SCHEMA_VERSION, TOKENIZER

__all__ = [
    "ADAPTERS",
    "MAKING_OPS",
    "SCHEMA_VERSION",
    "TOKENIZER",
    "EntryState",
    "Index",
    "Origin",
    "cited",
    "identifier_words",
    "made_in_session",
    "origins",
    "rebuilt_on_failure",
    "redactions",
    "refresh",
]
