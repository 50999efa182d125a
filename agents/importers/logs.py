"""Readers of event logs: X-MEM, agent-knowledge, memcache, and the MCP memory server's
knowledge graph (`rolebook import`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError
from rolebook.notebook.model import is_role
from rolebook.notebook.store import EVENT_TYPES, MAX_ENTRY_CHARS, derive_ctx_hash, parse_outcome, redactions

from .common import (
    BadRecord,
    Item,
    Source,
    checked,
    day_field,
    file_day,
    files_of,
    jsonl_records,
    record_key,
    tags_field,
    take,
    text_field,
)

# -- X-MEM: failures.jsonl / successes.jsonl ---------------------------------------------

_CTX_HASH = re.compile(r"[a-z0-9][a-z0-9-]{0,119}")


def read_xmem(path: Path, source: Source | None = None) -> Source:
    """X-MEM's `failures.jsonl` and `successes.jsonl` (a file, or a folder holding them)."""
    source = Source() if source is None else source
    if path.is_dir():
        files = [p for name in ("failures.jsonl", "successes.jsonl") for p in sorted(path.rglob(name))]
        if not files:
            raise InputError(f"{path}: no failures.jsonl or successes.jsonl in this folder")
    else:
        files = files_of(path, "*.jsonl", source)
    for file in files:
        for where, obj in jsonl_records(file, source):
            take(source, where, lambda obj=obj, where=where, file=file: [_xmem_item(obj, where, file.name)])  # type: ignore[misc]
    return source


def _xmem_item(obj: dict[str, Any], where: str, filename: str) -> Item:
    kind = obj.get("type") or ("tool_success" if "success" in filename else "tool_failure")
    if kind not in ("tool_failure", "tool_success"):
        raise BadRecord(f"field 'type' is {kind!r}, not tool_failure or tool_success")
    date = day_field(obj.get("ts"), "ts")
    tool = str(obj.get("tool")) if isinstance(obj.get("tool"), str) else ""
    ctx_hash = obj.get("ctx_hash")
    if not isinstance(ctx_hash, str) or not _CTX_HASH.fullmatch(ctx_hash) or redactions(ctx_hash):
        ctx_hash = None
    if redactions(tool):
        tool = ""  # a hash is made of the words it is given: never of a secret's
    fields: dict[str, Any] = {"source": "xmem"}
    if kind == "tool_failure":
        action = str(obj.get("action")) if isinstance(obj.get("action"), str) else ""
        error = str(obj.get("error")) if isinstance(obj.get("error"), str) else ""
        advice = obj.get("pattern_avoid")
        text = text_field(advice if isinstance(advice, str) and advice.strip() else error, "pattern_avoid")
        context = f"{tool} {action}".strip() + (f": {error}" if error else "")
        fields.update(type="error", outcome="0/1")
        if context:
            fields["context"] = text_field(context, "action")
        if action:
            fields["command"] = text_field(action, "action")
        said = fields.get("command") or ""  # the action and error as kept: redacted
        failure = text_field(error, "error") if error.strip() else ""
        fields["ctx_hash"] = ctx_hash or derive_ctx_hash(f"{tool} {said}", failure)
    else:
        name = text_field(obj.get("pattern_name"), "pattern_name")
        steps = obj.get("key_steps") or []
        if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
            raise BadRecord("field 'key_steps' is not a list of strings")
        text = text_field(name + (": " + "; ".join(steps) if steps else ""), "pattern_name")
        uses = obj.get("usage_count", 1)
        confidence = obj.get("confidence", 1.0)
        if isinstance(uses, bool) or not isinstance(uses, int) or uses < 0:
            raise BadRecord(f"field 'usage_count' is not a whole number >= 0: {uses!r}")
        if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
            raise BadRecord(f"field 'confidence' is not a number from 0 to 1: {confidence!r}")
        tries = max(uses, 1)
        fields.update(type="success", outcome=f"{round(confidence * tries)}/{tries}")
        fields["ctx_hash"] = ctx_hash or derive_ctx_hash(f"{tool} {name}")
    if isinstance(obj.get("id"), str):
        fields["source_id"] = obj["id"]
    fields["original"] = obj
    return Item(
        where,
        "logged",
        fields["type"],
        date,
        text,
        tags=tags_field(obj.get("tags")),
        key=record_key("xmem", obj),
        fields=fields,
    )


# -- agent-knowledge: per-repo JSONL event logs ------------------------------------------


def read_agent_knowledge(path: Path, source: Source | None = None) -> Source:
    """agent-knowledge event logs: a `.jsonl` file, or a folder of them (one per repo)."""
    source = Source() if source is None else source
    for file in files_of(path, "*.jsonl", source):
        for where, obj in jsonl_records(file, source):
            take(source, where, lambda obj=obj, where=where: [_knowledge_item(obj, where)])  # type: ignore[misc]
    return source


