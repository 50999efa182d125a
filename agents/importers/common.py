"""What every reader of another tool's memory makes: `Item`s and `Problem`s in a
`Source`, and the checks they share (`rolebook import`; the readers are in
logs.py and notes.py, listed in this package's __init__)."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError, RolebookError
from rolebook.notebook.store import MAX_RECORD_BYTES, check_day, check_tags, check_text, load_json, open_file


@dataclass(frozen=True, slots=True)
class Item:
    """One thing to bring in. `kind` is `entry` (a notebook entry), `stored` or `logged`;
    `section` is the notebook section, the store category or the event type."""

    where: str
    kind: str
    section: str
    date: str
    text: str
    role: str | None = None
    count: int = 1
    tags: tuple[str, ...] = ()
    key: str = ""
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Problem:
    where: str
    reason: str

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(slots=True)
class Source:
    """What a reader found: items, problems, and what the user should know. With a `sink`,
    each item goes to it as it is read instead of into `items` (an import streams)."""

    items: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: int = 0
    sink: Callable[[Item], None] | None = None
    #: The folder imported: no file is read through a link that leads out of it (a cloned
    #: repository's link to a private file would land it in the committed archive).
    within: Path | None = None

    def add(self, item: Item) -> None:
        if self.sink is None:
            self.items.append(item)
        else:
            self.sink(item)


class BadRecord(Exception):
    """A field that makes its line unusable."""


def checked(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except RolebookError as exc:
        # the message without its place: the importer names the line it came from
        raise BadRecord(exc.message if isinstance(exc, InputError) else str(exc)) from None


def text_field(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadRecord(f"field {name!r} is missing or empty")
    return str(checked(lambda: check_text(value)))


def day_field(value: Any, name: str) -> str:
    """The date of an ISO 8601 date or timestamp (RFC 3339, nanoseconds and all)."""
    if not isinstance(value, str) or not re.match(r"\d{4}-\d{2}-\d{2}", value):
        raise BadRecord(f"field {name!r} is not an ISO date or timestamp: {value!r}")
    return str(checked(lambda: check_day(value[:10])))


def tags_field(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise BadRecord("field 'tags' is not a list of strings")
    return tuple(checked(lambda: check_tags([re.sub(r"\s+", "-", t.strip()) for t in value])))


def record_key(fmt: str, data: Any) -> str:
    return fmt + ":" + json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def file_day(path: Path) -> str:
    return dt.date.fromtimestamp(path.stat().st_mtime).isoformat()


def opened(path: Path, source: Source) -> Any:
    """`path` open for reading (binary), or None with a problem: a link out of the folder
    imported, a pipe or a device is never read (see `open_file`)."""
    try:
        return open_file(path, source.within, "the folder imported")
    except InputError as exc:
        source.problems.append(Problem(f"{path}:1", exc.message))
    except OSError as exc:
        source.problems.append(Problem(f"{path}:1", f"cannot read: {exc.strerror or exc}"))
    return None


def file_bytes(path: Path, source: Source, limit: int | None = None) -> bytes | None:
    """The bytes of `path` (at most `limit` + 1), or None with a problem (see `opened`)."""
    f = opened(path, source)
    if f is None:
        return None
    with f:
        try:
            return bytes(f.read() if limit is None else f.read(limit + 1))
        except OSError as exc:
            source.problems.append(Problem(f"{path}:1", f"cannot read: {exc.strerror or exc}"))
            return None


def jsonl_records(path: Path, source: Source) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path:line, object) for each non-blank line; other lines become problems."""
    source.files += 1
    f = opened(path, source)  # read a line at a time: a big log is never held whole
    if f is None:
        return
    with f:
        yield from _records(path, f, source)


def _records(path: Path, f: Any, source: Source) -> Iterator[tuple[str, dict[str, Any]]]:
    for n, raw in enumerate(f, 1):
        raw = raw.rstrip(b"\r\n")
        where = f"{path}:{n}"
        if not raw.strip():
            continue
        if len(raw) > MAX_RECORD_BYTES:
            source.problems.append(
                Problem(where, f"a record of {len(raw):,} bytes, over the limit of {MAX_RECORD_BYTES:,}")
            )
            continue
        try:
            obj = load_json(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            deep = "nested too deep" in str(exc)
            source.problems.append(Problem(where, str(exc) if deep else f"not JSON ({exc.__class__.__name__})"))
            continue
        if not isinstance(obj, dict):
            source.problems.append(Problem(where, "not a JSON object"))
            continue
        yield where, obj


def folder_of(path: Path) -> Path:
    """The folder an import may read in: the one named (or the named file's, through its
    links: a file named outright is what the user asked for); nothing under it is read
    through a link that leads out of it."""
    import os

    real = Path(os.path.realpath(path))
    return real if real.is_dir() else real.parent


def not_a_source(path: Path) -> InputError:
    """The error for a source that is neither a file nor a folder: missing, or a pipe or a
    device (never opened: a pipe with no writer would hang the import)."""
    if path.exists():
        return InputError(f"{path}: not a regular file or folder (a pipe or a device); nothing was read")
    return InputError(f"{path}: no such file or folder")


def files_of(path: Path, pattern: str, source: Source) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise not_a_source(path)
    found = [p for p in files_under(path, pattern, source) if ".rolebook" not in p.parts]
    if not found and not source.problems:
        raise InputError(f"{path}: no {pattern} files in this folder")
    return found


def files_under(path: Path, pattern: str, source: Source) -> list[Path]:
    """The files matching `pattern` under the folder `path`, sorted; a pipe, a device or a
    socket among them is a problem, never opened (a pipe would hang the import)."""
    import os
    import stat

    found = []
    for p in sorted(path.rglob(pattern)):
        try:
            mode = os.stat(p).st_mode
        except OSError:
            continue  # a dangling link: nothing to read
        if stat.S_ISREG(mode):
            found.append(p)
        elif not stat.S_ISDIR(mode):
            source.problems.append(Problem(f"{p}:1", "not a regular file (a pipe, a device or a socket): not read"))
    return found


def take(source: Source, where: str, build: Callable[[], list[Item]]) -> None:
    try:
        items = build()
    except BadRecord as exc:
        source.problems.append(Problem(where, str(exc)))
        return
    for item in items:
        source.add(item)
