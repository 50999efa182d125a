"""What a redaction leaves behind, and how every reader applies it.

A `redacted` record keeps the id, date and role of what it redacted and, instead of the
text, its SHA-256 and its length (`hash`, `length`), with the ids of every record whose
lines held it (`ids`). A line that comes back holding the text (an archive line an
older branch still has, merged back by `merge=union`; an export made before the
redaction) is recognised by the hash of its windows of that length, and the text is
taken out again: by the index as it reads, by `export`, by `import rolebook`, by the
notebook merge driver, and for good by `doctor --repair`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

#: What stands where removed text was.
PLACEHOLDER = "[redacted]"


@dataclass(frozen=True, slots=True)
class Mark:
    """One removed text, by its hash and length (never the text itself)."""

    hash: str  # "sha256:<hex>"
    length: int

    @classmethod
    def of(cls, text: str) -> Mark:
        return cls(digest(text), len(text))

    def found_in(self, text: str) -> list[int]:
        """Where the removed text starts in `text` (non-overlapping, left to right)."""
        out: list[int] = []
        n, i = self.length, 0
        if n <= 0:
            return out
        while i + n <= len(text):
            if digest(text[i : i + n]) == self.hash:
                out.append(i)
                i += n
            else:
                i += 1
        return out


def digest(text: str) -> str:
    import hashlib  # only where a redaction is met: the read path never imports it

    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def mark_of(record: Mapping[str, Any]) -> Mark | None:
    """The mark a `redacted` record carries, or None when it carries none (a bad one)."""
    h, n = record.get("hash"), record.get("length")
    if isinstance(h, str) and h.startswith("sha256:") and isinstance(n, int) and not isinstance(n, bool) and n > 0:
        return Mark(h, n)
    return None


def scrub_text(text: str, marks: Iterable[Mark]) -> str:
    """`text` with every occurrence of a marked text replaced by the placeholder."""
    for mark in marks:
        if len(text) < mark.length:
            continue
        spots = mark.found_in(text)
        for at in reversed(spots):
            text = text[:at] + PLACEHOLDER + text[at + mark.length :]
    return text


def scrub(value: Any, marks: list[Mark]) -> Any:
    """A JSON value with every string in it scrubbed (`scrub_text`)."""
    if isinstance(value, str):
        return scrub_text(value, marks)
    if isinstance(value, list):
        return [scrub(v, marks) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v, marks) for k, v in value.items()}
    return value


def holds(value: Any, marks: list[Mark]) -> bool:
    """Whether any string in a JSON value holds a marked text."""
    return bool(scrub(value, marks) != value)


@dataclass(slots=True)
class Marks:
    """The redactions an archive (or several) records: by id, the marks to apply to its lines."""

    by_id: dict[str, list[Mark]]
    redacted: set[str]  # the ids a redaction named first: their lines say nothing more

    @classmethod
    def empty(cls) -> Marks:
        return cls({}, set())

    def add(self, record: Mapping[str, Any]) -> None:
        mark = mark_of(record)
        if mark is None:
            return
        rid = str(record.get("id") or "")
        self.redacted.add(rid)
        for i in {rid, *(x for x in record.get("ids") or () if isinstance(x, str))}:
            if mark not in self.by_id.setdefault(i, []):
                self.by_id[i].append(mark)

    def __bool__(self) -> bool:
        return bool(self.by_id)

    def line(self, raw: bytes) -> bytes:
        """An archive line with the marked texts taken out (the same bytes when it holds none)."""
        try:
            data = json.loads(raw)
        except ValueError:
            return raw
        if not isinstance(data, dict) or data.get("op") == "redacted":
            return raw
        marks = self.by_id.get(str(data.get("id") or ""))
        if not marks:
            return raw
        clean = scrub(data, marks)
        if clean == data:
            return raw
        return (json.dumps(clean, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def marks_in(lines: Iterable[bytes]) -> Marks:
    """The redactions recorded among archive lines."""
    found = Marks.empty()
    for raw in lines:
        if b'"redacted"' not in raw:
            continue
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("op") == "redacted":
            found.add(data)
    return found
