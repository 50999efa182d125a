"""What an import reports (per role, and whole), the session that writes it, and its
progress as a job: shared by every format's import (`run.py`) and an export's restore
(`restore.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rolebook.notebook import progress

from ..session import Session


@dataclass(slots=True)
class RoleReport:
    role: str
    entries: int = 0
    items: int = 0
    already: int = 0
    pruned: int = 0
    notebook: str = ""
    failures: int = 0  # failure journal lines (an export's)

    def line(self, dry_run: bool) -> str:
        verb = "would add" if dry_run else "added"
        bits = [f"{self.entries} notebook {'entry' if self.entries == 1 else 'entries'}", f"{self.items} archived"]
        if self.failures:
            bits.append(f"{self.failures} failure journal line{'' if self.failures == 1 else 's'}")
        tail = []
        if self.pruned:
            tail.append(f"{self.pruned} pruned to the archive by the notebook's limits")
        if self.already:
            tail.append(f"{self.already} already there")
        if self.notebook:
            tail.append(self.notebook)
        return f"{self.role}: {verb} " + ", ".join(bits) + ("; " + ", ".join(tail) if tail else "")


@dataclass(slots=True)
class Report:
    fmt: str
    path: Path
    dry_run: bool
    roles: list[RoleReport] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: bool = False
    redacted: list[str] = field(default_factory=list)  # kinds of secret redacted on the way in

    def lines(self) -> list[str]:
        out = [r.line(self.dry_run) for r in self.roles] or ["nothing to import"]
        if self.problems:
            out.append(f"{len(self.problems)} bad line(s) skipped")
        if self.dry_run:
            out.append("dry run: nothing was written")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.fmt,
            "path": str(self.path),
            "dry_run": self.dry_run,
            "written": self.written,
            "roles": [
                {
                    "role": r.role,
                    "entries": r.entries,
                    "items": r.items,
                    "already": r.already,
                    "pruned": r.pruned,
                    "notebook": r.notebook or None,
                    "failures": r.failures,
                }
                for r in self.roles
            ],
            "problems": self.problems,
            "notes": self.notes,
            "redacted": self.redacted,
        }


def writing_session(session: Session, names: list[str], role: str | None, dry_run: bool) -> Session:
    """The session that writes the import, once the source is read and checked: the roles
    the source names are started on purpose; a `role` given outright must be one the
    project knows (or --new-role); and nothing is written outside a rolebook project.

    Raises:
        RoleError: an unknown `role`, or no project here (nothing written).
    """
    if dry_run:
        return session
    if role is not None:
        session.writable(role)
    session = replace(session, new_roles=True)
    for name in names:
        session.writable(name)
    return session


class Progress:
    """An import as a job of one stage a role (`notebook.progress`: a bar on a terminal, a
    line a stage elsewhere, and what was written when Ctrl-C stops it), counted in records
    as each batch is written."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        self.job = progress.job(
            "import",
            sorted(counts.items()),
            unit="records",
            verb="written",
            then="run the import again to finish, it is idempotent",
            shown=sum(counts.values()) >= progress.BIG_IMPORT_RECORDS,
        )
        self.stages: dict[str, progress.Stage] = {}

    def written(self, role: str, n: int) -> None:
        if role not in self.stages:
            says = f"importing {self.counts.get(role, 0):,} records into {role}"
            self.stages[role] = self.job.start(role, says)
        stage = self.stages[role]
        stage.advance(n)
        if stage.done >= self.counts.get(role, 0):
            stage.finish()

    def finish(self) -> None:
        for stage in self.stages.values():
            if stage.state != "done":
                stage.finish()
        self.job.finish()
