"""The session's model, lent to the recall hook over a local socket.

The recall hook runs in a fresh process after every failed command, within a few
interpreter start-ups; the semantic extra's model takes about a second to load, so the
hook never loads one. Where keywords fail is a lesson that says the failure in other words
("nothing listens there" for "Connection refused"): by meaning, fitted on three hands'
failures, the hook shows the right lesson more often and the wrong one less
(`python tests/bench/bench_recall.py --fit-meaning`).

So the session's `rolebook mcp`, a process that lives as long as the agent's session, lends
its model: with the extra and a search mode that uses meaning, it loads the model once in a
thread of its own, after its start-up, and answers on a Unix socket in the derived folder
(`meaning-PID.sock`, the owner's alone): "how near is this failure to each of these
lessons". The lessons of the project's shared roots keep their vectors too, each in its own
root's derived folder as a search there keeps them. The hook asks with a short timeout
and decides by keywords alone when no answer comes (no extra, no MCP server running, a
platform without Unix sockets).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import socket
    import threading

#: how long the hook waits for the answer, all told, before it decides by keywords: an
#: answer takes about 10 ms on an idle machine, a few hundred when every core is busy (an
#: agent CLI, its MCP server and a test run side by side: 0.4 s was too short there)
ANSWER_SECONDS = 1.0
#: how long the MCP server waits after its start before it loads the model (its first
#: answers come first)
DELAY_SECONDS = 1.0
#: lessons without a vector yet that one answer embeds; with more, no answer (keywords decide)
EMBED_AT_MOST = 8
#: lessons embedded in one step of warming: between steps a question waiting is answered
#: first (a step of the default 32 took up to 3 s on a busy 2-core machine, against the
#: hook's 1 s wait); and how long warming goes on before it looks at the socket anyway
WARM_STEP = 4
WARM_SLICE_SECONDS = 1.0
_IDLE_SECONDS = 0.5
_PREFIX = "meaning-"
_LONGEST_PATH = 100  # a Unix socket's path is at most 104-108 bytes, by platform
_MOST_BYTES = 1 << 20


def nearness(
    derived: Path, text: str, lessons: dict[str, str], seconds: float = ANSWER_SECONDS
) -> dict[str, float] | None:
    """The cosine of `text` to each lesson (id -> text), from the model a `rolebook mcp` of
    this project lends; None when none answers in `seconds`. A socket left by a server that
    is gone is removed."""
    if not lessons:
        return None
    try:
        paths = sorted(derived.glob(f"{_PREFIX}*.sock"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    if not paths:
        return None
    import socket  # only when a server lends: the hook runs after every failed command

    if not hasattr(socket, "AF_UNIX"):
        return None
    deadline = time.monotonic() + seconds
    request = json.dumps({"text": text, "lessons": lessons}).encode("utf-8") + b"\n"
    for path in paths:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.settimeout(left)
                conn.connect(str(path))
                conn.sendall(request)
                answer = _line(conn, deadline)
            cosines = json.loads(answer)["cosines"]
            if cosines is None:  # the lender cannot judge them all yet
                return None
            return {str(k): float(v) for k, v in cosines.items()}
        except (ConnectionRefusedError, FileNotFoundError):
            with contextlib.suppress(OSError):  # its server is gone
                path.unlink()
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
    return None


def _line(conn: socket.socket, deadline: float) -> bytes:
    """One line from the connection, within the deadline."""
    data = b""
    while not data.endswith(b"\n"):
        conn.settimeout(max(deadline - time.monotonic(), 0.001))
        chunk = conn.recv(65536)
        if not chunk or len(data) > _MOST_BYTES:
            break
        data += chunk
    return data


def lend(root: Path | None) -> threading.Thread | None:
    """Lend this project's model to its recall hooks, from a thread of this process (the
    MCP server's), when the semantic extra is there and the search mode uses meaning.
    Never fails: anything wrong means the hooks decide by keywords."""
    import socket
    import threading

    if not hasattr(socket, "AF_UNIX"):
        return None

    try:
        from rolebook.notebook.search import semantic

        from .config import find_root, load_config, search_mode, shared_configs

        config = load_config(root.absolute() if root else find_root())
        layout = config.layout
        if not layout.memory.exists() and not layout.archive.exists():
            return None  # no project here: nothing to lend, no folder made
        model = os.environ.get("ROLEBOOK_MODEL") or config.model
        if search_mode(config) == "keyword" or not (model or semantic.available()):
            return None
        shared = [c.layout for _, c in shared_configs(config)]  # the hook recalls their lessons too
    except Exception:
        return None
    _exit_on_signals()
    thread = threading.Thread(
        target=_serve, args=(layout, model, DELAY_SECONDS, shared), name="rolebook-meaning", daemon=True
    )
    thread.start()
    return thread


def _serve(layout: Any, setting: str | None, delay: float = DELAY_SECONDS, shared: Sequence[Any] = ()) -> None:
    """Load the model, then answer each connection on this process's socket, in turn; while
    nobody asks, give the lessons their vectors a few at a time, a question first.
    `shared`: the layouts of the project's shared roots, whose lessons the hook recalls too."""
    import select

    time.sleep(delay)
    try:
        lender = Lender(layout, setting, shared)
        server = lender.listen()
    except Exception:
        return
    if server is None:
        return

    def asked() -> bool:
        return bool(select.select([server], [], [], 0)[0])

    warm = False
    with server:
        while True:
            try:
                if not select.select([server], [], [], _IDLE_SECONDS if warm else 0)[0]:
                    if not warm:  # nobody asks: the lessons still without a vector get theirs
                        with contextlib.suppress(Exception):
                            warm = lender.warm(WARM_SLICE_SECONDS, stop=asked)
                    continue
                conn, _ = server.accept()
            except (OSError, ValueError):  # closed: the process is ending
                return
            conn.settimeout(None)
            with conn, contextlib.suppress(Exception):  # a bad request ends its connection only
                lender.answer(conn)


