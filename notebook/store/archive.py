"""The archive: an append-only JSONL journal per role (DESIGN.md section 4).

Every entry written through rolebook is journalled here first as `added`; whatever
leaves a notebook is journalled as `pruned`, `recurred`, `promoted`, `obsolete`, ...
before it leaves. Records are never rewritten. Unknown fields survive a read and a
write. A malformed line is reported as `path:line`, skipped, and left where it is.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import StorageError
from .fsutil import open_file

VERSION = 1

#: Operations after which an entry is no longer in its notebook.
LEAVING_OPS = frozenset({"pruned", "recurred", "promoted", "obsolete", "redacted"})

_FIELDS = ("v", "id", "op", "role", "section", "date", "text", "count", "tags", "at", "by", "session")


@dataclass(frozen=True, slots=True)
class ArchiveRecord:
    """One journal line. `extra` holds fields this version does not know, kept as read."""

    id: str
    op: str
    role: str
    section: str
    date: str
    text: str
    count: int = 1
    tags: tuple[str, ...] = ()
    at: str = ""
    by: str | None = None
    session: str | None = None
    v: int = VERSION
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "v": self.v,
            "id": self.id,
            "op": self.op,
            "role": self.role,
            "section": self.section,
            "date": self.date,
            "text": self.text,
            "count": self.count,
        }
        if self.tags:
            out["tags"] = list(self.tags)
        # provenance on every record: who wrote it (null when the writer was not scoped), in which session
        out["at"] = self.at
        out["by"] = self.by
        out["session"] = self.session
        out.update((k, v) for k, v in self.extra.items() if k not in out)
        return out

    def to_line(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ArchiveRecord:
        """Raises: ValueError when a required field is missing or of the wrong type."""
        for name in ("id", "op"):
            if not isinstance(data.get(name), str) or not data[name]:
                raise ValueError(f"field {name!r} missing or not a string")
        count = data.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int):
            raise ValueError("field 'count' is not a whole number")
        tags = data.get("tags") or ()
        if not isinstance(tags, list | tuple) or not all(isinstance(t, str) for t in tags):
            raise ValueError("field 'tags' is not a list of strings")
        v = data.get("v", VERSION)
        return cls(
            id=data["id"],
            op=data["op"],
            role=str(data.get("role") or ""),
            section=str(data.get("section") or data.get("category") or ""),
            date=str(data.get("date") or ""),
            text=str(data.get("text") or ""),
            count=count,
            tags=tuple(tags),
            at=str(data.get("at") or ""),
            by=data.get("by"),
            session=data.get("session"),
            v=v if isinstance(v, int) else VERSION,
            extra={k: val for k, val in data.items() if k not in _FIELDS},
        )


@dataclass(frozen=True, slots=True)
class MalformedLine:
    """A line of an archive that is not a record; reported, never dropped."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


def parse_line(text: str | bytes, path: str, line: int) -> ArchiveRecord | MalformedLine:
    """One archive line as a record, or why it is not one."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        return MalformedLine(path, line, f"not JSON ({exc.__class__.__name__})")
    if not isinstance(data, dict):
        return MalformedLine(path, line, "not a JSON object")
    try:
        return ArchiveRecord.from_dict(data)
    except ValueError as exc:
        return MalformedLine(path, line, str(exc))


def read_records(
    path: Path, start: int = 0, first_line: int = 1
) -> Iterator[tuple[int, int, ArchiveRecord | MalformedLine]]:
    """(end offset, line number, record or malformed line) for each line from byte `start`.

    `first_line` is the number of the line at `start`. A last line with no newline is
    read only when it is a whole record: otherwise it may still be being written.
    """
    for offset, lineno, _, item in read_lines(path, start, first_line):
        yield offset, lineno, item


def read_lines(
    path: Path, start: int = 0, first_line: int = 1
) -> Iterator[tuple[int, int, bytes, ArchiveRecord | MalformedLine]]:
    """As `read_records`, with each line's bytes too."""
    if not path.exists():
        return
    if path.is_dir():
        from ..errors import InputError

        raise InputError("a folder stands where rolebook keeps an archive; move it aside (nothing was written)", path)
    with open_file(path) as f:  # a pipe planted where the archive was never blocks
        if start:
            f.seek(start)
        offset, lineno = start, first_line - 1
        for raw in f:
            lineno += 1
            item = parse_line(raw, str(path), lineno) if raw.strip() else None
            if not raw.endswith(b"\n") and not isinstance(item, ArchiveRecord):
                break
            offset += len(raw)
            if item is not None:
                yield offset, lineno, raw, item


def append_records(path: Path, records: Iterable[ArchiveRecord]) -> int:
    """Append records in one write and fsync them, every string in them redacted (the
    text, tags, and every field an importer or a writer kept, keys of what they hold
    included). Returns bytes written."""
    from .secrets import redact_record

    lines = []
    for record in records:
        data, _ = redact_record(record.to_dict())
        lines.append((json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    return append_lines(path, lines)


def redacted_line(raw: bytes) -> bytes:
    """An archive line as it may be written back (a restore): as it is, unless a string in
    it holds a secret, then with that redacted. A line that is not JSON (kept, as a
    malformed line is) is redacted as text: a secret does not come back in through it."""
    from .secrets import redact_record, redact_value

    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return _redacted_text_line(raw)
    clean, kinds = redact_record(data) if isinstance(data, dict) else redact_value(data)
    if not kinds:
        return raw
    return (json.dumps(clean, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


#: a JSON string escape: what a line cut short inside a string holds for a quote, a line break
_ESCAPE = re.compile(r'\\(["\\/bfnrt]|u[0-9a-fA-F]{4})')


def _redacted_text_line(raw: bytes) -> bytes:
    """A line that is not JSON (a record cut short, say), redacted as text: as it is, and
    with its JSON escapes read (`\\"password\\": \\"...\\"` is a password), so no secret
    stays in it. Kept byte for byte when it holds none."""
    from .secrets import redact

    body = raw.decode("utf-8", "surrogateescape")
    end = len(body) - len(body.rstrip("\r\n"))
    body, newline = body[: len(body) - end], body[len(body) - end :]
    text, found = redact(body)
    if "\\" in text:
        plain = _ESCAPE.sub(lambda m: json.loads(f'"{m.group()}"'), text)
        read, more = redact(plain)
        if more:  # the line stays one line: its breaks written as escapes again
            text, found = read.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r"), found + more
    return (text + newline).encode("utf-8", "surrogateescape") if found else raw


def append_lines(path: Path, lines: Iterable[bytes]) -> int:
    """Append whole lines (each ending in a newline) in one write and fsync them. Returns bytes written."""
    data = b"".join(lines)
    if not data:
        return 0
    created = not path.exists()
    try:
        if created:
            path.parent.mkdir(parents=True, exist_ok=True)
        # unbuffered: a failed write must leave nothing behind in a buffer that a later
        # close would flush past the truncation that undoes it
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StorageError(path, "append to the archive", exc) from None
    start: int | None = None
    try:
        start = os.lseek(fd, 0, os.SEEK_END)
        if start > 0 and os.pread(fd, 1, start - 1) != b"\n":
            data = b"\n" + data  # a line cut short by a crash keeps its own line; ours stays whole
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except OSError as exc:
        # a full disk must not leave half a record behind: undo what got written
        if start is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
                os.fsync(fd)
        raise StorageError(path, "append to the archive", exc, "nothing was appended") from None
    finally:
        os.close(fd)
    if created:
        from .fsutil import fsync_dir

        fsync_dir(path.parent)
    return len(data)
