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

from .provenance import unasked  # what reads like an order waits for a confirmation
from .results import Recorded, Started
from .review import Review

if TYPE_CHECKING:
    from rolebook.notebook import Entry
    from rolebook.notebook.search import Query, SearchResult
    from rolebook.notebook.store import ArchiveRecord, Shared, StoreResult, Writer, WriteResult
    from rolebook.rules import Likeness

    from ..config import Config

#: How many archive hits `start` looks at for a task before the budget cuts them.
TASK_HITS = 10
SECTIONS = ("mistakes", "learnings", "feedback", "session_log")


@dataclass(frozen=True, slots=True)
class Session(Review):
    """One root's memory, as a writer sees it, with the judgements the config chose.

    At session end a mistake written again is merged; the earlier mistakes a new one looks
    like are proposed (by keywords, and by meaning with `meaning`: loading a model costs
    seconds there, so only when the config asks for it). `recurrence` judges a new
    mistake against the rules; `review` judges for rule violations found in a review;
    `dedup` refuses a stored item that says the same as one already kept (None: equal only).
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
    meaning: bool = False  # a new mistake's possible recurrences are found by meaning too
    min_dates: int = 3  # a mistake on this many distinct dates is due for promotion
    # shared roots (a team's knowledge repositories): searched beside this root, written
    # only by `share` and `promote(shared=...)`; `share_mistakes` names those that take
    # every new mistake; `repo` is the name this root's items go by there
    shared: tuple[tuple[str, Session], ...] = ()
    share_mistakes: tuple[str, ...] = ()
    repo: str = ""
    embed_seconds: float | None = None  # by meaning, per search (config.embed_budget); None: all first
    # what an unscoped writer's records say they came through (a scoped `writer` says it itself)
    source: str | None = None
    instructions: tuple[Path, ...] = ()  # instructions files the config names besides the usual ones
    # which roles a write may create (`writable`): `roles:` in rolebook.yaml, any on purpose
    # (--new-role); `configured`: a rolebook.yaml (else its folders make it a project)
    declared: tuple[str, ...] | None = None
    new_roles: bool = False
    configured: bool = True

    @property
    def who(self) -> Writer:
        from rolebook.notebook.store import Writer

        return self.writer if self.writer is not None else Writer(source=self.source)

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
        """The role's notebook and alerts; with `task`, the archive hits surely about it
        (usually few or none; `task_hits`).

        The notebook always comes back: an over-long task is cut, never refused, and a
        search that fails (a read-only checkout, a broken index) is one warning.
        """
        from rolebook.notebook.store import gated, read_notebook
        from rolebook.rules import instruction_files, with_drift

        read = read_notebook(self.layout, check_role(role), self.limits)
        files = instruction_files(self.layout.root, self.rules_path, self.instructions)
        read = gated(with_drift(read, self.layout, role, files), self.layout)
        if task is None or not task.strip():
            return Started(read, None, None, budget)
        from rolebook.notebook.search import Query, SearchResult, task_hits

        # searched as `search` searches (the configured mode, meaning where the extra
        # loads), then only the hits rolebook is sure of: this reaches the agent unasked
        query = Query(task, skip_active_of=role, limit=TASK_HITS, mode=self.mode)
        try:
            found = unasked(self, task_hits(self.roots(), task, query, self.model))
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
        same_as: str | None = None,
        supersedes: Sequence[str] = (),
        session: str | None = None,
        failure: str | None = None,
    ) -> Recorded:
        """Add a session's entries: recurrence judged (in date order, as separate writes
        would be), limits applied, rule violations found, the alerts `read` shows
        refreshed. `said`: the texts as the writer gave them, to report which kinds of
        secret were redacted. `fields` (by entry id) go on the entries' `added` records
        (an import's source, the code an entry cites). An entry that reads like an order
        to the agent is flagged, never refused. `same_as`: the id of an earlier mistake
        that the one mistake among `entries` recurs (the writer's confirmation of a
        proposal), journalled as `linked`; the mistake may be new or written before.
        `supersedes`: ids of items these entries correct, retired in the same write.
        `session` (default: the writer's, else the role's current one): its lessons are
        linked to the failures it saw, `failure` the one they answer (`failures.plan`).

        Raises:
            InputError: no entries; `same_as` without exactly one mistake, or naming no
                mistake of the role; `failure` naming no failure of the role.
                NoMatch: an id to supersede that nothing has.
        """
        import sqlite3

        from rolebook.notebook import InputError, RolebookError
        from rolebook.notebook.store import flag_orders, redactions, update
        from rolebook.rules import Recurrence, find_mistake, find_violations, refresh_alerts

        self.writable(check_role(role))
        if not entries:
            raise InputError("nothing to add: no mistake, learning, feedback or session log entry was given")
        links: dict[str, str] = {}
        if same_as is not None:
            mistakes = [e for e in entries if e.section == "mistakes"]
            if len(mistakes) != 1:
                raise InputError(f"--same-as goes with exactly one mistake ({len(mistakes)} given)")
            links[mistakes[0].id(role)] = earlier = find_mistake(self.layout, role, same_as)
            if earlier == mistakes[0].id(role):
                raise InputError(f"#{earlier} is this very mistake: name the earlier one it recurs")
        from . import failures

        planned = failures.plan(self.layout, role, entries, session or self.who.session, failure)
        links |= {mid: earlier for mid, earlier in planned.same_as.items() if mid not in links}
        fields, flagged = flag_orders(role, entries, fields)
        hook = Recurrence(self.likeness(), links)
        result = update(self.layout, role, entries, self.limits, self.who, hook, fields, hook.after, supersedes)
        new = [(e.id(role), e.text) for e in result.added if e.section == "mistakes"]
        # the entries are written: from here on a problem is a warning, never a failure
        # (an agent told "error" would write them again, in other words)
        added = {e.id(role) for e in result.added}
        warnings = [w for w in flagged if w[1 : w.index(" ")] in added]
        if planned.links:
            try:
                failures.journal_links(self.layout, role, planned, result.added)
            except (RolebookError, OSError) as exc:
                warnings.append(f"the lessons were not linked to the session's failures ({exc}); the entries stand")
        try:
            broken = find_violations(self.layout, self.rules_path, role, new, self.recurrence)
        except RolebookError as exc:
            broken = []
            warnings.append(f"{exc}; the new mistakes were not checked against the rules")
        try:
            touched = {mid for mid, _ in new} | {mid for mid, _, _ in hook.linked}
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
        found = (hook.proposed, tuple(hook.linked), tuple(planned.links.items()), tuple(planned.unanswered))
        return Recorded(result, tuple(broken), tuple(redactions(*said)), tuple(warnings), *found)

    def likeness(self) -> Likeness:
        """How a new mistake's possible recurrences are found: keywords, or with `meaning`
        (and a model that loads) by meaning too."""
        from rolebook.rules import Likeness

        if not self.meaning:
            return Likeness()
        from rolebook.notebook.search import semantic

        return Likeness(semantic.load(self.model))

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
        if query.embed_budget is None:
            query = replace(query, embed_budget=self.embed_seconds)
        return search_roots(self.roots(root_only), query, model=self.model)

    def recall(
        self,
        command: str,
        error: str,
        role: str | None = None,
        exit_code: int | None = None,
        session: str | None = None,
        control: float = 0.0,
    ) -> SearchResult | None:
        """The past lessons surely about a failed command and its output: usually none.
        None when there is nothing to look for or no memory yet. Runs on every failed
        command of an agent: the failure recorded for the `session` and recognised, then
        the decision on the lessons' text (failures.recall; `control`: recall.control)."""
        from .failures import recall

        if not (command.strip() or error.strip()):
            return None
        if not self.configured and not self.layout.archive.exists() and not self.layout.memory.exists():
            return None  # no project here: nothing to record, nothing to recall
        roles = (check_role(role),) if role else ()
        return unasked(self, recall(self.layout, self.roots(), roles, command, error, exit_code, session, control))

    def share(self, key: str, to: str | None = None) -> tuple[str, Shared]:
        """Copy the item whose id starts with `key` into a shared root (`to`, or the only
        one), once, redacted again, with where it came from. Returns (root name, result).

        Raises:
            InputError: no such shared root. NoMatch: no such item. ScopeError: another role's writer.
        """
        from rolebook.notebook.store import share

        name, target = self.shared_root(to)
        return name, share(self.layout, self.repo, target.layout, key, self.who)

    def shared_root(self, name: str | None = None) -> tuple[str, Session]:
        """The shared root of this name (or the only one).

        Raises:
            InputError: none configured, an unknown name, or several and no name.
        """
        from rolebook.notebook.store import choose_shared

        return self.shared[choose_shared([n for n, _ in self.shared], name)]

    def store(
        self, role: str, category: str, text: str, tags: Sequence[str] = (), fields: Mapping[str, Any] | None = None
    ) -> StoreResult:
        """Keep an item in long-term memory, unless one that says the same is there.
        `fields` go on its record (the code it cites)."""
        from rolebook.notebook.store import reads_as_order, store

        kept = dict(fields or {})
        if reads_as_order(text) is not None:
            kept["flag"] = "order"  # flagged, never refused (the record says so, `audit` shows it)
        result = store(
            self.layout, self.writable(check_role(role)), category, text, list(tags), self.who, None, self.dedup, kept
        )
        if "cite" in kept and result.record is not None:  # the read's drift check learns of the citation
            from rolebook.rules import refresh_alerts

            refresh_alerts(self.layout, self.rules_path, role, min_dates=self.min_dates, same=self.recurrence)
        return result

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
        """Log an experience event; outcomes of one context hash add up to a success rate.
        An event with a lesson answers the session's one open failure (failures.answer)."""
        from rolebook.notebook.store import log_event

        from .failures import answer

        role = self.writable(check_role(role))
        given = {"event_type": event_type, "lesson": lesson, "context": context, "command": command}
        said = {"outcome": outcome, "tags": list(tags), "ctx_hash": ctx_hash, "writer": self.who}
        record = log_event(self.layout, role, **given, **said)  # type: ignore[arg-type]
        answer(self.layout, role, record.id, lesson, self.who.session)
        return record


def open_session(
    config: Config, writer: Writer | None = None, source: str | None = None, new_roles: bool = False
) -> Session:
    """The session API over this root, with the judgements and the search mode chosen
    once, here, from the config and the environment (nothing below reads either).

    With the semantic extra and a mode other than keyword, promotion and `store` dedup
    judge by meaning too (the model loads only when a pair first needs it). Loading it
    costs seconds, so the write that ends every session judges recurrence by meaning
    only when the mode asks for semantic or hybrid outright. `source`: what the records
    of an unscoped writer (`writer` None) say they came through (`cli`, `mcp`...);
    `new_roles`: see `writable`.
    """
    from rolebook.notebook.search import semantic
    from rolebook.rules import meaning_judge

    from ..config import embed_budget, search_mode, shared_configs

    mode = search_mode(config)
    model = os.environ.get("ROLEBOOK_MODEL") or config.model
    embed_seconds = embed_budget()
    review: Judge = keyword_same_mistake
    dedup: Judge | None = None
    if mode != "keyword" and (model or semantic.available()):
        review = dedup = meaning_judge(model)
    meaning = mode in ("semantic", "hybrid") and (bool(model) or semantic.available())
    recurrence = review if meaning else keyword_same_mistake

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
            meaning,
            of.min_dates,
            shared,
            share,
            config.root.name,
            embed_seconds,
            source,
            of.instructions,
            of.roles,
            new_roles,
            of.source is not None,
        )

    return session(config, tuple((r.name, session(c)) for r, c in shared_configs(config)))
