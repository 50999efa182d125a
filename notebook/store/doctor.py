"""`rolebook doctor`: what is wrong with a root, and `--repair` for it.

Repair rebuilds what is derived (index, caches, orphan lock files), removes the temp
files killed writers left (in the derived folder, or beside notebooks and the rules
file), and finishes writes a
crash cut short: of every role, or with a scoped writer (`--as`) of its role only.
Finishing one changes a notebook, so the notebook as it was is kept first under
`backup/` in the derived folder, and the report says where. It deletes only files
rolebook made, by their names. A notebook over its limits is reported with the
command that deals with it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, RolebookError, StorageError
from ..limits import Limits
from .fsutil import planted
from .index import Index
from .layout import Layout

if TYPE_CHECKING:
    from .journal import Writer

_FIXES = {
    "over_cap": "`rolebook tidy ROLE` prunes to the archive",
    "pending": "the next write to the role finishes it, or `rolebook tidy ROLE`",
    "malformed": "left as they are: fix or delete the lines by hand; readers skip them",
    "lookalikes": "kept as text, as they are; fix each by hand and it becomes an entry",
    "unrecorded": "a hand edit or a merge dropped them; the archive still holds them (`rolebook search "
    "--status all`): add back by hand what still holds",
}


@dataclass(slots=True)
class Report:
    """Findings, each a short line; `repaired` says what --repair did."""

    roles: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)
    index: str = "fresh"
    over_cap: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    orphan_locks: list[str] = field(default_factory=list)
    temp_files: list[str] = field(default_factory=list)
    unrecorded: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    returned: list[str] = field(default_factory=list)  # archive lines holding a redacted text again
    drift: list[str] = field(default_factory=list)  # entries the instructions or cited code no longer back
    lookalikes: list[str] = field(default_factory=list)  # `path:line: why` of lines that are not entries
    planted: list[str] = field(default_factory=list)  # links out of the root, pipes, devices, sockets
    repaired: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not (
            self.malformed
            or self.over_cap
            or self.pending
            or self.unreadable
            or self.orphan_locks
            or self.temp_files
            or self.unrecorded
            or self.returned
            or self.drift
            or self.lookalikes
            or self.planted
            or self.index not in ("fresh", NOT_BUILT)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "healthy": self.healthy,
            "roles": self.roles,
            "malformed_lines": self.malformed,
            "index": self.index,
            "over_cap": self.over_cap,
            "pending_writes": self.pending,
            "orphan_locks": self.orphan_locks,
            "temp_files": self.temp_files,
            "left_unrecorded": self.unrecorded,
            "unreadable": self.unreadable,
            "redacted_text_returned": self.returned,
            "drift": self.drift,
            "not_entries": self.lookalikes,
            "planted": self.planted,
            "repaired": self.repaired,
        }

    def lines(self) -> list[str]:
        out = [f"roles: {', '.join(self.roles) or 'none yet'}", f"index: {self.index}"]
        out += [f"planted: {p}" for p in self.planted]
        out += [f"malformed archive line: {m}" for m in self.malformed]
        if self.malformed:
            out.append(f"  ({_FIXES['malformed']})")
        out += [f"over its limits: {o} ({_FIXES['over_cap'].replace('ROLE', o.split(':')[0])})" for o in self.over_cap]
        out += [f"interrupted write: {p} ({_FIXES['pending'].replace('ROLE', p)})" for p in self.pending]
        out += [f"orphan lock file: {lock}" for lock in self.orphan_locks]
        out += [f"temp file a killed writer left: {t} (`rolebook doctor --repair` removes it)" for t in self.temp_files]
        out += [f"left the notebook with no record of leaving: {u}" for u in self.unrecorded]
        if self.unrecorded:
            out.append(f"  ({_FIXES['unrecorded']})")
        out += [f"unreadable: {u}" for u in self.unreadable]
        out += [f"drift: {d}" for d in self.drift]
        out += [f"redacted text back (a merge?): {r} (`rolebook doctor --repair` takes it out)" for r in self.returned]
        out += [f"not an entry: {x}" for x in self.lookalikes]
        if self.lookalikes:
            out.append(f"  ({_FIXES['lookalikes']})")
        out += [f"repaired: {r}" for r in self.repaired]
        out.append("healthy" if self.healthy else "problems found")
        return out


def diagnose(
    layout: Layout, limits: Limits, repair: bool = False, writer: Writer | None = None, rules_path: Path | None = None
) -> Report:
    """Check every role of the root; with `repair`, rebuild the derived state first and
    finish interrupted writes (a scoped `writer`: of its own role only)."""
    from .changes import tidy_check
    from .journal import Writer, storage_errors
    from .provenance.redaction import reapply, returned

    report = Report(roles=layout.roles())
    report.planted = planted(layout.root, read_places(layout, rules_path))
    leftovers = temp_files(layout, rules_path)
    if repair:
        healed = reapply(layout, writer or Writer())  # before the rebuild: it drops the index
        _repair(layout, report)
        report.repaired += [f"took a redacted text out of {path} again" for path in healed]
        _finish_interrupted(layout, limits, report, writer or Writer())
        for path in leftovers:
            with contextlib.suppress(OSError):
                path.unlink()
                report.repaired.append(f"removed the temp file a killed writer left: {path}")
        leftovers = temp_files(layout, rules_path)
    report.temp_files = [str(p) for p in leftovers]
    report.index = index_state(layout, report.roles)
    if report.roles:  # no roles (outside any project): no index is made for nothing
        try:
            with storage_errors(layout.derived), Index(layout) as index:
                for role in report.roles:
                    try:
                        index.sync(role)
                    except InputError as exc:  # a pipe or a link out where the archive was
                        report.unreadable.append(str(exc))
                report.malformed = [str(m) for m in index.malformed()]
        except StorageError as exc:  # a full disk: said among the findings, the rest still checked
            why = exc.cause.strerror or str(exc.cause)
            report.index = f"cannot be brought up to the archives ({why})"
            report.unreadable.append(f"{exc.path}: the derived index cannot be written: {why}; {_NO_ROOM}")
    for role in report.roles:
        try:
            result = tidy_check(layout, role, limits)
        except RolebookError as exc:
            report.unreadable.append(str(exc))
            continue
        report.lookalikes += result.warnings
        if result.changed:
            report.over_cap.append(f"{role}: {result.count('pruned')} entries over the caps")
        # a heading broken by hand moves entries into another section: not entries that left
        broken = any("reads like the heading" in w for w in result.warnings)
        if not broken and not report.index.startswith("cannot") and (gone := _left_unrecorded(layout, role)):
            shown = " ".join(f"#{i}" for i in gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
            report.unrecorded.append(f"{role}: {len(gone)} {'entry' if len(gone) == 1 else 'entries'} ({shown})")
        if (layout.pending_path(role)).exists():
            report.pending.append(role)
        report.returned += returned(layout, role)
    report.orphan_locks = [str(p) for p in _orphan_locks(layout)]
    if repair and report.index == NOT_BUILT:
        report.index = "fresh"
    return report


_NO_ROOM = "free space on its disk (the canonical files are untouched); `rolebook doctor --repair` rebuilds it"


def read_places(layout: Layout, rules_path: Path | None = None) -> list[Path]:
    """Where rolebook reads what a repository could plant something in: its stores, the
    derived folder, the config and instructions files."""
    from .layout import INSTRUCTIONS

    places = [layout.memory, layout.archive, layout.derived, layout.cache, layout.pending, layout.sessions]
    places += [layout.root / name for name in ("rolebook.yaml", *INSTRUCTIONS)]
    return places + ([rules_path] if rules_path is not None else [])


def _left_unrecorded(layout: Layout, role: str) -> list[str]:
    """Ids the archive last says were added to the notebook, but that are not in it."""
    from ..markdown import parse
    from .read import load_text

    text = load_text(layout, layout.notebook_path(role))
    active = {e.id(role) for e in parse(text or "").entries()}
    with Index(layout) as index:
        index.sync(role)
        return sorted(i for i in index.added_ids(role) if i not in active)


#: A root whose index was never built (a fresh init, a fresh clone, `git clean -fdX`): not a
#: problem, the first command that needs it builds it.
NOT_BUILT = "not built yet (built from the archives and notebooks on first use)"


def index_state(layout: Layout, roles: list[str]) -> str:
    path = layout.index_path
    if not path.exists():
        return NOT_BUILT
    try:
        with Index(layout) as index:
            stale = []
            for role in roles:
                row = index.archive_signature(role)
                try:
                    st = layout.archive_path(role).stat()
                    sig = (st.st_size, st.st_mtime_ns)
                except FileNotFoundError:
                    sig = (0, 0)
                if (row is None and sig != (0, 0)) or (row is not None and tuple(row) != sig):
                    stale.append(role)
    except Exception as exc:  # a corrupt file: say so, it is rebuilt when next opened
        return f"unreadable ({exc.__class__.__name__}); rebuilt on the next search"
    return f"behind the archives of {', '.join(stale)} (caught up on the next search)" if stale else "fresh"


def _orphan_locks(layout: Layout) -> list[os.PathLike[str]]:
    from .fsutil import lock_is_held

    folder = layout.locks
    if not folder.is_dir():
        return []
    # a clean release empties the file; a pid left in one nobody holds is a killed writer's
    return [p for p in sorted(folder.glob("*.lock")) if _dead_pid(p) and not lock_is_held(p)]


def _dead_pid(lock: os.PathLike[str]) -> bool:
    try:
        with open(lock, encoding="utf-8") as f:
            pid = int(f.read().strip() or 0)
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _finish_interrupted(layout: Layout, limits: Limits, report: Report, writer: Writer) -> None:
    import datetime as dt

    from .changes import tidy

    for role in report.roles:
        if not (layout.pending_path(role)).exists():
            continue
        if writer.by is not None and writer.by != role:
            continue  # not this writer's to change: it stays reported as interrupted
        path = layout.notebook_path(role)
        kept = ""
        if path.exists():
            stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
            backup = layout.derived / "backup" / f"{role}.md.{stamp}"
            backup.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, backup)
            kept = f"; the notebook before it is kept at {backup}"
        tidy(layout, role, limits, writer)
        report.repaired.append(f"finished a write to {role} that a crash cut short{kept}")


#: `.<name>.<random>.tmp`: what the atomic write leaves when its writer is killed
#: (12 hex digits now, 8 characters of tempfile's alphabet before).
_TEMP = re.compile(r"\.(?P<name>.+)\.(?:[0-9a-f]{12}|[a-z0-9_]{8})\.tmp")
_TEMP_AGE = 60.0  # seconds: younger ones may be a live writer's


def temp_files(layout: Layout, rules_path: Path | None = None) -> list[Path]:
    """Temp files of atomic writes that never finished: in the derived folder's `tmp/`
    (where they go now), and beside the notebooks and the rules file (where they went
    before, and still go when the derived folder is on another file system)."""
    import time

    names = {p.name for p in (rules_path,) if p is not None}
    out = []
    places: tuple[tuple[Path | None, set[str] | None], ...] = (
        (layout.derived / "tmp", set()),
        (layout.memory, None),
        (rules_path.parent if rules_path else None, names),
    )
    for folder, wanted in places:
        if folder is None or not folder.is_dir():
            continue
        for path in folder.iterdir():
            match = _TEMP.fullmatch(path.name)
            if not match or (wanted and match["name"] not in wanted):
                continue
            if wanted is None and not match["name"].endswith(".md"):
                continue
            with contextlib.suppress(OSError):
                if time.time() - path.stat().st_mtime > _TEMP_AGE and path.is_file():
                    out.append(path)
    return sorted(out)


def _repair(layout: Layout, report: Report) -> None:
    Index.remove(layout.index_path)
    # only the caches rolebook names: the derived folder may be shared with other files
    for cached in (*layout.cache.glob("read-*.json"), *layout.cache.glob("rules-*.json")):
        with contextlib.suppress(OSError):
            cached.unlink()
    if not layout.memory.exists() and not layout.archive.exists():
        return  # no memory here (outside any project): nothing to rebuild, nothing made
    with Index(layout) as index:
        from .index import refresh

        refresh(layout, index)
    report.repaired.append(f"rebuilt the index and caches in {layout.derived} from the archives and notebooks")
    for lock in _orphan_locks(layout):
        with contextlib.suppress(OSError):
            os.unlink(lock)
            report.repaired.append(f"removed orphan lock file {lock}")
