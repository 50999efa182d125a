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

import contextlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import InputError
from ..fsutil import open_file

if TYPE_CHECKING:
    from ...model import Entry
    from ..journal import Writer
    from ..layout import Layout
    from ..read import ReadResult

_OUTPUTS = r"(?:repl(?:y|ies)|responses?|answers?|comments?|messages?|posts?|emails?|tweets?)"
_AGENT = r"(?:ai|a\.i\.|assistants?|agents?|llms?|models?|claude|codex|gemini|copilot|chatgpt|gpt)"
_DO = r"(?:run|execute|add|send|upload|install|start|sign|end|tell|mention|ignore|push|delete|remove|curl|wget)"
#: what to run that fetches code and runs it, or sends secrets away
_PAYLOAD = (
    r"(?:\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?"
    r"(?:sh|bash|zsh|python3?|iex|node|perl|ruby)\b|base64\s+(?:-d|--decode)\s*\|\s*(?:sh|bash)"
    r"|\$\((?:curl|wget)\b|urlopen\([^)]*\)\.read\(\)|\bcat\s+~?/?[\w./-]*(?:\.ssh|\.aws|\.env)\b)"
)
#: when an order wants its payload run: every time, first, unseen
_WHEN = (
    r"(?:before anything else|every (?:session|task|time|run)|each (?:session|task)|at the start of|"
    r"without asking|without telling|always|from now on|silently|quietly|first thing)"
)
_PATTERNS = (
    (
        r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|"
        r"preceding|your|other|original)?\s*(?:instructions?|rules|prompts?|guidelines|directions|system prompt)\b",
        "tells the agent to drop its instructions",
    ),
    (
        r"\b(?:ignore|disregard|forget)\b[^.;\n]{0,40}\b(?:the rules in|what the user (?:told|said|asked)|"
        r"(?:claude|agents|gemini)\.md)",
        "tells the agent to drop its instructions",
    ),
    (  # the same, in the languages instructions are planted in most
        r"ignor(?:a|e|ez|iere|ar)\b[^.;\n]{0,40}(?:instrucciones|instructions|anweisungen|instruções|istruzioni)"
        r"|忽略[^。\n]{0,20}(?:指令|指示|说明|规则)|無視して|以前の指示|a partir de agora,? (?:você|voce) deve"
        r"|\bolvid[ae]\b[^.;\n]{0,20}(?:reglas|instrucciones)|\bvergiss\b[^.;\n]{0,20}(?:regeln|anweisungen)"
        r"|\boublie[zs]?\b[^.;\n]{0,20}(?:consignes|instructions|règles)"
        r"|d[eé]sormais,? (?:tu dois|vous devez)|ab (?:jetzt|sofort) (?:musst du|sollst du)",
        "tells the agent to drop its instructions",
    ),
    (
        r"\b(?:you are now|from now on,? you|act as if you|pretend (?:to be|you are)|"
        r"your (?:new|only|real|actual) (?:role|instructions?|task|job|goal|purpose))\b",
        "gives the agent a new identity or instructions",
    ),
    (
        r"\b(?:new|updated|revised|additional|real|actual|hidden|secret) instructions?\b\s*(?:[:\-\u2014]|for\b|from\b)"
        r"|\b(?:note|message|instructions?|reminder)\b[^.;:\n]{0,50}\bto (?:any |all |every )?" + _AGENT + r"\b"
        r"|\b(?:for|to) (?:every|all|any) " + _AGENT + r"\b|\brequired step for every\b",
        "speaks to the agent with instructions of its own",
    ),
    (  # a note that speaks to whoever reads it: that is the agent
        r"\b(?:heads up|note|notice|reminder|attention|message|warning)\b[^.:\n]{0,30}?\b(?:whoever|anyone|"
        + _AGENT
        + r")\b[^.\n]{0,30}?[:,\u2014]|\bwhoever (?:is )?read(?:s|ing) (?:this|memory|these)\b|\bwhen you read this\b"
        r"|\b(?:notice|message|note|reminder) (?:for|to) (?:\w+ )?" + _AGENT + r"\b",
        "speaks to the agent that reads it",
    ),
    (  # the rules an agent has are declared gone
        r"\bstop following\b"
        r"|\b(?:rules|instructions|guidelines|restrictions|policies) (?:don't|do not|no longer) apply\b"
        r"|\byou have no (?:restrictions|rules|limits)\b|\b(?:instructions|rules|guidance) (?:have|has) changed\b"
        r"|\btreat (?:the|this) (?:text|note|message)\b[^.\n]{0,20}\bas (?:your )?(?:system prompt|instructions)\b"
        r"|\b(?:disregard|ignore|forget|drop|bypass)\b[^.\n]{0,40}\b(?:guidance|guidelines|safety|policy|policies|"
        r"restrictions|rules|instructions)\b|\bpolicy change\b",
        "tells the agent its rules no longer hold",
    ),
    (
        r"\bsay nothing (?:about|of) (?:it|this)\b|\bkeep (?:this|it) (?:a )?(?:secret|hidden|quiet) from\b"
        r"|\bwithout (?:telling|informing) (?:the )?(?:user|anyone|human)",
        "tells the agent to hide something from the user",
    ),
    (
        r"\b(?:copy|paste|send|upload|post|include|print|email|share)\b[^\n]{0,60}(?:~/|\$HOME/)\.(?:netrc|ssh/id_|aws/"
        r"credentials|npmrc|pypirc|docker/config)|\bauthorized_keys\b[^\n]{0,40}\b(?:below|this key|following)\b"
        r"|\b(?:add|append)\b[^\n]{0,40}\bkey below\b[^\n]{0,40}authorized_keys",
        "tells the agent to hand out credentials",
    ),
    (
        r"\b(?:pipe|feed)\b[^.\n]{0,80}\b(?:into|to) (?:bash|sh|zsh|a shell)\b"
        r"|\bdownload\b[^.\n]{0,80}\band (?:eval|exec|execute|run) it\b",
        "tells the agent to run code fetched from elsewhere",
    ),
    (
        r"\b(?:are|is) (?:now )?authori[sz]ed to\b"
        r"|\b(?:per|from) the (?:repo(?:sitory)? )?(?:owner|admin|maintainers?)\b"
        r"|\bmaintainers want you to\b",
        "claims an authority that grants the agent more",
    ),
    (  # the frame rolebook puts around memory, or a chat's turns, forged inside an entry
        r"end of (?:the )?notes from memory|notes from memory,? not instructions|\(from the user\)"
        r"|(?m:^\s*#{1,6}\s*(?:instructions|system prompt)\b)|(?m:^\s*(?:system|assistant|human|user)\s*:\s)"
        r"|</?(?:system|instructions?|assistant|user)>|\[/?(?:system|inst)\]",
        "forges the frame around memory or a turn of the conversation",
    ),
    (
        r"\b(?:the |any |all )?" + _AGENT + r"(?: agents?)? (?:must|should|shall|has to|needs to|is required to) "
        r"(?:now |always |silently |quietly |never |first )?" + _DO + r"\b",
        "tells the agent what it must do",
    ),
    (
        r"\byou (?:must|should|will) (?:now|always|from now on)\b|\bfrom now on,? (?:always |never )?" + _DO + r"\b"
        r"|\b(?:this|it) (?:overrides|supersedes|replaces) (?:the |your |all |any )?(?:project |previous )?"
        r"(?:rules|instructions|guidelines)",
        "tells the agent what it must do from now on",
    ),
    (
        r"\b(?:do not|don't|never|must not|mustn't)\s+(?:tell|inform|mention (?:this|it)(?: to)?|let|alert)\s+"
        r"(?:the )?(?:user|human|reviewer|owner)s?\b(?!\s+(?:their|that|whether|which|why|how|what))"
        r"|\bdo not mention this\b",
        "tells the agent to hide something from the user",
    ),
    (
        r"\b(?:always )?sign(?:ed)? (?:off )?(?:every|all|each|your)?\s*" + _OUTPUTS + r"?\s*(?:with|as)\b",
        "tells the agent how to sign what it writes",
    ),
    (r"\b(?:always|every time)\b[^.;\n]{0,40}\bsign\b", "tells the agent how to sign what it writes"),
    (
        r"\b(?:in|to|on|for|with|at the end of|end) (?:every|each|all)\s+(?:\w+\s+)?" + _OUTPUTS + r"\b",
        "sets what goes into every reply",
    ),
    (
        r"\b(?:send|post|upload|forward|exfiltrate)\b(?:[^.;\n]|\.(?=\S)){0,80}\b"
        r"(?:https?://|to (?:this|the following) (?:url|address|endpoint))",
        "tells the agent to send data somewhere",
    ),
    (
        _PAYLOAD + r"(?:[^\n]{0,60})\b" + _WHEN + r"|\b" + _WHEN + r"\b[^\n]{0,60}" + _PAYLOAD,
        "tells the agent to run code fetched from elsewhere",
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
            f"#{eid} reads like an order to the agent, not a lesson: it {why}; kept and searchable, but not "
            f"shown unasked nor promoted until confirmed: `rolebook confirm #{eid}` "
            f"(`rolebook obsolete {role} #{eid}` if it should not be there)"
        )
    return out, warnings


# -- the gate: flagged entries wait for a confirmation before they are shown unasked ------

#: The archive's word that the role or a person read a flagged entry and keeps it as a lesson.
CONFIRMED = "confirmed"
_GATE_VERSION = 1


def waiting(layout: Layout, role: str) -> dict[str, str]:
    """The role's items flagged as orders when written and not confirmed since (id: text).

    Kept in the derived folder under the archive's signature: a session-start read pays
    one stat when nothing was written, and a scan of the lines that name a flag or a
    confirmation when something was.
    """
    path = layout.archive_path(role)
    try:
        st = os.stat(path)
    except OSError:
        return {}
    sig = [st.st_size, st.st_mtime_ns, st.st_ino]
    cache = layout.cache_path("gate", role)
    with contextlib.suppress(OSError, ValueError, InputError, KeyError, TypeError):
        with open_file(cache) as f:
            data = json.load(f)
        if data["v"] == _GATE_VERSION and data["sig"] == sig and isinstance(data["waiting"], dict):
            return {str(k): str(v) for k, v in data["waiting"].items()}
    found = _scan(path)
    with contextlib.suppress(OSError):
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"v": _GATE_VERSION, "sig": sig, "waiting": found}), encoding="utf-8")
        os.replace(tmp, cache)
    return found


