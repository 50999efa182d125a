"""The failure loop on labelled recurring failures (tests/fixtures/failures/recur, read its cards).

Run by hand:

    python tests/bench/bench_failures.py [--set d --set e] [--split held-out] [--floor 0.6]
    python tests/bench/bench_failures.py --fit          (sweep the floor of "the same failure")
    python tests/bench/bench_failures.py --process      (through the installed command: the figures that land)
    python tests/bench/bench_failures.py --stats        (and what `rolebook stats` shows for the month run)

Per set and split, one root, as a month of sessions would fill it: for each kind, a
session in which its `first` failure goes through the recall hook and the kind's lesson is
written at the session's end (`update`, the session named); then, each in a later session
of its own, every `again` instance of every kind, every `near` miss and every `unrelated`
failure goes through the hook. Counted:

- shown on recurrences: the kind's lesson shown for the again instances of kinds whose
  lesson carries over, by the lesson's words (`error`: the error's own, `other`);
- precision: of the lessons shown for again, near and unrelated failures, the share that
  are the kind's lesson where it carries;
- silence: nothing shown, for near misses, unrelated failures and the again instances of
  kinds whose lesson does not carry over;
- characters: what reached the agent's context per failure shown (at most);
- recurrence: after each kind's first again instance, its `second_lesson` is written as a
  mistake in that session: counted with the kind's first mistake (right when the lesson
  carries), or alone (right when it does not): the automatic merges' precision.

The floor of "the same failure" (notebook/search/failure.py SAME_FAILURE) is chosen on the
`fit` splits of the sets (`--fit`) and reported on `held-out`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RECUR = HERE.parent / "fixtures" / "failures" / "recur"
sys.path[:0] = [str(HERE.parent.parent)]
os.environ.setdefault("ROLEBOOK_SEARCH_MODE", "keyword")
os.environ.setdefault("ROLEBOOK_OFFLINE", "1")

from tests.agents.payloads import output_of  # noqa: E402

STATS = False  # --stats: the failure figures `rolebook stats` shows, summed over the roles
VERBOSE = False  # --verbose: each case counted wrong, with what was shown
#: the first lessons are written on days from here on (each kind its own day), the second
#: mistakes today: entries in the future are refused
START = dt.date.today() - dt.timedelta(days=330)


def load(name: str) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    folder = RECUR / name
    kinds = {k["kind"]: k for k in map(json.loads, (folder / "kinds.jsonl").read_text().splitlines())}
    failures = [json.loads(line) for line in (folder / "failures.jsonl").read_text().splitlines()]
    return kinds, failures


class Root:
    """A root and the two calls the loop makes: the hook's recall and the session end."""

    def __init__(self, folder: Path, process: bool) -> None:
        from tests.roots import project

        self.root = project(folder)
        self.process = process
        self.rolebook = str(Path(sys.executable).parent / "rolebook")

    def recall(self, role: str, session: str, case: dict[str, Any]) -> str:
        command, output, code = case["command"], output_of(case), case["exit_code"] or None
        if self.process:
            body = {"session_id": session, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash"}
            body |= {"tool_input": {"command": command}, "error": f"Exit code {code or 1}\n{output}"}
            done = subprocess.run(
                [self.rolebook, "--root", str(self.root), "recall", "--role", role],
                input=json.dumps(body),
                capture_output=True,
                text=True,
            )
            if not done.stdout:
                return ""
            return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])
        from rolebook.agents.hooks import recall_text

        return recall_text(self.root, role, command, output, code, session)

    def write(self, role: str, session: str, section: str, text: str, day: str) -> dict[str, Any]:
        flag = {"mistakes": "-m", "learnings": "-l"}[section]
        args = ["--root", str(self.root), "--session", session, "update", role, flag, text, "--date", day, "--json"]
        if self.process:
            done = subprocess.run([self.rolebook, *args], capture_output=True, text=True)
            return dict(json.loads(done.stdout)) if done.stdout else {}
        from rolebook.agents.config import load_config
        from rolebook.agents.session import open_session
        from rolebook.notebook.store import Writer

        session_api = open_session(load_config(self.root), Writer(None, session, "cli"), new_roles=True)
        entries = session_api.entries(day, **{section: [text]})
        return session_api.end(role, entries).to_dict()


