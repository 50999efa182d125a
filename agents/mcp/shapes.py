"""Which client messages the start-up front may read as the SDK would: strict shapes.

A line is *plain* when json.loads reads it exactly as the SDK's parser does (no repeated
keys, no NaN or infinite numbers, no lone surrogates, no deep nesting); a value has a
known shape when the SDK certainly accepts it (exact types, known keys). Whatever is not
plain or not of a known shape is left to the SDK: these predicates may say no to
something the SDK accepts, never yes to something it refuses
(tests/agents/mcp/test_mcp_shapes.py holds them to the SDK).
"""

from __future__ import annotations

import json
import math
from typing import Any

#: Keys of a request's `_meta` that carry the 2026-07-28 envelope.
PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
RESERVED = "io.modelcontextprotocol/"
DEPTH = 24
SAFE_INT = 2**53


class _NotPlain(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _NotPlain("a key repeated")
    return found


def _constant(name: str) -> Any:
    raise _NotPlain(name)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotPlain(text)
    return value


def parse(line: str) -> Any:
    """The JSON value of `line` when it is plain, else raises ValueError."""
    try:
        value = json.loads(line, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float)
    except RecursionError:
        raise _NotPlain("nested too deep") from None
    _check(value, 0)
    return value


def _check(value: Any, depth: int) -> None:
    if depth > DEPTH:
        raise _NotPlain("nested too deep")
    if isinstance(value, str):
        value.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError, a ValueError
    elif isinstance(value, dict):
        for key, item in value.items():
            key.encode("utf-8")
            _check(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check(item, depth + 1)


def request_id(value: Any) -> bool:
    """A request id the SDK echoes as it is: an int of JavaScript's safe range, or a string."""
    return isinstance(value, str) or (type(value) is int and -SAFE_INT < value < SAFE_INT)


def coerced(rid: Any) -> Any:
    """`rid` as the SDK's dispatcher compares ids: "7" and 7 are one id."""
    if isinstance(rid, str):
        try:
            return int(rid)
        except ValueError:
            pass
    return rid


def message(value: Any) -> str | None:
    """ "request" or "notification" for a JSON-RPC message of plain shape, else None."""
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0" or not isinstance(value.get("method"), str):
        return None
    if "params" in value and not isinstance(value["params"], dict):
        return None
    if set(value) <= {"jsonrpc", "method", "params"}:
        return "notification"
    if set(value) <= {"jsonrpc", "id", "method", "params"} and request_id(value.get("id")):
        return "request"
    return None


def _keys(value: Any, allowed: set[str], required: set[str] = set()) -> bool:  # noqa: B006
    return isinstance(value, dict) and required <= set(value) <= allowed


def _empty_objects(value: Any, allowed: set[str] | None) -> bool:
    """An object whose members (of `allowed`, or any) are all empty objects."""
    if not isinstance(value, dict) or (allowed is not None and not set(value) <= allowed):
        return False
    return all(v == {} for v in value.values())


def implementation(value: Any) -> bool:
    """A clientInfo of known shape."""
    keys = {"name", "version", "title", "description", "websiteUrl"}
    return _keys(value, keys, {"name", "version"}) and all(isinstance(v, str) for v in value.values())


def capabilities(value: Any) -> bool:
    """Client capabilities of known shape (those the agent CLIs send)."""
    if not _keys(value, {"roots", "sampling", "elicitation", "experimental"}):
        return False
    roots = value.get("roots", {})
    return (
        _keys(roots, {"listChanged"})
        and all(isinstance(v, bool) for v in roots.values())
        and _empty_objects(value.get("sampling", {}), {"context", "tools"})
        and _empty_objects(value.get("elicitation", {}), {"form", "url"})
        and _empty_objects(value.get("experimental", {}), None)
    )


def initialize(params: Any) -> bool:
    """`initialize` params of known shape."""
    keys = {"protocolVersion", "capabilities", "clientInfo"}
    return (
        _keys(params, keys, keys)
        and isinstance(params["protocolVersion"], str)
        and capabilities(params["capabilities"])
        and implementation(params["clientInfo"])
    )


def envelope(params: dict[str, Any]) -> bool:
    """Whether a request opens or belongs to the 2026-07-28 era (the SDK's own test)."""
    meta = params.get("_meta")
    return isinstance(meta, dict) and PROTOCOL_VERSION in meta


def meta(value: Any, versions: tuple[str, ...]) -> bool:
    """A request's `_meta` of known shape: a progress token, keys of other vendors, and
    with `versions`, a 2026-07-28 envelope at one of them (without, none)."""
    if not isinstance(value, dict):
        return False
    for key, item in value.items():
        if key == "progressToken":
            if not request_id(item):
                return False
        elif key.startswith(RESERVED) and key not in (PROTOCOL_VERSION, CLIENT_INFO, CLIENT_CAPABILITIES):
            return False
    if not versions:
        return not any(key.startswith(RESERVED) for key in value)
    return (
        value.get(PROTOCOL_VERSION) in versions
        and capabilities(value.get(CLIENT_CAPABILITIES))
        and (CLIENT_INFO not in value or implementation(value[CLIENT_INFO]))
    )


#: The parameters of the tools the front runs: name -> (type, required, range).
TOOL_ARGUMENTS: dict[str, dict[str, tuple[type, bool, tuple[int, int] | None]]] = {
    "read": {"role": (str, False, None), "task": (str, False, None), "budget": (int, False, (50, 20000))},
    "search": {
        "query": (str, True, None),
        **{name: (str, False, None) for name in ("role", "section", "tag", "status", "since", "until")},
        "limit": (int, False, (1, 100)),
        "budget": (int, False, (50, 20000)),
        "root_only": (bool, False, None),
    },
}


def arguments(tool: str, value: Any) -> bool:
    """Arguments of known shape for a tool the front runs: known names, exact types."""
    spec = TOOL_ARGUMENTS.get(tool)
    if spec is None or not _keys(value, set(spec), {n for n, (_, required, _) in spec.items() if required}):
        return False
    for name, item in value.items():
        kind, required, bounds = spec[name]
        if item is None and not required and kind is str:
            continue
        if type(item) is not kind:
            return False
        if bounds is not None and isinstance(item, int) and not bounds[0] <= item <= bounds[1]:
            return False
    return True