def _knowledge_item(obj: dict[str, Any], where: str) -> Item:
    event = obj.get("event_type")
    if event not in EVENT_TYPES:
        raise BadRecord(f"field 'event_type' is {event!r}, not one of {', '.join(EVENT_TYPES)}")
    date = day_field(obj.get("timestamp"), "timestamp")
    text = text_field(obj.get("lesson"), "lesson")
    fields: dict[str, Any] = {"source": "agent-knowledge", "type": event}
    for name in ("context", "command"):
        value = obj.get(name)
        if isinstance(value, str) and value.strip():
            fields[name] = text_field(value, name)
    rate = obj.get("success_rate")
    if isinstance(rate, str) and rate.strip():
        k, n = checked(lambda: parse_outcome(rate))
        fields["outcome"] = f"{k}/{n}"
    elif event != "pattern":
        fields["outcome"] = "1/1" if event == "success" else "0/1"
    fields["ctx_hash"] = derive_ctx_hash(fields.get("context") or fields.get("command") or text)
    agent = obj.get("agent_id")
    role = agent.strip().lower() if isinstance(agent, str) and is_role(agent.strip().lower()) else None
    fields["original"] = obj
    tags = tags_field(obj.get("tags"))
    return Item(
        where, "logged", event, date, text, role, tags=tags, key=record_key("agent-knowledge", obj), fields=fields
    )


# -- memcache: journal/YYYY/MM/DD.jsonl ------------------------------------------------------

MEMCACHE_KINDS = ("turn", "command", "edit", "test", "error", "decision", "checkpoint", "note", "summary")


def read_memcache(path: Path, source: Source | None = None) -> Source:
    """A memcache store: its folder (`.agents/.memcache`), its `journal/`, a repo holding
    one, or one journal file. Each record becomes a stored item in the category of its kind."""
    source = Source() if source is None else source
    if path.is_dir():
        for inner in (path / ".agents" / ".memcache" / "journal", path / "journal"):
            if inner.is_dir():
                path = inner
                break
    for file in files_of(path, "*.jsonl", source):
        for where, obj in jsonl_records(file, source):
            take(source, where, lambda obj=obj, where=where: [_memcache_item(obj, where)])  # type: ignore[misc]
    return source


def _memcache_item(obj: dict[str, Any], where: str) -> Item:
    kind = obj.get("kind", "note")
    if kind not in MEMCACHE_KINDS:
        raise BadRecord(f"field 'kind' is {kind!r}, not one of {', '.join(MEMCACHE_KINDS)}")
    date = day_field(obj.get("ts"), "ts")
    summary = text_field(obj.get("summary"), "summary")
    detail = obj.get("text")
    text = summary
    if isinstance(detail, str) and detail.strip() and detail.strip() != summary:
        joined = f"{summary}\n{detail}"
        if len(joined) <= MAX_ENTRY_CHARS:  # the whole detail stays in `original` either way
            text = text_field(joined, "text")
    fields: dict[str, Any] = {"source": "memcache"}
    if isinstance(obj.get("id"), str):
        fields["source_id"] = obj["id"]
    fields["original"] = obj
    tags = tags_field(obj.get("tags"))
    return Item(where, "stored", kind, date, text, tags=tags, key=record_key("memcache", obj), fields=fields)


# -- @modelcontextprotocol/server-memory: knowledge-graph JSONL ------------------------------


def read_mcp_memory(path: Path, source: Source | None = None) -> Source:
    """The knowledge graph of the MCP reference memory server (`memory.jsonl`): each
    observation of an entity, and each relation, becomes a stored item in `knowledge`.
    The graph has no dates: items take the file's modification date."""
    source = Source() if source is None else source
    for file in files_of(path, "*.jsonl", source):
        day = file_day(file)
        for where, obj in jsonl_records(file, source):
            take(source, where, lambda obj=obj, where=where, day=day: _graph_items(obj, where, day))  # type: ignore[misc]
    source.notes.append("the knowledge graph has no dates: its items are dated with the file's modification date")
    return source


def _graph_items(obj: dict[str, Any], where: str, day: str) -> list[Item]:
    kind = obj.get("type")

    def item(text: str, part: Any) -> Item:
        fields = {"source": "mcp-memory", "original": obj}
        return Item(where, "stored", "knowledge", day, text, key=record_key("mcp-memory", [obj, part]), fields=fields)

    if kind == "entity":
        name = text_field(obj.get("name"), "name")
        etype = obj.get("entityType")
        label = f"{name} ({text_field(etype, 'entityType')})"
        observations = obj.get("observations", [])
        if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
            raise BadRecord("field 'observations' is not a list of strings")
        kept = [o for o in observations if o.strip()]
        return [item(text_field(f"{label}: {o}", "observations"), o) for o in kept] or [item(label, None)]
    if kind == "relation":
        parts = [text_field(obj.get(k), k) for k in ("from", "relationType", "to")]
        return [item(text_field(" ".join(parts), "relationType"), None)]
    raise BadRecord(f"field 'type' is {kind!r}, not entity or relation")
