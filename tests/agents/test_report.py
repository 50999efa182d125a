"""report: one self-contained page whose figures are stats' figures, and whose stored texts
are only ever text."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rolebook.agents.cli import app
from rolebook.agents.report import Report, render_page
from rolebook.agents.report.figures import LEFT, TOP_GROUPS, Group, RoleReport, RuleRow, SharedRoot, chart_weeks
from rolebook.agents.report.svg import nice_top
from rolebook.agents.stats import RoleStats, week
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from roots import project

runner = CliRunner()
TODAY = dt.date.today()
NPM = "npm install failed with EACCES; chown the checkout"
HOSTILE = "</td></table><script>alert(1)</script><img src=x onerror=alert(2)> \" ' & https://evil.example/x.js"
ARCHIVE = "agents/state/archive/coder.jsonl"


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    project(root)
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def ok(root: Path, *args: str) -> str:
    code, out, err = rb(root, *args)
    assert code == 0, (args, err)
    return out


def days_ago(n: int) -> str:
    return (TODAY - dt.timedelta(days=n)).isoformat()


def known_root(root: Path) -> Path:
    """Two roles: coder's npm mistake on 3 dates becomes a rule and comes back once; a
    mistake on 2 dates to watch; a one-off; qa with a learning only."""
    for n in (60, 50, 40):
        ok(root, "update", "coder", "-m", NPM, "--date", days_ago(n))
    ok(root, "update", "coder", "-m", "deployed on a Friday evening; deploy before Thursday", "--date", days_ago(45))
    ok(root, "promote", "--yes", "--no-interactive")
    ok(root, "update", "coder", "-m", NPM, "--date", days_ago(10))
    for n in (30, 20):
        ok(
            root,
            "update",
            "coder",
            "-m",
            "pushed without running the migration; run make migrate",
            "--date",
            days_ago(n),
        )
    ok(root, "update", "coder", "-l", "pin the event loop policy", "--log", "WQ-1: retries", "--date", days_ago(5))
    ok(root, "update", "qa", "-l", "run the Safari suite too", "--date", days_ago(3))
    return root


class Page(HTMLParser):
    """The tags, attributes and text of a page, and the figures its data-* attributes name."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []
        self.text: list[str] = []
        self.found: list[list[str]] = []  # [role, name, text] of each figure, in page order
        self.bars: dict[str, str] = {}  # data-x -> data-v, of the first chart
        self._role = ""
        self._open: list[tuple[str, int]] = []  # (tag, index in found, or -1)
        self.feed(html)
        self.figures: dict[tuple[str, str], str] = {}  # (role, name) -> text, where it first shows
        for role, name, text in self.found:
            self.figures.setdefault((role, name), text)
            assert self.figures[(role, name)] == text, (role, name)  # shown again: the same figure

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        found = {k: v or "" for k, v in attrs}
        self.attrs += list(found.items())
        self._role = found.get("data-role", self._role)
        if "data-x" in found:
            self.bars.setdefault(found["data-x"], found["data-v"])
        name = found.get("data-f") or (f"op:{found['data-op']}" if "data-op" in found else "")
        if name:
            self.found.append([self._role, name, ""])
        self._open.append((tag, len(self.found) - 1 if name else -1))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._open and self._open[-1][1] >= 0:
            self.found[self._open[-1][1]][2] += data


def report(root: Path, *args: str) -> str:
    return ok(root, "report", "-o", "-", *args)


def test_the_page_is_one_file_that_fetches_nothing(tmp_path: Path) -> None:
    html = report(known_root(tmp_path))
    page = Page(html)
    assert "http" not in html and "@import" not in html and "url(" not in html
    assert not {"script", "link", "img", "iframe", "object", "embed"} & set(page.tags)
    assert not [v for k, v in page.attrs if k in ("src", "srcset", "action")]
    assert all(v.startswith("#") for k, v in page.attrs if k in ("href", "xlink:href"))
    assert page.tags.count("svg") >= 4  # the charts are inline SVG


def test_hostile_stored_text_shows_as_text_and_never_as_markup(tmp_path: Path) -> None:
    team = tmp_path / "<img src=x onerror=alert(3)>"
    ok(team, "init", "coder")
    root = tmp_path / "<b onclick=alert(4)>project"
    root.mkdir()
    (root / "rolebook.yaml").write_text(
        f"roles: [coder]\nshared_roots: [{{name: team, path: '{team}'}}]\n", encoding="utf-8"
    )
    for n in (30, 20, 10):
        ok(root, "update", "coder", "-m", f"{HOSTILE}; {HOSTILE}", "--date", days_ago(n))
    ok(root, "update", "coder", "-l", HOSTILE, "--date", days_ago(2))
    item = json.loads(ok(root, "search", "evil.example", "--json", "--status", "active"))["hits"][0]["id"]
    ok(root, "share", item)
    candidate = json.loads(ok(root, "promote", "--json"))["candidates"][0]["id"]
    ok(root, "promote", "--apply", candidate, "--text", HOSTILE)
    for n in (9, 8, 7):
        ok(root, "update", "coder", "-m", f"{HOSTILE} again; {HOSTILE}", "--date", days_ago(n))
    html = report(root)
    page = Page(html)
    assert not {"script", "img"} & set(page.tags)
    assert not [k for k, _ in page.attrs if k.startswith("on")]
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    shown = "".join(page.text)
    assert HOSTILE.replace("</td></table>", "") in shown.replace("</td></table>", "")  # the words, intact
    assert (
        "<b onclick=alert(4)>project" in shown and "onerror=alert(3)" in shown
    )  # the root's and the shared root's names
    # the rule, the shared mistake, and the incidents of the group that recurs since (x2 each: ";")
    assert shown.count("https://evil.example/x.js") >= 3


