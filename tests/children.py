"""Child processes a test signals: the signal's disposition set in the child, never
inherited, and every wait bounded.

A test run started from a script in the background (`pytest ... &`) inherits SIGINT
ignored, and a Python started with SIGINT ignored never installs its KeyboardInterrupt
handler: the child would sit out a test's Ctrl-C for good. POSIX shells cannot undo an
ignore inherited on entry (`trap - INT` is refused), so the child is a Python that sets
SIGINT to its default, then execs the command: the command's own Python then starts with
SIGINT at its default and installs its handler, as under a terminal."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

#: Set SIGINT to its default, then exec argv[1:] (a disposition of SIG_DFL survives exec).
_DEFAULT_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
)


def interruptible(argv: list[str]) -> list[str]:
    """`argv` run with SIGINT at its default whatever this process inherited."""
    return [sys.executable, "-c", _DEFAULT_SIGINT, *argv]


def read_pipe(pipe: Path, proc: subprocess.Popen[str], seconds: float = 120.0) -> str:
    """What the child `proc` writes into the named pipe `pipe` until it closes it; an
    AssertionError (with the child's stderr) if the child ends first or `seconds` pass.
    A blocking open() of a pipe whose writer never comes would wait for good."""
    fd = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    said = b""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:  # the writer closed the pipe
                    return said.decode("utf-8")
                said += chunk
            elif proc.poll() is not None:
                _, err = proc.communicate()
                raise AssertionError(f"the child ended (exit {proc.returncode}) before writing to {pipe}: {err}")
    finally:
        os.close(fd)
    raise AssertionError(f"nothing closed {pipe} within {seconds} s (it said {said!r})")
