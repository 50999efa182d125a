"""Under load and under SIGKILL: every acknowledged write is there exactly once."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stress

MIX = {"update": 2, "cli": 1, "mcp": 1, "store": 1, "log": 1, "promote": 1, "search": 1, "reader": 1}


@pytest.mark.load
def test_every_kind_of_writer_and_reader_at_once_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    lines = stress.run(tmp_path, MIX, seconds=4)
    report = stress.check(tmp_path, lines)
    done = report["acknowledged"]
    assert done["entry"] > 20 and done["stored"] > 5 and done["logged"] > 5 and done["op"] > 10
    assert not [line for line in lines if line.startswith("ERROR")]


@pytest.mark.load
def test_writers_of_every_kind_killed_at_random_lose_nothing(tmp_path: Path) -> None:
    rng = random.Random(int(os.environ.get("ROLEBOOK_CRASH_SEED", "11")))
    lines: list[str] = []
    for _ in range(max(1, int(os.environ.get("ROLEBOOK_CRASH_ROUNDS", "25")) // 4)):
        lines += stress.run(
            tmp_path,
            {"update": 1, "store": 1, "log": 1, "promote": 1, "reader": 1},
            seconds=30,
            kill_after=rng.uniform(0.6, 1.5),
        )
    stress.check(tmp_path, lines)


@pytest.mark.load
def test_deleting_the_derived_folder_while_writers_run_loses_nothing(tmp_path: Path) -> None:
    lines = stress.run(tmp_path, {"update": 4, "cli": 2, "store": 1, "log": 1, "search": 1, "clean": 1}, seconds=4)
    report = stress.check(tmp_path, lines)
    assert report["acknowledged"]["entry"] > 20 and lines.count("op clean") > 10
    assert not [line for line in lines if line.startswith("ERROR")]
