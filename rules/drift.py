"""Instructions drift: a notebook entry that still says what the instructions no longer do.

The lesson rolebook learned from: a social agent's instructions dropped "mention the
company in every comment", its memory still said so, and the agent followed its memory.
So when an instructions file (the rules file, CLAUDE.md, AGENTS.md, GEMINI.md, Copilot's
instructions, the files `instructions` names in rolebook.yaml) lost or changed a line
after an active entry was written, and the entry says what the line said (the keyword
judgement of recurrence, calibrated precision first), `read` names the entry and the
change; `doctor` lists every one. Git says what changed and when (`git log -p` of each
file; changes not committed yet are dated by the file's mtime).

An entry may cite code (`update --cite path[:lines]`): when the cited lines changed or
vanished, the same kind of alert says it may no longer hold.

This runs at every session start, so the answer is cached in the derived folder under the
signatures (size, mtime) of the notebook, the instructions files and the cited files:
git runs again only when one of them changed. The cited entries come from the cache the
writes refresh (`store_extra_alerts` state), never from the index, so a read opens no
database.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rolebook.notebook.store import INSTRUCTIONS

if TYPE_CHECKING:
    from rolebook.notebook.store import Layout, ReadResult

_VERSION = 2  # 2: the history kept by commit
_SHOWN = 90  # characters of a lost line an alert quotes
_SECTIONS = ("mistakes", "learnings", "feedback", "session_log")
#: A line of rolebook's own rules block (a promoted rule, the markers): its changes are
#: promote's and demote's, which keep the notebook in step themselves.
_MANAGED = re.compile(r"_\([a-z0-9][a-z0-9_-]*; incidents [0-9, -]+\)_\s*$|<!-- rolebook:rules:")


@dataclass(frozen=True, slots=True)
class Drift:
    """One active entry that says what an instructions file, or cited code, no longer does."""

    entry: str  # its id
    section: str
    role: str
    what: str  # what changed: `CLAUDE.md dropped "..." on 2026-03-02`, or `src/a.py:3-9 changed`
    cited: str | None = None  # for cited code: the day the entry was written

    def alert(self) -> str:
        """`CLAUDE.md dropped "..." on DATE; the Learnings entry #id still says it: rolebook obsolete ROLE #id`."""
        if self.section in _SECTIONS:
            name = f"the {self.section.replace('_', ' ').title()} entry #{self.entry}"
        else:  # a long-term item, by its category
            name = f"the {self.section or 'stored'} item #{self.entry}"
        step = f"rolebook obsolete {self.role} #{self.entry}"
        if self.cited is not None:
            return f"{self.what} since {name} cited it on {self.cited}; it may no longer hold: {step}"
        return f"{self.what}; {name} still says it: {step}"


def instruction_files(root: Path, rules_path: Path, configured: tuple[Path, ...] = ()) -> list[Path]:
    """The instructions files of a root, each once, in the order they are looked at."""
    out: list[Path] = []
    for path in (rules_path, *(root / name for name in INSTRUCTIONS), *configured):
        if path not in out:
            out.append(path)
    return out


def _sig(path: Path) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def with_drift(read: ReadResult, layout: Layout, role: str, files: list[Path]) -> ReadResult:
    """The session-start read with its first drift alert on top (and how many more there
    are: `doctor` lists them), within the five alerts a read shows."""
    from dataclasses import replace

    from rolebook.notebook.store import MAX_ALERTS, extra_state

    if not read.exists:
        return read
    state = extra_state(layout, role) or {}
    cites = [c for c in state.get("cites") or () if isinstance(c, dict)]
    alerts = drift_alerts(layout, role, files, cites)
    if not alerts:
        return read
    first = alerts[0] + (f" (and {len(alerts) - 1} more: rolebook doctor lists them)" if len(alerts) > 1 else "")
    return replace(read, alerts=[first, *read.alerts][:MAX_ALERTS])


def drift_alerts(layout: Layout, role: str, files: list[Path], cites: list[dict[str, Any]] | None = None) -> list[str]:
    """The drift alerts of a role's notebook (all of them), from the cache when nothing changed."""
    notebook = layout.notebook_path(role)
    cites = cites or []
    own, theirs = _sig(notebook), [_sig(p) for p in files]
    if own is None or (not cites and all(s is None for s in theirs)):
        return []  # nothing to drift from: no git, no parser
    cited = sorted({str(c["cite"].get("path")) for c in cites if isinstance(c.get("cite"), dict)})
    file_sigs: list[Any] = [[str(p), s] for p, s in zip(files, theirs, strict=True)]
    sig = {
        "notebook": own,
        "files": file_sigs,
        "cited": [[c, _sig(layout.root / c)] for c in cited],
        "cites": cites,
    }
    cache = layout.cache_path("drift", role)
    data = _load(cache)
    if data.get("sig") == sig and isinstance(data.get("alerts"), list):
        return [a for a in data["alerts"] if isinstance(a, str)]
    lost = _lost(layout, files, file_sigs)
    alerts = [d.alert() for d in find_drift(layout, role, lost, cites)]
    _save(cache, {"v": _VERSION, "sig": sig, "alerts": alerts})
    return alerts


