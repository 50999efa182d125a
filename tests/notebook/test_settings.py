"""YAML read one way (ruamel.yaml, YAML 1.2) in rolebook.yaml and in frontmatter alike."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import frontmatter
import pytest
from rolebook.agents.config import load_config
from rolebook.notebook import ConfigError, Limits, parse
from rolebook.notebook.limits import PLAIN, frontmatter_limits
from rolebook.notebook.settings import frontmatter_handler, load_yaml

#: YAML 1.1 (PyYAML) reads the first as 8 and the second as True: rolebook reads them as YAML 1.2 does
ODD = "limits: {mistakes: 010, learnings: 0o10}\nnote: yes\n"


#: the same odd limits read by rolebook.yaml and frontmatter: (value as written, how, what YAML 1.2 reads)
ODD_LIMITS = [("010", "with leading zeros", 10), ("0o10", "in octal", 8)]


@pytest.mark.parametrize(("written", "how", "reads"), ODD_LIMITS)
def test_a_limit_with_a_leading_zero_or_in_octal_is_refused_at_its_line_in_rolebook_yaml(
    tmp_path: Path, written: str, how: str, reads: int
) -> None:
    (tmp_path / "rolebook.yaml").write_text(f"version: 1\nlimits: {{learnings: 8, mistakes: {written}}}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert (caught.value.line, caught.value.message) == (
        2,
        f"limit 'mistakes' is written {how}, which YAML reads as {reads}: {PLAIN}",
    )
    (tmp_path / "rolebook.yaml").write_text("version: 1\nlimits: {learnings: 8, mistakes: 10}\n")
    limits = load_config(tmp_path).limits
    assert (limits.mistakes, limits.learnings) == (10, 8)


@pytest.mark.parametrize(("written", "how", "reads"), ODD_LIMITS)
def test_a_limit_with_a_leading_zero_or_in_octal_is_refused_in_frontmatter_as_in_rolebook_yaml(
    written: str, how: str, reads: int
) -> None:
    with pytest.raises(ConfigError) as caught:
        frontmatter_limits(parse(f"---\nlimits: {{learnings: 8, mistakes: {written}}}\n---\n# coder\n"), Limits())
    assert (caught.value.line, caught.value.message) == (
        2,
        f"limit 'mistakes' is written {how}, which YAML reads as {reads}: {PLAIN}",
    )
    limits = frontmatter_limits(parse("---\nlimits: {learnings: 8, mistakes: 10}\n---\n# coder\n"), Limits())
    assert (limits.mistakes, limits.learnings) == (10, 8)
    assert type(limits.mistakes) is int


def test_python_frontmatter_with_the_ruamel_handler_reads_as_rolebook_does() -> None:
    post = frontmatter.loads("---\n" + ODD + "---\nbody\n", handler=frontmatter_handler())
    assert (post["limits"], post["note"], post.content) == ({"mistakes": 10, "learnings": 8}, "yes", "body")
    assert load_yaml(ODD) == {"limits": {"mistakes": 10, "learnings": 8}, "note": "yes"}


def test_frontmatter_that_is_not_yaml_names_its_line_and_stays_inside_the_fences() -> None:
    with pytest.raises(ConfigError) as caught:
        frontmatter_limits(parse("---\nlimits:\n  mistakes: [1\n---\n## Mistakes\n"), Limits(), "coder.md")
    assert (caught.value.line, caught.value.message.startswith("frontmatter is not YAML")) == (3, True)


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("rolebook.yaml", "version: 1\nlimits:\n  mistakes: [1\n", 4),
        ("agents/state/memory/coder.md", "---\nlimits:\n  mistakes: {a\n---\n## Mistakes\n", 3),
    ],
)
def test_bad_yaml_in_either_place_is_one_line_naming_file_and_line_and_exit_2(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    argv = [sys.executable, "-m", "rolebook", "--root", str(tmp_path), "update", "coder", "-l", "x"]
    done = subprocess.run(argv, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith(f"rolebook: {path}:{line}: ") and done.stderr.count("\n") == 1
    assert path.read_text() == text