def test_the_figures_on_the_page_are_stats_figures(tmp_path: Path) -> None:
    root = known_root(tmp_path)
    with open(root / ARCHIVE, "ab") as f:
        f.write(b"not json\n")
    stats = json.loads(ok(root, "stats", "--json"))["roles"]
    page = Page(report(root))
    for s in stats:
        role = s["role"]
        nb = s["notebook"]
        assert page.figures[(role, "lines")] == str(nb["lines"]) and page.figures[(role, "cap")] == str(nb["cap"])
        for section, n in nb["entries"].items():
            assert page.figures[(role, section)] == str(n), (role, section)
        assert page.figures[(role, "records")] == str(s["archive"]["records"])
        shown = {name[3:]: int(n) for (r, name), n in page.figures.items() if r == role and name.startswith("op:")}
        assert {op: n for op, n in shown.items() if n} == s["archive"]["by_op"]
        assert page.figures[(role, "rules")] == str(s["rules"])
        assert page.figures[(role, "violations")] == str(s["violations"])
    coder = next(s for s in stats if s["role"] == "coder")
    assert coder["violations"] == 1 and coder["archive"]["malformed_lines"] == 1
    weekly = {w: f"{n - coder['recurrences_per_week'].get(w, 0)},{coder['recurrences_per_week'].get(w, 0)}"
              for w, n in coder["mistakes_per_week"].items()}  # fmt: skip
    whole = {w: v for w, v in page.bars.items() if w in weekly}
    assert whole == weekly  # qa wrote no mistake: the project's weeks are coder's
    months = [[int(n) for n in v.split(",")] for x, v in page.bars.items() if re.fullmatch(r"\d{4}-\d\d", x)]
    left = dict(zip(LEFT, map(sum, zip(*months, strict=True)), strict=True))
    ops = {op: sum(s["archive"]["by_op"].get(op, 0) for s in stats) for op in LEFT}
    ops["promoted"] -= sum(s["rules"] for s in stats)  # a rule's own record: nothing left a notebook
    assert left == ops and left["recurred"] == 3


def test_each_rule_shows_its_incidents_and_the_mistakes_written_since_that_broke_it(tmp_path: Path) -> None:
    root = known_root(tmp_path)
    (rule,) = json.loads(ok(root, "rules", "--json"))["rules"]
    html = report(root)
    row = re.search(rf'<tr data-rule="{rule["id"]}">(.*?)</tr>', html)
    assert row is not None
    assert rule["text"] in row.group(1) and rule["promoted"] in row.group(1)
    assert all(day in row.group(1) for day in (rule["incidents"][0], rule["incidents"][-1]))
    # written after the promotion (though dated before it): stats' violation, and this rule's
    assert re.search(r'data-f="rule-violations">(\d+)<', row.group(1)).group(1) == "1"  # type: ignore[union-attr]


def test_groups_show_what_promote_lists_and_those_on_two_dates(tmp_path: Path) -> None:
    root = known_root(tmp_path)
    ok(
        root,
        "update",
        "coder",
        "-m",
        "left a debug print in the handler; grep for print before pushing",
        "--date",
        days_ago(58),
    )
    for n in (57, 56):
        ok(
            root,
            "update",
            "coder",
            "-m",
            "forgot the changelog entry; add it in the same commit",
            "--date",
            days_ago(n),
        )
    ok(root, "update", "coder", "-m", "forgot the changelog entry; add it in the same commit", "--date", days_ago(1))
    due = json.loads(ok(root, "promote", "--json"))["candidates"]
    html = report(root, "--role", "coder")
    page = Page(html)
    assert [c["id"] for c in due] == re.findall(r'<tr data-group="(\w+)"><td><span class="badge due"', html)
    watch = re.findall(r'<tr data-group="(\w+)"><td><span class="badge below"', html)
    assert len(watch) == 1 and "run make migrate" in "".join(page.text)
    assert '<div class="rule">→ Run make migrate.</div>' in html
    # "add it in the same commit" does not stand alone: the group is shown, its text to be given
    (changelog,) = [c for c in due if "changelog" in c["incidents"][-1]["text"]]
    assert changelog["rule"] is None and "rule text to be given" in html
    assert f"rolebook promote --apply {changelog['id']} --text &quot;RULE&quot;" in html


