"""Figures live in docs/benchmarks.md, written by the bench scripts; the README is a user guide."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parent.parent
BENCH = PROJECT / "tests" / "bench"
PAGE = (PROJECT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
README = (PROJECT / "README.md").read_text(encoding="utf-8")

#: a header cell that names a measurement: a quality figure, a time, a size, a multiple
MEASURE = re.compile(r"recall@|\bMRR\b|precision|\bp50\b|\bp95\b|\bms\b|\bs\b|\bx\b|tokens|\bMB\b", re.IGNORECASE)


def sections() -> dict[str, str]:
    found = dict(re.findall(r"<!-- bench:([\w-]+) -->\n(.*?)<!-- /bench:\1 -->", PAGE, re.DOTALL))
    assert len(found) == PAGE.count("<!-- bench:"), "a section without its end marker"
    return found


def table_headers(markdown: str) -> list[str]:
    """The header row of every markdown table: a `|` row followed by a `| --- |` row."""
    lines = markdown.splitlines()
    return [
        line
        for line, below in itertools.pairwise(lines)
        if line.startswith("|") and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", below.strip())
    ]


def test_every_script_that_writes_the_page_has_a_section_there() -> None:
    writers = sorted(path.name for path in BENCH.glob("bench_*.py") if "benchdocs.section(" in path.read_text())
    assert writers, "no bench script writes the page"
    named = "\n".join(sections().values())
    assert [name for name in writers if f"python tests/bench/{name}" not in named] == []


def test_every_section_holds_figures_with_the_command_that_measured_them_or_says_it_is_not_measured() -> None:
    measured = re.compile(
        r"\n\n_Measured \d{4}-\d\d-\d\d on .+ by `(ROLEBOOK_\w+=\S+ )*python tests/bench/bench_\w+\.py[^`]*`\._\n$"
    )
    waiting = re.compile(r"_Not measured yet: `python tests/bench/bench_\w+\.py[^`]* --write-docs`\._\n")
    for name, body in sections().items():
        if waiting.fullmatch(body):
            continue
        assert measured.search(body), name
        assert "```text\n" in body or "\n|" in body, f"{name}: no table"
    assert sum(not waiting.fullmatch(body) for body in sections().values()) >= 10, "most of the page measured"


def test_the_readme_holds_no_table_of_measurements() -> None:
    measuring = [header for header in table_headers(README) if MEASURE.search(header)]
    assert measuring == []
    assert not re.search(r"^Measured\b", README, re.MULTILINE)


def test_the_readme_links_the_benchmarks_page() -> None:
    assert "(docs/benchmarks.md)" in README


def test_the_check_for_measurement_tables_sees_one() -> None:
    """The README check is only worth something if it catches the tables it was written for."""
    table = "| mode | shared: recall@5 / MRR |\n| --- | --- |\n| keyword | 1.00 / 1.00 |\n"
    assert [h for h in table_headers("Measured:\n\n" + table) if MEASURE.search(h)] == [table.splitlines()[0]]
    assert table_headers("| command | what it does |\n| --- | --- |\n") == ["| command | what it does |"]
    assert not MEASURE.search("| command | what it does |")


def load_benchdocs(monkeypatch: pytest.MonkeyPatch, page: Path) -> Any:
    monkeypatch.syspath_prepend(str(BENCH))
    import benchdocs

    monkeypatch.setattr(benchdocs, "PAGE", page)
    for name in benchdocs.FIGURE_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    return benchdocs


def test_a_script_rewrites_its_own_section_and_keeps_the_rest_of_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text(
        "# Benchmarks\n\nintro\n\n<!-- bench:a -->\nold a\n<!-- /bench:a -->\n\nbetween\n", encoding="utf-8"
    )
    benchdocs = load_benchdocs(monkeypatch, page)
    benchdocs.write_section("b", "new b", command="python tests/bench/bench_b.py")
    benchdocs.write_section("a", "new a", command="python tests/bench/bench_a.py --runs 3")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n\nintro\n\n<!-- bench:a -->\nnew a\n\n_Measured ")
    assert "old a" not in text and "\nbetween\n" in text
    assert text.index("between") < text.index("<!-- bench:b -->\nnew b\n")
    assert "by `python tests/bench/bench_a.py --runs 3`._\n<!-- /bench:a -->" in text


def test_write_docs_puts_what_the_script_printed_in_its_section_and_nothing_without_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "benchmarks.md"
    benchdocs = load_benchdocs(monkeypatch, page)
    monkeypatch.setattr(sys, "argv", ["tests/bench/bench_x.py", "--runs", "3"])
    with benchdocs.section("x", "What x measures."):
        print("size  ms\n   0  12")
    assert not page.exists()
    monkeypatch.setattr(sys, "argv", ["tests/bench/bench_x.py", "--write-docs", "--runs", "3"])
    with benchdocs.section("x", "What x measures."):
        assert sys.argv == ["tests/bench/bench_x.py", "--runs", "3"]  # the script's own parser never sees it
        print("size  ms\n   0  12")
        raise SystemExit(0)
    text = page.read_text(encoding="utf-8")
    assert "<!-- bench:x -->\nWhat x measures.\n\n```text\nsize  ms\n   0  12\n```\n" in text
    assert "by `python tests/bench/bench_x.py --runs 3`" in text
    monkeypatch.setenv("ROLEBOOK_SEARCH_MODE", "keyword")  # a setting that changes the figures is named
    monkeypatch.setattr(sys, "argv", ["tests/bench/bench_x.py", "--write-docs"])
    with benchdocs.section("x", "What x measures."):
        print("size  ms")
    assert "by `ROLEBOOK_SEARCH_MODE=keyword python tests/bench/bench_x.py`" in page.read_text(encoding="utf-8")
    assert capsys.readouterr().out.startswith("size  ms\n   0  12\nsize  ms\n   0  12\n")  # still printed


def test_a_script_that_fails_writes_no_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "benchmarks.md"
    benchdocs = load_benchdocs(monkeypatch, page)
    monkeypatch.setattr(sys, "argv", ["tests/bench/bench_x.py", "--write-docs"])
    with pytest.raises(SystemExit), benchdocs.section("x", "What x measures."):
        print("half a table")
        raise SystemExit("the corpus is missing")
    assert not page.exists()
