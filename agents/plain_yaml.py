"""A reader for the plain YAML that rolebook.yaml is written in, so that a command does
not load ruamel.yaml (about as long as a bare interpreter start-up) only to read it.

It takes block mappings and sequences of scalars, `{flow: mappings}` and `[flow,
sequences]` of scalars, comments, and plain or simply quoted scalars: what `init`
writes and what the README shows. For anything else (anchors, tags, multi-line
scalars, escapes, duplicate keys, tabs, ...) it returns None and the caller asks
ruamel.yaml, which also names the line of every error. On what it takes, it reads what
ruamel reads (a property test holds it to that).
"""

from __future__ import annotations

import re
from typing import Any

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_PLAIN = re.compile(r"[A-Za-z0-9_./~+][A-Za-z0-9_./~+\- ]*")
_RESERVED = frozenset("null Null NULL ~ true True TRUE false False FALSE".split()) | {""}


class _Unsupported(Exception):
    pass


def load(text: str) -> Any | None:
    """The data of `text`, or None where it is more than plain YAML."""
    try:
        lines = _lines(text)
        if not lines:
            return None  # empty: as ruamel does
        value, rest = _block(lines, 0, lines[0][0])
        if rest != len(lines):
            raise _Unsupported
        return value
    except _Unsupported:
        return None


def _lines(text: str) -> list[tuple[int, str]]:
    """(indent, content) of each line that holds data, comments taken off."""
    if "\t" in text or "\r" in text or text.startswith(("---", "%", "\ufeff")):
        raise _Unsupported
    out = []
    for raw in text.split("\n"):
        content = _uncomment(raw).rstrip(" ")
        if content.strip():
            out.append((len(content) - len(content.lstrip(" ")), content.lstrip(" ")))
    return out


def _uncomment(line: str) -> str:
    """The line without its comment: a # at its start or after a space, outside quotes."""
    quote = ""
    for i, c in enumerate(line):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"" and (i == 0 or line[i - 1] in " :[{,-"):
            quote = c  # a quote opens only at the start of a scalar
        elif c == "#" and (i == 0 or line[i - 1] == " "):
            return line[:i]
    if quote:
        raise _Unsupported
    return line


def _block(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[Any, int]:
    if lines[i][1].startswith("- ") or lines[i][1] == "-":
        return _sequence(lines, i, indent)
    return _mapping(lines, i, indent)


def _mapping(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    while i < len(lines) and lines[i][0] == indent:
        key, colon, rest = lines[i][1].partition(":")
        if not colon or not _KEY.fullmatch(key) or key in out or (rest and not rest.startswith(" ")):
            raise _Unsupported
        i += 1
        if rest.strip():
            out[key] = _value(rest.strip())
        elif i < len(lines) and (lines[i][0] > indent or (lines[i][0] == indent and lines[i][1].startswith("- "))):
            out[key], i = _block(lines, i, lines[i][0])
        else:
            out[key] = None
    if i < len(lines) and lines[i][0] > indent:
        raise _Unsupported
    return out, i


def _sequence(lines: list[tuple[int, str]], i: int, indent: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
        item = lines[i][1][2:].strip()
        if not item or ": " in item.split("{")[0] or item.endswith(":"):
            raise _Unsupported  # a block mapping inside a sequence: ruamel's
        out.append(_value(item))
        i += 1
    if i < len(lines) and lines[i][0] > indent:
        raise _Unsupported
    return out, i


def _value(text: str) -> Any:
    if text.startswith("{"):
        if not text.endswith("}"):
            raise _Unsupported
        out: dict[str, Any] = {}
        for part in _items(text[1:-1]):
            key, colon, rest = part.partition(":")
            key = key.strip()
            if not colon or not _KEY.fullmatch(key) or key in out or (rest and not rest.startswith(" ")):
                raise _Unsupported
            out[key] = _scalar(rest.strip())
        return out
    if text.startswith("["):
        if not text.endswith("]"):
            raise _Unsupported
        return [_scalar(part.strip()) for part in _items(text[1:-1])]
    return _scalar(text)


def _items(inner: str) -> list[str]:
    if any(c in inner for c in "{}[]"):
        raise _Unsupported
    parts = inner.split(",")
    if parts[-1].strip() == "":
        parts.pop()  # a trailing comma, as YAML allows
    if any(not p.strip() for p in parts):
        raise _Unsupported
    return parts


def _scalar(text: str) -> Any:
    if text in ("null", "Null", "NULL", "~", ""):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT.fullmatch(text):
        return int(text)
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        if "\\" in inner or "'" in inner or '"' in inner:
            raise _Unsupported
        return inner
    if _PLAIN.fullmatch(text) and not text.endswith(" ") and " -" not in text and "  " not in text:
        relative = text.startswith(("./", "../"))
        if (text[0] in "+-." and not relative) or text[0].isdigit():
            raise _Unsupported  # a number, a date or a float in YAML's eyes, perhaps
        return text
    raise _Unsupported
