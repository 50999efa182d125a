"""The questions search asks the derived index: how many documents hold a word, the
best matches by BM25, the rows of the hits that pass a query's filters.

The index itself (`rolebook.notebook.store.Index`: schema, sync) is the store's; the SQL
of searching it lives here, with the ranking that uses it.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from rolebook.notebook.store import Index

from .stemmer import terms as terms_of

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


#: a term held by at least this many documents has its count remembered in the index
#: (the `vocab` table): FTS5 keeps no count a term, fts5vocab walks the term's whole
#: posting list, and a word every record holds cost 10 ms a lookup at 100k records, 100 at 1M
REMEMBERED_FROM = 256


def document_counts(index: Index, terms: list[str]) -> dict[str, int]:
    """How many documents hold each of these index terms (stemmed, as `stemmer.terms`
    gives them); a term no document holds is left out.

    A common term's count is remembered with the highest rowid it covers: later it costs a
    count of the newer documents that hold it (a seek in its posting list), so the answer
    stays exact and its cost flat in the archive's size. The index forgets every count
    when a document goes or its text changes (triggers). A rare term is one lookup: an
    `IN` list made fts5vocab walk every term between the first and the last."""
    wanted = list(dict.fromkeys(terms))
    if not wanted:
        return {}
    db = index.db
    out: dict[str, int] = {}
    remember: list[tuple[str, int, int]] = []
    own = not db.in_transaction
    if own:
        db.execute("BEGIN")  # one snapshot: the remembered counts, the newer documents and the top agree
    try:
        top = top_rowid(index)
        known: dict[str, tuple[int, int]] = {}
        for chunk in range(0, len(wanted), 900):
            part = wanted[chunk : chunk + 900]
            for term, doc, upto in db.execute(
                f"SELECT term, doc, upto FROM vocab WHERE term IN ({','.join('?' * len(part))})", part
            ):
                known[term] = (int(doc), int(upto))
        for term in wanted:
            if term in known:
                n, upto = known[term]
                if upto < top:
                    n += int(
                        db.execute(
                            "SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ? AND rowid > ?", (f'"{term}"', upto)
                        ).fetchone()[0]
                    )
                    remember.append((term, n, top))
            else:
                row = db.execute("SELECT doc FROM docs_vocab WHERE term = ?", (term,)).fetchone()
                n = int(row[0]) if row is not None else 0
                if n >= REMEMBERED_FROM and terms_of(term) == (term,):  # asked again as a phrase: must stem to itself
                    remember.append((term, n, top))
            if n:
                out[term] = n
        if remember:
            _remember(db, remember)
    finally:
        if own and db.in_transaction:
            db.execute("COMMIT")
    return out


def _remember(db: sqlite3.Connection, rows: list[tuple[str, int, int]]) -> None:
    """Keep these counts for the next lookup, written in the snapshot they were counted
    in: when another process wrote since (a document added, gone or changed), or holds
    the index, SQLite refuses at once and they are counted again next time."""
    (timeout,) = db.execute("PRAGMA busy_timeout").fetchone()
    db.execute("PRAGMA busy_timeout = 0")
    try:
        db.executemany("INSERT OR REPLACE INTO vocab(term, doc, upto) VALUES (?, ?, ?)", rows)
    except sqlite3.OperationalError:  # busy, or a read-only index
        pass
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(timeout)}")


def phrase_count(index: Index, expression: str, cap: int) -> int:
    """How many documents hold a phrase (counting stops at `cap`)."""
    return int(
        index.db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)", (expression, cap)
        ).fetchone()[0]
    )


def sizes(index: Index) -> tuple[int, float]:
    """(documents, their mean length in terms, all columns): BM25's N and avgdl, as FTS5
    keeps them (its averages record: varints, the row count, then each column's total)."""
    row = index.db.execute("SELECT block FROM docs_fts_data WHERE id = 1").fetchone()
    numbers: list[int] = []
    blob = bytes(row[0]) if row is not None and row[0] is not None else b""
    i = 0
    while i < len(blob):
        value = 0
        for j in range(9):  # SQLite's varint: 7 bits a byte, high bit set while more follow; 8 in the 9th
            byte = blob[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        numbers.append(value)
    if not numbers or numbers[0] <= 0:
        return 0, 1.0
    return numbers[0], max(sum(numbers[1:]) / numbers[0], 1.0)


def top_rowid(index: Index) -> int:
    """The highest rowid a document has (0: none)."""
    return int(index.db.execute("SELECT coalesce(max(rowid), 0) FROM docs").fetchone()[0])


def postings(index: Index, expression: str, limit: int) -> list[int]:
    """The rowids of the newest `limit` documents that match, newest first: read from the
    posting lists in rowid order, nothing scored (a bounded share of a long list)."""
    return [
        r
        for (r,) in index.db.execute(
            "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rowid DESC LIMIT ?", (expression, limit)
        )
    ]


def texts_of(index: Index, rowids: list[int]) -> dict[int, tuple[str, str]]:
    """rowid -> (text, search): what a document is found by, in the index's two columns."""
    out: dict[int, tuple[str, str]] = {}
    for chunk in range(0, len(rowids), 900):
        part = rowids[chunk : chunk + 900]
        for rowid, text, search in index.db.execute(
            f"SELECT rowid, text, search FROM docs WHERE rowid IN ({','.join('?' * len(part))})", part
        ):
            out[rowid] = (text or "", search or "")
    return out


def ids_of(index: Index, rowids: list[int]) -> dict[int, str]:
    """rowid -> entry id."""
    out: dict[int, str] = {}
    for chunk in range(0, len(rowids), 900):
        part = rowids[chunk : chunk + 900]
        out.update(index.db.execute(f"SELECT rowid, id FROM docs WHERE rowid IN ({','.join('?' * len(part))})", part))
    return out


def count_matches(index: Index, expression: str, filters: Filters, cap: int) -> int:
    """How many documents match (counting stops at `cap`). The matches drive (CROSS
    JOIN keeps that order): counting 1,000 of 100k stops after 1,000, where an `IN`
    subquery listed all 100k first (17 ms, against 1 ms; a role filter holding
    nothing the query matches now costs up to a pass over the matches, 28 ms at 100k)."""
    where, args = filters
    tables = JOINS.removeprefix("FROM ")
    return int(
        index.db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM docs_fts CROSS JOIN {tables} WHERE d.rowid = docs_fts.rowid "
            f"AND docs_fts MATCH ? {where} LIMIT {int(cap)})",
            (expression, *args),
        ).fetchone()[0]
    )


def ranked(index: Index, expression: str, newest_first: bool, limit: int) -> dict[int, float]:
    """rowid -> BM25 (lower is better) of the best `limit` matches, or the newest ones.
    FTS5 scores every match: for the recall hook's few rare words, not for a user's query
    (`ranking` ranks a bounded candidate set)."""
    order = "rowid DESC" if newest_first else "2"
    return dict(
        index.db.execute(
            f"SELECT rowid, bm25(docs_fts, 1.0, 0.4) FROM docs_fts WHERE docs_fts MATCH ? ORDER BY {order} LIMIT ?",
            (expression, limit),
        ).fetchall()
    )


def hit_rows(index: Index, column: str, keys: list[Any], filters: Filters) -> list[tuple[Any, ...]]:
    """The documents with these rowids or ids (`column`) that pass the filters: (key, id,
    role, section, status, op, date, text, count, tags, successes, trials, data)."""
    assert column in ("rowid", "id")
    where, args = filters
    rows: list[tuple[Any, ...]] = []
    for chunk in range(0, len(keys), 900):
        part = keys[chunk : chunk + 900]
        rows += index.db.execute(
            f"SELECT d.{column}, d.id, d.role, d.section, {STATUS_SQL}, d.op, d.date, d.text, d.count, d.tags, "
            f"o.successes, o.trials, d.data {JOINS} WHERE d.{column} IN ({','.join('?' * len(part))}) {where}",
            (*part, *args),
        ).fetchall()
    return rows


def marks(index: Index, after: int) -> tuple[int, int, int]:
    """(documents, highest rowid, documents past rowid `after`): what embedding has to catch up on."""
    count, top = index.db.execute("SELECT count(*), coalesce(max(rowid), 0) FROM docs").fetchone()
    newer = index.db.execute("SELECT count(*) FROM docs WHERE rowid > ?", (after,)).fetchone()[0]
    return int(count), int(top), int(newer)


def texts_after(index: Index, rowid: int) -> list[tuple[str, str]]:
    """(id, text) of the documents past `rowid`, in order."""
    return index.db.execute("SELECT id, text FROM docs WHERE rowid > ? ORDER BY rowid", (rowid,)).fetchall()


def similar(index: Index, role: str, section: str, expression: str, limit: int) -> list[tuple[str, str, str, int]]:
    """(id, date, text, count) of a role's items in one section that match, best first."""
    return index.db.execute(
        "SELECT d.id, d.date, d.text, d.count FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid "
        "WHERE docs_fts MATCH ? AND d.role = ? AND d.section = ? ORDER BY bm25(docs_fts, 1.0, 0.4) LIMIT ?",
        (expression, role, section, limit),
    ).fetchall()


def near_count(index: Index, first: str, second: str, cap: int) -> int:
    """How many documents hold the two words within a few words of each other (up to `cap`)."""
    expression = 'NEAR("{}" "{}", 3)'.format(first.replace('"', '""'), second.replace('"', '""'))
    return int(
        index.db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)", (expression, cap)
        ).fetchone()[0]
    )
