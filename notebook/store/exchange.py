"""Everything a root holds as one JSONL stream, and back: `rolebook export` and
`rolebook import rolebook FILE`.

The stream is lossless: a header line, then for each role its notebook's text and every
line of its archive, records as they were written and malformed lines byte for byte
(base64; a record whose bytes are not the form rolebook writes carries them too), then
the role's rule lines in the rules block. Restoring it into an empty root gives back the
same files, hence the same search results, and the same rules; into a root that has memory
already, archive lines it holds are not appended twice, the notebook's entries join the
role's notebook through `update`, and a rule it has is not written twice.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..display import shown
from ..errors import InputError
from .archive import ArchiveRecord, parse_line, read_lines
from .fsutil import open_file
from .layout import Layout, check_role
from .read import load_text

FORMAT = "rolebook-export"
VERSION = 1


def export_lines(
    layout: Layout, roles: Iterable[str], version: str, at: str, rules: Iterable[tuple[str, str]] = ()
) -> Iterator[str]:
    """The export stream, a line at a time; `rules`: (role, rule line) of the rules block,
    read by the rules layer. Raises InputError for a notebook that is not UTF-8."""
    from .provenance.marks import marks_in

    roles = list(roles)
    yield _dump({"format": FORMAT, "v": VERSION, "rolebook": version, "at": at, "roles": roles})
    for role in roles:
        text = load_text(layout, layout.notebook_path(role))
        if text is not None:
            yield _dump({"notebook": role, "text": text})
        archive = layout.archive_path(role)
        # a redacted text a merge brought back into the archive is not exported again
        marks = marks_in(raw for _, _, raw, _ in read_lines(archive))
        end = 0
        for offset, _, raw, item in read_lines(archive):
            end = offset
            if isinstance(item, ArchiveRecord):
                raw = marks.line(raw) if marks else raw
                record = json.loads(raw)
                line: dict[str, Any] = {"archive": role, "record": record}
                if record_line(record) != raw.rstrip(b"\r\n") + b"\n":  # spaced, escaped, ordered otherwise
                    line["raw_b64"] = base64.b64encode(raw).decode("ascii")
                yield _dump(line)
            else:
                yield _dump({"archive": role, "raw_b64": base64.b64encode(raw).decode("ascii")})
        tail = _tail(archive, end)
        if tail:  # a last line a crash cut short: kept as it is, like any malformed line
            yield _dump({"archive": role, "raw_b64": base64.b64encode(tail).decode("ascii")})
    for role, rule in rules:
        if role in roles:
            yield _dump({"rule": role, "line": rule})


def record_line(record: dict[str, Any]) -> bytes:
    """A record's archive line as an import writes it from the record alone."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _tail(path: Path, offset: int) -> bytes:
    """What the archive holds past `offset` (read_lines stops before a cut-short last line)."""
    try:
        with open_file(path) as f:
            f.seek(offset)
            return f.read()
    except FileNotFoundError:
        return b""


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


