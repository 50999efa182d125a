"""The derived index of a root: SQLite, rebuilt from the archives and notebooks, never the
other way round. Its state (each record's last word, the active entries, groups,
outcomes, malformed lines) is what the write path reads; its FTS5 table is what search
asks (`rolebook.notebook.search.lookups`).

    schema.py     the tables and the FTS5 index, kept in step by triggers
    documents.py  what a document is found by (identifier parts, section, tags, context)
    database.py   opening it, syncing it with the files, the archive's state
    upkeep.py     refresh (in step with the files) and rebuilt_on_failure
    origins.py    who made each item, what cites what, what was redacted
"""

from __future__ import annotations

from .database import EntryState, Index
from .documents import identifier_words
from .origins import ADAPTERS, MAKING_OPS, Origin, cited, made_in_session, origins, redactions
from .schema import SCHEMA_VERSION, TOKENIZER
from .upkeep import rebuilt_on_failure, refresh

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
