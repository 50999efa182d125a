"""`rolebook mcp`'s first second: answer what can be answered while the SDK loads.

Importing the MCP SDK takes most of a second, and agent CLIs wait for their first answer
(Codex does not wait at all: its first model request then lacks the tools). So the
process owns stdin and stdout from its first instant: a reader thread reads every client
line as the SDK's stdio transport would and passes it to the state machine
(machine.py), which answers what it certainly answers as the SDK would and keeps the
rest for the SDK, in order, in memory (never in a pipe that could fill before anyone
reads it); a writer thread writes every answer in the order it came. Meanwhile the main
thread imports the SDK and builds the server, then hands over: the SDK reads the kept
lines and then each new one, and its output goes through the same writer (less its
answers to the requests the front had answered). At end of input the SDK finishes
what it has and the process exits; if the SDK had nothing left to do, at once.
"""

from __future__ import annotations

import io
import os
import queue
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from rolebook.notebook import RolebookError

from .machine import Early, Step

#: At end of input, how long the front waits for the SDK's next answer before it lets the SDK
#: see the end (and cancel what still runs); only a handler stuck for good waits that long.
GRACE = 30.0


class Front:
    """The connection's two ends, held by the front while the SDK loads and after."""

    def __init__(self, early: Early, wire_in: IO[bytes], wire_out: IO[bytes], exit: Callable[[int], Any] | None = None):
        self.early = early
        self.wire_in, self.wire_out = wire_in, wire_out
        self.exit = exit  # called at end of input when the SDK has nothing left to do
        # one lock over the machine and the relay: a line is answered here or passed on, never
        # both; notified at each line the SDK writes (end of input waits for the answers owed)
        self.lock = threading.Condition()
        self.kept: queue.SimpleQueue[str | None] = queue.SimpleQueue()  # for the SDK; None: end of input
        self.outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()  # for stdout; None: no more
        self.relay = early.relay  # marker ids, cancellations of streams, answers the SDK owes
        self.handed = False
        self.ended = False  # end of input, with nothing left for the SDK
        self.writer = threading.Thread(target=self._write, name="rolebook-mcp-out", daemon=True)
        self.warn: Callable[[str], Any] = lambda text: sys.stderr.write(text + "\n")

    def start(self) -> None:
        """Read and write in threads of their own from now on."""
        self.writer.start()
        threading.Thread(target=self.read, name="rolebook-mcp-in", daemon=True).start()

    def read(self) -> None:
        """Read the client's lines until it hangs up, as the SDK's stdio transport reads them."""
        stdin = io.TextIOWrapper(self.wire_in, encoding="utf-8", errors="replace")
        for line in iter(stdin.readline, ""):
            with self.lock:
                step = Step(forward=line) if self.handed else self._take(line)
                if step.answer is not None:
                    self.outbox.put(step.answer.encode("utf-8"))
                if step.forward is not None:
                    self.kept.put(self.relay.to_sdk(step.forward))
        stdin.close()
        with self.lock:
            self.ended = not self.handed and self.early.settled()
        if self.ended and self.exit is not None:
            self.close()
            sys.stderr.flush()
            self.exit(0)
        with self.lock:  # until the SDK has answered all, or written nothing for a long while
            while self.relay.owes() and self.lock.wait(GRACE):
                pass
        self.kept.put(None)

    def _take(self, line: str) -> Step:
        try:
            return self.early.take(line)
        except Exception as exc:  # a fault here must not cost the connection: the SDK answers all
            sys.stderr.write(f"rolebook mcp: the start-up front stopped ({exc!r}); the SDK answers everything\n")
            self.early.lost = True
            return Step(forward=line)

    def hand_over(self) -> None:
        """From now on every line is the SDK's."""
        with self.lock:
            self.handed = True

    def sdk_wrote(self, text: str) -> None:
        """A line of the SDK's output: written, unless it answers a request the front answered."""
        with self.lock:
            kept, warning = self.relay.from_sdk(text)
            self.lock.notify_all()
        if warning:
            self.warn(warning)
        if kept is not None:
            self.outbox.put(kept.encode("utf-8"))

    def close(self) -> None:
        """Write what is left to write, then stop the writer."""
        self.outbox.put(None)
        self.writer.join()

    def _write(self) -> None:
        broken = False
        for data in iter(self.outbox.get, None):
            if broken:
                continue
            try:
                self.wire_out.write(data)
                self.wire_out.flush()
            except (OSError, ValueError):  # the client stopped reading: nothing more reaches it
                broken = True


