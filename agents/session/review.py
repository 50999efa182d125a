"""The session API's review of recurring mistakes: the candidates for a rule, promotion,
split and skip, demotion, the rules and their reports. A part of `Session`
(agents/session.py), kept in a room of its own so that each stays a readable size; it
works on the session's values (its root, rules file, judgements, writer).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rolebook.notebook.store import check_role

if TYPE_CHECKING:
    from rolebook.notebook import Limits
    from rolebook.notebook.store import Layout, Writer
    from rolebook.rules import Candidate, Judge, Promotion, Rule


class Review:
    """The review half of `Session`; every name it uses is one of the session's fields."""

    __slots__ = ()
    if TYPE_CHECKING:
        layout: Layout
        limits: Limits
        recurrence: Judge
        review: Judge
        min_dates: int

        @property
        def who(self) -> Writer: ...

        @property
        def rules_path(self) -> Path: ...

    def candidates(
        self, role: str | None = None, min_dates: int | None = None, skipped: bool = False, min_repos: int = 0
    ) -> list[Candidate]:
        """Mistakes that came back on at least `min_dates` dates (default: the config's),
        from at least `min_repos` repositories (in a shared root), not a rule yet, and not
        skipped since their last incident (unless `skipped`)."""
        from rolebook.rules import candidates, finish_promotions, refresh_alerts, taken_out_by_hand

        roles = [check_role(role)] if role else self.layout.roles()
        touched = finish_promotions(self.layout, self.rules_path, roles, self.who)
        touched += taken_out_by_hand(self.layout, self.rules_path, roles, self.who)
        for r in sorted({rule.role for rule in touched}):
            refresh_alerts(self.layout, self.rules_path, r, min_dates=self.min_dates, same=self.recurrence)
        days = min_dates or self.min_dates
        return candidates(
            self.layout, self.rules_path, check_role(role) if role else None, days, self.review, skipped, min_repos
        )

    def promote(self, candidate: Candidate | str, text: str | None = None) -> Promotion:
        """Make a candidate (or the one whose id starts with this) a rule; its notebook
        entries leave as promoted.

        Raises:
            NoMatch: no candidate has that id. InputError: several do, or the text is empty.
        """
        from rolebook.rules import apply, find_candidate

        if isinstance(candidate, str):
            candidate = find_candidate(self.candidates(skipped=True), candidate)
        return apply(self.layout, self.rules_path, candidate, self.limits, self.who, text, self.review, self.min_dates)

    def split(self, candidate: Candidate | str) -> Candidate:
        """Say a candidate's incidents are not one mistake: its group is dissolved and its
        members are never grouped together again (the archive keeps the decision)."""
        return self._decide(candidate, "split")

    def skip(self, candidate: Candidate | str) -> Candidate:
        """Not now: the candidate is not proposed again until a new incident joins it."""
        return self._decide(candidate, "skipped")

    def _decide(self, candidate: Candidate | str, op: str) -> Candidate:
        from rolebook.rules import decide, find_candidate, refresh_alerts

        if isinstance(candidate, str):
            candidate = find_candidate(self.candidates(skipped=True), candidate)
        decide(self.layout, candidate, op, self.who)
        refresh_alerts(self.layout, self.rules_path, candidate.role, min_dates=self.min_dates, same=self.recurrence)
        return candidate

    def demote(self, key: str) -> Rule:
        """Take a rule out of the rules file; the archive keeps it as demoted."""
        from rolebook.rules import demote

        return demote(self.layout, self.rules_path, key, self.who, self.recurrence, self.min_dates)

    def rules(self, role: str | None = None) -> list[Rule]:
        from rolebook.rules import list_rules

        return list_rules(self.rules_path, check_role(role) if role else None)

    def rule_report(self, rule: Rule) -> dict[str, Any]:
        """A rule with the day it was promoted and how many mistakes broke it since."""
        from rolebook.rules import rule_report

        return rule_report(self.layout, self.rules_path, rule, self.review)