def run(name: str, split: str, process: bool) -> Counter[str]:
    kinds, failures = load(name)
    kinds = {k: v for k, v in kinds.items() if any(f["kind"] == k and f["split"] == split for f in failures)}
    out: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Root(Path(tmp) / "p", process)
        roles = sorted({k["role"] for k in kinds.values()} | {"coder"})
        (root.root / "rolebook.yaml").write_text(f"roles: [{', '.join(roles)}]\n", encoding="utf-8")
        for n, (kind, about) in enumerate(sorted(kinds.items())):
            first = next(f for f in failures if f["kind"] == kind and f["part"] == "first")
            root.recall(about["role"], f"s-{kind}-1", first)
            day = (START + dt.timedelta(days=n % 300)).isoformat()
            root.write(about["role"], f"s-{kind}-1", about["section"], about["lesson"], day)
        seconds: set[str] = set()
        for case in failures:
            if case["split"] != split or case["part"] == "first":
                continue
            kind = kinds.get(case["kind"] or "")
            role = kind["role"] if kind else "coder"
            session = f"s-{case['id']}"
            shown = root.recall(role, session, case)
            lessons = [k for k in kinds.values() if k["lesson"][:50] in shown or _cut_in(k["lesson"], shown)]
            right = case["part"] == "again" and kind is not None and kind["carries"]
            if VERBOSE and (bool(shown) != right or (shown and kind not in lessons)):
                print(
                    f"  {case['id']} {'carries' if right else case['part']}: {' | '.join(shown.splitlines()[1:])[:160]}"
                )
            if right:
                assert kind is not None
                out[f"recur {kind['words']}"] += 1
                out[f"recur {kind['words']} shown"] += kind in lessons
            else:
                out["quiet cases"] += 1
                out["quiet"] += not shown
                out[f"quiet {case['part']}"] += 1
                out[f"quiet {case['part']} ok"] += not shown
            out["shown lessons"] += len(lessons)
            out["shown right"] += sum(1 for k in lessons if right and k is kind)
            out["chars max"] = max(out["chars max"], len(shown))
            second = kind.get("second_lesson") if kind and case["part"] == "again" else None
            if kind is not None and second and case["kind"] not in seconds:
                seconds.add(case["kind"])
                wrote = root.write(role, session, "mistakes", second, dt.date.today().isoformat())
                merged = bool(wrote.get("linked"))
                out["merges"] += merged
                out["merges right"] += merged and kind["carries"]
                out["carrying seconds"] += kind["carries"]
                out["carrying seconds merged"] += merged and kind["carries"]
        if STATS:  # what `rolebook stats` shows for the month of sessions just run
            from rolebook.agents.config import load_config
            from rolebook.notebook.store import figures, read_failures

            layout = load_config(root.root).layout
            for role in roles:
                f = figures(read_failures(layout, role))
                out.update({f"stats {k}": f[k] for k in ("seen", "distinct", "repeats")})
                out.update({f"stats after lesson {k}": v for k, v in f["after_lesson"].items()})
    return out


def _cut_in(lesson: str, shown: str) -> bool:
    """A lesson cut to its share of the room ("…") is still the lesson shown."""
    for line in shown.splitlines():
        if "…" in line:
            head = line.split(": ", 1)[-1].split("…")[0].strip()
            if len(head) >= 30 and lesson.startswith(head):
                return True
    return False


def report(name: str, c: Counter[str]) -> str:
    def pct(a: int, b: int) -> str:
        return f"{100 * a / b:.0f}% ({a}/{b})" if b else "-"

    recur = c["recur error"] + c["recur other"]
    shown = c["recur error shown"] + c["recur other shown"]
    return (
        f"{name}: recurrences shown {pct(shown, recur)} [error words {pct(c['recur error shown'], c['recur error'])},"
        f" other words {pct(c['recur other shown'], c['recur other'])}];"
        f" precision {pct(c['shown right'], c['shown lessons'])};"
        f" silence {pct(c['quiet'], c['quiet cases'])} [near {pct(c['quiet near ok'], c['quiet near'])},"
        f" unrelated {pct(c['quiet unrelated ok'], c['quiet unrelated'])},"
        f" not carrying {pct(c['quiet again ok'], c['quiet again'])}]; chars max {c['chars max']};"
        f" merges {c['merges']} right {pct(c['merges right'], c['merges'])},"
        f" carrying seconds merged {pct(c['carrying seconds merged'], c['carrying seconds'])}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", dest="sets")
    parser.add_argument("--split", default="held-out")
    parser.add_argument("--floor", type=float)
    parser.add_argument("--fit", action="store_true")
    parser.add_argument("--process", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--stats", action="store_true")
    args = parser.parse_args()
    global VERBOSE, STATS
    VERBOSE, STATS = args.verbose, args.stats
    sets = args.sets or sorted(p.name for p in RECUR.iterdir() if (p / "failures.jsonl").exists())
    from rolebook.notebook.search import failure

    floors = (
        [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8] if args.fit else [args.floor or failure.SAME_FAILURE]
    )
    split = "fit" if args.fit else args.split
    for floor in floors:
        failure.SAME_FAILURE = floor
        failure.recognise.__defaults__ = (floor,)
        total: Counter[str] = Counter()
        for name in sets:
            c = run(name, split, args.process)
            total.update({k: v for k, v in c.items() if k != "chars max"})
            total["chars max"] = max(total["chars max"], c["chars max"])
            print(f"floor {floor} {split} " + report(name, c), flush=True)
            if STATS:
                print("  stats:", {k[6:]: v for k, v in sorted(c.items()) if k.startswith("stats ")}, flush=True)
        print(f"floor {floor} {split} " + report("all", total), flush=True)


if __name__ == "__main__":
    main()
