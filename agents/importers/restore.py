"""`rolebook import rolebook FILE`: an export restored (DESIGN.md section 7). Checked whole first
(its archive and failure journal lines counted, not held), then read again and written
role by role, `batch` lines a transaction: the archive lines and the notebook through the
one write path, the failure journal's lines under the journal's lock, the rule lines into
the rules block."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rolebook.notebook import InputError
from rolebook.notebook.store import Held, check_scope, redact_value

from ..session import Session
from .job import Progress, Report, RoleReport, writing_session


def run_export(session: Session, path: Path, role: str | None, dry_run: bool, skip_bad: bool, batch: int) -> Report:
    """A rolebook export: checked whole, then restored role by role, `batch` lines a
    transaction (the module's doc)."""
    from rolebook.notebook.store import read_export

    redacted: list[str] = []

    def tally(_: str, line: bytes) -> None:
        found = redact_value(line.decode("utf-8", "replace"))[1]
        redacted.extend(k for k in found if k not in redacted)

    bundle = read_export(path, tally, tally)
    from rolebook.rules import bad_rule_lines

    report = Report("rolebook", path, dry_run, problems=bundle.problems + bad_rule_lines(bundle.rules, str(path)))
    found = redact_value(list(bundle.notebooks.values()))[1]
    report.redacted = redacted + [k for k in found if k not in redacted]
    roles = bundle.roles()
    if role is not None:
        if role not in roles:
            raise InputError(f"{path} holds no role {role!r} (it holds: {', '.join(roles) or 'none'})")
        roles = [role]
    for name in roles:
        check_scope(name, session.who)
    if not (report.problems and not skip_bad):
        session = writing_session(session, roles, role, dry_run)
    if (report.problems and not skip_bad) or dry_run:
        for name in roles:
            report.roles.append(
                RoleReport(name, items=bundle.counts.get(name, 0), failures=bundle.journal_counts.get(name, 0))
            )
        if dry_run:
            report.notes.append(
                "a dry run of a rolebook export counts its archive and failure journal lines; none are compared"
            )
        return report
    work = Progress({name: bundle.counts.get(name, 0) for name in roles})
    restoring = _Restore(session, bundle.notebooks, set(roles), batch, work.written)
    read_export(path, restoring.add, restoring.journal)
    report.roles = [restoring.finish(name) for name in roles]
    _restore_rules(session, bundle, roles, report)
    work.finish()
    report.written = True
    return report


def _restore_rules(session: Session, bundle: Any, roles: list[str], report: Report) -> None:
    """The export's rule lines of these roles into the rules block, as they were written;
    a rule the block holds already is not written twice (edgesb: export carries the rules)."""
    from functools import partial

    from rolebook.rules import add_lines, bad_rule_lines, list_rules, write_rules

    good = [line for n, role, line in bundle.rules if role in roles and not bad_rule_lines([(n, role, line)], "")]
    if not good:
        return
    before = len(list_rules(session.rules_path))
    write_rules(session.layout, session.rules_path, partial(add_lines, lines=good))
    if added := len(list_rules(session.rules_path)) - before:
        report.notes.append(f"{added} rule line(s) written to {session.rules_path}")


class _Restore:
    """An export's archive lines appended role by role, `batch` at a time; the last batch
    carries the notebook (written after the records of its entries, as one restore would).
    The failure journal's lines likewise, `batch` at a time, each role's last at its finish."""

    def __init__(
        self,
        session: Session,
        notebooks: dict[str, str],
        roles: set[str],
        batch: int,
        written: Callable[[str, int], None] | None = None,
    ) -> None:
        self.session, self.notebooks, self.wanted, self.written = session, notebooks, roles, written
        self.batch = batch
        self.pending: dict[str, list[bytes]] = {}
        self.reports: dict[str, RoleReport] = {}
        self.held: dict[str, Held] = {}
        self.journals: dict[str, list[bytes]] = {}
        self.journal_held: dict[str, Held] = {}

    def add(self, role: str, line: bytes) -> None:
        if role in self.wanted:
            self.pending.setdefault(role, []).append(line)
            if len(self.pending[role]) >= self.batch:
                self._flush(role, None)

    def journal(self, role: str, line: bytes) -> None:
        if role in self.wanted:
            self.journals.setdefault(role, []).append(line)
            if len(self.journals[role]) >= self.batch:
                self._flush_journal(role)

    def _flush_journal(self, role: str) -> None:
        from rolebook.notebook.store import restore_journal

        lines, self.journals[role] = self.journals.get(role, []), []
        if lines:
            check_scope(role, self.session.who)
            held = self.journal_held.setdefault(role, Held())
            appended, already = restore_journal(self.session.layout, role, lines, held)
            rr = self.reports.setdefault(role, RoleReport(role))
            rr.failures += appended
            rr.already += already

    def _flush(self, role: str, text: str | None) -> str:
        from rolebook.notebook.store import restore

        lines, self.pending[role] = self.pending.get(role, []), []
        held = self.held.setdefault(role, Held())
        done = restore(self.session.layout, role, text, lines, self.session.who, held)
        rr = self.reports.setdefault(role, RoleReport(role))
        rr.items += done.appended
        rr.already += done.already
        if self.written is not None and lines:
            self.written(role, len(lines))
        return done.notebook

    def finish(self, role: str) -> RoleReport:
        from rolebook.notebook import parse

        text = self.notebooks.get(role)
        self._flush_journal(role)
        state = self._flush(role, text)
        rr = self.reports[role]
        if state == "written":
            rr.notebook = "notebook restored"
            assert text is not None
            rr.entries = len(parse(text).entries())
        elif state == "merge":
            assert text is not None
            result = self.session.end(role, list(parse(text).entries())).result
            rr.entries, rr.pruned = len(result.added), result.count("pruned")
            rr.already += len(result.duplicates)
            rr.notebook = "entries merged into the notebook there"
        return rr