def _load(path: Path) -> dict[str, Any]:
    from rolebook.notebook import InputError
    from rolebook.notebook.store import open_file

    try:
        with open_file(path) as f:  # a pipe planted in the derived folder: no cache
            data = json.load(f)
    except (OSError, ValueError, InputError):
        return {}
    return data if isinstance(data, dict) and data.get("v") == _VERSION else {}


def _save(path: Path, data: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)


Lost = tuple[str, str, str, str, "str | None"]  # file, line, change, day, the line in its place


def _lost(layout: Layout, files: list[Path], sigs: list[Any]) -> list[Lost]:
    """The lines every instructions file lost, from git, cached by the files' signatures
    (shared by every role: git runs again only when an instructions file changed)."""
    cache = layout.cache_path("drift", "lines")
    data = _load(cache)
    if data.get("sig") == sigs and isinstance(data.get("lost"), list):
        return [(x[0], x[1], x[2], x[3], x[4]) for x in data["lost"] if isinstance(x, list) and len(x) == 5]
    lost: list[Lost] = []
    for path in files:
        if path.exists():
            lost += [
                (_rel(layout.root, path), *x)
                for x in lost_lines(layout.root, path, layout.cache_path("drift", "history"))
            ]
    _save(cache, {"v": _VERSION, "sig": sigs, "lost": lost})
    return lost


def find_drift(layout: Layout, role: str, lost: list[Lost], cites: list[dict[str, Any]]) -> list[Drift]:
    """Every active entry of the role that a lost instruction line or changed cited code
    leaves stale, the newest loss first."""
    from rolebook.notebook import parse
    from rolebook.notebook.store import cite_label, cite_state, load_text

    from .similarity import keyword_same_mistake

    text = load_text(layout, layout.notebook_path(role)) or ""
    entries = [(e.id(role), e) for e in parse(text).entries()]
    found: list[Drift] = []
    seen: set[str] = set()
    for name, line, change, day, new in lost:
        for eid, e in entries:
            if eid in seen or e.date > day or not keyword_same_mistake(line, e.text):
                continue
            seen.add(eid)
            what = f'{name} dropped "{_quote(line)}" on {day}'
            if change == "changed" and new is not None:
                what = f'{name} changed "{_quote(line)}" to "{_quote(new)}" on {day}'
            found.append(Drift(eid, e.section, role, what))
    for item in cites:
        cite, eid = item.get("cite"), str(item.get("id") or "")
        if not isinstance(cite, dict) or eid in seen:
            continue
        state = cite_state(layout.root, cite)
        if state is not None:
            seen.add(eid)
            section = str(item.get("section") or "")
            found.append(Drift(eid, section, role, f"{cite_label(cite)} {state}", str(item.get("date") or "")))
    return found


