"""The code an entry cites (`update --cite path[:lines]`, `store --cite`), and whether it
still says what it said when the entry was written.

A citation keeps the file's path under the root, the lines (first, last; none: the whole
file) and a CRC-32 of their text with line endings and trailing blanks ignored (a check
for change, not a seal: zlib is cheap to import, hashlib is not, and this runs when
`read` finds the files changed). The cited lines moved (lines added above them) still
hold; changed or gone, the entry may no longer hold, and `read` says so.
"""

from __future__ import annotations

import os
import re
import zlib
from pathlib import Path
from typing import Any

from ...errors import InputError
from ..fsutil import open_file

_SPEC = re.compile(r"(?P<path>.+?)(?::(?P<first>\d+)(?:-(?P<last>\d+))?)?")
#: A cited file larger than this is cited by its lines only when they are given.
MAX_CITED_BYTES = 4 << 20
_GONE = "no readable file"


def _lines(path: Path, root: Path) -> list[str] | str:
    """The file's lines, or why there are none: a pipe planted where the file was must not
    hang a write or a read, nor a link lead out of the root."""
    try:
        with open_file(path, root) as f:
            data = f.read(MAX_CITED_BYTES + 1)
    except InputError as exc:
        return exc.message
    except OSError:
        return _GONE
    if len(data) > MAX_CITED_BYTES:
        return f"over {MAX_CITED_BYTES >> 20} MB"
    return [line.rstrip() for line in data.decode("utf-8", errors="replace").splitlines()]


def _crc(lines: list[str]) -> int:
    return zlib.crc32("\n".join(lines).encode("utf-8"))


def parse_cite(root: Path, spec: str, cwd: Path | None = None) -> dict[str, Any]:
    """A citation of `path[:first[-last]]` (the path as typed: from the working directory,
    else from the root), checked now.

    Raises:
        InputError: a file outside the root or not there, or lines it does not have.
    """
    match = _SPEC.fullmatch(spec.strip())
    if not match or not match["path"]:
        raise InputError(f"--cite {spec!r}: give path or path:LINE or path:FIRST-LAST")
    given = Path(match["path"])
    here = (cwd or Path.cwd()) / given
    path = (here if here.exists() or given.is_absolute() else root / given).resolve()
    try:
        rel = path.relative_to(root.resolve())
    except ValueError:
        raise InputError(f"--cite {spec!r}: {path} is outside the project ({root})") from None
    lines = _lines(path, root)
    if isinstance(lines, str):
        why = f"no readable file at {rel}" if lines == _GONE else f"{rel}: {lines}"
        raise InputError(f"--cite {spec!r}: {why}")
    cite: dict[str, Any] = {"path": rel.as_posix()}
    if match["first"]:
        first = int(match["first"])
        last = int(match["last"] or first)
        if not 1 <= first <= last <= len(lines):
            raise InputError(f"--cite {spec!r}: {rel} has {len(lines)} lines")
        cite["lines"] = [first, last]
        lines = lines[first - 1 : last]
    cite["crc"] = _crc(lines)
    return cite


def cite_state(root: Path, cite: dict[str, Any]) -> str | None:
    """None while the cited code says what it said; else what became of it: `changed`,
    `gone` (the file), `moved or changed`... as a few words for an alert."""
    path = cite.get("path")
    crc = cite.get("crc")
    if not isinstance(path, str) or not isinstance(crc, int):
        return None  # not one of ours: nothing to check
    full = root / path
    if not str(full.resolve()).startswith(str(root.resolve()) + os.sep):
        return None
    lines = _lines(full, root)
    if isinstance(lines, str):
        return "was deleted" if lines == _GONE else "is no longer a readable file"
    span = cite.get("lines")
    if not (isinstance(span, list) and len(span) == 2 and all(isinstance(x, int) for x in span)):
        return None if _crc(lines) == crc else "changed"
    first, last = span
    if last <= len(lines) and _crc(lines[first - 1 : last]) == crc:
        return None
    size = last - first + 1
    if any(_crc(lines[i : i + size]) == crc for i in range(0, max(len(lines) - size + 1, 0))):
        return None  # moved: lines came or went above it
    return "changed" if last <= len(lines) else "lost those lines"


def cite_label(cite: dict[str, Any]) -> str:
    """`src/app.py:10-12` as the user typed it."""
    span = cite.get("lines")
    if isinstance(span, list) and len(span) == 2:
        first, last = span
        return f"{cite.get('path')}:{first}" + (f"-{last}" if last != first else "")
    return str(cite.get("path"))
