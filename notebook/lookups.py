"""The questions search and recurrence ask the derived index (its SQL, with `index.py`'s).

`Index` is made of these and of what keeps it up to the files; they are apart only to
keep each module readable.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from .index_sql import JOINS, STATUS_SQL, TOKENIZER, Filters


class Lookups:
    """Read-only lookups over an open index database (`db`)."""

    db: sqlite3.Connection

    def term_frequencies(self, words: list[str]) -> tuple[dict[int, int], int]:
        """For each query word (by position), how many documents hold it, stemmed by the
        index's own tokenizer (a word it splits, `test_login_redirect`, is a phrase and is
        counted as one, up to half the documents; counting it by its commonest part dropped
        such names as too common to rank by); and how many documents there are."""
        db = self.db
        db.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.rb_query USING fts5(x, tokenize='{TOKENIZER}')")
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.rb_query_terms USING fts5vocab(temp, rb_query, 'instance')")
        db.execute("DELETE FROM temp.rb_query")
        db.executemany("INSERT INTO temp.rb_query(rowid, x) VALUES (?, ?)", list(enumerate(words)))
        stems: dict[int, list[str]] = {}
        for term, row in db.execute("SELECT term, doc FROM temp.rb_query_terms"):
            stems.setdefault(row, []).append(term)
        terms = sorted({t for ts in stems.values() for t in ts})
        marks = ",".join("?" * len(terms))
        df = dict(db.execute(f"SELECT term, doc FROM docs_vocab WHERE term IN ({marks})", terms).fetchall())
        total = db.execute("SELECT max(rowid) FROM docs").fetchone()[0] or 0
        freq = {i: min((df.get(t, 0) for t in stems.get(i, [])), default=0) for i in range(len(words))}
        for i, parts in stems.items():
            if len(parts) > 1 and freq[i]:  # a phrase: count it, up to what matters (half)
                phrase = '"' + words[i].replace('"', '""') + '"'
                freq[i] = db.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)",
                    (phrase, total // 2 + 1),
                ).fetchone()[0]
        return freq, total

    def count_matches(self, expression: str, filters: Filters, cap: int) -> int:
        """How many documents match (counting stops at `cap`). The matches drive (CROSS
        JOIN keeps that order): counting 1,000 of 100k stops after 1,000, where an `IN`
        subquery listed all 100k first (17 ms, against 1 ms; a role filter holding
        nothing the query matches now costs up to a pass over the matches, 28 ms at 100k)."""
        where, args = filters
        tables = JOINS.removeprefix("FROM ")
        return int(
            self.db.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM docs_fts CROSS JOIN {tables} WHERE d.rowid = docs_fts.rowid "
                f"AND docs_fts MATCH ? {where} LIMIT {int(cap)})",
                (expression, *args),
            ).fetchone()[0]
        )

    def ranked(self, expression: str, newest_first: bool, limit: int) -> dict[int, float]:
        """rowid -> BM25 (lower is better) of the best `limit` matches, or the newest ones."""
        order = "rowid DESC" if newest_first else "2"
        return dict(
            self.db.execute(
                f"SELECT rowid, bm25(docs_fts, 1.0, 0.4) FROM docs_fts WHERE docs_fts MATCH ? ORDER BY {order} LIMIT ?",
                (expression, limit),
            ).fetchall()
        )

    def ranked_texts(self, expression: str, limit: int) -> list[tuple[str, str, float]]:
        """(id, text, BM25) of the best `limit` matches."""
        return self.db.execute(
            "SELECT d.id, d.text, bm25(docs_fts, 1.0, 0.4) FROM docs_fts "
            "JOIN docs d ON d.rowid = docs_fts.rowid WHERE docs_fts MATCH ? ORDER BY 3 LIMIT ?",
            (expression, limit),
        ).fetchall()

    def hit_rows(self, column: str, keys: list[Any], filters: Filters) -> list[tuple[Any, ...]]:
        """The documents with these rowids or ids (`column`) that pass the filters: (key, id,
        role, section, status, op, date, text, count, tags, successes, trials, data)."""
        assert column in ("rowid", "id")
        where, args = filters
        rows: list[tuple[Any, ...]] = []
        for chunk in range(0, len(keys), 900):
            part = keys[chunk : chunk + 900]
            rows += self.db.execute(
                f"SELECT d.{column}, d.id, d.role, d.section, {STATUS_SQL}, d.op, d.date, d.text, d.count, d.tags, "
                f"o.successes, o.trials, d.data {JOINS} WHERE d.{column} IN ({','.join('?' * len(part))}) {where}",
                (*part, *args),
            ).fetchall()
        return rows

    def marks(self, after: int) -> tuple[int, int, int]:
        """(documents, highest rowid, documents past rowid `after`): what embedding has to catch up on."""
        count, top = self.db.execute("SELECT count(*), coalesce(max(rowid), 0) FROM docs").fetchone()
        newer = self.db.execute("SELECT count(*) FROM docs WHERE rowid > ?", (after,)).fetchone()[0]
        return int(count), int(top), int(newer)

    def texts_after(self, rowid: int) -> list[tuple[str, str]]:
        """(id, text) of the documents past `rowid`, in order."""
        return self.db.execute("SELECT id, text FROM docs WHERE rowid > ? ORDER BY rowid", (rowid,)).fetchall()

    def similar(self, role: str, section: str, expression: str, limit: int) -> list[tuple[str, str, str, int]]:
        """(id, date, text, count) of a role's items in one section that match, best first."""
        return self.db.execute(
            "SELECT d.id, d.date, d.text, d.count FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid "
            "WHERE docs_fts MATCH ? AND d.role = ? AND d.section = ? ORDER BY bm25(docs_fts, 1.0, 0.4) LIMIT ?",
            (expression, role, section, limit),
        ).fetchall()

    def newest(self, role: str, section: str, limit: int) -> list[tuple[str, str, str, int]]:
        """(id, date, text, count) of a role's newest items in one section or category."""
        return self.db.execute(
            "SELECT id, date, text, count FROM docs WHERE role = ? AND section = ? "
            "ORDER BY date DESC, rowid DESC LIMIT ?",
            (role, section, limit),
        ).fetchall()

    def active_mistakes(self, role: str) -> list[tuple[str, str]]:
        """(id, text) of the mistakes in the role's notebook."""
        return self.db.execute(
            "SELECT d.id, d.text FROM active a JOIN docs d ON d.id = a.id WHERE a.role = ? AND d.section = 'mistakes'",
            (role,),
        ).fetchall()

    def with_id_prefix(self, prefix: str) -> list[tuple[Any, ...]]:
        """(id, role, op, section, date, text, count, tags, data) of the items whose id starts
        with `prefix` (lowercase letters and digits), the promote review's decisions aside."""
        assert prefix.isalnum()
        return self.db.execute(
            "SELECT id, role, op, section, date, text, count, tags, data FROM docs "
            "WHERE id >= ? AND id < ? AND section != 'review' LIMIT 20",
            (prefix, prefix + "\U0010ffff"),
        ).fetchall()

    def shared_record(self, rid: str) -> dict[str, Any] | None:
        """The record a shared root holds for an item shared under this id, if any."""
        row = self.db.execute("SELECT data FROM docs WHERE id = ? AND journalled = 1", (rid,)).fetchone()
        data = json.loads(row[0]) if row is not None and row[0] else None
        return data if isinstance(data, dict) else None

    def promotion_record(self, rule_id: str) -> dict[str, Any] | None:
        """The archive record of a rule's promotion, if it has one."""
        row = self.db.execute("SELECT data FROM docs WHERE id = ? AND op = 'promoted'", (rule_id,)).fetchone()
        data = json.loads(row[0]) if row is not None and row[0] else None
        return data if isinstance(data, dict) else None

    def added_ids(self, role: str) -> list[str]:
        """Ids of notebook entries whose last word in the archive is `added`."""
        return [
            i
            for (i,) in self.db.execute(
                "SELECT id FROM docs WHERE role = ? AND journalled = 1 AND op = 'added' "
                "AND section IN ('mistakes', 'learnings', 'feedback', 'session_log')",
                (role,),
            )
        ]
