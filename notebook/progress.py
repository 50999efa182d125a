"""Long work, told to whoever listens. The library never prints: an adapter (the CLI)
sets a listener for notices (one sentence before slow work) and a watcher for jobs.

A job (an import, an index build, embedding) is a list of stages known from the start
(one a role, say), each counted as it goes. The watcher shows them (rich's bar on a
terminal, a line a stage elsewhere) and, when the user interrupts, says what was done:
`summary()` names each stage done, under way or not started, and `then` what to do.

    work = progress.job("import", [("coder", 1200), ("qa", 300)], unit="records", ...)
    stage = work.start("coder", "importing 1,200 records into coder")
    stage.advance(1200)   # after they are written, never before
    stage.finish()
    ...
    work.finish()

No context managers on purpose: a loop gains a few calls, not an indentation level.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

_listener: Callable[[str], object] | None = None

#: Sizes past which the work below takes about a second on an ordinary machine.
BIG_ARCHIVE_BYTES = 4_000_000
BIG_NOTEBOOK_BYTES = 1_000_000
BIG_IMPORT_RECORDS = 1_000


def listen(listener: Callable[[str], object] | None) -> None:
    """Send notices to `listener` (None: drop them)."""
    global _listener
    _listener = listener


def notice(message: str) -> None:
    if _listener is not None:
        _listener(message)


class Watcher(Protocol):
    """What an adapter gives `watch`: told of every change to a job (`event` is begin,
    start, advance, finish or end; `stage` is None for begin and end)."""

    def changed(self, job: Job, stage: Stage | None, event: str) -> None: ...


_watcher: Watcher | None = None
_jobs: list[Job] = []  # under way, outermost first (an import's writes build the index too)


def watch(watcher: Watcher | None) -> None:
    """Tell `watcher` of every job from now on (None: nobody), and forget jobs left behind."""
    global _watcher
    _watcher = watcher
    _jobs.clear()


@dataclass(slots=True, eq=False)
class Stage:
    """One part of a job: `done` of `total` units, counted only once they are kept."""

    job: Job
    name: str
    total: int | None
    done: int = 0
    state: str = "waiting"  # waiting, running, done
    says: str = ""  # one line on what it is doing, e.g. "importing 1,200 records into coder"

    def advance(self, n: int) -> None:
        """Count `n` more units as done (and kept)."""
        self.done += n
        _tell(self.job, self, "advance")

    def finish(self) -> None:
        self.state = "done"
        if self.total is not None:
            self.done = max(self.done, self.total)
        _tell(self.job, self, "finish")

    def amount(self, of: bool = False) -> str:
        """What is done, in words (`of`: and of how much): `40 of 100 records`, `1.2 MB`."""
        bytes_ = self.job.unit == "bytes"

        def number(n: int) -> str:
            return (f"{n / 1e6:.1f}" if n < 10_000_000 else f"{n / 1e6:.0f}") if bytes_ else f"{n:,}"

        total = f" of {number(self.total)}" if of and self.total is not None else ""
        return f"{number(self.done)}{total} {'MB' if bytes_ else self.job.unit}"


@dataclass(slots=True, eq=False)
class Job:
    """A long piece of work in stages; `shown` when it is long enough to show at all."""

    name: str
    unit: str  # records, bytes
    verb: str  # what a done unit is: written, indexed, embedded
    then: str  # what to do after an interruption
    kept: bool  # whether a stage cut short keeps what it counted (else it is undone)
    shown: bool
    stages: list[Stage] = field(default_factory=list)

    def planned(self, name: str) -> Stage | None:
        """The stage `name` if it is planned and not started yet."""
        return next((s for s in self.stages if s.name == name and s.state == "waiting"), None)

    def start(self, name: str, says: str = "") -> Stage:
        """Stage `name` begins (a stage not planned is added)."""
        stage = self.planned(name)
        if stage is None:
            stage = Stage(self, name, None)
            self.stages.append(stage)
        stage.state, stage.says = "running", says
        _tell(self, stage, "start")
        return stage

    def finish(self) -> None:
        """The job is over (its stages not started are left as they are)."""
        _tell(self, None, "end")
        if self in _jobs:
            _jobs.remove(self)

    def summary(self) -> str:
        """What was done, stage by stage, in words: `coder 1,200 records written, qa not started`."""
        parts: list[str] = []
        waiting: list[str] = []
        for s in self.stages:
            if s.state == "waiting":
                waiting.append(s.name)
                continue
            if waiting:
                parts.append(f"{', '.join(waiting)} not started")
                waiting = []
            if s.state == "done":
                parts.append(f"{s.name} {s.amount()} {self.verb}")
            elif self.kept and s.done:
                parts.append(f"{s.name} {s.amount(of=True)} {self.verb}")
            else:
                parts.append(f"{s.name} not finished")
        if waiting:
            parts.append(f"{', '.join(waiting)} not started")
        return ", ".join(parts) or "nothing started"


def job(
    name: str,
    stages: Sequence[tuple[str, int | None]],
    *,
    unit: str,
    verb: str,
    then: str,
    kept: bool = True,
    shown: bool = True,
) -> Job:
    """A job begins, its stages (name, total) known; told to the watcher."""
    work = Job(name, unit, verb, then, kept, shown)
    work.stages = [Stage(work, n, total) for n, total in stages]
    # a job of this kind begun again: the earlier one ended without saying so (an error
    # left it, and the work is being retried)
    _jobs[:] = [j for j in _jobs if j.name != name]
    _jobs.append(work)
    _tell(work, None, "begin")
    return work


def under_way() -> Job | None:
    """The outermost job not finished: what the user started (None: none)."""
    return _jobs[0] if _jobs else None


def _tell(work: Job, stage: Stage | None, event: str) -> None:
    if _watcher is not None:
        _watcher.changed(work, stage, event)
