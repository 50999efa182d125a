"""What long work shows on the command line (notebook/progress.py says what the work is):
rich's progress bar on a terminal, one line a stage on stderr elsewhere, and after Ctrl-C
one line saying what was done and what to do, exit 130.

rich is imported only when a job long enough to show starts on a terminal: the hot
commands never import it.

For tests, ROLEBOOK_PAUSE=JOB/STAGE:FIFO stops the process once that stage of that job is
done: it writes a line into the named pipe FIFO, then waits for a signal. A test reads the
pipe (which returns once the process is there), then sends SIGINT: no sleeping, no timing.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from rolebook.notebook import progress
from rolebook.notebook.progress import Job, Stage

INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it


class Shown:
    """A `progress.Watcher` writing to a stream (None: whatever sys.stderr is when it
    writes): a bar on a terminal, else a line a stage."""

    def __init__(self, stream: IO[str] | None = None, terminal: bool | None = None):
        self.stream = stream
        self.terminal = terminal
        self.bar: Any = None  # rich's Progress, once a job shown on a terminal starts
        self.tasks: dict[int, Any] = {}
        self.pause = _pause_point()

    def changed(self, job: Job, stage: Stage | None, event: str) -> None:
        if job.shown and stage is not None:
            out = self.stream or sys.stderr
            if self.bar is not None or (self.terminal if self.terminal is not None else out.isatty()):
                self._draw(out, stage, event)
            elif event == "start" and stage.says:
                out.write(f"rolebook: {stage.says}\n")
                out.flush()
        if event == "end" and self.bar is not None and progress.under_way() is job:
            self.close()
        if event == "finish" and stage is not None and self.pause and self.pause[:2] == (job.name, stage.name):
            _wait(self.pause[2])

    def _draw(self, out: IO[str], stage: Stage, event: str) -> None:
        if self.bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeRemainingColumn,
            )

            console = Console(file=out, force_terminal=True)
            self.bar = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            self.bar.start()
        key = id(stage)
        scale = 1e6 if stage.job.unit == "bytes" else 1  # drawn in MB
        total = stage.total / scale if stage.total is not None else None
        if key not in self.tasks:
            label = f"{stage.job.name} {stage.name}" + (" (MB)" if scale > 1 else "")
            self.tasks[key] = self.bar.add_task(label, total=total)
        self.bar.update(self.tasks[key], completed=stage.done / scale, total=total)
        if event in ("start", "finish"):
            self.bar.refresh()  # drawn now, not at the next tick: a short stage is seen whole
        if event == "finish":
            self.bar.update(self.tasks[key], visible=False)

    def close(self) -> None:
        """Take the bar off the terminal."""
        if self.bar is not None:
            self.bar.stop()
            self.bar, self.tasks = None, {}


def _pause_point() -> tuple[str, str, str] | None:
    """(job, stage, pipe) from ROLEBOOK_PAUSE, if set."""
    where, _, pipe = os.environ.get("ROLEBOOK_PAUSE", "").partition(":")
    job, _, stage = where.partition("/")
    return (job, stage, pipe) if job and stage and pipe else None


def _wait(pipe: str) -> None:
    """Say 'paused' into the pipe, then wait for a signal (a test's SIGINT)."""
    import signal

    with open(pipe, "w", encoding="utf-8") as f:
        f.write("paused\n")
    while True:
        signal.pause()


_shown: Shown | None = None


def start() -> None:
    """Show long work on stderr from now on."""
    global _shown
    _shown = Shown()
    progress.watch(_shown)


def interrupted() -> int:
    """After Ctrl-C: one line on stderr saying what was done and what to do; the exit code."""
    if _shown is not None:
        _shown.close()
    job = progress.under_way()
    if job is None:
        sys.stderr.write("rolebook: interrupted\n")
    else:
        sys.stderr.write(f"rolebook: interrupted: {job.summary()}; {job.then}\n")
    sys.stderr.flush()
    return INTERRUPTED