def test_long_lists_are_cut_and_the_rest_counted(tmp_path: Path) -> None:
    words = ["docker", "kubectl", "terraform", "gradle", "maven", "cargo", "yarn", "vite", "redis", "nginx", "psql"]
    words += ["helm", "ansible"]
    for word in words:
        for n in (20, 10):
            ok(
                tmp_path,
                "update",
                "coder",
                "-m",
                f"{word} {word}rc was stale; regenerate {word}rc first",
                "--date",
                days_ago(n),
            )
    html = report(tmp_path)
    assert html.count('<tr data-group="') == TOP_GROUPS
    assert f"and {len(words) - TOP_GROUPS} more groups" in html


def test_an_empty_root_gives_a_page_that_says_so(tmp_path: Path) -> None:
    html = report(tmp_path)
    assert "Nothing here yet" in html and "rolebook update ROLE" in html
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")


def test_a_root_with_notebooks_and_no_archive_is_reported(tmp_path: Path) -> None:
    memory = tmp_path / "agents/state/memory"
    memory.mkdir(parents=True)
    (memory / "coder.md").write_text(
        f"# Coder\n\n## Mistakes\n- [{days_ago(3)}] wrote by hand\n\n## Learnings\n- [{days_ago(2)}] also\n",
        encoding="utf-8",
    )
    page = Page(report(tmp_path))
    assert page.figures[("coder", "lines")] == "7" and page.figures[("coder", "mistakes")] == "1"
    assert page.figures[("coder", "records")] == "0"
    assert not (tmp_path / "agents/state/archive").exists()  # the report writes nothing to the stores


def test_report_writes_rolebook_report_html_here_and_prints_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = known_root(tmp_path / "root")
    monkeypatch.chdir(tmp_path)
    assert rb(root, "report") == (0, "rolebook-report.html\n", "")
    assert (tmp_path / "rolebook-report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert rb(root, "report", "-o", "out/coder.html", "--role", "coder") == (0, "out/coder.html\n", "")
    assert 'data-role="coder"' in (tmp_path / "out/coder.html").read_text(encoding="utf-8")


def test_role_keeps_the_page_to_that_role(tmp_path: Path) -> None:
    root = known_root(tmp_path)
    page = Page(report(root, "--role", "qa"))
    assert {role for role, _ in page.figures} == {"qa"}
    assert rb(root, "report", "--role", "../etc")[0] == 2


def test_report_will_not_write_over_the_stores(tmp_path: Path) -> None:
    root = known_root(tmp_path)
    before = (root / ARCHIVE).read_bytes()
    code, out, err = rb(root, "report", "-o", str(root / ARCHIVE))
    assert (code, out) == (2, "") and "rolebook's own files" in err
    assert (root / ARCHIVE).read_bytes() == before


def test_the_weeks_drawn_end_this_week_and_stop_at_a_year() -> None:
    old = RoleStats("coder", mistakes_per_week={"2020-W01": 3, week(TODAY.isoformat()): 1})
    weeks, total, _ = chart_weeks([old], TODAY)
    assert len(weeks) == 52 and weeks[-1] == week(TODAY.isoformat()) and total["2020-W01"] == 3
    new = RoleStats("coder", mistakes_per_week={week(days_ago(14)): 2})
    assert chart_weeks([new], TODAY)[0] == [week(days_ago(14)), week(days_ago(7)), week(TODAY.isoformat())]


def test_chart_tops_are_round_numbers() -> None:
    assert [nice_top(n) for n in (0, 1, 2, 3, 7, 10, 11, 26, 99, 101)] == [1, 1, 2, 5, 10, 10, 20, 50, 100, 200]


def synthetic(text: str) -> Report:
    """A report holding `text` in every place a stored text goes."""
    stats = RoleStats("coder", lines=3, cap=80, entries={"mistakes": 1}, ops={"added": 1})
    stats.mistakes_per_week = {week(TODAY.isoformat()): 1}
    group = Group("g1", "coder", 2, (days_ago(3), days_ago(1)), ((days_ago(1), text),), 1, text, "below")
    rule = RuleRow("R1", "coder", text, (text, days_ago(9)), text, 0)
    role = RoleReport(stats, {"mistakes": 20}, [group], 0, [rule], left={TODAY.isoformat()[:7]: {"pruned": 1}})
    shared = SharedRoot(text, text, True, 1, 1, 1, ((days_ago(1), "coder", text, text),))
    return Report(text, TODAY, text, 3, [role, RoleReport(RoleStats("qa"))], [shared])


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_no_stored_text_can_change_the_pages_markup(text: str) -> None:
    plain = Page(render_page(synthetic("plain words"), "0"))
    hostile = Page(render_page(synthetic(text), "0"))
    assert hostile.tags == plain.tags
    assert [k for k, _ in hostile.attrs] == [k for k, _ in plain.attrs]
