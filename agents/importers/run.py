"""`rolebook import`: check a source whole, then write it role by role through the one
write path (notebook entries as a session's end, recurrence and all; the rest appended
to the archive).
Also the markdown form of `rolebook export`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rolebook.notebook import Entry, InputError
from rolebook.notebook.errors import Interrupted
from rolebook.notebook.model import entry_id
from rolebook.notebook.store import (
    ArchiveRecord,
    Keep,
    Layout,
    check_scope,
    keep,
    known,
    load_text,
    read_records,
    redact_value,
)

from ..session import Session
from . import READERS, Item, Source


@dataclass(slots=True)
class RoleReport:
    role: str
    entries: int = 0
    items: int = 0
    already: int = 0
    pruned: int = 0
    notebook: str = ""

    def line(self, dry_run: bool) -> str:
        verb = "would add" if dry_run else "added"
        bits = [f"{self.entries} notebook {'entry' if self.entries == 1 else 'entries'}", f"{self.items} archived"]
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
                }
                for r in self.roles
            ],
            "problems": self.problems,
            "notes": self.notes,
            "redacted": self.redacted,
        }


@dataclass(slots=True)
class _Plan:
    entries: list[Entry] = field(default_factory=list)
    fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    keeps: list[Keep] = field(default_factory=list)


def run(session: Session, fmt: str, path: Path, role: str | None, dry_run: bool, skip_bad: bool) -> Report:
    """Read, check and (unless a dry run, or bad lines without `skip_bad`) write.

    The roles a source names are started on purpose; a `role` given outright must be one
    the project knows (or the session allows new roles: --new-role): a typo is refused.

    Raises:
        InputError: no such source, a source that is not of this format, no role to import into.
        RoleError: `role` is unknown here, or there is no rolebook project (nothing written).
        ScopeError: a writer scoped to one role importing into another.
    """
    if not path.exists():
        raise InputError(f"{path}: no such file or folder")
    if fmt == "rolebook":
        return _run_export(session, path, role, dry_run, skip_bad)
    with _stopped_by_ctrl_c(Report(fmt, path, dry_run), [], dry_run):  # reading: nothing written yet
        source = READERS[fmt](path)
        report = Report(fmt, path, dry_run, problems=[str(p) for p in source.problems], notes=source.notes)
        report.redacted = redact_value([[i.text, dict(i.fields)] for i in source.items])[1]
        plans = _plan(source, fmt, role)
    for name in plans:
        check_scope(name, session.who)
    if (report.problems and not skip_bad) or not plans:
        return report
    session = _writing(session, list(plans), role, dry_run)
    layout = session.layout
    with _stopped_by_ctrl_c(report, sorted(plans), dry_run):
        for name, plan in sorted(plans.items()):
            report.roles.append(_import_role(session, layout, name, plan, dry_run))
    report.written = not dry_run
    return report


def _writing(session: Session, names: list[str], role: str | None, dry_run: bool) -> Session:
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


def _import_role(session: Session, layout: Layout, name: str, plan: _Plan, dry_run: bool) -> RoleReport:
    """Write (or, in a dry run, count) one role's part of a source."""
    rr = RoleReport(name)
    if dry_run:
        ids = [e.id(name) for e in plan.entries] + [k.id for k in plan.keeps]
        have = known(layout, name, ids)
        fresh_entries = {e.id(name) for e in plan.entries} - have
        fresh_items = {k.id for k in plan.keeps} - have
        rr.entries, rr.items = len(fresh_entries), len(fresh_items)
        rr.already = len(ids) - rr.entries - rr.items
    else:
        if plan.entries:
            result = session.end(name, plan.entries, fields=plan.fields).result
            rr.entries, rr.pruned = len(result.added), result.count("pruned")
            rr.already += len(result.duplicates)
        if plan.keeps:
            records, already = keep(layout, name, plan.keeps, session.who)
            rr.items = len(records)
            rr.already += already
    return rr


@contextlib.contextmanager
def _stopped_by_ctrl_c(report: Report, names: list[str], dry_run: bool) -> Iterator[None]:
    """Ctrl-C in the block: Interrupted (exit 130), saying which roles were written, how
    much, which one was cut short and which were not reached. Every role is written
    through the one write path, so what was written stands, and an import adds nothing
    twice: running it again finishes it.

    Raises:
        Interrupted: Ctrl-C.
    """
    try:
        yield
    except KeyboardInterrupt:
        done = [
            f"{r.role} ({r.entries} notebook {'entry' if r.entries == 1 else 'entries'}, {r.items} archived)"
            for r in report.roles
        ]
        left = names[len(report.roles) :]
        if dry_run:
            said = "nothing was written (a dry run)"
        elif not done and not left:
            said = "nothing was written"
        else:
            said = f"written: {', '.join(done) or 'nothing'}"
            if left:
                said += f"; {left[0]} was cut short (what of it was written stands)"
            if left[1:]:
                said += f"; not reached: {', '.join(left[1:])}"
            said += "; run the same import again to finish it (an import adds nothing twice)"
        raise Interrupted(f"interrupted: {said}") from None