class KeptLines:
    """The SDK's stdin: the lines the front kept for it, then each new one."""

    def __init__(self, front: Front):
        self.front = front

    def __aiter__(self) -> KeptLines:
        return self

    async def __anext__(self) -> str:
        import anyio

        # each line through a worker thread, as the SDK reads the process's stdin: requests
        # and the end of input reach the SDK with the timing they have when it serves alone
        line = await anyio.to_thread.run_sync(self.front.kept.get, abandon_on_cancel=True)
        if line is None:
            raise StopAsyncIteration
        return line


class Written:
    """The SDK's stdout: through the front's writer."""

    def __init__(self, front: Front):
        self.front = front

    async def write(self, text: str) -> None:
        self.front.sdk_wrote(text)

    async def flush(self) -> None:
        pass


def _claim_stdio() -> tuple[IO[bytes], IO[bytes]]:
    """Private copies of stdin and stdout for the protocol; fd 0 then reads nothing and fd 1
    writes to stderr, so nothing else in the process can read or corrupt the wire (as the
    SDK's own stdio transport does)."""
    try:
        wire_in, wire_out = os.dup(0), os.dup(1)
        nothing = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nothing, 0)
        os.close(nothing)
        os.dup2(2, 1)
    except OSError:
        return sys.stdin.buffer, sys.stdout.buffer
    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb")


def tool_runner(root: Path | None, scope: str | None, session: str | None) -> tuple[Callable[..., Any], list[Any]]:
    """What runs `read` and `search` for the front, and a box that holds where it works once
    it has run (shared with the SDK server: one session state for the connection)."""
    box: list[Any] = []

    def run(name: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        from rolebook.notebook.store import Writer

        from . import tools

        if not box:
            box.append(tools.Where(root, Writer(scope, session, "mcp")))
        try:
            session_api = box[0].session()
            if name == "read":
                role = arguments.get("role") or scope
                assert role is not None  # the machine leaves a read without a role to the SDK
                return tools.read(session_api, role, arguments.get("task"), arguments.get("budget", 500))
            return tools.search(session_api, **arguments)
        except RolebookError:
            return None  # the SDK words the error
        except Exception as exc:  # the SDK runs the same code and reports it its way
            sys.stderr.write(f"rolebook mcp: {name} failed before the SDK loaded ({exc!r}); the SDK answers it\n")
            return None

    return run, box


def serve(root: Path | None, scope: str | None, session: str | None) -> int:
    """Serve MCP over stdio: the front answers while the SDK loads, then hands over."""
    from .listing import Listing, load

    listing: Listing | None = None
    try:
        listing = load()
    except (OSError, ValueError, KeyError) as exc:
        sys.stderr.write(f"rolebook mcp: listing.json unreadable ({exc!r}); the SDK answers everything\n")
    if listing is not None and not listing.matches_installed():
        listing = None
        sys.stderr.write("rolebook mcp: listing.json is not from the installed SDK; the SDK answers everything\n")
    run, box = tool_runner(root, scope, session)
    early = Early(listing, scope, run)
    wire_in, wire_out = _claim_stdio()
    front = Front(early, wire_in, wire_out, exit=os._exit)
    front.start()
    import anyio

    from .server import build, serve_lines  # the SDK: most of a second

    front.hand_over()
    server = build(root, scope, session, box[0] if box else None)
    from ..meaning import lend

    lend(root)  # the model, for this project's recall hooks (with the semantic extra)
    anyio.run(serve_lines, server, KeptLines(front), Written(front))
    front.close()
    return 0
