"""The SQL text of the derived index: its schema, and the filters of a search.

`index.py` runs it; nothing else in rolebook holds SQL.
"""

from __future__ import annotations

SCHEMA_VERSION = 9
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
)

UPSERT = """
INSERT INTO docs(id, role, op, section, date, text, count, tags, ctx_hash, journalled, search, data)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT(id) DO UPDATE SET role=excluded.role, op=excluded.op, section=excluded.section,
    date=excluded.date, text=excluded.text, count=excluded.count, tags=excluded.tags,
    ctx_hash=excluded.ctx_hash, journalled=excluded.journalled, search=excluded.search, data=excluded.data
"""

#: A document's status in the search filters: what the reader sees it as.
STATUS_SQL = (
    "CASE WHEN a.id IS NOT NULL THEN 'active' WHEN d.op = 'promoted' AND d.section = 'rules' THEN 'rule' "
    "WHEN d.op = 'promoted' THEN 'promoted' "
    "WHEN d.op = 'obsolete' THEN 'obsolete' WHEN d.op = 'rule' THEN 'rule' ELSE 'archived' END"
)
JOINS = (
    "FROM docs d LEFT JOIN active a ON a.role = d.role AND a.id = d.id "
    "LEFT JOIN outcomes o ON o.role = d.role AND o.ctx_hash = d.ctx_hash "
)
#: A WHERE fragment (each condition starting " AND ") and its arguments; see `filters`.
Filters = tuple[str, list[object]]


def filters(
    roles: tuple[str, ...] = (),
    sections: tuple[str, ...] = (),
    tags: tuple[str, ...] = (),
    statuses: tuple[str, ...] = (),
    since: str | None = None,
    until: str | None = None,
    skip_active_of: str | None = None,
) -> Filters:
    """The conditions of a search's filters, for `count_matches` and `hit_rows`. Empty
    statuses: everything but obsolete."""
    sql: list[str] = ["d.section != 'review'"]  # the promote review's decisions are not memories
    args: list[object] = []
    # `+`: no index for these; the matches or the ids asked for drive (the role index made
    # hit_rows scan every document of the role, 14 ms at 100k, for 50 rows)
    for column, values in (("+d.role", roles), ("+d.section", sections)):
        if values:
            sql.append(f"{column} IN ({','.join('?' * len(values))})")
            args += values
    for tag in tags:
        sql.append("(' ' || d.tags || ' ') LIKE ?")
        args.append(f"% {tag} %")
    wanted = set(statuses)
    if not wanted:
        sql.append(f"{STATUS_SQL} != 'obsolete'")
    elif "all" not in wanted:
        sql.append(f"{STATUS_SQL} IN ({','.join('?' * len(wanted))})")
        args += sorted(wanted)
    if since:
        sql.append("d.date >= ?")
        args.append(since)
    if until:
        sql.append("d.date <= ?")
        args.append(until)
    if skip_active_of:
        sql.append(f"NOT (d.role = ? AND {STATUS_SQL} = 'active')")
        args.append(skip_active_of)
    return "".join(f" AND {s}" for s in sql), args
