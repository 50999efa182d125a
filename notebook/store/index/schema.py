"""The derived index's schema: the tables `index.py` keeps up to the archives and
notebooks, and the FTS5 index over them (kept in step by triggers)."""

from __future__ import annotations

SCHEMA_VERSION = 11
TOKENIZER = "porter unicode61 remove_diacritics 2"

SCHEMA = (
    "CREATE TABLE sources(role TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, offset INTEGER, lines INTEGER,"
    " head BLOB, tail BLOB)",
    "CREATE TABLE notebooks(role TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER)",
    "CREATE TABLE docs(rowid INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, role TEXT NOT NULL, op TEXT NOT NULL,"
    " section TEXT, date TEXT, text TEXT, count INTEGER, tags TEXT, ctx_hash TEXT, journalled INTEGER NOT NULL,"
    " search TEXT, data TEXT)",
    "CREATE INDEX docs_role ON docs(role, op)",
    "CREATE INDEX docs_unjournalled ON docs(role) WHERE journalled = 0",
    "CREATE INDEX docs_ctx_hash ON docs(ctx_hash) WHERE ctx_hash IS NOT NULL",
    "CREATE TABLE active(role TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY(role, id))",
    "CREATE TABLE outcomes(role TEXT, ctx_hash TEXT, successes INTEGER, trials INTEGER, PRIMARY KEY(role, ctx_hash))",
    "CREATE TABLE malformed(role TEXT, path TEXT, line INTEGER, reason TEXT)",
    "CREATE TABLE groups(role TEXT NOT NULL, id TEXT NOT NULL, grp TEXT NOT NULL, PRIMARY KEY(role, id))",
    "CREATE INDEX groups_grp ON groups(role, grp)",
    # provenance: each id's first record that made it (added, stored, logged, shared), and
    # the code it cites; what `audit`, `obsolete --session`, promotion and drift ask
    "CREATE TABLE origins(role TEXT NOT NULL, id TEXT NOT NULL, op TEXT, source TEXT, by TEXT, session TEXT,"
    " at TEXT, cite TEXT, flag TEXT, PRIMARY KEY(role, id))",
    "CREATE INDEX origins_session ON origins(session) WHERE session IS NOT NULL",
    "CREATE INDEX origins_cite ON origins(role) WHERE cite IS NOT NULL",
    "CREATE INDEX origins_at ON origins(at)",  # audit lists the newest writes first
    # the `redacted` records: applied to every line of their ids the archive holds or regains
    "CREATE TABLE redactions(role TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL)",
    "CREATE VIRTUAL TABLE docs_fts USING fts5(text, search, content='docs', content_rowid='rowid',"
    f" tokenize='{TOKENIZER}')",
    "CREATE VIRTUAL TABLE docs_vocab USING fts5vocab(docs_fts, 'row')",
    "CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN"
    " INSERT INTO docs_fts(rowid, text, search) VALUES (new.rowid, new.text, new.search); END",
    "CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN"
    " INSERT INTO docs_fts(docs_fts, rowid, text, search) VALUES ('delete', old.rowid, old.text, old.search); END",
    "CREATE TRIGGER docs_au AFTER UPDATE ON docs BEGIN"
    " INSERT INTO docs_fts(docs_fts, rowid, text, search) VALUES ('delete', old.rowid, old.text, old.search);"
    " INSERT INTO docs_fts(rowid, text, search) VALUES (new.rowid, new.text, new.search); END",
    # how many documents hold a common term, up to a rowid (notebook/search/lookups.py
    # document_counts): forgotten when a document goes or its words change
    "CREATE TABLE vocab(term TEXT PRIMARY KEY, doc INTEGER NOT NULL, upto INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE TRIGGER vocab_ad AFTER DELETE ON docs BEGIN DELETE FROM vocab; END",
    "CREATE TRIGGER vocab_au AFTER UPDATE ON docs WHEN old.text IS NOT new.text OR old.search IS NOT new.search"
    " BEGIN DELETE FROM vocab; END",
)

UPSERT = """
INSERT INTO docs(id, role, op, section, date, text, count, tags, ctx_hash, journalled, search, data)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT(id) DO UPDATE SET role=excluded.role, op=excluded.op, section=excluded.section,
    date=excluded.date, text=excluded.text, count=excluded.count, tags=excluded.tags,
    ctx_hash=excluded.ctx_hash, journalled=excluded.journalled, search=excluded.search, data=excluded.data
"""