def lost_lines(root: Path, path: Path, cache: Path | None = None) -> list[tuple[str, str, str, str | None]]:
    """(line, "dropped" or "changed", the day it went, the line that took its place) for each
    line the file's last HISTORY_COMMITS changes lost and that it does not hold now,
    newest loss first. `cache`: where the committed history is kept by commit (see `_history`)."""
    import subprocess

    from rolebook.notebook import InputError
    from rolebook.notebook.store import read_file

    try:  # never a pipe, nor a link out of the project: `doctor` names those
        now = {_norm(x) for x in read_file(path, root).decode("utf-8", errors="replace").splitlines()}
    except (OSError, InputError):
        now = set()
    rel = _rel(root, path)
    out: list[tuple[str, str, str, str | None]] = []
    taken: set[str] = set()

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, errors="replace", check=False
            )
        except OSError:
            return None
        return done.stdout if done.returncode == 0 else None

    import datetime as dt

    pending = git("diff", "--no-color", "--no-ext-diff", "-U0", "HEAD", "--", rel)
    if pending:
        with contextlib.suppress(OSError):
            day = dt.date.fromtimestamp(path.stat().st_mtime).isoformat()
            _hunks(pending, day, now, taken, out)
    for chunk in _history(git, rel, cache).split("\x01")[1:]:
        _, _, rest = chunk.partition(" ")  # the commit, then its day
        day, _, patch = rest.partition("\n")
        _hunks(patch, day.strip(), now, taken, out)
    return out


#: the changes of an instructions file that drift is judged on, newest first: git's work
#: and the patches read stay bounded whatever the history (a CLAUDE.md with 10,000 commits
#: made `read` after an edit take 11-20 s, issue 41)
HISTORY_COMMITS = 300


def _history(git: Any, rel: str, cache: Path | None) -> str:
    """`git log -p` of the file's last HISTORY_COMMITS changes (each `\\x01COMMIT DAY\\n`
    and its patch), kept in `cache` by the commit it was read at: an edit not committed
    yet reads none of it again, and a new commit reads only the commits since."""
    head = (git("rev-parse", "--verify", "-q", "HEAD") or "").strip()
    if not head:
        return ""
    data = _load(cache) if cache is not None else {}
    files: dict[str, Any] = data["files"] if isinstance(data.get("files"), dict) else {}
    kept = files.get(rel)
    if isinstance(kept, dict) and kept.get("head") == head and isinstance(kept.get("log"), str):
        return str(kept["log"])
    log_args = ("log", "--no-color", "--no-ext-diff", "-U0", "--format=\x01%H %cs", "-p", f"-{HISTORY_COMMITS}")
    log = None
    if isinstance(kept, dict) and isinstance(kept.get("head"), str) and isinstance(kept.get("log"), str):
        old = str(kept["head"])
        if git("merge-base", "--is-ancestor", old, head) is not None:  # moved on: read only what came since
            newer = git(*log_args, f"{old}..{head}", "--", rel)
            if newer is not None:
                log = "\x01".join((newer + str(kept["log"])).split("\x01")[: HISTORY_COMMITS + 1])
    if log is None:
        log = git(*log_args, head, "--", rel) or ""
    if cache is not None:
        files = {rel: {"head": head, "log": log}, **{k: v for k, v in files.items() if k != rel}}
        _save(cache, {"v": _VERSION, "files": files})
    return log


def _hunks(patch: str, day: str, now: set[str], taken: set[str], out: list[tuple[str, str, str, str | None]]) -> None:
    """The lost lines of one patch (-U0), paired with what replaced them in the same hunk."""
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        for i, line in enumerate(removed):
            key = _norm(line)
            if not key or key in now or key in taken or len(key.split()) < 3 or _MANAGED.search(line):
                continue
            taken.add(key)
            new = added[i] if i < len(added) and _norm(added[i]) else None
            out.append((_clean(line), "changed" if new is not None else "dropped", day, _clean(new) if new else None))
        removed.clear()
        added.clear()

    for line in patch.splitlines():
        if line.startswith("@@"):
            flush()
        elif line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
    flush()


def _clean(line: str) -> str:
    """A line as an alert quotes it: no list marker, heading marks or emphasis."""
    text = line.strip().lstrip("#>*-+ \t")
    if text[:2] in ("[ ", "[x") and "]" in text[:4]:
        text = text[text.index("]") + 1 :].strip()
    return " ".join(text.replace("**", "").replace("__", "").split())


def _norm(line: str) -> str:
    return _clean(line).lower()


def _quote(line: str) -> str:
    line = line.replace('"', "'")
    return line if len(line) <= _SHOWN else line[: _SHOWN - 3] + "..."


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