def _scan(path: Path) -> dict[str, str]:
    from ..archive import ArchiveRecord, parse_line

    found: dict[str, str] = {}
    confirmed: set[str] = set()
    try:
        f = open_file(path)
    except (OSError, InputError):
        return {}
    with f:
        for n, raw in enumerate(f, 1):
            if b'"order"' not in raw and CONFIRMED.encode() not in raw:
                continue
            rec = parse_line(raw, str(path), n)
            if not isinstance(rec, ArchiveRecord):
                continue
            if rec.op == CONFIRMED and isinstance(rec.extra.get("entry"), str):
                confirmed.add(rec.extra["entry"])
            elif rec.extra.get("flag") == "order" and rec.op in ("added", "stored"):
                found[rec.id] = rec.text
    return {k: v for k, v in found.items() if k not in confirmed}


def gated(read: ReadResult, layout: Layout) -> ReadResult:
    """The session-start read without the entries that wait for confirmation (the file
    keeps them: only what is shown leaves out their lines), and one alert that counts
    them and says how to confirm one."""
    if not read.exists:
        return read
    held = waiting(layout, read.role)
    if not held:
        return read
    from dataclasses import replace

    from ..read import MAX_ALERTS, next_step

    view = _view(layout, read.role, read.data, held)
    if view is None:
        return read
    shown, n, first = view
    what = "entry reads like an order" if n == 1 else "entries read like orders"
    alert = (
        f"{n} {what} to the agent and {'waits' if n == 1 else 'wait'} for confirmation, "
        f"not shown here: {next_step('confirm', first)}"
    )
    return replace(read, data=shown, alerts=[alert, *read.alerts][:MAX_ALERTS])


