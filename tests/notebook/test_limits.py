"""Limits and pruning, exactly as DESIGN.md section 3 says."""

from __future__ import annotations

import pytest
from rolebook.notebook.errors import ConfigError
from rolebook.notebook.limits import Limits, frontmatter_limits, overflow, prune
from rolebook.notebook.markdown import parse, render
from rolebook.notebook.model import count_lines


def notebook(**sections: list[str]) -> str:
    titles = {"mistakes": "Mistakes", "learnings": "Learnings", "feedback": "Feedback", "session_log": "Session Log"}
    out = ["# T", ""]
    for key, dates in sections.items():
        out.append(f"## {titles[key]}")
        out += [f"- [{d}] {key} {d}" for d in dates]
        out.append("")
    return "\n".join(out)


def test_section_cap_prunes_the_oldest_entries() -> None:
    nb = parse(notebook(mistakes=["2026-01-05", "2026-01-01", "2026-01-03"]))
    after, left = prune(nb, Limits(mistakes=2))
    assert [e.date for e in left] == ["2026-01-01"]
    assert [e.date for e in after.entries()] == ["2026-01-05", "2026-01-03"]


def test_equal_dates_in_a_section_prune_the_lower_entry_first() -> None:
    nb = parse("## Mistakes\n- [2026-01-01] upper\n- [2026-01-01] lower\n")
    _, left = prune(nb, Limits(mistakes=1))
    assert [e.text for e in left] == ["lower"]


def test_line_cap_prunes_oldest_across_sections_with_the_tie_order() -> None:
    same = ["2026-01-01"]
    nb = parse(notebook(mistakes=same, learnings=same, session_log=same, feedback=same))
    lines = count_lines(render(nb))
    _, left = prune(nb, Limits(lines=lines - 2))
    assert [e.section for e in left] == ["session_log", "learnings"]
    _after, left = prune(nb, Limits(lines=lines - 3))
    assert [e.section for e in left] == ["session_log", "learnings", "mistakes"]


def test_line_cap_takes_older_dates_first_whatever_the_section() -> None:
    nb = parse(notebook(mistakes=["2026-01-01"], session_log=["2026-02-01"]))
    _, left = prune(nb, Limits(lines=count_lines(render(nb)) - 1))
    assert [e.section for e in left] == ["mistakes"]


def test_section_caps_apply_before_the_line_cap() -> None:
    nb = parse(notebook(mistakes=["2026-03-01", "2026-01-01"], session_log=["2026-02-01"]))
    _, left = prune(nb, Limits(mistakes=1, lines=count_lines(render(nb)) - 1))
    assert [(e.section, e.date) for e in left] == [("mistakes", "2026-01-01")]


def test_feedback_is_never_pruned_and_overflow_says_so() -> None:
    nb = parse(notebook(feedback=[f"2026-01-{d:02d}" for d in range(1, 29)]))
    after, left = prune(nb, Limits(lines=10))
    assert left == []
    assert render(after) == render(nb)
    assert overflow(after, Limits(lines=10)) == [f"{count_lines(render(nb))} lines, over the cap of 10"]


def test_line_cap_prunes_nothing_when_what_cannot_be_pruned_passes_it_alone() -> None:
    prose = "## Notes\n" + "".join(f"line {i}\n" for i in range(90))
    nb = parse(prose + "## Mistakes\n- [2026-01-01] the newest lesson\n")
    after, left = prune(nb, Limits(lines=80))
    assert left == []
    assert [e.text for e in after.entries()] == ["the newest lesson"]


def test_line_cap_prunes_when_pruning_can_reach_it() -> None:
    prose = "## Notes\n" + "".join(f"line {i}\n" for i in range(75))
    nb = parse(prose + "## Mistakes\n" + "".join(f"- [2026-01-{d:02d}] m{d}\n" for d in range(10, 0, -1)))
    after, left = prune(nb, Limits(lines=80))
    assert count_lines(render(after)) == 80
    assert [e.text for e in left] == ["m1", "m2", "m3", "m4", "m5", "m6", "m7"]


def test_a_null_cap_means_never_pruned() -> None:
    nb = parse(notebook(mistakes=[f"2026-01-{d:02d}" for d in range(1, 29)]))
    _, left = prune(nb, Limits(mistakes=None, lines=None))
    assert left == []


def test_unmanaged_text_is_never_pruned() -> None:
    text = "## Notes\n" + "".join(f"- [2026-01-{d:02d}] note\n" for d in range(1, 29))
    _, left = prune(parse(text), Limits(lines=5))
    assert left == []


def test_multi_line_entries_count_every_line_against_the_cap() -> None:
    nb = parse("## Learnings\n- [2026-01-02] a\n- [2026-01-01] b\n  b2\n  b3\n")
    after, left = prune(nb, Limits(lines=2))
    assert [e.text for e in left] == ["b\nb2\nb3"]
    assert render(after) == "## Learnings\n- [2026-01-02] a\n"


def test_frontmatter_limits_override_the_defaults() -> None:
    nb = parse("---\nlimits: {mistakes: 1, lines: null}\n---\n## Mistakes\n")
    assert frontmatter_limits(nb, Limits()) == Limits(mistakes=1, lines=None)


@pytest.mark.parametrize(
    ("front", "line"),
    [("limits: [1\n", 2), ("limits: {mistakes: -1}\n", 2), ("limits: {mistake: 3}\n", 2), ("- a list\n", 2)],
)
def test_bad_frontmatter_is_a_config_error_naming_the_line(front: str, line: int) -> None:
    nb = parse(f"---\n{front}---\n## Mistakes\n")
    with pytest.raises(ConfigError) as err:
        frontmatter_limits(nb, Limits(), "nb.md")
    assert err.value.path == "nb.md"
    assert err.value.line == line


def test_limits_refuse_booleans_and_unknown_keys() -> None:
    with pytest.raises(ConfigError):
        Limits().merged({"lines": True})
    with pytest.raises(ConfigError):
        Limits().merged({"sessions": 3})
