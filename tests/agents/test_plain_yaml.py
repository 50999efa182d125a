"""The plain YAML reader reads what ruamel.yaml reads, or leaves the text to it."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from rolebook.agents import config
from rolebook.agents.plain_yaml import load
from ruamel.yaml import YAML


def ruamel(text: str) -> Any:
    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return plain(YAML(typ="rt", pure=True).load(io.StringIO(text)))


KEYS = st.from_regex(r"[a-z_][a-z0-9_-]{0,8}", fullmatch=True)
WORDS = st.sampled_from(
    [
        "null",
        "~",
        "true",
        "False",
        "0",
        "12",
        "-3",
        "007",
        "1.5",
        ".5",
        "1e3",
        "0x1f",
        "2026-01-02",
        "+5",
        "yes",
        "no",
        "on",
        "CLAUDE.md",
        "agents/state/memory",
        "../knowledge",
        "./here",
        "~/notes",
        "all-MiniLM-L6-v2",
        "a b",
        "a  b",
        "a -b",
        "-x",
        "'quoted'",
        '"double"',
        "'it''s'",
        '"esc\\n"',
        "a: b",
        "a #b",
        "a#b",
        "",
        "[x]",
        "{}",
        "&anchor",
        "*alias",
        "!tag",
        "|",
        ">",
        "@x",
        "`x",
        "%x",
        "a,b",
    ]
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for key in draw(st.lists(KEYS, min_size=1, max_size=5, unique=True)):
        kind = draw(st.sampled_from(["scalar", "block", "flow", "seq", "flowseq", "comment"]))
        if kind == "scalar":
            lines.append(f"{key}: {draw(WORDS)}")
        elif kind == "block":
            lines.append(f"{key}:")
            for sub in draw(st.lists(KEYS, min_size=1, max_size=3, unique=True)):
                lines.append(f"  {sub}: {draw(WORDS)}" + draw(st.sampled_from(["", "   # note", " #x"])))
        elif kind == "flow":
            pairs = draw(st.lists(st.tuples(KEYS, WORDS), max_size=3, unique_by=lambda p: p[0]))
            lines.append(f"{key}: {{{', '.join(f'{k}: {v}' for k, v in pairs)}}}")
        elif kind == "seq":
            lines.append(f"{key}:")
            indent = draw(st.sampled_from(["", "  "]))
            lines += [f"{indent}- {draw(WORDS)}" for _ in range(draw(st.integers(1, 3)))]
        elif kind == "flowseq":
            lines.append(f"{key}: [{', '.join(draw(st.lists(WORDS, max_size=3)))}]")
        else:
            lines.append(f"# {key}")
            lines.append(f"{key}: {draw(WORDS)}")
    return "\n".join(lines) + "\n"


@given(documents())
def test_what_the_plain_reader_takes_it_reads_as_ruamel_does(text: str) -> None:
    mine = load(text)
    if mine is not None:
        assert mine == ruamel(text), text


def test_the_default_config_is_plain_yaml_read_as_ruamel_reads_it() -> None:
    assert load(config.DEFAULT_CONFIG) == ruamel(config.DEFAULT_CONFIG)
    assert load(config.DEFAULT_CONFIG) is not None


def test_more_than_plain_yaml_is_left_to_ruamel() -> None:
    for text in ("a: &x 1\nb: *x\n", "a: |\n  text\n", "a: 'it''s'\n", "a: 1\na: 2\n", "a:\n\tb: 1\n", "a: 1.5\n"):
        assert load(text) is None, text


def test_a_bad_setting_in_plain_yaml_still_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text("version: 1\n\nlimits:\n  lines: many\n")
    try:
        config.load_config(tmp_path)
    except config.ConfigError as exc:
        assert str(exc).startswith(f"{tmp_path / 'rolebook.yaml'}:")
    else:
        raise AssertionError("no error")