def _view(layout: Layout, role: str, data: bytes, held: dict[str, str]) -> tuple[bytes, int, str] | None:
    """The notebook's bytes without the waiting entries, how many left, the first one's id;
    None when it holds none. Cached by the bytes' CRC and the ids: the session-start read
    of an unchanged notebook loads no parser."""
    import zlib

    key = [len(data), zlib.crc32(data), sorted(held)]
    cache = layout.cache_path("gate-view", role)
    with contextlib.suppress(OSError, ValueError, InputError, KeyError, TypeError):
        with open_file(cache) as f:
            kept = json.load(f)
        if kept["v"] == _GATE_VERSION and kept["key"] == key:
            return None if not kept["n"] else (kept["data"].encode("utf-8"), int(kept["n"]), str(kept["first"]))
    from ...markdown import entry_positions, parse, remove_parts, render

    try:
        nb = parse(data.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    hidden = [(si, pi, e) for si, pi, e in entry_positions(nb) if e.id(role) in held]
    shown = render(remove_parts(nb, {(si, pi) for si, pi, _ in hidden}))
    first = hidden[0][2].id(role) if hidden else ""
    with contextlib.suppress(OSError):
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
        done = {"v": _GATE_VERSION, "key": key, "data": shown, "n": len(hidden), "first": first}
        tmp.write_text(json.dumps(done), encoding="utf-8")
        os.replace(tmp, cache)
    return (shown.encode("utf-8"), len(hidden), first) if hidden else None


def confirm(layout: Layout, role: str, key: str, writer: Writer) -> str:
    """Confirm the role's flagged item whose id starts with `key`: from now on it is shown
    unasked and may be promoted. Journalled (op `confirmed`); confirming twice adds nothing.
    Returns the item's id.

    Raises:
        InputError: no waiting item of the role has such an id, or several do.
    """
    import hashlib

    from ..journal import append

    prefix = key.strip().lstrip("#").lower()
    held = [rid for rid in waiting(layout, role) if prefix and rid.startswith(prefix)]
    if len(held) != 1:
        what = "several" if held else "no"
        raise InputError(
            f"{key!r}: {what} entries of {role} that wait for confirmation have this id "
            f"(`rolebook audit --role {role}` lists them)"
        )
    rid = held[0]

    def build(_index: Any, record: Any) -> list[Any]:
        if rid not in waiting(layout, role):
            return []
        cid = "co" + hashlib.sha256(f"{role}\x1f{rid}".encode()).hexdigest()[:10]
        return [record.record(CONFIRMED, cid, "review", record.at[:10], f"#{rid} confirmed as a lesson", entry=rid)]

    append(layout, role, writer, build)
    return rid
