"""JSON with comments (Gemini CLI's settings.json accepts `//` and `/* */`): read it, and
set one member in place, every other byte (comments, order, spacing) kept."""

from __future__ import annotations

import json
from typing import Any


def strip_comments(text: str) -> str:
    """`text` with its comments blanked out (same length, line breaks kept), strings untouched."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [ch if ch == "\n" else " " for ch in text[i:end]]
            i = end
            continue
        i += 1
    return "".join(out)


def loads(text: str) -> Any:
    """The data of JSON with comments. Raises json.JSONDecodeError."""
    return json.loads(strip_comments(text))


def set_member(text: str, path: tuple[str, str], value: Any, indent: int = 2) -> str:
    """`text` with the object at `path` (two keys deep) set to `value`: replaced where it
    is, else added as the first member of its parent (made if missing)."""
    plain = strip_comments(text)
    top = _skip_space(plain, 0)
    if plain[top : top + 1] != "{":
        raise ValueError("not a JSON object")
    outer, inner = path
    found = _member(plain, top, outer)
    pad = " " * indent
    if found is None:
        entry = json.dumps({inner: value}, indent=indent, ensure_ascii=False).replace("\n", "\n" + pad)
        return _insert(text, plain, top, f"{json.dumps(outer)}: {entry}", pad)
    start = found[0]
    if plain[start] != "{":
        raise ValueError(f"{outer!r} is not an object")
    inside = _member(plain, start, inner)
    rendered = json.dumps(value, indent=indent, ensure_ascii=False).replace("\n", "\n" + pad * 2)
    if inside is not None:
        return text[: inside[0]] + rendered + text[inside[1] :]
    return _insert(text, plain, start, f"{json.dumps(inner)}: {rendered}", pad * 2)


def _insert(text: str, plain: str, brace: int, member: str, pad: str) -> str:
    after = _skip_space(plain, brace + 1)
    comma = "" if plain[after : after + 1] == "}" else ","
    return text[: brace + 1] + "\n" + pad + member + comma + text[brace + 1 :]


def _member(s: str, brace: int, key: str) -> tuple[int, int] | None:
    """(start, end) of the value of `key` in the object opening at `brace`."""
    i = _skip_space(s, brace + 1)
    while i < len(s) and s[i] != "}":
        end = _string_end(s, i)
        name = json.loads(s[i:end])
        i = _skip_space(s, end)
        if s[i] != ":":
            raise ValueError("expected ':'")
        start = _skip_space(s, i + 1)
        stop = _value_end(s, start)
        if name == key:
            return start, stop
        i = _skip_space(s, stop)
        if s[i : i + 1] == ",":
            i = _skip_space(s, i + 1)
    return None


def _value_end(s: str, i: int) -> int:
    if s[i] == '"':
        return _string_end(s, i)
    if s[i] in "{[":
        depth = 0
        while i < len(s):
            c = s[i]
            if c == '"':
                i = _string_end(s, i)
                continue
            if c in "{[":
                depth += 1
            elif c in "}]":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        raise ValueError("unclosed object or array")
    j = i
    while j < len(s) and s[j] not in ",}] \t\r\n":
        j += 1
    return j


def _string_end(s: str, i: int) -> int:
    j = i + 1
    while j < len(s):
        if s[j] == "\\":
            j += 2
            continue
        if s[j] == '"':
            return j + 1
        j += 1
    raise ValueError("unclosed string")


def _skip_space(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t\r\n":
        i += 1
    return i
