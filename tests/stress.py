"""Many processes on the same roles at once, for the stress test and its benchmark.

Each worker runs for a fixed time and prints one line per acknowledged write
(`kind id`), per operation done (`op kind`), or per problem seen (`BAD ...`).
`check` then verifies: every acknowledged write is there exactly once, the caps hold,
no reader saw a half-written notebook, and the index agrees with the files.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

WORKER = r"""
import json, random, shutil, subprocess, sys, time
from pathlib import Path
from rolebook.notebook.errors import RolebookError
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout
from rolebook.notebook.limits import Limits
from rolebook.notebook.store.longterm import log_event, store
from rolebook.notebook.markdown import parse
from rolebook.notebook.model import entry_id
from rolebook.notebook.search.query import Query
from rolebook.notebook.search.retrieval import search
from rolebook.agents.session import Session
from rolebook.rules.grouping import candidates
from rolebook.rules.promotion import apply

root, kind, name, seconds = Path(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
layout, rules = Layout.default(root), root / "CLAUDE.md"
limits, rng, end, n = Limits(), random.Random(name), time.monotonic() + seconds, 0
# each "what went wrong; what to do instead": a rule is the instruction (promote refuses a
# group without one, and the workers promote without a text)
# (each standing alone: rules/wording.py proposes no rule from "run them first")
POOL = ["forgot to run the migrations before deploying; run the migrations first",
        "pushed without running the linter; run the linter before pushing",
        "used the production database url in a test; use the test database",
        "left a debug print in the release build; strip debug prints"]

def say(line):
    print(line, flush=True)

while time.monotonic() < end:
    n += 1
    day = f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}"
    try:
        if kind == "update":
            entries = [new_entry("learnings", f"{name} learning {n}", day),
                       new_entry("mistakes", rng.choice(POOL), day)]
            done = Session(layout, limits, rules, Writer(session=name), declared=("coder",)).end("coder", entries)
            for e in done.result.added:
                say(f"entry {e.id('coder')}")
        elif kind == "cli":
            text = f"{name} cli learning {n}"
            run = subprocess.run([sys.executable, "-m", "rolebook", "--root", str(root), "update", "coder",
                                  "-l", text, "--date", day], capture_output=True)
            if run.returncode == 0:
                say(f"entry {entry_id('coder', 'learnings', day, text)}")
        elif kind == "store":
            done = store(layout, "designer", "rejected", f"{name} design {n}", [], Writer())
            if done.record is not None:
                say(f"stored {done.record.id}")
        elif kind == "log":
            rec = log_event(layout, "coder", event_type="error", lesson=f"{name} lesson {n}",
                            context="npm install failed", writer=Writer())
            say(f"logged {rec.id}")
        elif kind == "promote":
            for c in candidates(layout, rules, "coder"):
                apply(layout, rules, c, limits, Writer())
                say("op promote")
            time.sleep(0.05)
        elif kind == "clean":  # `git clean -fdX` while the others write: the derived folder goes
            shutil.rmtree(layout.derived, ignore_errors=True)
            say("op clean")
            time.sleep(0.2)
        elif kind == "search":
            search(layout, Query(rng.choice(["npm", "linter", "learning", "design"])))
            say("op search")
        elif kind == "reader":
            path = layout.notebook_path("coder")
            if path.exists():
                text = path.read_text(encoding="utf-8")
                nb = parse(text)
                complete = text.endswith("\n") and "## Session Log" in text
                if not complete or len(nb.entries("learnings")) > 20 or len(nb.entries("mistakes")) > 20:
                    say("BAD half-written or over-cap notebook seen")
                say("op read")
    except RolebookError as exc:
        say(f"ERROR {exc}")
"""

MCP_WORKER = r"""
import sys, time, anyio
from mcp import Client, StdioServerParameters
root, name, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
from rolebook.notebook.model import entry_id
import datetime as dt

async def main():
    params = StdioServerParameters(command=sys.executable, args=["-m", "rolebook", "--root", root, "mcp"])
    end, n = time.monotonic() + seconds, 0
    async with Client(params) as c:
        while time.monotonic() < end:
            n += 1
            text = f"{name} mcp learning {n}"
            r = await c.call_tool("update", {"role": "coder", "learnings": [text], "date": "2026-05-05"})
            if not r.is_error:
                print(f"entry {entry_id('coder', 'learnings', '2026-05-05', text)}", flush=True)