class Lender:
    """The model, held for the hooks: its socket and its answers. The lessons of this
    project and of each shared root keep their vectors in their own root's derived folder,
    as a search there keeps them."""

    def __init__(self, layout: Any, setting: str | None, shared: Sequence[Any] = ()):
        from rolebook.notebook.search import Near, semantic

        self.layout = layout
        model = semantic.load(setting)
        self.nears = [Near(each, model) for each in (layout, *shared)] if model is not None else []

    def listen(self) -> socket.socket | None:
        """The socket, bound and listening (its lessons get their vectors after, between
        questions); None when the model did not load or the path is too long for a Unix
        socket. The socket file goes when the process exits (`_remove_at_exit`), and the
        sockets of lenders that are gone are removed here."""
        derived: Path = self.layout.derived
        path = derived / f"{_PREFIX}{os.getpid()}.sock"
        if not self.nears or len(os.fsencode(path)) > _LONGEST_PATH:
            return None
        import socket

        self.cosines("warm", {})  # the model's first run and the vectors' first read: before any hook waits
        derived.mkdir(parents=True, exist_ok=True)
        _sweep(derived)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        os.chmod(path, 0o600)  # the owner's alone (not the umask: it is the whole process's)
        _remove_at_exit(path)
        server.listen(8)
        return server

    def warm(self, seconds: float, stop: Callable[[], bool] | None = None) -> bool:
        """Embed lessons for about `seconds`, WARM_STEP at a time, this project's first, until
        `stop` says a question waits; True when all have their vectors. A shared root whose
        folder cannot be written keeps its lessons without (they are embedded as they are
        asked for, EMBED_AT_MOST an answer)."""
        done = bool(self.nears)
        deadline = time.monotonic() + seconds
        for near in self.nears:
            left = deadline - time.monotonic()
            if stop is not None and stop():
                return False
            try:
                done = near.warm(max(left, 0.0), step=WARM_STEP, stop=stop) and done
            except Exception:  # a shared root that cannot be written or read: asked for, embedded
                if near is self.nears[0]:
                    raise
                done = False
        return done

    def cosines(
        self, text: str, lessons: dict[str, str], embed_at_most: int = EMBED_AT_MOST
    ) -> dict[str, float] | None:
        """The cosine of `text` to each lesson, from the vectors of whichever root keeps it,
        up to `embed_at_most` lessons that none keeps embedded now; None when more have no
        vector (warming is not that far yet): as far (0.0) they would silence a lesson the
        keywords show, so the hook decides by keywords then."""
        first = self.nears[0]
        query = first.model.encode([text])[0]
        out: dict[str, float] = {}
        for near in self.nears:
            out.update(near.known(query, {i: t for i, t in lessons.items() if i not in out}))
        missing = {i: t for i, t in lessons.items() if i not in out}
        if len(missing) > embed_at_most:
            return None
        return {**out, **first.cosines(query, missing, embed_at_most)}

    def answer(self, conn: socket.socket) -> None:
        """Read one request, write the cosines."""
        request = json.loads(_line(conn, time.monotonic() + 2.0))
        text, lessons = str(request["text"]), {str(k): str(v) for k, v in dict(request["lessons"]).items()}
        conn.sendall(json.dumps({"cosines": self.cosines(text, lessons)}).encode("utf-8") + b"\n")


def _sweep(derived: Path) -> None:
    """Remove the sockets of lenders no longer running (a server killed outright leaves its
    file: nothing runs in a process killed by SIGKILL)."""
    for path in derived.glob(f"{_PREFIX}*.sock"):
        pid = path.name.removeprefix(_PREFIX).removesuffix(".sock")
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                path.unlink()
        except OSError:  # another user's process: alive
            continue


def _remove_at_exit(path: Path) -> None:
    """Remove the socket file when this process exits: normally, by an exception, at the end
    of its input, or by SIGTERM or SIGHUP (see `_exit_on_signals`)."""
    import atexit

    made = path.stat().st_ino

    def remove() -> None:
        with contextlib.suppress(OSError):
            if path.stat().st_ino == made:  # ours, not a later lender's of the same pid
                path.unlink()

    atexit.register(remove)


def _exit_on_signals() -> None:
    """SIGTERM and SIGHUP, when nothing else handles them, end the process as an exit does
    (its exit handlers run: the socket goes); only the main thread may arrange it."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def leave(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, leave)
