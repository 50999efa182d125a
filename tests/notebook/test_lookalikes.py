"""Lines that look like entries and are not: found with their line and the right reason,
kept as text, and a new entry never swallowed by one."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rolebook.notebook.lookalikes import lookalikes
from rolebook.notebook.markdown import add_entries, parse, render
from rolebook.notebook.model import Entry

HEAD = "# coder notebook\n\n## Mistakes\n\n"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("- [2026-02-30] the thirtieth of February", "[2026-02-30] is not a real day"),
        ("- [2026-13-01] a thirteenth month", "[2026-13-01] is not a real day"),
        ("- [26-1-5] a short date", "[26-1-5] is not a YYYY-MM-DD date"),
        ("* [2026/01/05] slashes", "[2026/01/05] is not a YYYY-MM-DD date"),
        ("- [05-01-2026] day first", "[05-01-2026] is not a YYYY-MM-DD date"),
        ("\t- [2026-01-05] indented with a tab", "indented with a tab, which markdown counts as four spaces"),
        ("    - [2026-01-05] indented four spaces", "indented 4 spaces: it reads as code"),
    ],
)
def test_an_item_that_is_not_an_entry_is_named_by_its_line_with_the_reason(line: str, reason: str) -> None:
    nb = parse(HEAD + "- [2026-01-04] a real entry\n\nSome prose.\n\n" + line + "\n\n## Learnings\n")
    (found,) = lookalikes(nb)
    assert found.line == 9 and reason in found.why
    assert [e.text for e in nb.entries()] == ["a real entry"]  # kept as text, not an entry


def test_a_tab_indented_item_under_an_entry_is_named_as_part_of_that_entry() -> None:
    nb = parse(HEAD + "- [2026-01-04] an entry\n\t- [2026-01-05] meant as its own entry\n")
    (found,) = lookalikes(nb)
    assert found.line == 6 and "part of the entry above" in found.why


def test_dated_items_in_code_in_unmanaged_sections_and_nested_under_entries_are_not_named() -> None:
    text = (
        HEAD
        + "- [2026-01-04] an entry\n  - [2026-01-03] a sub-note, nested on purpose\n\n"
        + "```\n- [2026-02-30] an example in a fence\n\t- [2026-01-05] and another\n```\n\n"
        + "## Notes\n- [2026-02-30] not a managed section\n"
    )
    assert lookalikes(parse(text)) == []


@given(st.text(alphabet=st.sampled_from("- [0123456789]\t\n#`*ab"), max_size=200))
def test_finding_lookalikes_never_fails_and_every_line_it_names_exists(text: str) -> None:
    nb = parse(text)
    total = text.count("\n") + 1
    assert all(1 <= found.line <= total for found in lookalikes(nb))


@pytest.mark.parametrize("indent", ["\t", "    ", "  \t"])
def test_a_new_entry_in_a_section_holding_only_an_indented_item_stays_an_entry(indent: str) -> None:
    text = HEAD + indent + "- [2026-01-05] tab indented entry\n\n## Learnings\n"
    after = render(add_entries(parse(text), [Entry("mistakes", "2026-11-24", "a new mistake")]))
    assert [e.text for e in parse(after).entries()] == ["a new mistake"]
    assert indent + "- [2026-01-05] tab indented entry\n" in after  # kept as it was
    assert after.startswith(HEAD)


# -- a managed heading broken by hand ---------------------------------------------------------


def _swapped(t: str) -> str:
    i = next(i for i in range(2, len(t)) if t[i] != t[i + 1])
    return t[:i] + t[i + 1] + t[i] + t[i + 2 :]


_MANGLED = {
    "no space": lambda t: f"##{t}",
    "one level": lambda t: f"# {t}",
    "two letters swapped": lambda t: "## " + _swapped(t),
    "a letter lost": lambda t: f"## {t[:-1]}",
}


@given(st.sampled_from(["Mistakes", "Learnings", "Feedback", "Session Log"]), st.sampled_from(sorted(_MANGLED)))
def test_a_managed_heading_broken_by_hand_is_named_at_its_line(title: str, how: str) -> None:
    from rolebook.notebook.lookalikes import broken_headings

    broken = _MANGLED[how](title)
    text = f"# coder notebook\n\n## Mistakes\n- [2026-01-01] a\n\n{broken}\n- [2026-01-02] b\n"
    (found,) = broken_headings(parse(text))
    assert found.line == 6 and found.why.startswith(f"{broken.strip()!r} reads like the heading `## {title}`")


@given(st.lists(st.sampled_from(["Mistakes", "Learnings", "Feedback", "Session Log", "Notes", "Feedback from Ann"])))
def test_headings_written_as_rolebook_reads_them_are_never_named(titles: list[str]) -> None:
    from rolebook.notebook.lookalikes import broken_headings

    text = "# coder notebook\n\n" + "".join(f"## {t}\n- [2026-01-01] x\n\n" for t in titles)
    text += "```\n##Mistakes in a code block\n```\n### Learnings, a level below\n"
    assert broken_headings(parse(text)) == []
