"""Parse and render: exact round trips, what counts as an entry, where new entries go."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rolebook.notebook.limits import Limits, frontmatter_limits, prune
from rolebook.notebook.markdown import add_entries, hidden_entry_line, parse, render, split_lines
from rolebook.notebook.model import Entry, Foreign, Notebook

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "notebooks"
UPDATE = os.environ.get("ROLEBOOK_UPDATE_GOLDEN") == "1"


def dump(nb: Notebook) -> str:
    """A readable outline of a parsed notebook, for golden files."""
    out = [f"head: {nb.head!r}"]
    for s in nb.sections:
        out.append(f"section {s.key}: {s.heading!r}")
        for p in s.parts:
            if isinstance(p, Entry):
                out.append(f"  entry {p.section} {p.date} x{p.count}: {p.text!r}")
            else:
                out.append(f"  foreign: {p.raw!r}")
    return "\n".join(out) + "\n"


def golden(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_bytes(actual.encode("utf-8"))
    assert path.read_bytes().decode("utf-8") == actual


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.md") if p.stem.count(".") == 0))
def test_golden_notebook_parses_prunes_and_renders_as_recorded(name: str) -> None:
    text = (GOLDEN / f"{name}.md").read_bytes().decode("utf-8")
    nb = parse(text)
    assert render(nb) == text
    golden(GOLDEN / f"{name}.parsed.txt", dump(nb))
    after, left = prune(nb, frontmatter_limits(nb, Limits()))
    golden(GOLDEN / f"{name}.pruned.md", render(after))
    golden(GOLDEN / f"{name}.left.json", json.dumps([[e.section, e.date, e.text] for e in left], indent=1) + "\n")


# Markdown-ish text: the characters that make structure, plus anything at all.
_piece = st.sampled_from(
    [
        "## Mistakes",
        "## Learnings",
        "## Feedback",
        "## Session Log",
        "## Stakeholder Feedback",
        "# Title",
        "- [2026-01-02] entry",
        "- [2026-13-99] bad date",
        "* [2025-12-31] star",
        "  continued",
        "- undated",
        "```",
        "~~~",
        "    indented code",
        "> - [2026-01-01] quoted",
        "<!-- comment -->",
        "---",
        "Mistakes",
        "=====",
        "(x3)",
        "1. [2026-01-01] ordered",
        "\t- [2026-01-01] tabbed",
        "",
        " ",
        "\ufeff",
        "\u00e9\u6f22",
    ]
)
_line_end = st.sampled_from(["\n", "\r\n", "\r", ""])
_markdownish = st.lists(st.tuples(st.one_of(_piece, st.text(max_size=12)), _line_end), max_size=40).map(
    lambda pairs: "".join(a + b for a, b in pairs)
)


@given(_markdownish)
def test_render_of_parse_is_the_exact_text(text: str) -> None:
    assert render(parse(text)) == text


@given(st.text())
def test_render_of_parse_is_exact_for_any_unicode_text(text: str) -> None:
    assert render(parse(text)) == text


_sections = st.sampled_from(["mistakes", "learnings", "feedback", "session_log"])
_texts = st.from_regex(r"[A-Za-z][A-Za-z0-9.,;:'\-]{0,20}( [A-Za-z0-9.,;:'\-]{1,10}){0,3}", fullmatch=True)


@given(_markdownish, st.lists(st.tuples(_sections, _texts), min_size=1, max_size=5))
def test_added_entries_parse_back_unless_the_check_names_the_line_that_hides_them(
    text: str, new: list[tuple[str, str]]
) -> None:
    nb = parse(text)
    entries = [Entry(section, "2030-01-01", body) for section, body in new]
    added = add_entries(nb, entries)
    rendered = render(added)
    found = [(e.section, e.text, e.count) for e in parse(rendered).entries() if e.date == "2030-01-01"]
    expected = sorted((e.section, e.text, e.count) for e in entries)
    if hidden_entry_line(added, rendered) is None:
        assert sorted(found) == expected
    else:
        assert sorted(found) != expected
    for part in (p for s in nb.sections for p in s.parts if isinstance(p, Foreign)):
        assert part.raw.rstrip("\r\n") in rendered


def test_code_fence_hides_headings_and_entries() -> None:
    nb = parse("## Learnings\n```\n## Mistakes\n- [2026-01-01] in fence\n```\n- [2026-01-02] real\n")
    assert [s.key for s in nb.sections] == ["learnings"]
    assert [e.text for e in nb.entries()] == ["real"]


def test_unclosed_fence_swallows_the_rest_and_still_round_trips() -> None:
    text = "## Mistakes\n- [2026-01-01] a\n```\n## Learnings\n- [2026-01-02] b"
    nb = parse(text)
    assert render(nb) == text
    assert [e.text for e in nb.entries()] == ["a"]


def test_continuation_lines_belong_to_their_entry() -> None:
    nb = parse("## Mistakes\n- [2026-01-01] first line\n  second line\n  - nested\n- [2026-01-02] next\n")
    first = nb.entries()[0]
    assert first.text == "first line\nsecond line\n- nested"
    assert first.raw == "- [2026-01-01] first line\n  second line\n  - nested\n"


def test_count_suffix_is_read_as_occurrences() -> None:
    (entry,) = parse("## Mistakes\n- [2026-01-01] broke the build (x3)\n").entries()
    assert (entry.text, entry.count) == ("broke the build", 3)


@pytest.mark.parametrize("heading", ["## Shareholder Feedback", "## stakeholder   feedback", "## FEEDBACK"])
def test_feedback_aliases_and_case_are_one_section(heading: str) -> None:
    assert parse(f"{heading}\n- [2026-01-01] x\n").sections[0].key == "feedback"


def test_setext_heading_is_a_section() -> None:
    nb = parse("Mistakes\n--------\n- [2026-01-01] x\n")
    assert nb.sections[0].key == "mistakes" and nb.entries()[0].text == "x"


def test_items_in_a_blockquote_or_with_a_bad_date_are_not_entries() -> None:
    nb = parse("## Mistakes\n> - [2026-01-01] quoted\n\n- [2026-02-30] no such day\n")
    assert nb.entries() == []


def test_frontmatter_is_not_mistaken_for_a_heading() -> None:
    nb = parse("---\ntitle: x\n---\n## Mistakes\n- [2026-01-01] a\n")
    assert nb.head == "---\ntitle: x\n---\n"
    assert [e.text for e in nb.entries()] == ["a"]


def test_bom_does_not_hide_the_first_heading() -> None:
    nb = parse("\ufeff## Mistakes\n- [2026-01-01] a\n")
    assert nb.sections[0].key == "mistakes"


def test_new_entries_go_on_top_newest_first_with_the_files_line_endings() -> None:
    nb = parse("## Mistakes\r\n- [2026-01-01] old\r\n")
    out = render(add_entries(nb, [Entry("mistakes", "2026-02-01", "b"), Entry("mistakes", "2026-03-01", "c")]))
    assert out == "## Mistakes\r\n- [2026-03-01] c\r\n- [2026-02-01] b\r\n- [2026-01-01] old\r\n"


def test_missing_section_is_created_in_canonical_order() -> None:
    nb = parse("# T\n\n## Mistakes\n- [2026-01-01] m\n\n## Session Log\n- [2026-01-01] s\n")
    out = render(add_entries(nb, [Entry("learnings", "2026-01-02", "l")]))
    assert (
        out == "# T\n\n## Mistakes\n- [2026-01-01] m\n\n"
        "## Learnings\n- [2026-01-02] l\n\n## Session Log\n- [2026-01-01] s\n"
    )


def test_entry_added_above_a_setext_heading_does_not_swallow_it() -> None:
    nb = parse("## Mistakes\nNotes\n---\n")
    out = render(add_entries(nb, [Entry("mistakes", "2026-01-01", "new")]))
    assert out == "## Mistakes\n- [2026-01-01] new\n\nNotes\n---\n"
    assert [(e.text, e.count) for e in parse(out).entries()] == [("new", 1)]


def test_entry_added_above_prose_does_not_swallow_it() -> None:
    nb = parse("## Learnings\nSome prose.\n")
    after = parse(render(add_entries(nb, [Entry("learnings", "2026-01-01", "new")])))
    assert [e.text for e in after.entries()] == ["new"]


def test_removing_the_last_item_keeps_following_prose_separate() -> None:
    nb = parse("## Mistakes\n- [2026-01-02] keep\n- [2026-01-01] drop\n\nProse after.\n")
    after, left = prune(nb, Limits(mistakes=1))
    assert [e.text for e in left] == ["drop"]
    assert [e.text for e in parse(render(after)).entries()] == ["keep"]
    assert render(after) == "## Mistakes\n- [2026-01-02] keep\n\nProse after.\n"


def test_split_lines_matches_markdown_line_endings() -> None:
    assert split_lines("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]


def _corpus_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name not in ("README.md", "manifest.jsonl"))


def test_every_real_notebook_round_trips_byte_for_byte(corpus: Callable[..., Path]) -> None:
    files = _corpus_files(corpus("notebooks"))
    assert len(files) > 30
    for path in files:
        text = path.read_bytes().decode("utf-8")
        assert render(parse(text)) == text, path.name


def test_every_real_rules_file_round_trips_byte_for_byte(corpus: Callable[..., Path]) -> None:
    for path in _corpus_files(corpus("rules-files")):
        text = path.read_bytes().decode("utf-8")
        assert render(parse(text)) == text, path.name


def test_every_commonmark_example_notebook_round_trips_and_keeps_its_skeleton(
    tmp_path: Path, corpus: Callable[..., Path]
) -> None:
    folder = corpus("commonmark")
    subprocess.run(
        [sys.executable, str(folder / "make_notebooks.py"), "--out", str(tmp_path)], check=True, capture_output=True
    )
    files = sorted(tmp_path.rglob("[0-9][0-9][0-9][0-9].md"))
    assert len(files) == 652
    broken = {126, 127, 137, 139, 173, 237}  # open fences and HTML blocks that swallow the skeleton
    for path in files:
        text = path.read_bytes().decode("utf-8")
        nb = parse(text)
        assert render(nb) == text, path.name
        if int(path.stem) not in broken:
            assert nb.sections[0].key == "mistakes", path.name
            assert [e.text for e in nb.entries("mistakes")] == ["x"], path.name
            assert nb.sections[-1].key == "session_log", path.name


# The parser without markdown-it (`simple_blocks`) must find exactly what markdown-it
# finds wherever it answers at all: lines close to its limits, generated, and every corpus
# file. Most of what this generates it must refuse; what it accepts is compared.
_near_simple = st.sampled_from(
    [
        "## Mistakes",
        "## Learnings ",
        "#  Session Log",
        "# Title",
        "### Sub",
        "## Mistakes ##",
        "##",
        "#hash",
        " ## indented",
        "- [2026-01-02] entry",
        "- [2026-01-02]: link",
        "- [2026-01-02](x)",
        "- text",
        "- ",
        "-",
        "-  two spaces",
        "- - nested",
        "- 1. ordered",
        "* star",
        "+ plus",
        "1. one",
        "2) two",
        " continued",
        "  continued",
        "   continued",
        "    four",
        "      six",
        "  - nested",
        "  ```",
        "```",
        "plain",
        "2024 was long",
        "=====",
        "---",
        "___",
        "> quote",
        "<b>",
        "[ref]: /url",
        "\\# escaped",
        "\tab",
        "\u00a0nbsp",
        "\u2003em space",
        "",
        "  ",
    ]
)
_near_text = st.lists(st.tuples(_near_simple, st.sampled_from(["\n", "\r\n", "\r"])), max_size=30).map(
    lambda pairs: "".join(a + b for a, b in pairs)
)


def _src(text: str) -> list[str]:
    from rolebook.notebook.markdown import BOM, frontmatter_span

    lines = split_lines(text)
    fm = frontmatter_span(lines)
    src = [("\n" if i < fm else line) for i, line in enumerate(lines)]
    if src and src[0].startswith(BOM):
        src[0] = src[0][1:]
    return src


def _same_as_markdown_it(text: str) -> bool:
    """Whether the parser without markdown-it answered (True) and, if so, matches it."""
    from rolebook.notebook.markdown import _blocks, simple_blocks

    src = _src(text)
    simple = simple_blocks(src)
    if simple is None:
        return False
    headings, items, too_deep = _blocks(src)
    assert simple == (headings, items) and too_deep is None, repr(text)
    return True


@given(_near_text)
def test_the_parser_without_markdown_it_agrees_with_it_on_generated_text(text: str) -> None:
    _same_as_markdown_it(text)


@given(st.lists(st.sampled_from(["## Mistakes", "- [2026-01-02] a", "  b", "c", "", "# T"]), max_size=20))
def test_the_parser_without_markdown_it_answers_for_plain_notebooks(lines: list[str]) -> None:
    assert _same_as_markdown_it("\n".join(lines) + "\n")


def test_the_parser_without_markdown_it_agrees_with_it_on_every_corpus_file(corpus: Callable[..., Path]) -> None:
    texts = [
        p.read_bytes().decode("utf-8") for name in ("notebooks", "rules-files") for p in _corpus_files(corpus(name))
    ]
    examples = json.loads((corpus("commonmark") / "commonmark.json").read_text(encoding="utf-8"))
    texts += [e["markdown"] for e in examples]
    texts += [f"## Mistakes\n\n- [2026-01-01] x\n{e['markdown']}\n## Learnings\n" for e in examples]
    answered = sum(_same_as_markdown_it(t) for t in texts)
    assert answered >= 150  # the rest go to markdown-it


def test_a_notebook_rolebook_writes_parses_without_importing_markdown_it(tmp_path: Path) -> None:
    notebook = tmp_path / "coder.md"
    notebook.write_text(
        "# coder notebook\n\n## Mistakes\n\n- [2026-01-02] ran the migration on prod (x2)\n"
        "  then rolled it back\n- [2026-01-01] forgot the bleed\n\n## Learnings\n\n## Session Log\n",
        encoding="utf-8",
    )
    code = (
        "import sys; from pathlib import Path; from rolebook.notebook.markdown import parse; "
        f"nb = parse(Path({str(notebook)!r}).read_text()); "
        "print(len(nb.entries('mistakes')), 'markdown_it' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.split() == ["2", "False"]
