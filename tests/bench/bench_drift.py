"""`rolebook read` with and without the instructions-drift check, on a repository with
1,000 commits (100 of them to CLAUDE.md), against `python -c pass`; and `rolebook audit`
at 100k records.

Run by hand (never in CI): `python tests/bench/bench_drift.py [--runs 15] [--commits 1000]`.
Rows, medians of interleaved runs (the machine is shared and noisy):
- bare: `python -c pass`
- read, no instructions: the same root with CLAUDE.md moved aside (no drift check runs)
- read, drift cached: CLAUDE.md in place, the drift cache fresh (the steady state)
- read, notebook changed: after an update (the entries are matched again; git is not run)
- read, instructions changed: after CLAUDE.md changed (git log -p runs once)
- audit at 100k records (index warm), and its first run after the archive grew
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROLEBOOK = [sys.executable, "-m", "rolebook"]
ENV = {  # bytecode cached as an install has it (see bench_cli.py)
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "ROLEBOOK_SEARCH_MODE": "keyword",
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=ENV)


def rb(root: Path, *args: str) -> None:
    subprocess.run([*ROLEBOOK, "--root", str(root), *args], check=True, capture_output=True, env=ENV)


def make_repo(root: Path, commits: int) -> None:
    """A repository with `commits` commits, one in ten of them to CLAUDE.md (a rule added,
    a rule dropped), and a notebook of 20 learnings, one of which a dropped rule said."""
    git(root, "init", "-q", "-b", "main")
    rules = [f"- Rule {i}: keep module {i} under 450 lines." for i in range(40)]
    (root / "CLAUDE.md").write_text("# Rules\n" + "\n".join(rules) + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "rules", "--date", "2026-01-01T00:00:00")
    rb(root, "init", "coder")
    for d in range(1, 21):
        rb(root, "update", "coder", "-l", f"learning {d} about subsystem {d}", "--date", "2026-01-02")
    rb(root, "update", "coder", "-l", "Rule 7: keep module 7 under 450 lines", "--date", "2026-01-02")
    for i in range(commits):
        if i % 10 == 0:
            lines = (root / "CLAUDE.md").read_text().splitlines()
            lines.append(f"- Rule {100 + i}: a rule added in commit {i}.")
            if i == commits // 2:
                lines = [x for x in lines if not x.startswith("- Rule 7:")]
            (root / "CLAUDE.md").write_text("\n".join(lines) + "\n")
        else:
            (root / f"src{i % 50}.txt").write_text(f"change {i}\n")
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"c{i}", "--date", f"2026-02-{1 + i * 27 // commits:02d}T00:00:00")


def make_archive(root: Path, records: int) -> None:
    lines = []
    for i in range(records):
        rec = {
            "v": 1,
            "id": f"{i:012x}",
            "op": "pruned" if i % 2 else "added",
            "role": "coder",
            "section": ("mistakes", "learnings", "session_log")[i % 3],
            "date": "2025-01-01",
            "text": f"archived lesson number {i} about npm caches and flaky deploys",
            "count": 1,
            "at": f"2025-01-01T00:{i % 60:02d}:00Z",
            "session": f"s{i % 100}",
            "source": "cli",
        }
        lines.append(json.dumps(rec, separators=(",", ":")))
    path = root / "agents/state/archive/coder.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=False, capture_output=True, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--records", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        make_repo(repo, args.commits)
        read = [*ROLEBOOK, "--root", str(repo), "read", "coder"]
        done = subprocess.run(read, capture_output=True, text=True, env=ENV, check=True).stdout
        assert "dropped" in done, done
        claude, aside = repo / "CLAUDE.md", repo / "CLAUDE.md.aside"
        rows: dict[str, list[float]] = {k: [] for k in ("bare", "no instructions", "drift cached")}
        rows |= {"notebook changed": [], "instructions changed": []}
        for n in range(args.runs):
            rows["bare"].append(timed([sys.executable, "-c", "pass"]))
            claude.rename(aside)
            timed(read)  # the no-drift read's caches
            rows["no instructions"].append(timed(read))
            aside.rename(claude)
            timed(read)
            rows["drift cached"].append(timed(read))
            rb(repo, "update", "coder", "--log", f"run {n}")
            rows["notebook changed"].append(timed(read))
            with claude.open("a") as f:
                f.write(f"- Rule run {n}: one more.\n")
            rows["instructions changed"].append(timed(read))
        bare = statistics.median(rows["bare"])
        print(f"read on a repository of {args.commits} commits ({args.runs} runs, medians)")
        for name, values in rows.items():
            med = statistics.median(values)
            print(f"  {name:22} {med * 1000:7.1f} ms  {med / bare:5.2f}x python -c pass")
        big = Path(tmp) / "big"
        big.mkdir()
        rb(big, "init", "coder")
        make_archive(big, args.records)
        audit = [*ROLEBOOK, "--root", str(big), "audit", "--session", "s7", "--json"]
        first = timed(audit)
        warm = [timed(audit) for _ in range(max(3, args.runs // 3))]
        tail = [*ROLEBOOK, "--root", str(big), "audit", "--limit", "20"]
        warm_all = [timed(tail) for _ in range(max(3, args.runs // 3))]
        print(f"audit at {args.records} records")
        print(f"  first (index built)     {first * 1000:7.1f} ms")
        print(f"  --session s7 --json     {statistics.median(warm) * 1000:7.1f} ms (1,000 rows)")
        print(f"  everything, --limit 20  {statistics.median(warm_all) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
