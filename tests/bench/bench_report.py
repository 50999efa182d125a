"""`rolebook report`: the page's size and the time to build it, at 1k, 10k and 100k archived records.

Run by hand (never in CI): `python tests/bench/bench_report.py [--sizes 1000,10000,100000] [--runs 3]`.
Each size is a root of 4 roles whose archives hold that many records, written the way
rolebook writes them (mistakes that recur carry their group, recurrences name what they
recur, leaving entries are journalled as pruned, recurred, obsolete), plus rules promoted
through the session API and mistakes that break them afterwards. Timed: the whole
`rolebook report -o FILE` process, once on a cold index (built first) and then warm
(median of --runs), against `python -c pass` in the same run; and, for scale, one warm
`rolebook stats --json` and `rolebook promote --json`, which group the mistakes as the
report does. `--keep DIR` builds the roots under DIR once and reuses them (the 100k
root takes a minute or two to build). ROLEBOOK_SEARCH_MODE=keyword measures the keyword
judgement; without it, an installed semantic extra judges by meaning.

`python tests/bench/bench_report.py --demo DIR` builds the demo root the README's
screenshot shows (docs/report.png): a few hundred entries over months, written through
the session API one session a day, with recurring mistakes, rules and violations.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import benchdocs
from rolebook.agents.config import load_config
from rolebook.agents.session import Session, open_session
from rolebook.notebook import parse
from rolebook.notebook.store import Layout, Writer

ABOUT = """`rolebook report` (the HTML page) at several archive sizes: a root of 4 roles whose archives hold
that many records written as rolebook writes them (recurring mistakes with their groups, pruned
and obsolete entries, promoted rules and violations). Timed: the whole `rolebook report -o FILE`
process on a cold index and warm (median), against `python -c pass`; the page's size; and one warm
`stats --json` and `promote --json`, which group the mistakes as the report does."""

ROLEBOOK = [sys.executable, "-m", "rolebook"]
ROLES = ("coder", "designer", "qa", "devops")
TOOLS = ["npm", "pip", "cargo", "docker", "kubectl", "terraform", "pytest", "vite", "gradle", "psql", "redis", "nginx"]
PROBLEMS = [
    "install failed with EACCES",
    "build timed out",
    "lockfile out of date",
    "port already in use",
    "migration ran twice",
    "cache served a stale bundle",
    "test flaked on the CI runner",
    "image pulled the wrong tag",
    "env var missing in staging",
    "certificate expired",
]
MODULES = [
    "billing",
    "auth",
    "search",
    "upload",
    "export",
    "cart",
    "profile",
    "admin",
    "mailer",
    "queue",
    "cache",
    "report",
    "import",
    "theme",
    "router",
    "store",
    "worker",
    "gateway",
    "schema",
    "ledger",
    "audit",
    "media",
    "sync",
]
FIXES = [
    "chown the checkout first",
    "pin the version in the lockfile",
    "run it once with --clean",
    "check the port before starting",
    "read the migration table before running",
    "bust the cache key on deploy",
    "retry with the seed printed",
    "pin the image by digest",
    "copy .env.example and fill it",
    "renew the certificate a week early",
]


SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "shi", "pre", "con", "dex", "ber", "lin", "qua", "sto"]
#: Words ranked by frequency: the project's own words first, then made-up ones (a Zipf law
#: over them gives text the shape of natural language: a few words everywhere, most rare).
VOCABULARY = list(
    dict.fromkeys(
        w
        for w in " ".join([*TOOLS, *PROBLEMS, *MODULES, *FIXES]).split()
        + ["".join(random.Random(i).choices(SYLLABLES, k=3)) for i in range(6000)]
        if len(w) > 2
    )
)
_WEIGHTS = [1 / (rank + 1) for rank in range(len(VOCABULARY))]


def mistake_text(rng: random.Random) -> str:
    """A mistake as "what went wrong; what to do instead", its words drawn by a Zipf law."""
    wrong = " ".join(rng.choices(VOCABULARY, _WEIGHTS, k=rng.randint(5, 9)))
    instead = " ".join(rng.choices(VOCABULARY, _WEIGHTS, k=rng.randint(3, 6)))
    return f"{wrong}; {instead}"


def make_archive(root: Path, size: int, rng: random.Random, today: dt.date) -> None:
    """About `size` archive records over 4 roles and the two years up to `today`, shaped like
    sessions: each adds a session log line, a learning or two, sometimes a mistake (a
    quarter of them recurrences of an earlier one); what a section holds past its cap
    leaves as pruned, a recurred mistake's older line as recurred; a few items stored,
    events logged, entries retired as obsolete."""
    layout = Layout.default(root)
    layout.archive.mkdir(parents=True, exist_ok=True)
    files = {r: open(layout.archive_path(r), "w", encoding="utf-8") for r in ROLES}  # noqa: SIM115
    start = today - dt.timedelta(days=730)
    chains: dict[tuple[str, str], list[str]] = {}  # (role, text) -> ids of its occurrences, oldest first
    notebook: dict[tuple[str, str], list[tuple[str, str, str]]] = {}  # (role, section) -> (id, date, text)
    caps = {"mistakes": 20, "learnings": 20, "session_log": 15}
    n = made = 0

    def write(role: str, op: str, rid: str, section: str, day: str, text: str, **extra: object) -> None:
        nonlocal n
        rec = {"v": 1, "id": rid, "op": op, "role": role, "section": section, "date": day, "text": text, "count": 1}
        rec.update(at=f"{day}T10:00:00Z", by=None, session=None, **extra)
        files[role].write(json.dumps(rec, separators=(",", ":")) + "\n")
        n += 1

    def add(role: str, section: str, day: str, text: str, **extra: object) -> str:
        nonlocal made
        made += 1
        rid = f"{made:012x}"
        write(role, "added", rid, section, day, text, **extra)
        held = notebook.setdefault((role, section), [])
        held.insert(0, (rid, day, text))
        while len(held) > caps[section]:
            old = held.pop()
            write(role, "pruned", old[0], section, old[1], old[2])
        return rid

    sessions = max(size // 5, 1)
    for k in range(sessions):
        if n >= size:
            break
        role = ROLES[k % 4]
        day = (start + dt.timedelta(days=730 * k // sessions)).isoformat()
        add(role, "session_log", day, f"WQ-{k}: {rng.choice(MODULES)} {rng.choice(['fix', 'feature', 'chore'])}")
        for _ in range(rng.choice((0, 1, 1, 2))):
            add(role, "learnings", day, f"{rng.choice(TOOLS)} in {rng.choice(MODULES)}: {rng.choice(FIXES)} ({k})")
        if rng.random() < 0.3:  # a mistake: most once, a quarter again (from a pool sized to the archive)
            m = rng.randrange(max(10, size // 400)) if rng.random() < 0.25 else k
            text = mistake_text(random.Random(m))
            chain = chains.setdefault((role, text), [])
            group = chain[0] if chain else f"{made + 1:012x}"
            rid = add(role, "mistakes", day, text, group=group, **({"recurs": chain[::-1]} if chain else {}))
            held = notebook[(role, "mistakes")]
            for old in [e for e in held[1:] if e[0] in chain]:
                held.remove(old)
                write(role, "recurred", old[0], "mistakes", old[1], old[2], group=group)
            chain.append(rid)
        roll = rng.random()
        if roll < 0.05:
            made += 1
            write(role, "stored", f"{made:012x}", "rejected_designs", day, f"{rng.choice(MODULES)} layout {k} rejected")
        elif roll < 0.15:
            made += 1
            lesson = f"{rng.choice(PROBLEMS)}: {rng.choice(FIXES)}"
            write(role, "logged", f"{made:012x}", "error", day, lesson, outcome=rng.choice(["1/1", "0/1"]))
        elif roll < 0.17 and notebook.get((role, "learnings")):
            old = notebook[(role, "learnings")].pop(0)
            write(role, "obsolete", old[0], "learnings", old[1], old[2])
    for f in files.values():
        f.close()


@dataclass(frozen=True, slots=True)
class DayWriter(Writer):
    """A writer whose records say they were written on `day` (a demo of months of sessions)."""

    day: str = ""

    def stamp(self) -> str:
        return f"{self.day}T17:30:00Z" if self.day else Writer.stamp(self)


def session_on(session: Session, day: dt.date) -> Session:
    return replace(session, writer=DayWriter(day=day.isoformat()))


def promote_and_break(root: Path, today: dt.date) -> None:
    """Promote what is due (as of three weeks ago), then repeat two of those mistakes since."""
    session = open_session(load_config(root), new_roles=True)
    due = session_on(session, today - dt.timedelta(days=21))
    promoted = [due.promote(c) for c in due.candidates()[:6]]
    for p in promoted[:2]:
        said = p.rule.text
        role = p.rule.role
        later = session_on(session, today - dt.timedelta(days=3))
        later.end(role, later.entries((today - dt.timedelta(days=3)).isoformat(), mistakes=[f"again: {said}"]))


DEMO = {
    "coder": [
        "npm install failed with EACCES on the cache; chown ~/.npm before installing",
        "pushed a migration without running it locally; run `make migrate` before pushing",
        "pinned a pre-release of pydantic; pin releases only",
        "forgot the CHANGELOG line; add it in the same commit",
        "test relied on dict order from the API; sort before comparing",
    ],
    "designer": [
        "sticker with a floating speech bubble; merge the shapes into one die-cut outline",
        "text on a busy background; put text on a solid panel",
        "exported the logo as JPEG; export logos as SVG",
        "used the old brand blue; take colours from tokens.json",
    ],
    "qa": [
        "marked a flaky test as passed after one green run; run it ten times before closing",
        "tested on Chrome only; run the Safari suite before sign-off",
        "filed a bug without steps; write the steps that reproduce it",
    ],
    "devops": [
        "rotated the key without updating the runner secret; update every consumer first",
        "deployed on a Friday evening; deploy before Thursday noon",
    ],
}


def make_demo(folder: Path, today: dt.date, rng: random.Random) -> Path:
    """Five months of sessions by four roles, through the session API: `folder/project`, a
    root whose rolebook.yaml names `folder/team` as a shared root. Rules are promoted as
    they come due, one group is skipped, a few items are shared, one entry is retired.
    Returns the project root."""
    root, team = folder / "project", folder / "team"
    for where, roles in ((root, list(DEMO)), (team, ["coder"])):
        where.mkdir(parents=True, exist_ok=True)
        subprocess.run([*ROLEBOOK, "--root", str(where), "init", *roles], check=True, capture_output=True)
    config = root / "rolebook.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "shared_roots: [{name: team, path: ../team}]\n", encoding="utf-8"
    )
    base = open_session(load_config(root), new_roles=True)
    start = today - dt.timedelta(days=150)
    weights = {r: [1.0 / (k + 1) ** 1.3 for k in range(len(m))] for r, m in DEMO.items()}
    sweeps = {start + dt.timedelta(days=d) for d in range(35, 100, 21)}
    for offset in range(151):
        day = start + dt.timedelta(days=offset)
        if day in sweeps:  # a review: the first due becomes a rule; once, the next is put off
            s = session_on(base, day)
            due = s.candidates()
            if due:
                s.promote(due[0])
            if len(due) > 1 and offset == 98:
                s.skip(due[1])
        if day.weekday() >= 5:
            continue
        for role, mistakes in DEMO.items():
            if rng.random() < 0.3:
                continue
            s = session_on(base, day)
            said: dict[str, list[str]] = {"session_log": [f"WQ-{3400 + offset}: {rng.choice(MODULES)} {role} work"]}
            if rng.random() < 0.3:
                one_off = f"{rng.choice(TOOLS)} {rng.choice(PROBLEMS)} in {rng.choice(MODULES)}; {rng.choice(FIXES)}"
                said["mistakes"] = [rng.choices(mistakes, weights[role])[0] if rng.random() < 0.5 else one_off]
            if rng.random() < 0.55:
                said["learnings"] = [f"{rng.choice(TOOLS)} in {rng.choice(MODULES)}: {rng.choice(FIXES)}"]
            if rng.random() < 0.05:
                said["feedback"] = [f'"{rng.choice(FIXES).capitalize()}, please." (review of WQ-{3400 + offset})']
            s.end(role, s.entries(day.isoformat(), **said))
            if rng.random() < 0.03 and "learnings" in said:
                s.share(
                    s.end(role, s.entries(day.isoformat(), learnings=[said["learnings"][0] + " (team-wide)"]))
                    .result.added[0]
                    .id(role),
                    "team",
                )
    late = session_on(base, today - dt.timedelta(days=10))
    notebook = parse(base.layout.notebook_path("coder").read_text(encoding="utf-8"))
    for entry in notebook.entries("learnings")[:2]:  # two learnings that no longer hold
        late.obsolete("coder", "#" + entry.id("coder"))
    return root


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the roots under this folder, or reuse those built there")
    parser.add_argument("--demo", type=Path, help="build the demo root here and exit")
    args = parser.parse_args()
    today = dt.date.today()
    if args.demo:
        print(make_demo(args.demo, today, random.Random(7)))
        return
    exe = str(Path(sys.executable).parent / "rolebook")
    print(f"mode {os.environ.get('ROLEBOOK_SEARCH_MODE', '(default)')}, {args.runs} warm runs, medians")
    print(
        f"{'records':>8} {'mistakes':>8} {'cold s':>7} {'warm s':>7} {'pass ms':>8} {'page KB':>8} "
        f"{'stats s':>8} {'promote s':>9}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = (args.keep / str(size)) if args.keep else Path(tmp)
            if not (root / "agents").exists():
                root.mkdir(parents=True, exist_ok=True)
                make_archive(root, size, random.Random(1), today)
                promote_and_break(root, today)
            shutil.rmtree(Layout.default(root).derived, ignore_errors=True)
            out = Path(tmp) / "report.html"
            rb = [exe, "--root", str(root)]
            cold = timed([*rb, "report", "-o", str(out)])
            base, warm = [], []
            for _ in range(args.runs):
                base.append(timed([sys.executable, "-c", "pass"]))
                warm.append(timed([*rb, "report", "-o", str(out)]))
            stats = timed([*rb, "stats", "--json"])
            promote = timed([*rb, "promote", "--json"])
            mistakes = sum(
                '"op":"added"' in line and '"section":"mistakes"' in line
                for role in ROLES
                for line in Layout.default(root).archive_path(role).read_text(encoding="utf-8").splitlines()
            )
            print(
                f"{size:>8} {mistakes:>8} {cold:>7.2f} {statistics.median(warm):>7.2f} "
                f"{statistics.median(base) * 1000:>8.1f} {out.stat().st_size / 1024:>8.1f} "
                f"{stats:>8.2f} {promote:>9.2f}"
            )


if __name__ == "__main__":
    with benchdocs.section("report", ABOUT):
        main()
