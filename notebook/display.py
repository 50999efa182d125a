"""Untrusted text as rolebook shows it, to a terminal or in an agent's context
(DESIGN.md section 10: every field of every record from any source is shown escaped).

What rolebook prints comes from files anyone could have written: a notebook edited by
hand, an archive merged from another branch, a shared root's records, an import, a
rules file. A field may hold a terminal escape (`ESC [2J` clears the screen, `ESC ]8;;`
makes a hyperlink), a carriage return that overwrites what came before, a line break
that fakes a line of rolebook's own, a bidirectional override that shows text reordered,
or characters nobody sees (zero-width, Unicode tags, the supplementary variation
selectors) that a model reads all the same. `shown` writes each of them as `\\uXXXX`:
visible, inert, and the same on every surface. It lives in the model, the lowest room,
so that every room renders through the one function.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: What a terminal or a reader would act on, or would not see: C0 and C1 controls and DEL
#: (tab, line feed and carriage return included: a field is shown on one line), the soft
#: hyphen, the invisible letters and fillers, bidirectional marks, embeddings, overrides
#: and isolates, zero-width characters and word joiners, the line and paragraph
#: separators, the byte-order mark, interlinear annotation marks, lone surrogates (they
#: cannot even be encoded), Unicode tags and the supplementary variation selectors (both
#: used to hide text from people and not from models). The 16 variation selectors that
#: pick an emoji's style (U+FE00-U+FE0F) are kept.
ACTIVE = (
    "\x00-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e0fff"
)
_ACTIVE = re.compile(f"[{ACTIVE}]")
_JSON_ACTIVE = re.compile(f"[{ACTIVE[ACTIVE.index(chr(0x7F)) :]}]")  # JSON escapes C0 itself


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(value: object) -> str:
    """`value` as text with every character a terminal or a reader would act on (or not
    see) written as `\\uXXXX` (`\\UXXXXXXXX` past U+FFFF): one line, inert."""
    text = value if isinstance(value, str) else str(value)
    return _ACTIVE.sub(_escape, text) if _ACTIVE.search(text) else text


def shown_line(text: str) -> str:
    """A text of several lines (an entry) shown on one: runs of whitespace become one
    space, then `shown`."""
    return shown(" ".join(text.split()))


def shown_value(value: Any) -> Any:
    """A JSON value with every string in it (keys too) `shown`: structured content an
    agent reads, carrying what the text shows."""
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, list | tuple):
        return [shown_value(v) for v in value]
    if isinstance(value, dict):
        return {shown(str(k)): shown_value(v) for k, v in value.items()}
    return value


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character past U+FFFF as its surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def shown_json(data: Any, indent: int | None = 2) -> str:
    """`data` as JSON that reads back to the same values, with the characters JSON would
    leave raw (C1 controls, bidirectional overrides, invisible ones, lone surrogates)
    written as `\\uXXXX` escapes: safe in a terminal, lossless for a machine."""
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _JSON_ACTIVE.sub(_json_escape, text)
