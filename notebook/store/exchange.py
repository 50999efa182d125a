"""Everything a root holds as one JSONL stream, and back: `rolebook export` and
`rolebook import rolebook FILE`.

The stream is lossless: a header line, then for each role its notebook's text and every
line of its archive, records as they were written and malformed lines byte for byte
(base64). Restoring it into an empty root gives back the same files, hence the same
search results; into a root that has memory already, archive lines it holds are not
appended twice and the notebook's entries join the role's notebook through `update`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from .archive import ArchiveRecord, read_lines
from .layout import Layout, check_role
from .read import load_text

FORMAT = "rolebook-export"
VERSION = 1


def export_lines(layout: Layout, roles: Iterable[str], version: str, at: str) -> Iterator[str]:
    """The export stream, a line at a time. Raises InputError for a notebook that is not UTF-8."""
    roles = list(roles)
    yield _dump({"format": FORMAT, "v": VERSION, "rolebook": version, "at": at, "roles": roles})
    for role in roles:
        text = load_text(layout, layout.notebook_path(role))
        if text is not None:
            yield _dump({"notebook": role, "text": text})
        archive = layout.archive_path(role)
        end = 0
        for offset, _, raw, item in read_lines(archive):
            end = offset
            if isinstance(item, ArchiveRecord):
                yield _dump({"archive": role, "record": json.loads(raw)})
            else:
                yield _dump({"archive": role, "raw_b64": base64.b64encode(raw).decode("ascii")})
        tail = _tail(archive, end)
        if tail:  # a last line a crash cut short: kept as it is, like any malformed line
            yield _dump({"archive": role, "raw_b64": base64.b64encode(tail).decode("ascii")})


def _tail(path: Path, offset: int) -> bytes:
    """What the archive holds past `offset` (read_lines stops before a cut-short last line)."""
    try:
        with open(path, "rb") as f:
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

    def roles(self) -> list[str]:
        return sorted(set(self.notebooks) | set(self.lines) | set(self.counts))


#: What one archive record may weigh, in an import or an export's archive lines: rolebook's
#: own are a few hundred bytes (entries are capped at 1,000 characters).
MAX_RECORD_BYTES = 64 * 1024


def read_export(path: Path, sink: Callable[[str, bytes], None] | None = None) -> Bundle:
    """Read an export, a line at a time; lines it cannot take are listed as `path:line: why`.
    Each archive line goes to `sink(role, line)` when one is given (nothing is held),
    else into the bundle's `lines`.

    Raises InputError when the file is not a rolebook export at all.
    """
    bundle = Bundle()
    try:
        f = open(path, "rb")  # noqa: SIM115 (closed below, after the last line)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    with f:
        _read_export(path, f, bundle, sink)
    return bundle


def _read_export(path: Path, f: Any, bundle: Bundle, sink: Callable[[str, bytes], None] | None) -> None:
    first = f.readline().rstrip(b"\r\n")
    try:
        header = json.loads(first) if first.strip() else None
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise InputError("not a rolebook export (its first line should name format rolebook-export)", path, 1)
    if header.get("v") != VERSION:
        raise InputError(f"export version {header.get('v')!r} is not one this rolebook reads ({VERSION})", path, 1)
    for n, raw in enumerate(f, 2):
        raw = raw.rstrip(b"\r\n")
        if not raw.strip():
            continue
        where = f"{path}:{n}"
        line = b""
        try:
            if len(raw) > MAX_RECORD_BYTES and not raw.startswith(b'{"notebook"'):
                raise ValueError(f"a line of {len(raw):,} bytes, over the limit of {MAX_RECORD_BYTES:,} for a record")
            obj = json.loads(raw)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
            if "notebook" in obj:
                role = check_role(obj["notebook"])
                if not isinstance(obj.get("text"), str):
                    raise ValueError("notebook without text")
                bundle.notebooks[role] = obj["text"]
            elif "archive" in obj:
                role = check_role(obj["archive"])
                if "record" in obj:
                    record = obj["record"]
                    ArchiveRecord.from_dict(record)  # raises ValueError for a record that is not one
                    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
                else:
                    line = base64.b64decode(obj["raw_b64"], validate=True)
                    line = line if line.endswith(b"\n") else line + b"\n"
                bundle.counts[role] = bundle.counts.get(role, 0) + 1
            else:
                raise ValueError("neither a notebook nor an archive line")
        except (ValueError, KeyError, TypeError, binascii.Error) as exc:
            bundle.problems.append(f"{where}: {exc}")
        except RecursionError:
            bundle.problems.append(f"{where}: JSON nested too deep")
        except InputError as exc:
            bundle.problems.append(f"{where}: {exc}")
        else:  # outside the `try`: what the sink raises is its own error, not a bad line
            if line and sink is not None:
                sink(role, line)
            elif line:
                bundle.lines.setdefault(role, []).append(line)
