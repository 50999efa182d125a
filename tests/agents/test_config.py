"""Root discovery and rolebook.yaml (DESIGN.md section 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
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
        ("version: 1\nsearch:\n  mode: fast\n", 2, "'search.mode' is 'fast'"),
        ("search:\n  modle: x\n", 1, "'search' takes model"),
        ("search:\n  model: ''\n", 1, "'search.model' must be a model name or a folder"),
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
