"""shapes.py may say no to what the SDK accepts, never yes to what it refuses or reads
otherwise: each predicate held to the SDK's own models, on values near the edges."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_types import ClientCapabilities, Implementation, InitializeRequestParams, jsonrpc_message_adapter
from pydantic import ValidationError
from rolebook.agents.mcp import shapes
from rolebook.agents.mcp.server import build

# values of every JSON type, the ones each field expects more often than the others
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**64), 2**64),
    st.floats(allow_nan=False),
    st.sampled_from(["", "x", "7", "coder", "2026-07-28", "2025-11-25"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
maybe_empty = st.one_of(
    st.just({}), json_values, st.dictionaries(st.sampled_from(["context", "tools", "x"]), json_values)
)
capability_values = (
    st.fixed_dictionaries(
        {},
        optional={
            "roots": st.one_of(
                st.just({}), st.fixed_dictionaries({}, optional={"listChanged": json_values}), json_values
            ),
            "sampling": maybe_empty,
            "elicitation": st.one_of(maybe_empty, st.just({"form": {}, "url": {}})),
            "experimental": st.one_of(st.just({"x": {}}), json_values),
            "tasks": json_values,
        },
    )
    | json_values
)
texts = st.one_of(st.sampled_from(["t", "0", "", "https://x.example"]), st.text(max_size=5))
implementation_values = (
    st.fixed_dictionaries(
        {"name": texts, "version": texts},
        optional={
            "title": st.one_of(texts, json_values),
            "websiteUrl": st.sampled_from(["https://x.example", "not a url", 5]),
            "description": texts,
            "icons": st.just([]),
        },
    )
    | st.fixed_dictionaries({}, optional={"name": json_values, "version": json_values})
    | json_values
)
initialize_values = st.fixed_dictionaries(
    {
        "protocolVersion": st.one_of(st.sampled_from(["2025-11-25", "2099-01-01"]), texts),
        "capabilities": st.one_of(
            st.sampled_from([{}, {"sampling": {}}, {"roots": {"listChanged": True}}]), capability_values
        ),
        "clientInfo": implementation_values,
    },
    optional={"_meta": json_values},
) | st.fixed_dictionaries(
    {},
    optional={
        "protocolVersion": json_values,
        "capabilities": capability_values,
        "clientInfo": implementation_values,
    },
)


def _accepted(model: Any, value: Any) -> bool:
    """Whether the SDK's model reads `value` and gives back the same value."""
    try:
        read = model.model_validate(value, by_name=False)
    except ValidationError:
        return False
    return read.model_dump(by_alias=True, exclude_unset=True) == value


@given(initialize_values)
def test_an_initialize_of_known_shape_is_one_the_sdk_reads_as_it_is(params: Any) -> None:
    if shapes.initialize(params):
        assert _accepted(InitializeRequestParams, params)


@given(capability_values)
def test_capabilities_of_known_shape_are_read_by_the_sdk_as_they_are(value: Any) -> None:
    if shapes.capabilities(value):
        assert _accepted(ClientCapabilities, value)


@given(implementation_values)
def test_a_client_info_of_known_shape_is_read_by_the_sdk_as_it_is(value: Any) -> None:
    if shapes.implementation(value):
        assert _accepted(Implementation, value)


TOOLS = build()._tool_manager


def _arguments(tool: str) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments mostly of the right names and types, now and then of any."""
    plain = {str: texts, int: st.integers(-5, 30000), bool: st.booleans()}
    spec = shapes.TOOL_ARGUMENTS[tool]
    typed = st.fixed_dictionaries(
        {n: plain[kind] for n, (kind, required, _) in spec.items() if required},
        optional={n: st.one_of(plain[kind], st.none()) for n, (kind, required, _) in spec.items() if not required},
    )
    names = [*spec, "extra"]
    return typed | st.dictionaries(st.sampled_from(names), json_values, max_size=5)


@pytest.mark.parametrize("tool", sorted(shapes.TOOL_ARGUMENTS))
def test_tool_arguments_of_known_shape_are_what_the_sdk_validates_to_the_same_values(tool: str) -> None:
    metadata = TOOLS.get_tool(tool).fn_metadata

    @given(_arguments(tool))
    def check(arguments: dict[str, Any]) -> None:
        if not shapes.arguments(tool, arguments):
            return
        validated = metadata.validate_arguments(arguments)  # raises when the SDK refuses them
        assert {k: validated[k] for k in arguments} == arguments

    check()


LINES = st.one_of(
    st.builds(
        lambda rid, method, params, extra: json.dumps(
            {"jsonrpc": "2.0", **rid, "method": method, **params, **extra}, ensure_ascii=False
        ),
        st.one_of(st.just({}), st.builds(lambda v: {"id": v}, json_values)),
        st.sampled_from(["ping", "tools/list", "initialize", ""]),
        st.one_of(st.just({}), st.builds(lambda v: {"params": v}, json_values)),
        st.sampled_from([{}, {"result": {}}, {"error": 1}]),
    ),
    st.sampled_from(
        [
            '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}',
            '{"jsonrpc":"2.0","id":NaN,"method":"ping"}',
            '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
            '{"jsonrpc":"2.0","id":1.0,"method":"ping"}',
            '{"jsonrpc":"2.0","id":' + "[" * 40 + "]" * 40 + ',"method":"ping"}',
        ]
    ),
)


@given(LINES)
def test_a_message_of_plain_shape_is_the_message_the_sdk_reads(line: str) -> None:
    try:
        value = shapes.parse(line)
    except ValueError:
        return
    kind = shapes.message(value)
    if kind is None:
        return
    read = jsonrpc_message_adapter.validate_json(line, by_name=False)
    assert read.model_dump(by_alias=True, exclude_unset=True) == value
    assert ("id" in value) == (kind == "request")


def test_what_the_agent_clis_send_is_of_known_shape() -> None:
    claude = {"roots": {"listChanged": True}, "elicitation": {"form": {}, "url": {}}}
    params = {"protocolVersion": "2025-11-25", "capabilities": claude, "clientInfo": {"name": "c", "version": "2"}}
    assert shapes.initialize(params)
    assert shapes.arguments("search", {"query": "npm", "limit": 3}) and shapes.arguments("read", {"role": "coder"})
    assert shapes.message(shapes.parse('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')) == "request"
