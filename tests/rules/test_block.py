"""The rules block: every byte outside it stays, in any file, through any promote/demote."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rolebook.notebook.errors import InputError
from rolebook.rules.block import END, START, Rule, add_rule, parse, remove_rule, render

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
UPDATE = os.environ.get("ROLEBOOK_UPDATE_GOLDEN") == "1"
RULE = Rule("Merge every floating element into the sticker shape.", "designer", ("2026-02-05", "2026-03-01"))
OTHER = Rule("Check DATABASE_URL before migrating.", "coder", ("2026-01-02", "2026-02-03", "2026-03-04"))


def outside(text: str) -> tuple[str, str]:
    f = parse(text)
    return f.before, f.after


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.md") if "." not in p.stem))
def test_golden_rules_files_through_promote_and_demote(name: str) -> None:
    text = (GOLDEN / f"{name}.md").read_bytes().decode("utf-8")
    promoted = render(add_rule(add_rule(parse(text), RULE), OTHER))
    golden = GOLDEN / f"{name}.promoted.md"
    if UPDATE:
        golden.write_bytes(promoted.encode("utf-8"))
    assert golden.read_bytes().decode("utf-8") == promoted
    demoted = render(remove_rule(parse(promoted), RULE.id))
    assert outside(demoted) == outside(promoted)
    assert [r.id for r in parse(demoted).rules] == [r.id for r in parse(text).rules if r.id != RULE.id] + [OTHER.id]


def test_a_hand_edited_block_is_parsed_back_and_its_other_lines_kept() -> None:
    text = (GOLDEN / "bom_existing_block.md").read_bytes().decode("utf-8")
    f = parse(text)
    assert [r.text for r in f.rules] == ["Use the staging DB for migrations."]
    assert render(f) == text
    again = render(add_rule(f, f.rules[0]))
    assert again == text  # promoting what is already a rule adds nothing
    assert "A note someone typed inside the block.\n" in render(add_rule(f, RULE))


def test_a_marker_inside_a_code_fence_is_not_a_marker() -> None:
    text = (GOLDEN / "crlf_fence_table.md").read_bytes().decode("utf-8")
    assert parse(text).block is None
    out = render(add_rule(parse(text), RULE))
    assert out.startswith(text) and out.endswith(END)  # no final newline before, none after
    assert "\r\n- Merge every floating element" in out


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (f"a\n{START}\n{END}\n{START}\n{END}\n", 4, "a second"),
        (f"a\n{END}\n", 2, "without a"),
        (f"{END}\n{START}\n", 1, "without a"),
        (f"x\n{START}\n- rule\n", 2, "without a"),
    ],
)
def test_broken_markers_are_an_error_naming_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse(text, "CLAUDE.md")
    assert err.value.line == line and message in err.value.message and err.value.path == "CLAUDE.md"


_text = st.text(alphabet=st.sampled_from(list("ab #-|`<>!\r\n\ufeff\u00e9")), max_size=80).filter(
    lambda t: START not in t and END not in t
)
_ops = st.lists(st.tuples(st.booleans(), st.sampled_from([RULE, OTHER])), min_size=1, max_size=8)


def first_block(text: str) -> str | None:
    """The file with RULE's block added, or None when it ends in an open code block (refused)."""
    try:
        return render(add_rule(parse(text), RULE))
    except InputError as err:
        assert "code block that never closes" in err.message
        return None


@given(_text, _ops)
def test_bytes_outside_the_block_never_change_through_promote_and_demote(
    text: str, ops: list[tuple[bool, Rule]]
) -> None:
    current = first_block(text)
    if current is None:
        return
    assert current.startswith(text)  # creating the block only appends
    fixed = outside(current)
    for promote, rule in ops:
        f = parse(current)
        current = render(add_rule(f, rule) if promote else remove_rule(f, rule.id))
        assert outside(current) == fixed
        assert len([r for r in parse(current).rules if r.id == rule.id]) == (1 if promote else 0)
    assert render(parse(current)) == current


@given(_text)
def test_promoting_twice_adds_one_line(text: str) -> None:
    once = first_block(text)
    if once is not None:
        assert render(add_rule(parse(once), RULE)) == once


def test_a_file_ending_in_an_open_code_fence_is_refused() -> None:
    with pytest.raises(InputError) as err:
        add_rule(parse("# Rules\n\n```\nclosed\n```\n\n```sh\nmake test\n"), RULE)
    assert err.value.line == 7


def test_every_real_rules_file_takes_a_block_and_keeps_every_other_byte(corpus: Callable[..., Path]) -> None:
    files = sorted(p for p in corpus("rules-files").iterdir() if p.name not in ("README.md", "manifest.jsonl"))
    assert len(files) >= 40
    for path in files:
        text = path.read_bytes().decode("utf-8")
        promoted = render(add_rule(parse(text, path), RULE))
        assert promoted.startswith(text), path.name
        updated = render(add_rule(parse(promoted), OTHER))
        removed = render(remove_rule(remove_rule(parse(updated), RULE.id), OTHER.id))
        assert outside(removed) == outside(promoted), path.name
        had_final_newline = not text or text.endswith(("\n", "\r"))
        assert removed.endswith(("\n", "\r")) == had_final_newline, path.name
