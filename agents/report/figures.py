"""What the report shows, computed from the stores: per role, and summed for the project.

The notebook and archive figures are `stats`'s own (`role_stats`); the recurring groups are
what `promote` would list (and, below its threshold, groups on 2 dates); the rules are
the session API's rule reports. Long lists are cut to their top few, the rest counted, so
the page stays small whatever the archive holds.

One judgement serves every figure, remembering the pairs it judged: the groups are
formed once per role even though `stats`, `promote`'s list and the rule reports each ask.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from rolebook.notebook import SECTIONS, parse
from rolebook.notebook.limits import frontmatter_limits
from rolebook.notebook.store import ArchiveRecord, read_records, shown_text
from rolebook.rules import Judge, candidates

from ..stats import RoleStats, role_stats, week

if TYPE_CHECKING:
    from ..session import Session

#: Ops after which an entry is no longer in its notebook: what left for the archive, and why.
LEFT = ("pruned", "recurred", "promoted", "obsolete")
TOP_GROUPS = 10  # per role, and for the project
TOP_INCIDENTS = 8  # per group
TOP_RULES = 30
TOP_SHARED = 8
WEEKS = 52
MONTHS = 24
TEXT_CHARS = 280  # an entry's text as the page shows it (the archive keeps it whole)
_LEAVING = re.compile(rb'"op"\s*:\s*"(?:' + "|".join(LEFT).encode() + rb')"')


@dataclass(frozen=True, slots=True)
class Group:
    """A mistake that keeps coming back. `status`: due (promote lists it), below (fewer
    dates than promotion asks)."""

    id: str
    role: str
    count: int
    dates: tuple[str, ...]
    incidents: tuple[tuple[str, str], ...]  # (date, text), newest first, cut to TOP_INCIDENTS
    more_incidents: int
    rule: str | None  # None: no incident says what to do instead, the rule's text is to be given
    status: str


@dataclass(frozen=True, slots=True)
class RuleRow:
    id: str
    role: str
    text: str
    incidents: tuple[str, ...]
    promoted: str | None
    violations: int


@dataclass(frozen=True, slots=True)
class SharedRoot:
    """A shared root and what it holds: every shared record, and those from this repository."""

    name: str
    path: str
    takes_mistakes: bool
    records: int
    repos: int
    ours: int
    latest: tuple[tuple[str, str, str, str], ...]  # (date, role, section, text) of ours, newest first


@dataclass(slots=True)
class RoleReport:
    stats: RoleStats
    caps: dict[str, int | None] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    more_groups: int = 0
    rules: list[RuleRow] = field(default_factory=list)
    more_rules: int = 0
    left: dict[str, dict[str, int]] = field(default_factory=dict)  # month -> op -> records

    @property
    def role(self) -> str:
        return self.stats.role


@dataclass(slots=True)
class Report:
    project: str
    today: dt.date
    health: str
    min_dates: int
    roles: list[RoleReport] = field(default_factory=list)
    shared: list[SharedRoot] = field(default_factory=list)

    def weeks(self) -> tuple[list[str], dict[str, int], dict[str, int]]:
        """The weeks to draw (up to today's, at most WEEKS), mistakes and recurrences per week, all roles."""
        return chart_weeks([r.stats for r in self.roles], self.today)

    def left(self) -> dict[str, dict[str, int]]:
        return merge_months(r.left for r in self.roles)

    def groups(self) -> tuple[list[Group], int]:
        """The project's top groups (due first) and how many more there are."""
        every = sorted((g for r in self.roles for g in r.groups), key=group_order)
        more = sum(r.more_groups for r in self.roles)
        return every[:TOP_GROUPS], more + max(len(every) - TOP_GROUPS, 0)

    def rules(self) -> tuple[list[RuleRow], int]:
        every = [rule for r in self.roles for rule in r.rules]
        return every[:TOP_RULES], sum(r.more_rules for r in self.roles) + max(len(every) - TOP_RULES, 0)

    def first_day(self) -> str:
        """The earliest incident date of any group or rule shown: where the timelines start."""
        days = [g.dates[0] for r in self.roles for g in r.groups]
        days += [rule.incidents[0] for r in self.roles for rule in r.rules if rule.incidents]
        return min(days, default=self.today.isoformat())


def group_order(g: Group) -> tuple[bool, int, int, str]:
    return (g.status != "due", -len(g.dates), -g.count, g.id)


def remembered(same: Judge) -> Judge:
    """The judgement, remembering each pair it was asked about (it is deterministic)."""
    seen: dict[tuple[str, str], bool] = {}

    def judge(a: str, b: str) -> bool:
        key = (a, b)
        found = seen.get(key)
        if found is None:
            found = seen[key] = same(a, b)
        return found

    return judge


def collect(session: Session, roles: list[str], today: dt.date, health: str) -> Report:
    """The report's figures for these roles of the session's root.

    Raises:
        InputError: a notebook that is not UTF-8. ConfigError: bad limits in its frontmatter.
    """
    judge = remembered(session.review)
    session = replace(session, review=judge)
    layout = session.layout
    report = Report(layout.root.resolve().name, today, health, session.min_dates)
    for role in roles:
        stats = role_stats(layout, session.rules_path, role, session.limits, judge)
        out = RoleReport(stats, caps(session, role), left=left_per_month(session, role))
        out.groups, out.more_groups = recurring(session, role, judge)
        rules = session.rules(role)
        # each rule's violations as stats counts them (written after its promotion), so they
        # add up to the role's figure; the rule report gives the day it was promoted
        out.rules = [rule_row(session.rule_report(r), stats.violations_by_rule) for r in rules[:TOP_RULES]]
        out.more_rules = len(rules) - len(out.rules)
        report.roles.append(out)
    report.shared = shared_roots(session, set(roles))
    return report


def caps(session: Session, role: str) -> dict[str, int | None]:
    """The cap of each section of the role's notebook (its frontmatter may override the config's)."""
    limits = session.limits
    path = session.layout.notebook_path(role)
    text = shown_text(session.layout, path)[0]  # stats says what is wrong with it
    if text is not None:
        limits = frontmatter_limits(parse(text), limits, str(path))
    return {s: limits.cap(s) for s in SECTIONS}


def left_per_month(session: Session, role: str) -> dict[str, dict[str, int]]:
    """Records of entries leaving the notebook, by the month they left (`at`, else the entry's date) and op.

    Only lines that name a leaving op are parsed (stats has read the whole archive already):
    a tenth of a large archive's lines.
    """
    counts: Counter[tuple[str, str]] = Counter()
    try:
        f = open(session.layout.archive_path(role), "rb")  # noqa: SIM115
    except FileNotFoundError:
        return {}
    with f:
        for raw in f:
            if not _LEAVING.search(raw):
                continue
            try:
                item = ArchiveRecord.from_dict(json.loads(raw))
            except (ValueError, AttributeError):  # not JSON, not an object, not a record: stats counted it
                continue
            if item.op in LEFT and item.section != "rules":
                counts[((item.at or item.date)[:7], item.op)] += 1
    out: dict[str, dict[str, int]] = {}
    for (month, op), n in sorted(counts.items()):
        if _is_month(month):
            out.setdefault(month, {})[op] = n
    return out


def recurring(session: Session, role: str, judge: Judge) -> tuple[list[Group], int]:
    """The role's groups on 2 or more dates that are not rules yet (nor put off by the
    review), due first; the top few and how many more."""
    every = candidates(session.layout, session.rules_path, role, min(2, session.min_dates), judge)
    found = []
    for c in every:
        status = "due" if len(c.dates) >= session.min_dates else "below"
        shown = tuple((d, _cut(t)) for d, t in reversed(c.incidents[-TOP_INCIDENTS:]))
        rule = c.rule().text if c.instruction else None  # no instruction: shown, its text to be given
        found.append(Group(c.id, role, c.count, c.dates, shown, len(c.incidents) - len(shown), rule, status))
    found.sort(key=group_order)
    return found[:TOP_GROUPS], max(len(found) - TOP_GROUPS, 0)


def rule_row(data: dict[str, object], violations: dict[str, int]) -> RuleRow:
    incidents, promoted = data.get("incidents"), data.get("promoted")
    return RuleRow(
        str(data["id"]),
        str(data["role"]),
        _cut(str(data["text"])),
        tuple(str(d) for d in incidents) if isinstance(incidents, list) else (),
        promoted if isinstance(promoted, str) else None,
        violations.get(str(data["id"]), 0),
    )


def shared_roots(session: Session, roles: set[str]) -> list[SharedRoot]:
    """Each shared root that opened: its shared records (of these roles) and those this repository gave."""
    out = []
    for name, root in session.shared:
        records, ours = 0, []
        repos: set[str] = set()
        for role in root.layout.roles():
            if role not in roles:
                continue
            for _, _, item in read_records(root.layout.archive_path(role)):
                if not isinstance(item, ArchiveRecord) or item.op != "shared":
                    continue
                records += 1
                origin = item.extra.get("origin")
                repo = origin.get("repo") if isinstance(origin, dict) else None
                repos.add(str(repo))
                if repo == session.repo:
                    ours.append((item.date, item.role, item.section, _cut(item.text)))
        ours.sort(reverse=True)
        path = str(root.layout.root)
        takes = name in session.share_mistakes
        out.append(SharedRoot(name, path, takes, records, len(repos), len(ours), tuple(ours[:TOP_SHARED])))
    return out


def chart_weeks(stats: list[RoleStats], today: dt.date) -> tuple[list[str], dict[str, int], dict[str, int]]:
    """The ISO weeks from the first mistake (at most WEEKS back) to today's, and the sums per week."""
    total: Counter[str] = Counter()
    again: Counter[str] = Counter()
    for s in stats:
        total.update(s.mistakes_per_week)
        again.update(s.recurrences_per_week)
    last = week(today.isoformat())
    weeks: list[str] = []
    day = today
    first = min([*total, last])
    while len(weeks) < WEEKS:
        w = week(day.isoformat())
        weeks.append(w)
        if w <= first:
            break
        day -= dt.timedelta(weeks=1)
    weeks.reverse()
    return weeks, dict(total), dict(again)


def chart_months(left: dict[str, dict[str, int]], today: dt.date) -> list[str]:
    """The months from the first that saw an entry leave (at most MONTHS back) to today's."""
    month = today.year * 12 + today.month - 1
    first = min([*left, f"{today.year:04d}-{today.month:02d}"])
    out: list[str] = []
    while len(out) < MONTHS:
        name = f"{month // 12:04d}-{month % 12 + 1:02d}"
        out.append(name)
        if name <= first:
            break
        month -= 1
    return out[::-1]


def merge_months(parts: Iterable[dict[str, dict[str, int]]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for part in parts:
        for month, ops in part.items():
            into = out.setdefault(month, {})
            for op, n in ops.items():
                into[op] = into.get(op, 0) + n
    return dict(sorted(out.items()))


def _is_month(value: str) -> bool:
    return len(value) == 7 and value[4] == "-" and value[:4].isdigit() and value[5:].isdigit()


def _cut(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TEXT_CHARS else line[: TEXT_CHARS - 1] + "…"
