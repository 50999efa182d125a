"""The session API: each moment of an agent's session is one call here.

    start    the notebook as it is, its alerts, and (with a task) the memories for it
    end      add the session's entries: recurrence, limits, rule violations, alerts
    search, store, log, tidy, obsolete
    candidates, promote, demote, rules    the review of recurring mistakes

A `Session` is built once per process from the config (`rolebook.agents.config`), with
the judgement and the search mode as values. The CLI, the MCP server, the hooks and the
importers translate their arguments into these calls and render what comes back; none
of them holds policy of its own, so a fix here reaches every one of them.

Build one with `open_session(config, writer)`: the one way, for every adapter. Modules
below are imported inside the calls: `start` without a task is the hot path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rolebook.notebook import Limits
from rolebook.notebook.store import Layout, check_role
from rolebook.rules import Judge, keyword_same_mistake

from .results import Recorded, Started

if TYPE_CHECKING:
    from rolebook.notebook import Entry
    from rolebook.notebook.search import Query, SearchResult
    from rolebook.notebook.store import ArchiveRecord, Shared, StoreResult, Writer, WriteResult
    from rolebook.rules import Candidate, Promotion, Rule

    from .config import Config

#: How many archive hits `start` looks at for a task before the budget cuts them.
TASK_HITS = 10
SECTIONS = ("mistakes", "learnings", "feedback", "session_log")


@dataclass(frozen=True, slots=True)
class Session:
    """One root's memory, as a writer sees it, with the judgements the config chose.

    `recurrence` judges a new mistake against earlier ones at session end (keywords
    unless the config asks for meaning: loading a model costs seconds there);
    `review` judges at promotion and for rule violations found in a review; `dedup`
    refuses a stored item that says the same as one already kept (None: equal only).
    `mode` is the search mode (None: hybrid when the semantic extra loads `model`).
    """

    layout: Layout
    limits: Limits = field(default_factory=Limits)
    rules_file: Path | None = None
    writer: Writer | None = None  # None: unscoped, no session id
    mode: str | None = "keyword"
    model: str | None = None
    recurrence: Judge = keyword_same_mistake
    review: Judge = keyword_same_mistake
    dedup: Judge | None = None
    min_dates: int = 3  # a mistake on this many distinct dates is due for promotion
    # shared roots (a team's knowledge repositories): searched beside this root, written
    # only by `share` and `promote(shared=...)`; `share_mistakes` names those that take
    # every new mistake; `repo` is the name this root's items go by there
    shared: tuple[tuple[str, Session], ...] = ()
    share_mistakes: tuple[str, ...] = ()
    repo: str = ""
    # which roles a write may create (`writable`): `roles:` in rolebook.yaml, any on purpose
    # (--new-role); `configured`: a rolebook.yaml (else its folders make it a project)
    declared: tuple[str, ...] | None = None
    new_roles: bool = False
    configured: bool = True

    @property
    def who(self) -> Writer:
        from rolebook.notebook.store import Writer

        return self.writer if self.writer is not None else Writer()

    @property
    def rules_path(self) -> Path:
        return self.rules_file if self.rules_file is not None else self.layout.root / "CLAUDE.md"

    def writable(self, role: str, starts: bool = True) -> str:
        """The role, if a write may go to it: one with a notebook or an archive, one listed
        under `roles:`, the writer's own (`--as`), any on purpose (`new_roles`); never a
        typo's new notebook, nothing outside a project. `starts`: the write can start one.

        Raises:
            RoleError: a bad name, an unknown role, or no project here (nothing written).
        """
        from rolebook.notebook.errors import RoleError

        layout = self.layout
        if layout.notebook_path(role).exists() or layout.archive_path(role).exists():
            return role
        if not self.configured and not layout.memory.exists() and not layout.archive.exists():
            raise RoleError(f"no rolebook project at {layout.root} (`rolebook init` makes one); nothing was written")
        if self.new_roles or role == self.who.by or role in (self.declared or ()):
            return role
        import difflib  # a typo, most likely: name the role it is closest to

        known = sorted({*layout.roles(), *(self.declared or ())})
        close = difflib.get_close_matches(role, known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        also = " (or --new-role on this write)" if starts else ""
        raise RoleError(
            f"no role {role!r} here ({hint}roles: {', '.join(known) or 'none yet'}); "
            f"`rolebook init {role}` creates it{also}; nothing was written"
        )

    # -- session start -------------------------------------------------------------

    def start(self, role: str, task: str | None = None, budget: int = 500) -> Started:
        """The role's notebook and alerts; with `task`, the archive hits most relevant to it.

        The notebook always comes back: an over-long task is cut, never refused, and a
        search that fails (a read-only checkout, a broken index) is one warning.
        """
        from rolebook.notebook.store import read_notebook

        check_role(role)
        read = read_notebook(self.layout, role, self.limits)
        if task is None or not task.strip():
            return Started(read, None, None, budget)
        from rolebook.notebook.search import Query, SearchResult

        try:
            found = self.search(Query(task, skip_active_of=role, limit=TASK_HITS, mode=None))  # as `search` does
        except Exception as exc:  # the notebook still comes back; the task part says why it is empty
            why = " ".join(str(exc).split())[:300] or exc.__class__.__name__
            found = SearchResult((), 0, (f"memories for the task were not searched: {why}",))
        return Started(read, task, found, budget)

    def roots(self, root_only: bool = False) -> list[tuple[str, Layout]]:
        """(origin, layout) of the roots a search looks in: this one ("") first."""
        return [("", self.layout)] + ([] if root_only else [(n, s.layout) for n, s in self.shared])

    # -- session end -----------------------------------------------------------------

    def end(
        self,
        role: str,
        entries: Sequence[Entry],
        said: Sequence[str] = (),
        fields: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Recorded:
        """Add a session's entries: recurrence judged, limits applied, rule violations found,
        the alerts `read` shows refreshed. `said`: the texts as the writer gave them, to
        report which kinds of secret were redacted. `fields` (by entry id) go on the
        entries' `added` records (an import's source).

        Raises:
            InputError: no entries.
        """
        import sqlite3

        from rolebook.notebook import InputError, RolebookError
        from rolebook.notebook.store import Index, redactions, update
        from rolebook.rules import find_violations, groups_of, recurrence_hook, refresh_alerts

        self.writable(check_role(role))
        if not entries:
            raise InputError("nothing to add: no mistake, learning, feedback or session log entry was given")
        result = update(self.layout, role, entries, self.limits, self.who, recurrence_hook(self.recurrence), fields)
        new = [(e.id(role), e.text) for e in result.added if e.section == "mistakes"]
        # the entries are written: from here on a problem is a warning, never a failure
        # (an agent told "error" would write them again, in other words)
        warnings: list[str] = []
        try:
            broken = find_violations(self.layout, self.rules_path, role, new, self.recurrence)
        except RolebookError as exc:
            broken = []
            warnings.append(f"{exc}; the new mistakes were not checked against the rules")
        try:
            touched: set[str] = set()
            if new:
                with Index(self.layout) as index:
                    touched = set(groups_of(index, role, [mid for mid, _ in new]).values())
            refresh_alerts(
                self.layout, self.rules_path, role, touched=touched, min_dates=self.min_dates, same=self.recurrence
            )
        except (RolebookError, OSError, sqlite3.Error) as exc:  # derived state: the next write redoes it
            warnings.append(f"the alerts `read` shows were not refreshed ({exc}); the entries are written")
        for name in self.share_mistakes if new else ():
            for mid, _ in new:
                try:
                    self.share(mid, name)
                except (RolebookError, OSError, sqlite3.Error) as exc:
                    warnings.append(
                        f"mistake #{mid} was not shared to {name!r} ({exc}); `rolebook share {mid}` retries"
                    )
        return Recorded(result, tuple(broken), tuple(redactions(*said)), tuple(warnings))

    def entries(self, day: str, **sections: Sequence[str] | None) -> list[Entry]:
        """Checked entries from texts by section (mistakes=, learnings=, feedback=, session_log=).

        Raises:
            EntryError: a bad text or date.
        """
        from rolebook.notebook.store import new_entry

        return [new_entry(section, text, day) for section in SECTIONS for text in sections.get(section) or ()]

    def tidy(self, role: str | None = None, check: bool = False) -> list[WriteResult]:
        """Apply the limits to notebooks edited by hand (every role's by default); with
        `check`, say what would be pruned and write nothing."""
        from rolebook.notebook.store import tidy, tidy_check
        from rolebook.rules import refresh_alerts

        roles = [self.writable(check_role(role), starts=False)] if role else self.layout.roles()
        if check:
            return [tidy_check(self.layout, r, self.limits) for r in roles]
        results = [tidy(self.layout, r, self.limits, self.who) for r in roles]
        for name in roles:
            refresh_alerts(
                self.layout, self.rules_path, name, touched=set(), min_dates=self.min_dates, same=self.recurrence
            )
        return results

    def obsolete(self, role: str, selector: str) -> WriteResult:
        """Retire one active entry (by `#id` prefix or words of its text), archived as obsolete."""
        from rolebook.notebook.store import obsolete
        from rolebook.rules import refresh_alerts

        result = obsolete(self.layout, self.writable(check_role(role), starts=False), selector, self.limits, self.who)
        refresh_alerts(
            self.layout, self.rules_path, role, touched=set(), min_dates=self.min_dates, same=self.recurrence
        )
        return result

    # -- long-term memory ------------------------------------------------------------

    def search(self, query: Query, root_only: bool = False) -> SearchResult:
        """The best hits for a query, in this session's mode unless the query names one,
        from this root and every shared root (unless `root_only`), ranked together."""
        from dataclasses import replace

        from rolebook.notebook.search import search_roots

        if query.mode is None:
            query = replace(query, mode=self.mode)
        return search_roots(self.roots(root_only), query, model=self.model)

    def recall(self, command: str, error: str, role: str | None = None) -> SearchResult | None:
        """Past lessons that match a failed command and its error, an event logged for this
        very context first; None when there is nothing to look for or no memory yet.

        A failure's output is long and full of common words: its rarest few words say
        what it is. Keywords only: this runs on every failed command of an agent.
        """
        from rolebook.notebook.search import Query, SearchResult, search_roots
        from rolebook.notebook.store import Index, derive_ctx_hash

        if not (command.strip() or error.strip()):
            return None
        if not self.layout.archive.exists() and not self.layout.memory.exists():
            return None
        roles = (check_role(role),) if role else ()
        query = Query(f"{command} {error}", roles=roles, limit=5, rarest=4, mode="keyword")
        found = search_roots(self.roots(), query)
        with Index(self.layout, readers_only=True) as index:  # a read-only checkout too
            same = index.ids_with_ctx_hash(derive_ctx_hash(command, error))
        hits = sorted(found.hits, key=lambda h: (h.id not in same, -h.score))
        return SearchResult(tuple(hits), found.total, found.warnings)

    def share(self, key: str, to: str | None = None) -> tuple[str, Shared]:
        """Copy the item whose id starts with `key` into a shared root (`to`, or the only
        one), once, redacted again, with where it came from. Returns (root name, result).

        Raises:
            InputError: no shared root, or several and `to` names none of them.
            NoMatch: no item has that id. ScopeError: a writer scoped to another role.
        """
        from rolebook.notebook.store import share

        name, target = self.shared_root(to)
        return name, share(self.layout, self.repo, target.layout, key, self.who)

    def shared_root(self, name: str | None = None) -> tuple[str, Session]:
        """The shared root of this name (or the only one).

        Raises:
            InputError: none configured, an unknown name, or several and no name.
        """
        from rolebook.notebook import InputError

        names = [n for n, _ in self.shared]
        for n, root in self.shared:
            if n == name or (name is None and len(names) == 1):
                return n, root
        if name is not None:
            there = f"there are: {', '.join(names)}" if names else "none could be opened"
            raise InputError(f"no shared root named {name!r} ({there})")
        if names:
            raise InputError(f"several shared roots ({', '.join(names)}): say which with --to")
        raise InputError(
            "no shared root: name one in rolebook.yaml, e.g. shared_roots: [{name: team, path: ../knowledge}]"
        )

    def store(self, role: str, category: str, text: str, tags: Sequence[str] = ()) -> StoreResult:
        """Keep an item in long-term memory, unless one that says the same is there."""
        from rolebook.notebook.store import store

        return store(
            self.layout, self.writable(check_role(role)), category, text, list(tags), self.who, same=self.dedup
        )

    def log(
        self,
        role: str,
        event_type: str,
        lesson: str,
        context: str = "",
        command: str = "",
        outcome: str | None = None,
        tags: Sequence[str] = (),
        ctx_hash: str | None = None,
    ) -> ArchiveRecord:
        """Log an experience event; outcomes of one context hash add up to a success rate."""
        from rolebook.notebook.store import log_event

        return log_event(
            self.layout,
            self.writable(check_role(role)),
            event_type=event_type,
            lesson=lesson,
            context=context,
            command=command,
            outcome=outcome,
            tags=list(tags),
            ctx_hash=ctx_hash,
            writer=self.who,
        )

    # -- rules -----------------------------------------------------------------------

    def candidates(
        self, role: str | None = None, min_dates: int | None = None, skipped: bool = False, min_repos: int = 0
    ) -> list[Candidate]:
        """Mistakes that came back on at least `min_dates` dates (default: the config's),
        from at least `min_repos` repositories (in a shared root), not a rule yet, and not
        skipped since their last incident (unless `skipped`)."""
        from rolebook.rules import candidates, finish_promotions, refresh_alerts

        for rule in finish_promotions(
            self.layout, self.rules_path, [check_role(role)] if role else self.layout.roles()
        ):
            refresh_alerts(self.layout, self.rules_path, rule.role, min_dates=self.min_dates, same=self.recurrence)
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


def open_session(config: Config, writer: Writer | None = None, new_roles: bool = False) -> Session:
    """The session API over this root, with the judgements and the search mode chosen
    once, here, from the config and the environment (nothing below reads either).

    With the semantic extra and a mode other than keyword, promotion and `store` dedup
    judge by meaning too (the model loads only when a pair first needs it). Loading it
    costs seconds, so the write that ends every session judges recurrence by meaning
    only when the mode asks for semantic or hybrid outright. `new_roles`: see `writable`.
    """
    from rolebook.notebook.search import semantic
    from rolebook.rules import meaning_judge

    from .config import search_mode, shared_configs

    mode = search_mode(config)
    model = os.environ.get("ROLEBOOK_MODEL") or config.model
    review: Judge = keyword_same_mistake
    dedup: Judge | None = None
    if mode != "keyword" and (model or semantic.available()):
        review = dedup = meaning_judge(model)
    recurrence = review if mode in ("semantic", "hybrid") else keyword_same_mistake

    def session(of: Config, shared: tuple[tuple[str, Session], ...] = ()) -> Session:
        share = tuple(r.name for r in config.shared_roots if "mistakes" in r.share and r.name in dict(shared))
        return Session(
            of.layout,
            of.limits,
            of.rules_file,
            writer,
            mode,
            model,
            recurrence,
            review,
            dedup,
            of.min_dates,
            shared,
            share,
            config.root.name,
            of.roles,
            new_roles,
            of.source is not None,
        )

    return session(config, tuple((r.name, session(c)) for r, c in shared_configs(config)))
