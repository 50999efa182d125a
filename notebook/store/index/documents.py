"""What a document is found by: its text, and besides it its section, tags and context,
and the parts of the identifiers in its text. How the index's rows are made from
archive records and notebook entries."""

from __future__ import annotations

import re

from ..archive import ArchiveRecord

_CAMEL = re.compile(r"[A-Za-z][a-z0-9]+(?:[A-Z][a-z0-9]*)+")
_HUMP = re.compile(r"[a-z0-9][A-Z]")  # what every camelCase name holds: a cheap first look
_PART = re.compile(r"[A-Z]?[a-z0-9]+")


def identifier_words(text: str) -> str:
    """The parts of the camelCase and PascalCase identifiers in a text, space-separated
    (`supportsInterface` -> "supports Interface"); the index's tokenizer already splits
    snake_case, dotted names and paths."""
    if not _HUMP.search(text):
        return ""
    parts = (_PART.findall(m) for m in _CAMEL.findall(text))
    return " ".join(" ".join(p) for p in parts if len(p) > 1)


def search_text(*parts: object, text: str | None) -> str:
    """What a document is found by besides its text: its section, tags and context, and
    the parts of the identifiers in its text (`identifier_words`)."""
    return " ".join(str(v) for v in (*parts, identifier_words(text or "")) if v)


def doc_row(role: str, r: ArchiveRecord, raw: bytes, outcomes: dict[str, list[int]]) -> tuple[object, ...]:
    ctx_hash = r.extra.get("ctx_hash")
    ctx_hash = ctx_hash if isinstance(ctx_hash, str) else None
    parts = (
        r.section,
        " ".join(r.tags),
        r.extra.get("context"),
        r.extra.get("command"),
        (ctx_hash or "").replace("-", " "),
    )
    search = search_text(*parts, text=r.text)
    outcome = r.extra.get("outcome")
    if r.op == "logged" and ctx_hash and isinstance(outcome, str):
        k, _, n = outcome.partition("/")
        if k.isdigit() and n.isdigit():
            total = outcomes.setdefault(ctx_hash, [0, 0])
            total[0] += int(k)
            total[1] += int(n)
    return (
        r.id,
        role,
        r.op,
        r.section,
        r.date,
        r.text,
        r.count,
        " ".join(r.tags),
        ctx_hash,
        1,
        search,
        raw.decode("utf-8").rstrip("\r\n"),
    )