anyio.run(main)
"""


def start(root: Path, kind: str, name: str, seconds: float) -> subprocess.Popen[str]:
    if kind == "mcp":
        argv = [sys.executable, "-c", MCP_WORKER, str(root), name, str(seconds)]
    else:
        argv = [sys.executable, "-c", WORKER, str(root), kind, name, str(seconds)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run(root: Path, workers: dict[str, int], seconds: float, kill_after: float | None = None) -> list[str]:
    """Run the workers; with `kill_after`, SIGKILL them all at that time. Returns their output lines."""
    if not (root / "rolebook.yaml").exists():  # a project with its roles declared: the writes may start them
        root.mkdir(parents=True, exist_ok=True)
        (root / "rolebook.yaml").write_text("roles: [coder, designer]\n", encoding="utf-8")
    procs = [start(root, kind, f"{kind}{i}", seconds) for kind, count in workers.items() for i in range(count)]
    if kill_after is not None:
        time.sleep(kill_after)
        for p in procs:
            p.send_signal(signal.SIGKILL)
    lines: list[str] = []
    for p in procs:
        out, err = p.communicate(timeout=seconds + 120)
        if kill_after is None and p.returncode != 0:
            raise AssertionError(f"worker failed ({p.returncode}): {err[-2000:]}")
        lines += out.splitlines()
    return lines


def check(root: Path, lines: list[str]) -> dict[str, Any]:
    """Verify the invariants after a run; returns counts for the report."""
    from rolebook.notebook.limits import Limits, prune
    from rolebook.notebook.markdown import parse
    from rolebook.notebook.store.archive import ArchiveRecord, read_records
    from rolebook.notebook.store.changes import tidy
    from rolebook.notebook.store.index import Index, refresh
    from rolebook.notebook.store.journal import Writer
    from rolebook.notebook.store.layout import Layout
    from rolebook.rules.block import load

    layout = Layout.default(root)
    assert not [line for line in lines if line.startswith("BAD")], "a reader saw a half-written notebook"
    acked = Counter(line.split()[0] for line in lines)
    ids = {
        kind: [line.split()[1] for line in lines if line.startswith(kind + " ")]
        for kind in ("entry", "stored", "logged")
    }
    tidy(layout, "coder", Limits(), Writer())  # the next run finishes what a killed writer began
    records: dict[str, list[ArchiveRecord]] = {}
    for role in layout.roles():
        for _, _, rec in read_records(layout.archive_path(role)):
            assert isinstance(rec, ArchiveRecord), rec
            records.setdefault(rec.id, []).append(rec)
    for eid in ids["entry"]:
        assert eid in records, f"acknowledged entry {eid} lost"
        assert sum(r.op == "added" for r in records[eid]) == 1, f"entry {eid} journalled twice"
    for sid in ids["stored"]:
        assert [r.op for r in records.get(sid, [])] == ["stored"], f"stored item {sid} not there exactly once"
    for lid in ids["logged"]:
        assert lid in records, f"logged event {lid} lost"
    nb = parse(layout.notebook_path("coder").read_text(encoding="utf-8"))
    assert prune(nb, Limits())[1] == [], "caps do not hold"
    for e in nb.entries():
        assert records[e.id("coder")][-1].op == "added", "an entry is in the notebook and archived as gone"
    # and the other way: an entry the journal last says was added is in the notebook
    active = {e.id("coder") for e in nb.entries()}
    for rid, recs in records.items():
        last = recs[-1]
        if last.role == "coder" and last.op == "added" and last.section in ("mistakes", "learnings", "session_log"):
            assert rid in active, f"entry {rid} left the notebook with no record of leaving"
    load(root / "CLAUDE.md")  # the rules file parses: never half-written
    with Index(layout) as live:
        refresh(layout, live)
        mine = set(live.db.execute("SELECT id, op, role FROM docs"))
    fresh = Layout(layout.root, layout.memory, layout.archive, root / "fresh-derived")
    with Index(fresh) as rebuilt:
        refresh(fresh, rebuilt)
        theirs = set(rebuilt.db.execute("SELECT id, op, role FROM docs"))
    assert mine == theirs, "the index disagrees with the files"
    return {"acknowledged": dict(acked), "records": sum(len(v) for v in records.values())}
