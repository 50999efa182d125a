"""The report as one self-contained HTML page: inline CSS, inline SVG, no script, and no
reference to anything outside the file (no font, style, image or link to fetch).

Every text from the stores goes through `esc`; figures carry `data-f`/`data-op` attributes
naming what they are, so a test (or a script) can read them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rolebook.notebook import SECTIONS
from rolebook.rules import NO_INSTRUCTION

from .figures import LEFT, Group, Report, RoleReport, RuleRow, SharedRoot, chart_months
from .svg import Column, bars, esc, gauge, legend, timeline

NEW, AGAIN = "#4e79a7", "#e15759"
OP_COLORS = {"pruned": "#9aa0a6", "recurred": "#e15759", "promoted": "#59a14f", "obsolete": "#b07aa1"}
SECTION_NAMES = {"mistakes": "Mistakes", "learnings": "Learnings", "feedback": "Feedback", "session_log": "Session Log"}
STATUS = {
    "due": ("due", "promote lists it"),
    "below": ("watch", "fewer dates than promotion asks"),
}

CSS = """
:root{--ink:#202124;--dim:#5f6368;--line:#e0e0e0;--card:#fff;--bg:#f6f7f9}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"DejaVu Sans",sans-serif}
header{background:#202124;color:#fff;padding:18px 32px 14px}
header h1{margin:0;font-size:21px;font-weight:600}header h1 span{color:#aecbfa}
header p{margin:4px 0 0;color:#bdc1c6;font-size:13px}
nav{margin-top:10px;display:flex;flex-wrap:wrap;gap:6px}
nav a{color:#e8eaed;text-decoration:none;border:1px solid #5f6368;border-radius:12px;padding:1px 10px;font-size:12px}
main{padding:14px 32px 32px;max-width:1180px}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 20px;margin:14px 0}
h2{font-size:18px;margin:2px 0 10px}h3{font-size:14px;margin:18px 0 6px;color:#3c4043}
.tiles{display:flex;flex-wrap:wrap;gap:10px}
.tile{border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:112px}
.tile b{display:block;font-size:20px;font-weight:600}.tile span{color:var(--dim);font-size:12px}
.tile.warn b{color:#d93025}
table{border-collapse:collapse;width:100%;font-size:13px}
th{text-align:left;color:var(--dim);font-weight:500;border-bottom:1px solid var(--line);padding:4px 8px 4px 0}
td{border-bottom:1px solid #f1f3f4;padding:5px 8px 5px 0;vertical-align:top}
th.n{text-align:right}h4{font-size:13px;margin:14px 0 4px;color:#5f6368;font-weight:500}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.cell{display:flex;align-items:center;gap:6px;white-space:nowrap}
.cell small{color:var(--dim);font-variant-numeric:tabular-nums}
.chart{max-width:100%;height:auto}.chart .grid{stroke:#eceff1}.chart .tick{font-size:10px;fill:#80868b}
.timeline .axis{stroke:#dadce0}.timeline .dots{stroke:#e15759;stroke-width:6.4;stroke-linecap:round}
.legend{margin:2px 0 0;color:var(--dim);font-size:12px}.legend span{margin-right:14px;white-space:nowrap}
.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:11px;font-weight:600}
.badge.due{background:#fce8e6;color:#c5221f}
.badge.below{background:#fef7e0;color:#b06000}
.rule{color:#188038}.muted{color:var(--dim)}.bad{color:#d93025;font-weight:600}
details{margin-top:2px}summary{cursor:pointer;color:var(--dim);font-size:12px}
ol.inc{margin:4px 0 2px;padding-left:18px;font-size:12px}ol.inc li{margin:1px 0}
code{font-size:12px;background:#f1f3f4;border-radius:3px;padding:0 4px}
footer{color:var(--dim);font-size:12px;padding:0 32px 24px}
"""


def render_page(report: Report, version: str) -> str:
    """The whole page for a report."""
    roles = report.roles
    head = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>rolebook report: {esc(report.project)}</title><style>{CSS}</style></head><body>"
    )
    nav = "".join(f'<a href="#role-{esc(r.role)}">{esc(r.role)}</a>' for r in roles) if len(roles) > 1 else ""
    header = (
        f"<header><h1>rolebook report <span>{esc(report.project)}</span></h1>"
        f"<p>{esc(report.today.isoformat())} · {len(roles)} role{'s' if len(roles) != 1 else ''} · "
        f"index {esc(report.health)}</p>"
    )
    header += (f'<nav><a href="#project">project</a>{nav}</nav>' if nav else "") + "</header>"
    body = [project(report)]
    if len(roles) > 1:
        body += [role_section(report, r) for r in roles]
    footer = (
        f"<footer>Made by rolebook {esc(version)} from the notebooks, archives and rules file of this root. "
        "A self-contained page: nothing on it is fetched from anywhere.</footer>"
    )
    return head + header + "<main>" + "".join(body) + "</main>" + footer + "</body></html>\n"


def project(report: Report) -> str:
    roles = report.roles
    if not roles:
        return (
            '<section id="project"><h2>Nothing here yet</h2><p class="muted">No role has a notebook or an archive. '
            "<code>rolebook update ROLE --mistake TEXT</code> writes the first entry.</p></section>"
        )
    single = len(roles) == 1
    title = f"Role {roles[0].role}" if single else "Project"
    groups, more = report.groups()
    rules, more_rules = report.rules()
    weeks, total, again = report.weeks()
    parts = [
        f'<section id="{"role-" + esc(roles[0].role) if single else "project"}"><h2>{esc(title)}</h2>',
        tiles(report),
        "<h3>How full each notebook is</h3>",
        fill_table(roles),
        "<h3>Mistakes per week</h3>",
        week_chart(weeks, total, again),
        f"<h3>Mistakes that keep coming back <small class=muted>(promotion asks {report.min_dates} dates)</small></h3>",
        group_table(groups, more, report, details=single),
        *(
            ["<h3>Failed commands, and the ones that came back</h3>", failure_chart(weeks, roles[0].stats.failures)]
            if single
            else []
        ),
        "<h3>Rules, and mistakes that broke them since</h3>",
        rule_table(rules, more_rules, not single, report),
        "<h3>What left the notebooks for the archive, and why</h3>",
        left_chart(report.left(), report),
        archive_table(roles),
        "<h3>Shared roots</h3>",
        shared_table(report.shared),
        "</section>",
    ]
    return "".join(parts)


def role_section(report: Report, r: RoleReport) -> str:
    s = r.stats
    weeks = report.weeks()[0]  # the project's weeks and months: role charts line up with its charts
    facts = (
        f"{s.lines}/{s.cap if s.cap is not None else '∞'} lines · {sum(s.entries.values())} entries · "
        f"{sum(s.ops.values())} archive records · {_n(s.rules, 'rule')} · "
        f"{_n(s.violations, 'violation')} since promotion"
    )
    return "".join(
        [
            f'<section id="role-{esc(r.role)}" class="role"><h2>{esc(r.role)}</h2><p class="muted">{esc(facts)}</p>',
            fill_table([r], role_column=False),
            "<h3>Mistakes per week</h3>",
            week_chart(weeks, s.mistakes_per_week, s.recurrences_per_week),
            "<h3>Mistakes that keep coming back</h3>",
            group_table(r.groups, r.more_groups, report, details=True),
            "<h3>Failed commands, and the ones that came back</h3>",
            failure_chart(weeks, s.failures),
            "<h3>Rules</h3>",
            rule_table(r.rules, r.more_rules, False, report),
            "<h3>What left the notebook, and why</h3>",
            left_chart(r.left, report, chart_months(report.left(), report.today)),
            "</section>",
        ]
    )


def tiles(report: Report) -> str:
    roles = [r.stats for r in report.roles]
    groups = [g for r in report.roles for g in r.groups]
    due = sum(1 for g in groups if g.status == "due")
    due_more = "+" if any(r.more_groups for r in report.roles) and due == len(groups) else ""
    over = sum(1 for s in roles if s.cap is not None and s.lines > s.cap)
    violations = sum(s.violations for s in roles)
    items = [
        (len(roles), "roles", ""),
        (sum(sum(s.entries.values()) for s in roles), "entries in notebooks", ""),
        (sum(sum(s.ops.values()) for s in roles), "archive records", ""),
        (sum(sum(s.mistakes_per_week.values()) for s in roles), "mistakes written", ""),
        (f"{due}{due_more}", "groups due for a rule", "warn" if due else ""),
        (sum(s.rules for s in roles), "rules", ""),
        (violations, "violations since promotion", "warn" if violations else ""),
    ]
    if over:
        items.append((over, "notebooks over their cap", "warn"))
    malformed = sum(s.malformed for s in roles)
    if malformed:
        items.append((malformed, "malformed archive lines (rolebook doctor)", "warn"))
    cells = "".join(
        f'<div class="tile {c}"><b>{esc(value)}</b><span>{esc(what)}</span></div>' for value, what, c in items
    )
    return f'<div class="tiles">{cells}</div>'


def fill_table(roles: Sequence[RoleReport], role_column: bool = True) -> str:
    head = "<th>role</th>" if role_column else ""
    head += "<th>lines</th>" + "".join(f"<th>{SECTION_NAMES[s]}</th>" for s in SECTIONS)
    head += "<th>archive</th><th>rules</th><th>violations</th>"
    rows = []
    for r in roles:
        s = r.stats
        cells = f'<td><a href="#role-{esc(r.role)}">{esc(r.role)}</a></td>' if role_column and len(roles) > 1 else ""
        if role_column and len(roles) == 1:
            cells = f"<td>{esc(r.role)}</td>"
        cap = "∞" if s.cap is None else str(s.cap)
        lines = f'<span data-f="lines">{s.lines}</span>/<span data-f="cap">{cap}</span>'
        cells += f'<td><div class="cell">{gauge(s.lines, s.cap)}<small>{lines}</small></div></td>'
        for section in SECTIONS:
            n, limit = s.entries.get(section, 0), r.caps.get(section)
            shown = f'<span data-f="{section}">{n}</span>' + (f"/{limit}" if limit is not None else " · no cap")
            cells += f'<td><div class="cell">{gauge(n, limit, 70)}<small>{shown}</small></div></td>'
        bad = f' <span class="bad">({s.malformed} malformed)</span>' if s.malformed else ""
        cells += f'<td class="n"><span data-f="records">{sum(s.ops.values())}</span>{bad}</td>'
        cells += f'<td class="n" data-f="rules">{s.rules}</td>'
        cells += f'<td class="n{" bad" if s.violations else ""}" data-f="violations">{s.violations}</td>'
        rows.append(f'<tr data-role="{esc(r.role)}">{cells}</tr>')
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def week_chart(weeks: list[str], total: dict[str, int], again: dict[str, int]) -> str:
    shown = sum(total.get(w, 0) for w in weeks)
    earlier = sum(total.values()) - shown
    if not sum(total.values()):
        return '<p class="muted">No dated mistakes recorded yet.</p>'
    every = max(1, -(-len(weeks) // 13))
    columns = []
    for i, w in enumerate(weeks):
        n, a = total.get(w, 0), min(again.get(w, 0), total.get(w, 0))
        label = w[-3:] if (len(weeks) - 1 - i) % every == 0 else ""
        columns.append(Column(w, (n - a, a), label))
    colors = [NEW, AGAIN]
    note = f" {earlier} mistakes before {weeks[0]} are not drawn." if earlier else ""
    chart = bars(columns, ["new", "again"], colors, "mistakes per week")
    return chart + legend(["new mistakes", "recurrences of an earlier one"], colors, f"ISO weeks, to this one.{note}")


def failure_chart(weeks: list[str], figures: dict[str, Any]) -> str:
    """The failed commands the hooks saw per week, a failure seen before apart (DESIGN.md
    section 6b), under the figures in one line."""
    from ..stats import failure_line

    if not figures.get("seen"):
        return '<p class="muted">No failed commands recorded yet (the agent CLIs\' hooks record them).</p>'
    per_week = figures["per_week"]
    every = max(1, -(-len(weeks) // 13))
    columns = []
    for i, w in enumerate(weeks):
        n, again = per_week.get(w, {}).get("seen", 0), per_week.get(w, {}).get("repeats", 0)
        label = w[-3:] if (len(weeks) - 1 - i) % every == 0 else ""
        columns.append(Column(w, (n - again, again), label))
    colors = [NEW, AGAIN]
    chart = bars(columns, ["new", "again"], colors, "failed commands per week")
    caption = legend(["a failure not seen before", "a failure seen before"], colors, "ISO weeks, to this one.")
    return f'<p class="muted">{esc(failure_line(figures))}</p>' + chart + caption


def left_chart(left: dict[str, dict[str, int]], report: Report, months: list[str] | None = None) -> str:
    if not left:
        return '<p class="muted">Nothing has left a notebook yet.</p>'
    months = months or chart_months(left, report.today)
    every = max(1, -(-len(months) // 12))
    columns = [
        Column(m, tuple(left.get(m, {}).get(op, 0) for op in LEFT), m if (len(months) - 1 - i) % every == 0 else "")
        for i, m in enumerate(months)
    ]
    earlier = sum(n for m, ops in left.items() if m < months[0] for n in ops.values())
    names = [_why(op) for op in LEFT]
    colors = [OP_COLORS[op] for op in LEFT]
    note = f" {earlier} records before {months[0]} are not drawn." if earlier else ""
    chart = bars(columns, LEFT, colors, "entries leaving the notebooks per month", height=150)
    return chart + legend(names, colors, f"By the month they left.{note}")


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _why(op: str) -> str:
    return {
        "pruned": "pruned (over a cap)",
        "recurred": "recurred (a newer occurrence replaced it)",
        "promoted": "promoted to a rule",
        "obsolete": "retired as obsolete",
    }[op]


def archive_table(roles: Sequence[RoleReport]) -> str:
    every = {op for r in roles for op in r.stats.ops}
    ops = [op for op in ("added", *LEFT) if op in every] + sorted(every - {"added", *LEFT})
    if not ops:
        return ""
    head = "<th>role</th>" + "".join(f'<th class="n">{esc(op)}</th>' for op in ops)
    rows = "".join(
        f'<tr data-role="{esc(r.role)}"><td>{esc(r.role)}</td>'
        + "".join(f'<td class="n" data-op="{esc(op)}">{r.stats.ops.get(op, 0)}</td>' for op in ops)
        + "</tr>"
        for r in roles
    )
    return f"<h4>Archive records by operation</h4><table><tr>{head}</tr>{rows}</table>"


def _proposed(g: Group) -> str:
    """The rule a group would become, or that its text is to be given (no incident says what to do instead)."""
    if g.rule is not None:
        return f'<div class="rule">→ {esc(g.rule)}</div>'
    give = f'rolebook promote --apply {g.id} --text "RULE"'
    return f'<div class="muted">→ rule text to be given: {esc(NO_INSTRUCTION)}; <code>{esc(give)}</code></div>'


def group_table(groups: Sequence[Group], more: int, report: Report, details: bool) -> str:
    if not groups:
        return '<p class="muted">No mistake has come back on two different dates (that is not a rule already).</p>'
    first, last = report.first_day(), report.today.isoformat()
    rows = []
    for g in groups:
        badge, why = STATUS[g.status]
        said = g.incidents[0][1] if g.incidents else ""
        lines = "".join(f"<li>[{esc(d)}] {esc(t)}</li>" for d, t in g.incidents)
        if g.more_incidents:
            lines += f'<li class="muted">… and {g.more_incidents} earlier</li>'
        n = len(g.incidents) + g.more_incidents
        inc = f"<details><summary>{n} incidents</summary><ol class=inc>{lines}</ol></details>" if details else ""
        rows.append(
            f'<tr data-group="{esc(g.id)}"><td><span class="badge {g.status}" title="{esc(why)}">{badge}</span></td>'
            f"<td>{esc(g.role)}</td><td class=n>×{g.count}</td>"
            f'<td><div class="cell">{timeline(g.dates, first, last)}<small>{len(g.dates)} dates, last '
            f"{esc(g.dates[-1])}</small></div></td>"
            f"<td>{esc(said)}{_proposed(g)}{inc}</td></tr>"
        )
    tail = f'<p class="muted">… and {more} more groups (<code>rolebook promote --json --min 2</code> lists them).</p>'
    head = (
        "<tr><th></th><th>role</th><th>times</th><th>dates</th><th>latest wording → the rule it would become</th></tr>"
    )
    return f"<table>{head}{''.join(rows)}</table>" + (tail if more else "")


def rule_table(rules: Sequence[RuleRow], more: int, with_role: bool, report: Report) -> str:
    if not rules:
        return '<p class="muted">No rules yet: <code>rolebook promote</code> reviews what keeps coming back.</p>'
    rows = []
    for r in rules:
        broke = f'<td class="n{" bad" if r.violations else ""}" data-f="rule-violations">{r.violations}</td>'
        rows.append(
            f'<tr data-rule="{esc(r.id)}"><td><code>{esc(r.id)}</code></td>'
            + (f"<td>{esc(r.role)}</td>" if with_role else "")
            + f"<td>{esc(r.text)}</td><td>{incidents(r.incidents, report)}</td>"
            f'<td class="n">{esc(r.promoted or "?")}</td>{broke}</tr>'
        )
    head = "<tr><th>rule</th>" + ("<th>role</th>" if with_role else "") + "<th>text</th><th>incidents</th>"
    head += '<th>promoted</th><th class="n">broken since</th></tr>'
    tail = f'<p class="muted">… and {more} more rules (<code>rolebook rules</code>).</p>' if more else ""
    return f"<table>{head}{''.join(rows)}</table>{tail}"


def incidents(dates: Sequence[str], report: Report) -> str:
    """A rule's incident dates on a timeline, with how many and the span (all of them in the tooltip)."""
    if not dates:
        return ""
    first = report.first_day()
    span = f"{len(dates)}: {dates[0]} … {dates[-1]}" if len(dates) > 1 else dates[0]
    return f'<div class="cell">{timeline(dates, first, report.today.isoformat())}<small>{esc(span)}</small></div>'


def shared_table(shared: Sequence[SharedRoot]) -> str:
    if not shared:
        return (
            '<p class="muted">None named in rolebook.yaml '
            "(<code>shared_roots: [{name: team, path: ../knowledge}]</code>).</p>"
        )
    out = []
    for s in shared:
        takes = " · takes every new mistake" if s.takes_mistakes else ""
        out.append(
            f'<p data-shared="{esc(s.name)}"><b>{esc(s.name)}</b> <span class="muted">{esc(s.path)}{takes}</span><br>'
            f'<span data-f="shared-records">{s.records}</span> shared records from {s.repos} '
            f'repositor{"y" if s.repos == 1 else "ies"}; <span data-f="shared-ours">{s.ours}</span> from this one.</p>'
        )
        if s.latest:
            items = "".join(f"<li>[{esc(d)}] {esc(role)}/{esc(sec)}: {esc(t)}</li>" for d, role, sec, t in s.latest)
            more = f'<li class="muted">… and {s.ours - len(s.latest)} more</li>' if s.ours > len(s.latest) else ""
            out.append(f"<ol class=inc>{items}{more}</ol>")
    return "".join(out)
