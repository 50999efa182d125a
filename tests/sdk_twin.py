"""The oracle: the official SDK's own server, given the same tool definitions (table.py),
driven over the same lines as rolebook's server. What differs between the two is the
protocol machinery, which is the point of the comparison."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server as SdkServer
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from rolebook import __version__
from rolebook.agents.mcp import table
from rolebook.agents.mcp.protocol import Failure, Server

PATIENCE = 120.0


def twin(root: Path, scope: str | None = None) -> SdkServer[Any]:
    """The SDK's server with rolebook's table: the same listings, the same handlers."""
    ours = Server(root, scope, None, 0, None)  # type: ignore[arg-type]  # only its calls are used

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": [t.listing() for t in table.TOOLS.values()]})

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        answer = ours_answer("tools/call", {"name": params.name, "arguments": params.arguments})
        return types.CallToolResult.model_validate(answer)

    def ours_answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        """What rolebook's handler answers; its errors raised as the SDK raises them."""
        try:
            return ours._method(method, params)
        except Failure as failure:
            raise MCPError(code=failure.code, message=failure.message, data=failure.data) from None

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        return types.ReadResourceResult.model_validate(ours_answer("resources/read", {"uri": str(params.uri)}))

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        answer = ours_answer("prompts/get", {"name": params.name, "arguments": params.arguments})
        return types.GetPromptResult.model_validate(answer)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult.model_validate({"resources": table.RESOURCES})

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult.model_validate({"resourceTemplates": table.TEMPLATES})

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult.model_validate({"prompts": [table.PROMPT]})

    return SdkServer(
        "rolebook",
        version=__version__,
        instructions=table.instructions(scope),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_list_prompts=list_prompts,
        on_read_resource=read_resource,
        on_get_prompt=get_prompt,
    )


class _Lines:
    def __init__(self, stream: Any):
        self.stream = stream

    def __aiter__(self) -> AsyncIterator[str]:
        return self.stream.__aiter__()  # type: ignore[no-any-return]


class _Out:
    def __init__(self, stream: Any):
        self.stream = stream

    async def write(self, text: str) -> None:
        await self.stream.send(text)

    async def flush(self) -> None:
        pass


def sdk_answers(server: SdkServer[Any], lines: Iterable[str]) -> list[dict[str, Any]]:
    """Every message the SDK's server writes for `lines`, each request answered before the next."""

    async def main() -> list[dict[str, Any]]:
        send_in, receive_in = anyio.create_memory_object_stream[str](1 << 20)
        send_out, receive_out = anyio.create_memory_object_stream[str](1 << 20)
        written: list[str] = []

        async def run() -> None:
            streams = stdio_server(_Lines(receive_in), _Out(send_out))  # type: ignore[arg-type]
            async with send_out, streams as (read, write):
                await server.run(read, write, server.create_initialization_options())

        with anyio.fail_after(PATIENCE), receive_in, receive_out:
            async with anyio.create_task_group() as tg:
                tg.start_soon(run)
                async with send_in:
                    for line in lines:
                        await send_in.send(line)
                        message = json.loads(line) if line.strip() else {}
                        if not isinstance(message, dict) or "id" not in message or "method" not in message:
                            continue
                        while True:
                            out = json.loads(await receive_out.receive())
                            written.append(json.dumps(out))
                            if "method" not in out and out.get("id") == message["id"]:
                                break
                            if out.get("method") == "notifications/subscriptions/acknowledged":
                                break
                written += [out async for out in receive_out]
        return [json.loads(w) for w in written]

    return anyio.run(main)
