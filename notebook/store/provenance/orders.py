"""An entry that reads like an order to the agent rather than a lesson (DESIGN.md section
10: memory is data, not orders). Such an entry is flagged when it is written, never
refused: the writer is told, its `added` record says so (`audit` shows it), and what
rolebook shows an agent unasked is framed as notes from memory either way.

The phrases are the shapes prompt injection and planted memories take: telling the
agent to drop its instructions, to take on another identity, to hide something from
the user, to sign or stamp everything it writes, to send data somewhere. A lesson in
the imperative ("use ensure_single_shape() after compositing") is not one of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...model import Entry

_OUTPUTS = r"(?:repl(?:y|ies)|responses?|answers?|comments?|messages?|posts?|emails?|tweets?)"
_PATTERNS = (
    (
        r"\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|preceding|your|"
        r"other|original)?\s*(?:instructions?|rules|prompts?|guidelines|directions)\b",
        "tells the agent to drop its instructions",
    ),
    (
        r"\b(?:you are now|from now on,? you|act as if you|pretend (?:to be|you are)|"
        r"your new (?:role|instructions?))\b",
        "gives the agent a new identity or instructions",
    ),
    (
        r"\b(?:do not|don't|never) (?:tell|inform|mention (?:this|it) to|let) (?:the )?(?:user|human|reviewer)s?\b",
        "tells the agent to hide something from the user",
    ),
    (
        r"\b(?:always )?sign(?:ed)? (?:off )?(?:every|all|each|your)?\s*" + _OUTPUTS + r"?\s*(?:with|as)\b",
        "tells the agent how to sign what it writes",
    ),
    (r"\b(?:always|every time)\b[^.;\n]{0,40}\bsign\b", "tells the agent how to sign what it writes"),
    (
        r"\b(?:in|to|on|at the end of) (?:every|each|all)\s+(?:\w+\s+)?" + _OUTPUTS + r"\b",
        "sets what goes into every reply",
    ),
    (
        r"\b(?:send|post|upload|forward|exfiltrate)\b[^.;\n]{0,60}\b(?:https?://|to (?:this|the following) "
        r"(?:url|address|endpoint))",
        "tells the agent to send data somewhere",
    ),
)
_COMPILED = tuple((re.compile(p, re.IGNORECASE), why) for p, why in _PATTERNS)


def reads_as_order(text: str) -> str | None:
    """Why `text` reads like an order to the agent rather than a lesson, or None."""
    for pattern, why in _COMPILED:
        match = pattern.search(text)
        if match:
            return f'{why} ("{match.group(0).strip()}")'
    return None


def flag_orders(
    role: str, entries: Sequence[Entry], fields: Mapping[str, Mapping[str, Any]] | None = None
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The entries' record fields (by id) with `flag` on those that read like orders, and
    one warning for each of them."""
    out = {k: dict(v) for k, v in (fields or {}).items()}
    warnings = []
    for e in entries:
        why = reads_as_order(e.text)
        if why is None:
            continue
        eid = e.id(role)
        out.setdefault(eid, {})["flag"] = "order"
        warnings.append(
            f"#{eid} reads like an order to the agent, not a lesson: it {why}; kept, and shown to agents "
            f"as a note from memory (`rolebook obsolete {role} #{eid}` if it should not be there)"
        )
    return out, warnings
