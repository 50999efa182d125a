"""Many writers at once, and writers killed at random points: nothing is lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rolebook.notebook.limits import Limits, prune
from rolebook.notebook.markdown import parse
from rolebook.notebook.store.archive import ArchiveRecord, read_records
from rolebook.notebook.store.changes import tidy
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout

WORKER = """
import sys
from pathlib import Path
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.changes import update
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout
from rolebook.notebook.limits import Limits

root, name, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
layout = Layout.default(root)
limits = Limits(mistakes=5, learnings=5, session_log=5, lines=30)
sections = ["mistakes", "learnings", "session_log", "feedback"]
for i in range(count):
    entry = new_entry(sections[i % 4], f"{name} entry {i}", f"2026-01-{1 + i % 28:02d}")
    update(layout, "coder", [entry], limits, Writer(session=name))
    print(entry.id("coder"), flush=True)  # acknowledged: update returned
"""


def where_entries_are(layout: Layout) -> tuple[list[str], dict[str, str]]:
    path = layout.notebook_path("coder")
    live = [e.id("coder") for e in parse(path.read_text(encoding="utf-8")).entries()] if path.exists() else []
    last: dict[str, str] = {}
    for _, _, rec in read_records(layout.archive_path("coder")):
        assert isinstance(rec, ArchiveRecord)
        last[rec.id] = rec.op
    return live, last


def test_eight_processes_of_25_updates_lose_nothing_and_duplicate_nothing(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path), f"w{n}", "25"], stdout=subprocess.PIPE, text=True
        )
        for n in range(8)
    ]
    acked = []
    for p in procs:
        out, _ = p.communicate(timeout=300)
        assert p.returncode == 0
        acked += out.split()
    assert len(set(acked)) == 200
    live, last = where_entries_are(layout)
    assert set(acked) <= set(live) | set(last)
    assert len(live) == len(set(live))
    added = [r.id for _, _, r in read_records(layout.archive_path("coder")) if r.op == "added"]  # type: ignore[union-attr]
    assert sorted(added) == sorted(acked)  # journalled exactly once each
    limits = Limits(mistakes=5, learnings=5, session_log=5, lines=30)
    assert prune(parse(layout.notebook_path("coder").read_text()), limits)[1] == []  # caps held
    assert all(last[i] == "added" for i in live)


@pytest.mark.load
def test_writers_killed_at_random_points_lose_nothing_and_the_next_run_reconciles(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    rounds = int(os.environ.get("ROLEBOOK_CRASH_ROUNDS", "25"))
    rng = random.Random(int(os.environ.get("ROLEBOOK_CRASH_SEED", "7")))
    acked: set[str] = set()
    for n in range(rounds):
        proc = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path), f"k{n}", "1000"], stdout=subprocess.PIPE, text=True
        )
        time.sleep(rng.uniform(0.15, 0.45))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        acked |= set(out.split())
        live, last = where_entries_are(layout)
        assert acked <= set(live) | set(last), f"round {n}: acknowledged entries lost"
    tidy(layout, "coder", Limits(mistakes=5, learnings=5, session_log=5, lines=30), Writer())
    live, last = where_entries_are(layout)
    assert acked <= set(live) | set(last)
    assert all(last[i] == "added" for i in live), "an entry is both archived as gone and in the notebook"
    assert len(acked) > rounds  # the writers got real work done between kills
