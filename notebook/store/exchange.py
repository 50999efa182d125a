"""Everything a root holds as one JSONL stream, and back: `rolebook export` and
`rolebook import rolebook FILE`.

The stream is lossless: a header line, then for each role its notebook's text, every
line of its archive, records as they were written and malformed lines byte for byte
(base64; a record whose bytes are not the form rolebook writes carries them too), and
every line of its failure journal (a record as rolebook writes one as `record`, any other
line byte for byte), then the role's rule lines in the rules block. Restoring it into an
empty root gives back the same files, hence the same search results, failure figures and
rules; into a root that has memory already, archive and journal lines it holds are not
appended twice, the notebook's entries join the role's notebook through `update`, and a
rule it has is not written twice.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..display import shown
from ..errors import InputError
from .archive import ArchiveRecord, append_lines, parse_line, read_lines, redacted_line
from .fsutil import open_file, role_lock
from .layout import Layout, check_role
from .read import load_text

if TYPE_CHECKING:
    from .changes import Held

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
        yield from _journal_lines(layout, role)
    for role, rule in rules:
        if role in roles:
            yield _dump({"rule": role, "line": rule})


def exported_roles(layout: Layout) -> list[str]:
    """The roles an export of the whole root holds: each with a notebook, an archive or a
    failure journal (a role whose hooks saw failures before it wrote anything)."""
    from ..errors import RoleError
    from .failures import FOLDER

    journals = layout.archive / FOLDER
    found = (
        {p.name[: -len(".jsonl")] for p in journals.iterdir() if p.name.endswith(".jsonl")}
        if journals.is_dir()
        else set()
    )
    roles = set(layout.roles())
    for name in found:
        try:
            roles.add(check_role(name))
        except RoleError:  # a file no role of rolebook's wrote
            continue
    return sorted(roles)


def _journal_lines(layout: Layout, role: str) -> Iterator[str]:
    """A role's failure journal, a line at a time: a line that is a JSON object in the form
    rolebook writes goes as its `record`; any other (a record type this rolebook does not
    know is a record too; a line not JSON, another hand's spacing, a last line cut short)
    byte for byte. A journal reached through a link out of the root is not read."""
    from .failures import failures_path

    try:
        f = open_file(failures_path(layout, role), layout.root)
    except (FileNotFoundError, NotADirectoryError):
        return
    with f:
        for raw in f:
            raw = raw.removesuffix(b"\n")
            if not raw.strip():
                continue
            try:  # nested deeper than an export may, a lone surrogate: byte for byte
                record = load_json(raw)
                as_written = isinstance(record, dict) and record_line(record) == raw + b"\n"
            except ValueError:
                as_written = False
            if as_written:
                yield _dump({"failures": role, "record": record})
            else:
                yield _dump({"failures": role, "raw_b64": base64.b64encode(raw).decode("ascii")})


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
    """An export read back: per role, the notebook text, the archive lines and the failure
    journal's lines (bytes)."""

    notebooks: dict[str, str] = field(default_factory=dict)
    lines: dict[str, list[bytes]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # archive lines per role
    rules: list[tuple[int, str, str]] = field(default_factory=list)  # (line of the export, role, rule line)
    journals: dict[str, list[bytes]] = field(default_factory=dict)
    journal_counts: dict[str, int] = field(default_factory=dict)  # failure journal lines per role

    def roles(self) -> list[str]:
        return sorted(set(self.notebooks) | set(self.lines) | set(self.counts) | set(self.journal_counts))


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


Sink = Callable[[str, bytes], None]


def read_export(path: Path, sink: Sink | None = None, journal: Sink | None = None) -> Bundle:
    """Read an export, a line at a time; lines it cannot take are listed as `path:line: why`.
    Each archive line goes to `sink(role, line)` when one is given (nothing is held),
    else into the bundle's `lines`; each failure journal line to `journal`, else `journals`.

    Raises InputError when the file is not a rolebook export at all, or when a line
    nests deeper than any export does (a hostile file: refused whole, nothing written).
    """
    bundle = Bundle()
    try:
        f = open_file(path)  # a pipe given as the export never blocks the import
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    with f:
        _read_export(path, f, bundle, sink, journal)
    return bundle


def _read_export(path: Path, f: Any, bundle: Bundle, sink: Sink | None, journal: Sink | None) -> None:
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
        if taken is None:
            continue
        # outside the `try`: what a sink raises is its own error, not a bad line
        kind, role, line = taken
        counts, held, to = (
            (bundle.counts, bundle.lines, sink)
            if kind == "archive"
            else (bundle.journal_counts, bundle.journals, journal)
        )
        counts[role] = counts.get(role, 0) + 1
        if to is None:
            held.setdefault(role, []).append(line)
        else:
            to(role, line)


def _take(bundle: Bundle, raw: bytes, n: int = 0) -> tuple[str, str, bytes] | None:
    """One line of an export: a notebook or a rule goes into the bundle, an archive or a
    failure journal line is returned with its kind ("archive", "failures") and role.

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
        return "archive", role, line
    elif "failures" in obj:
        role = check_role(obj["failures"])
        if "record" in obj:
            if not isinstance(obj["record"], dict):
                raise ValueError("a failure journal record is not a JSON object")
            return "failures", role, record_line(obj["record"])  # a lone surrogate: a ValueError
        return "failures", role, _journal_line(obj["raw_b64"])
    elif "rule" in obj:
        role = check_role(obj["rule"])
        rule = obj.get("line")
        if not isinstance(rule, str) or not rule.strip() or "\n" in rule or "\r" in rule:
            raise ValueError("a rule without its one line")
        rule.encode("utf-8")  # a lone surrogate: UnicodeEncodeError, a ValueError
        bundle.rules.append((n, role, rule))
    else:
        raise ValueError("neither a notebook, an archive line, a failure journal line nor a rule")
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


def _journal_line(encoded: str) -> bytes:
    """The one failure journal line a `raw_b64` holds, as it was (a carriage return in it
    included: the journal is read a line a newline).

    Raises:
        ValueError, binascii.Error: not base64, or more than one line.
    """
    if not isinstance(encoded, str):
        raise ValueError("raw_b64 is not a string")
    body = base64.b64decode(encoded, validate=True).removesuffix(b"\n")
    if (lines := body.count(b"\n") + 1) > 1:
        raise ValueError(f"raw_b64 holds {lines} lines, not one failure journal line")
    return body + b"\n"


def restore_journal(layout: Layout, role: str, lines: list[bytes], held: Held | None = None) -> tuple[int, int]:
    """Append to a role's failure journal the exported lines it does not hold, under the
    journal's lock: each redacted on the way in as an archive line is (`redacted_line`),
    one the journal holds already (the same bytes, as for archive lines) not written twice,
    a line rolebook does not read kept. `held` carries what one batch read of the journal
    to the next. Returns (lines appended, lines already there)."""
    import hashlib

    from .changes import Held
    from .failures import LOCK_SECONDS, failures_path

    def key(line: bytes) -> bytes:
        return hashlib.blake2b(line.rstrip(b"\r\n"), digest_size=16).digest()

    seen = Held() if held is None else held
    path = failures_path(layout, role)
    layout.check_inside(path.parent)
    fresh: list[bytes] = []
    with role_lock(layout.locks / f"failures-{role}.lock", timeout=LOCK_SECONDS):
        try:
            with open_file(path, layout.root) as f:
                if f.seek(0, 2) < seen.offset:  # rewritten since: read it again
                    seen.digests.clear()
                    seen.offset = 0
                f.seek(seen.offset)
                for raw in f:
                    seen.digests.add(key(raw))
                seen.offset = f.tell()
        except (FileNotFoundError, NotADirectoryError):
            seen.digests.clear()
            seen.offset = 0
        for line in map(redacted_line, lines):
            if key(line) not in seen.digests:
                seen.digests.add(key(line))
                fresh.append(line if line.endswith(b"\n") else line + b"\n")
        append_lines(path, fresh)
    return len(fresh), len(lines) - len(fresh)