def _plan(source: Source, fmt: str, role: str | None) -> dict[str, _Plan]:
    nameless = [i for i in source.items if role is None and i.role is None]
    if nameless:
        raise InputError(
            f"{len(nameless)} item(s) of this {fmt} source name no role (first: {nameless[0].where}): "
            "pass --role ROLE, e.g. --role coder"
        )
    plans: dict[str, _Plan] = {}
    for item in source.items:
        name = role or item.role
        assert name is not None
        plan = plans.setdefault(name, _Plan())
        if item.kind == "entry":
            entry = Entry(item.section, item.date, item.text, item.count)
            plan.entries.append(entry)
            plan.fields.setdefault(entry.id(name), item.fields)
        else:
            plan.keeps.append(_keep(name, item))
    return plans


def _keep(role: str, item: Item) -> Keep:
    op = "logged" if item.kind == "logged" else "stored"
    rid = entry_id(role, f"import/{item.section}", item.date, item.key or item.text)
    fields = dict(item.fields)
    if op == "stored":
        fields.setdefault("category", item.section)
    return Keep(op, rid, item.section, item.date, item.text, item.tags, fields)


def _run_export(session: Session, path: Path, role: str | None, dry_run: bool, skip_bad: bool) -> Report:
    from rolebook.notebook.store import read_export

    bundle = read_export(path)
    report = Report("rolebook", path, dry_run, problems=bundle.problems)
    report.redacted = redact_value(
        [*bundle.notebooks.values(), *(b.decode("utf-8", "replace") for ls in bundle.lines.values() for b in ls)]
    )[1]
    roles = bundle.roles()
    if role is not None:
        if role not in roles:
            raise InputError(f"{path} holds no role {role!r} (it holds: {', '.join(roles) or 'none'})")
        roles = [role]
    for name in roles:
        check_scope(name, session.who)
    if not (report.problems and not skip_bad):
        session = _writing(session, roles, role, dry_run)
    if (report.problems and not skip_bad) or dry_run:
        for name in roles:
            report.roles.append(RoleReport(name, items=len(bundle.lines.get(name, []))))
        if dry_run:
            report.notes.append("a dry run of a rolebook export counts its archive lines; none are compared")
        return report
    with _stopped_by_ctrl_c(report, roles, dry_run):
        for name in roles:
            report.roles.append(_restore_role(session, name, bundle))
    report.written = True
    return report


def _restore_role(session: Session, name: str, bundle: Any) -> RoleReport:
    """Bring one role of an export in: its archive lines, its notebook (or its entries)."""
    from rolebook.notebook import parse
    from rolebook.notebook.store import restore

    text = bundle.notebooks.get(name)
    done = restore(session.layout, name, text, bundle.lines.get(name, []), session.who)
    rr = RoleReport(name, items=done.appended, already=done.already)
    if done.notebook == "written":
        rr.notebook = "notebook restored"
        assert text is not None
        rr.entries = len(parse(text).entries())
    elif done.notebook == "merge":
        assert text is not None
        result = session.end(name, list(parse(text).entries())).result
        rr.entries, rr.pruned = len(result.added), result.count("pruned")
        rr.already += len(result.duplicates)
        rr.notebook = "entries merged into the notebook there"
    return rr


def export_markdown(layout: Layout, roles: list[str]) -> Iterator[str]:
    """Each role's notebook as it is, then its archive, a line a record, oldest first."""
    for n, role in enumerate(roles):
        if n:
            yield "\n"
        yield f"<!-- rolebook export: role {role} -->\n"
        text = load_text(layout, layout.notebook_path(role))
        if text is not None:
            yield text if text.endswith("\n") else text + "\n"
        else:
            yield f"# {role}\n\n(no notebook)\n"
        yield f"\n## Archive of {role}\n\n"
        bad = 0
        for _, _, item in read_records(layout.archive_path(role)):
            if not isinstance(item, ArchiveRecord):
                bad += 1
                continue
            text_ = " ".join(item.text.split())
            count = f" (x{item.count})" if item.count > 1 else ""
            tags = "".join(f" #{t}" for t in item.tags)
            yield f"- [{item.date}] {item.op} {item.section}: {text_}{count}{tags} `{item.id}`\n"
        if bad:
            yield f"\n({bad} malformed archive line(s) not shown: `rolebook doctor` lists them)\n"