@dataclass(slots=True)
class Bundle:
    """An export read back: per role, the notebook text and the archive lines (bytes)."""

    notebooks: dict[str, str] = field(default_factory=dict)
    lines: dict[str, list[bytes]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # archive lines per role
    rules: list[tuple[int, str, str]] = field(default_factory=list)  # (line of the export, role, rule line)

    def roles(self) -> list[str]:
        return sorted(set(self.notebooks) | set(self.lines) | set(self.counts))


#: What one archive record may weigh, in an import or an export's archive lines: rolebook's
#: own are a few hundred bytes (entries are capped at 1,000 characters).
MAX_RECORD_BYTES = 64 * 1024
#: How deep the JSON of a line may nest: a record is an object of a few levels (an
#: import's `original` a few more); deeper is refused before any code walks it.
MAX_DEPTH = 64


def nesting(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep a JSON value nests (a scalar is 0), counted without recursion and no
    further than `limit` + 1."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit:
                break
            stack.extend((v, depth) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def load_json(raw: bytes | str) -> Any:
    """One JSON document, no deeper than MAX_DEPTH.

    Raises:
        ValueError: not JSON (a number too long to read included), or nested too deep.
    """
    try:
        value = json.loads(raw)
    except RecursionError:
        raise ValueError(f"JSON nested too deep (at most {MAX_DEPTH} levels)") from None
    if nesting(value) > MAX_DEPTH:
        raise ValueError(f"JSON nested too deep (at most {MAX_DEPTH} levels)")
    return value


def read_export(path: Path, sink: Callable[[str, bytes], None] | None = None) -> Bundle:
    """Read an export, a line at a time; lines it cannot take are listed as `path:line: why`.
    Each archive line goes to `sink(role, line)` when one is given (nothing is held),
    else into the bundle's `lines`.

    Raises InputError when the file is not a rolebook export at all, or when a line
    nests deeper than any export does (a hostile file: refused whole, nothing written).
    """
    bundle = Bundle()
    try:
        f = open_file(path)  # a pipe given as the export never blocks the import
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    with f:
        _read_export(path, f, bundle, sink)
    return bundle


def _read_export(path: Path, f: Any, bundle: Bundle, sink: Callable[[str, bytes], None] | None) -> None:
    first = f.readline().removeprefix(b"\xef\xbb\xbf").rstrip(b"\r\n")
    try:
        header = load_json(first) if first.strip() else None
    except ValueError as exc:
        if "nested too deep" in str(exc):
            raise InputError(f"{exc}; refused, nothing was written", path, 1) from None
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InputError("not a rolebook export (its first line should name format rolebook-export)", path, 1)
    if header.get("v") != VERSION:
        raise InputError(
            f"export version {shown(header.get('v'))!r} is not one this rolebook reads ({VERSION})", path, 1
        )
    for n, raw in enumerate(f, 2):
        raw = raw.rstrip(b"\r\n")
        if not raw.strip():
            continue
        try:
            taken = _take(bundle, raw, n)
        except (ValueError, KeyError, TypeError, binascii.Error, InputError) as exc:
            if "nested too deep" in str(exc):
                raise InputError(f"{exc}; refused, nothing was written", path, n) from None
            bundle.problems.append(f"{path}:{n}: {exc}")
            continue
        if taken is not None:  # outside the `try`: what the sink raises is its own error, not a bad line
            role, line = taken
            bundle.counts[role] = bundle.counts.get(role, 0) + 1
            if sink is None:
                bundle.lines.setdefault(role, []).append(line)
            else:
                sink(role, line)


def _take(bundle: Bundle, raw: bytes, n: int = 0) -> tuple[str, bytes] | None:
    """One line of an export: a notebook goes into the bundle, an archive line is
    returned with its role.

    Raises:
        ValueError, KeyError, TypeError, binascii.Error, InputError: a line it cannot take.
    """
    if len(raw) > MAX_RECORD_BYTES and not raw.startswith(b'{"notebook"'):
        raise ValueError(f"a line of {len(raw):,} bytes, over the limit of {MAX_RECORD_BYTES:,} for a record")
    obj = load_json(raw)
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    if "notebook" in obj:
        role = check_role(obj["notebook"])
        if not isinstance(obj.get("text"), str):
            raise ValueError("notebook without text")
        obj["text"].encode("utf-8")  # a lone surrogate cannot be written: UnicodeEncodeError, a ValueError
        bundle.notebooks[role] = obj["text"]
    elif "archive" in obj:
        role = check_role(obj["archive"])
        if "record" in obj:
            record = obj["record"]
            if not isinstance(record, dict):
                raise ValueError("record is not a JSON object")
            ArchiveRecord.from_dict(record)  # raises ValueError for a record that is not one
            line = record_line(record)
            if "raw_b64" in obj:  # the record's own bytes: they must say exactly that record
                line = _raw_line(obj["raw_b64"], record)
        else:
            line = _raw_line(obj["raw_b64"])
        return role, line
    elif "rule" in obj:
        role = check_role(obj["rule"])
        rule = obj.get("line")
        if not isinstance(rule, str) or not rule.strip() or "\n" in rule or "\r" in rule:
            raise ValueError("a rule without its one line")
        rule.encode("utf-8")  # a lone surrogate: UnicodeEncodeError, a ValueError
        bundle.rules.append((n, role, rule))
    else:
        raise ValueError("neither a notebook, an archive line nor a rule")
    return None


def _raw_line(encoded: str, record: dict[str, Any] | None = None) -> bytes:
    """The one archive line a `raw_b64` holds, as it was: an export keeps a line that is not
    a record this way, byte for byte, so it must decode to exactly one line, and one that
    is not a record (a record goes as `record`, where it is checked); or, beside its
    `record`, that record's own bytes, which must read as exactly that record.

    Raises:
        ValueError, binascii.Error: not base64, several lines, a record in disguise, or
            bytes that say another record than the one beside them.
    """
    if not isinstance(encoded, str):
        raise ValueError("raw_b64 is not a string")
    line = base64.b64decode(encoded, validate=True)
    body = line.removesuffix(b"\n").removesuffix(b"\r")
    if b"\n" in body or b"\r" in body:
        raise ValueError(f"raw_b64 holds {len(body.splitlines())} lines, not one archive line")
    if record is not None:
        said = load_json(body)
        if not isinstance(said, dict) or record_line(said) != record_line(record):
            raise ValueError("raw_b64 beside a record holds another record than it")
        return body + b"\n"
    if isinstance(parse_line(body, "", 0), ArchiveRecord):
        raise ValueError("raw_b64 holds a record: an export writes records as records")
    return body + b"\n"
