"""Root discovery and rolebook.yaml (DESIGN.md section 2)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rolebook.agents.config import DEFAULT_CONFIG, find_root, load_config
from rolebook.notebook.errors import ConfigError
from rolebook.notebook.limits import Limits


def test_root_is_the_nearest_folder_with_rolebook_yaml_even_inside_a_git_repo(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    pkg = tmp_path / "packages" / "web"
    (pkg / "src").mkdir(parents=True)
    (pkg / "rolebook.yaml").write_text("version: 1\n")
    assert find_root(pkg / "src") == pkg


def test_root_falls_back_to_agents_state_then_git_then_the_working_directory(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_root(deep) == deep
    (tmp_path / ".git").mkdir()
    assert find_root(deep) == tmp_path
    (tmp_path / "a" / "agents" / "state").mkdir(parents=True)
    assert find_root(deep) == tmp_path / "a"


def test_rolebook_root_env_names_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROLEBOOK_ROOT", str(tmp_path))
    assert find_root() == tmp_path


def test_default_config_file_gives_the_default_settings(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text(DEFAULT_CONFIG)
    config = load_config(tmp_path)
    assert config.limits == Limits()
    assert config.layout.memory == tmp_path / "agents/state/memory"
    assert config.rules_file == tmp_path / "CLAUDE.md"


def test_paths_and_rules_file_are_configurable(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text("paths: {memory: mem, archive: arc}\nrules_file: AGENTS.md\n")
    config = load_config(tmp_path)
    assert (config.layout.memory, config.layout.archive) == (tmp_path / "mem", tmp_path / "arc")
    assert config.rules_file == tmp_path / "AGENTS.md"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("version: 1\nlimits: [\n", 3, "not valid YAML"),
        ("- a\n- b\n", 1, "must be a YAML mapping"),
        ("paths:\n  memory: 3\n", 2, "path 'memory' must be a non-empty string"),
        ("paths:\n  notebooks: x\n", 2, "unknown path 'notebooks'"),
        ("version: 1\nsearch:\n  mode: fast\n", 3, "'search.mode' is 'fast'"),
        ("search:\n  modle: x\n", 1, "'search' takes model"),
        ("search:\n  model: ''\n", 2, "'search.model' must be a model name or a folder"),
    ],
)
def test_a_bad_config_names_its_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    (tmp_path / "rolebook.yaml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert (err.value.line, message in err.value.message) == (line, True)


def test_search_settings_are_read_and_a_relative_model_folder_is_taken_from_the_root(tmp_path: Path) -> None:
    (tmp_path / "models" / "mini").mkdir(parents=True)
    (tmp_path / "rolebook.yaml").write_text("search:\n  model: ./models/mini\n  mode: semantic\n")
    config = load_config(tmp_path)
    assert (config.model, config.mode) == (str(tmp_path / "models" / "mini"), "semantic")
    (tmp_path / "rolebook.yaml").write_text("search:\n  model: all-MiniLM-L6-v2\n")
    assert (load_config(tmp_path).model, load_config(tmp_path).mode) == ("all-MiniLM-L6-v2", None)


def test_a_rolebook_yaml_above_the_git_work_tree_does_not_capture_the_repository(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text("version: 1\n")  # a home folder's, say
    (tmp_path / "agents" / "state").mkdir(parents=True)
    repo = tmp_path / "code" / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    assert find_root(repo / "src") == repo


def test_init_and_integrate_in_a_fresh_repository_write_only_inside_it_and_name_the_root(tmp_path: Path) -> None:
    import subprocess
    import sys

    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / "rolebook.yaml").write_text("version: 1\n")
    repo = home / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    before = sorted(p.relative_to(home) for p in home.rglob("*") if repo not in p.parents and p != repo)
    for args in (["init", "coder"], ["integrate", "claude", "--role", "coder"]):
        done = subprocess.run(
            [sys.executable, "-m", "rolebook", *args], cwd=repo, capture_output=True, text=True, check=True
        )
        assert done.stdout.splitlines()[0] == f"rolebook root: {repo}"
    after = sorted(p.relative_to(home) for p in home.rglob("*") if repo not in p.parents and p != repo)
    assert after == before  # nothing written outside the work tree
    assert (repo / "rolebook.yaml").exists() and (repo / ".claude" / "settings.json").exists()


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("version: 2\n", "this rolebook reads version 1", 1),
        ("promote: 3\n", "'promote' takes min_dates", 1),
        ("promote:\n  min_dates: 1\n", "use a whole number of 2 or more", 2),
        ("# team\npromote:\n  min_dates: 0o3\n", "'promote.min_dates' is written in octal, which YAML reads as 3", 3),
        ("recall:\n  control: 2\n", "'recall.control' is 2", 2),
        ("limits:\n  lines: 80\n  mistakes: 0o20\n", "limit 'mistakes' is written in octal, which YAML reads as 16", 3),
        ("limits:\n  mistakes: 0x14\n", "limit 'mistakes' is written in hexadecimal", 2),
        ("limits:\n  mistakes: 0b101\n", "limit 'mistakes' is written in binary", 2),
        ("limits:\n  mistakes: 1_000\n", "limit 'mistakes' is written with underscores", 2),
        ("limits:\n  mistakes: 020\n", "limit 'mistakes' is written with leading zeros", 2),
        ("limits:\n  lines: 80\n  mistakes: lots\n", "limit 'mistakes' must be a whole number", 3),
        ("limits:\n  lines: 80\n  mistaeks: 5\n", "unknown limit 'mistaeks'", 3),
        ("promote:\n  days: 3\n", "'promote' takes min_dates", 1),
        ("shared_roots: ../knowledge\n", "'shared_roots' is a list of", 1),
        ("# team\nshared_roots:\n  - {name: team}\n", "needs a path", 3),
        ("shared_roots:\n  - {name: team, path: a}\n  - {name: Team!, path: b}\n", "use lowercase", 3),
        ("shared_roots:\n  - {name: team, path: a}\n  - {name: team, path: b}\n", "named twice", 3),
        ("shared_roots:\n  - {name: team, path: a, share: [learnings]}\n", "share takes [mistakes]", 2),
        ("shared_roots:\n  - {name: team, path: a, where: b}\n", "'shared_roots' is a list of", 2),
    ],
)
def test_ill_shaped_settings_are_an_error_naming_the_line(tmp_path: Path, text: str, message: str, line: int) -> None:
    (tmp_path / "rolebook.yaml").write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / 'rolebook.yaml'}:{line}: ")


def test_promote_and_shared_roots_settings_are_read(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text(
        "promote: {min_dates: 4}\nshared_roots:\n  - {name: team, path: ../knowledge, share: [mistakes]}\n"
    )
    config = load_config(tmp_path)
    assert config.min_dates == 4
    (team,) = config.shared_roots
    assert (team.name, team.path, team.share) == ("team", tmp_path.parent / "knowledge", ("mistakes",))


def test_the_search_does_not_go_up_into_a_ceiling_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rolebook.yaml").write_text("version: 1\n")
    deep = tmp_path / "scratch" / "work"
    deep.mkdir(parents=True)
    monkeypatch.delenv("ROLEBOOK_CEILING")
    assert find_root(deep) == tmp_path
    monkeypatch.setenv("ROLEBOOK_CEILING", f"/nowhere{os.pathsep}{tmp_path}")
    assert find_root(deep) == deep


def cached(root: Path) -> Path:
    return root / "agents/state/.rolebook/config.json"


def test_a_changed_rolebook_yaml_is_seen_at_once_even_at_the_same_size_and_time(tmp_path: Path) -> None:
    path = tmp_path / "rolebook.yaml"
    path.write_text("limits: {mistakes: 11}\n")
    stat = path.stat()
    assert load_config(tmp_path).limits.mistakes == 11
    assert cached(tmp_path).is_file()
    path.write_text("limits: {mistakes: 12}\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert load_config(tmp_path).limits.mistakes == 12


def test_the_config_read_from_the_cache_is_the_config_read_from_the_file(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text(
        DEFAULT_CONFIG + "promote: {min_dates: 4}\nshared_roots:\n  - {name: team, path: ../team, share: [mistakes]}\n"
    )
    first = load_config(tmp_path)
    assert cached(tmp_path).is_file()
    assert load_config(tmp_path) == first


@pytest.mark.parametrize("garbage", ["{not json", "[]", '{"path": 1}', '{"data": {"limits": {"mistakes": "x"}}}'])
def test_a_corrupt_config_cache_is_ignored_and_replaced(tmp_path: Path, garbage: str) -> None:
    (tmp_path / "rolebook.yaml").write_text("limits: {mistakes: 7}\n")
    load_config(tmp_path)
    cached(tmp_path).write_text(garbage)
    assert load_config(tmp_path).limits.mistakes == 7
    assert '"mistakes": 7' in cached(tmp_path).read_text()


def test_a_cache_that_holds_a_setting_rolebook_refuses_still_gives_the_line_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "rolebook.yaml"
    path.write_text("version: 1\nlimits: {mistakes: 7}\n")
    load_config(tmp_path)
    kept = cached(tmp_path).read_text().replace('"mistakes": 7', '"mistakes": -1')
    cached(tmp_path).write_text(kept)
    assert load_config(tmp_path).limits.mistakes == 7  # the cache is not trusted over the file


def test_no_config_cache_is_written_where_the_config_moves_the_derived_folder(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text("paths: {derived: .cache/rolebook}\n")
    assert load_config(tmp_path).layout.derived == tmp_path / ".cache/rolebook"
    assert not (tmp_path / "agents").exists() and not (tmp_path / ".cache").exists()


def test_deleting_the_derived_folder_loses_no_setting(tmp_path: Path) -> None:
    import shutil

    (tmp_path / "rolebook.yaml").write_text("limits: {mistakes: 9}\n")
    load_config(tmp_path)
    shutil.rmtree(tmp_path / "agents/state/.rolebook")
    assert load_config(tmp_path).limits.mistakes == 9


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["{:#o}", "{:#x}", "{:#b}", "0{}", "{:_}"]))
def test_a_limit_is_the_number_its_digits_say_or_an_error_naming_its_line(value: int, form: str) -> None:
    # in plain decimal digits, any whole number is read as written, and the same from the cache
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "rolebook.yaml").write_text(f"version: 1\nlimits:\n  lines: {value}\n  mistakes: 4\n")
        assert load_config(root).limits.lines == value
        assert load_config(root).limits.lines == value
        written = form.format(value)
        (root / "rolebook.yaml").write_text(f"version: 1\nlimits:\n  lines: 80\n  mistakes: {written}\n")
        if written == str(value):  # the form changed nothing (1_000 needs 4 digits, a 0 prefix a number)
            assert load_config(root).limits.mistakes == value
            return
        with pytest.raises(ConfigError) as caught:
            load_config(root)
        assert (caught.value.path, caught.value.line) == (str(root / "rolebook.yaml"), 4)
        assert caught.value.message.startswith("limit 'mistakes' is written ")


def test_a_notebooks_frontmatter_limit_written_in_octal_is_named_at_its_line(tmp_path: Path) -> None:
    from rolebook.notebook.limits import frontmatter_limits
    from rolebook.notebook.markdown import parse

    text = "---\ntitle: coder\nlimits:\n  mistakes: 0o7\n---\n## Mistakes\n"
    with pytest.raises(ConfigError) as caught:
        frontmatter_limits(parse(text), Limits(), "coder.md")
    assert str(caught.value) == (
        "coder.md:4: limit 'mistakes' is written in octal, which YAML reads as 7: write the whole number you mean "
        "in plain decimal digits"
    )
    assert frontmatter_limits(parse(text.replace("0o7", "7")), Limits(), "coder.md").mistakes == 7
