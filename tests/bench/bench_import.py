"""`rolebook import`, whole process: time and peak memory (RSS) against the size of the source.

Run by hand (never in CI): `python tests/bench/bench_import.py [--sizes 50000,100000]
[--formats rolebook,cerebro,memcache] [--runs 3]`; `--rolebook PATH` (repeatable) times
another rolebook executable too (an earlier commit's, installed in a venv of its own), one
row each.

Sources are made once per size in a temporary folder: a `rolebook export` of one role's
archive (records as rolebook writes them), an agent-cerebro `memory.sqlite3` (with a
384-float embedding per row, as cerebro stores one) and a memcache journal. Each run
imports into a fresh empty root. Peak RSS is the child's own (`wait4`), so it is not
mixed with this script's. DESIGN: an import's memory must not grow with its input.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = "npm cache flaky deploy retry backoff jitter migration schema index lock fsync token budget".split()


def text(i: int) -> str:
    return f"lesson {i}: " + " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 9))


def make_rolebook(path: Path, n: int) -> None:
    with open(path, "w", encoding="utf-8") as f:
        head = {"format": "rolebook-export", "v": 1, "rolebook": "bench", "at": "2026-01-01T00:00:00Z"}
        f.write(json.dumps({**head, "roles": ["coder"]}) + "\n")
        for i in range(n):
            rec = {
                "v": 1,
                "id": f"{i:012x}",
                "op": "stored",
                "role": "coder",
                "section": "gotchas",
                "date": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}",
                "text": text(i),
                "count": 1,
                "tags": ["bench"],
                "at": "2026-01-01T00:00:00Z",
            }
            f.write(json.dumps({"archive": "coder", "record": rec}, separators=(",", ":")) + "\n")


def make_cerebro(path: Path, n: int) -> None:
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE entries (id INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, category TEXT NOT NULL,"
        " text TEXT NOT NULL, embedding BLOB, tags TEXT DEFAULT '[]', created_at TEXT NOT NULL,"
        " invalidated_at TEXT, invalidation_reason TEXT, superseded_by INTEGER)"
    )
    vector = struct.pack("384f", *([0.05] * 384))
    rows = (
        ("coder", "gotchas", text(i), vector, '["bench"]', f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00")
        for i in range(n)
    )
    db.executemany("INSERT INTO entries(role, category, text, embedding, tags, created_at) VALUES (?,?,?,?,?,?)", rows)
    db.commit()
    db.close()


def make_memcache(path: Path, n: int) -> None:
    path.mkdir(parents=True)
    with open(path / "journal.jsonl", "w", encoding="utf-8") as f:
        for i in range(n):
            rec = {"id": f"m{i:012d}", "ts": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z", "kind": "note"}
            f.write(json.dumps({**rec, "summary": text(i), "tags": ["bench"]}) + "\n")


MAKERS = {"rolebook": ("export.jsonl", make_rolebook), "cerebro": ("memory.sqlite3", make_cerebro)}
MAKERS["memcache"] = ("memcache", make_memcache)


def run(exe: list[str], fmt: str, source: Path, root: Path) -> tuple[float, float, str]:
    """(seconds, peak RSS in MiB, last line of output) of one import into an empty `root`."""
    cmd = [*exe, "--root", str(root), "import", fmt, str(source), "--role", "coder"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    out = proc.stdout.read().decode("utf-8", "replace")
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{out}")
    return seconds, usage.ru_maxrss / 1024, out.strip().splitlines()[-1] if out.strip() else ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="50000,100000")
    ap.add_argument("--formats", default="rolebook,cerebro,memcache")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rolebook", action="append", default=[], help="another rolebook executable to time")
    args = ap.parse_args()
    exes = [[sys.executable, "-m", "rolebook"], *([p] for p in args.rolebook)]
    with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:
        base = Path(tmp)
        print("| format | records | rolebook | time s (median) | peak RSS MiB (median) |")
        print("| --- | ---: | --- | ---: | ---: |")
        for size in [int(s) for s in args.sizes.split(",")]:
            for fmt in args.formats.split(","):
                name, make = MAKERS[fmt]
                source = base / f"{fmt}-{size}" / name
                source.parent.mkdir()
                make(source, size)
                for n, exe in enumerate(exes):
                    times, peaks = [], []
                    for r in range(args.runs):
                        root = base / f"root-{fmt}-{size}-{n}-{r}"
                        seconds, peak, _ = run(exe, fmt, source, root)
                        times.append(seconds)
                        peaks.append(peak)
                        shutil.rmtree(root)
                    print(
                        f"| {fmt} | {size:,} | {' '.join(exe[-1:])} | {statistics.median(times):.1f} | "
                        f"{statistics.median(peaks):.0f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
