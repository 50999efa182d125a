"""rolebook's MCP server in this process, as a transport for the SDK's own client: the
server reads and writes real pipes from a thread, as `rolebook mcp` reads and writes stdio."""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from rolebook.agents.mcp.protocol import Server

#: The eras a test runs in: the handshake, and "auto": `server/discover`, then 2026-07-28 requests.
ERAS = ("legacy", "auto")


@asynccontextmanager
async def served(root: Path | None, scope: str | None = None) -> AsyncIterator[Any]:
    """The read and write streams of a connection to a fresh server working at `root`."""
    to_server_r, to_server_w = os.pipe()
    from_server_r, from_server_w = os.pipe()
    out = os.fdopen(from_server_w, "wb")
    server = Server(root, scope, None, to_server_r, out)

    def run() -> None:
        try:
            server.serve()
        finally:
            out.close()
            os.close(to_server_r)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](16)
    inbox = os.fdopen(from_server_r, "rb")

    async def reader() -> None:
        async with read_send:
            while line := await anyio.to_thread.run_sync(inbox.readline, abandon_on_cancel=True):
                await read_send.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False)))

    async def writer() -> None:
        async with write_recv:
            async for message in write_recv:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                os.write(to_server_w, data.encode("utf-8"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_recv, write_send
        finally:
            os.close(to_server_w)  # the client hangs up: the server's serve() returns
            await anyio.to_thread.run_sync(thread.join, 10)
            tg.cancel_scope.cancel()
            inbox.close()


def exchange(server: Server, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    """What a server answers to these messages, written at once, then end of input."""
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out:
        given.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        given.seek(0)
        server.wire_in, server.wire_out = given.fileno(), out
        server.serve()
        out.seek(0)
        return [json.loads(line) for line in out.read().splitlines()]
