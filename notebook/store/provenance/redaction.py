"""`rolebook redact #ID [--text TEXT]`: the archive's one sanctioned rewrite.

One record's text (or the part given) is taken out of every file rolebook keeps under
the root: every archive and failure journal line that holds it, every notebook, the rules
file, the derived folder (the index and caches deleted and rebuilt, notebook backups and
pending writes scrubbed, the item's vectors dropped). Each record that held it gets a `redacted`
record: its id, role, section and date stay, with the SHA-256 and length of what was
removed (never the text); a notebook entry that keeps the rest of its text is written
again as a new entry (`replaced_by`). The marks let every reader take the text out of a
line that comes back later (`marks.py`).

It runs under the write path's lock: a pending note first (so a crash midway is finished
by the next write, as the journal finishes any write), then each archive replaced
atomically, then each notebook, then the rules file under its own lock.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...markdown import entry_positions, parse, remove_parts, render
from ...model import Entry, Notebook
from ..archive import ArchiveRecord, read_lines
from ..failures import scrub_journals
from ..fsutil import atomic_write, open_file, read_file, role_lock
from ..index import Index, refresh
from ..journal import Recorder, Writer, check_scope
from ..layout import Layout
from ..read import load_text
from .marks import PLACEHOLDER, Mark, Marks, marks_in, scrub

#: A part shorter than this would match unrelated text across the root.
MIN_PART = 6
#: The fields of a record that say where it came from: a whole-item redact keeps them and
#: takes every other field's text out (an import's description, frontmatter and body).
_KEEP = frozenset(
    "v id op role section date count at by session source origin type category flag file tags undated of "
    "replaced_by hash length part outcome ctx_hash cite failure".split()
)


@dataclass(frozen=True, slots=True)
class Redacted:
    """What a redaction did: the item, the mark it left, the files it rewrote."""

    id: str
    role: str
    section: str
    date: str
    mark: Mark
    records: tuple[str, ...] = ()  # ids that got a `redacted` record
    replaced: dict[str, str] = field(default_factory=dict)  # old entry id -> the entry written again
    files: tuple[str, ...] = ()  # canonical files rewritten, relative to the root

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "role": self.role,
            "section": self.section,
            "date": self.date,
            "hash": self.mark.hash,
            "length": self.mark.length,
            "records": list(self.records),
            "replaced": dict(self.replaced),
            "files": list(self.files),
        }


def redact_item(
    layout: Layout,
    key: str,
    part: str | None,
    writer: Writer,
    rules_path: Path | None,
    shared: tuple[tuple[str, Layout], ...] = (),
) -> Redacted:
    """Take the text of the item whose id starts with `key` (or only `part` of it) out of
    every file under the root, and out of the `shared` roots (name, layout) a copy went to
    (their files are listed as `name:path`).

    Raises:
        NoMatch: no item has that id. InputError: an ambiguous id, a part the item does
        not hold or too short to remove safely, an item with no text left.
        ScopeError: a writer scoped to another role.
    """
    from ..sharing import find_item

    item = find_item(layout, key)
    role, rid = str(item["role"]), str(item["id"])
    check_scope(role, writer)
    text = str(item.get("text") or "")
    if part is not None:
        if len(part) < MIN_PART:
            raise InputError(f"--text {part!r} is under {MIN_PART} characters: it would match unrelated text")
        if part not in text and part not in json.dumps(item, ensure_ascii=False):  # its context, say
            raise InputError(f"#{rid} does not hold the text given (it says: {text[:80]!r})")
        removed = part
    else:
        removed = text
    if not removed.strip() or removed == PLACEHOLDER:
        raise InputError(f"#{rid} has no text left to redact")
    mark = Mark.of(removed)
    also = _leaves(item, removed) if part is None else []
    with role_lock(layout.lock_path(role)), role_lock(layout.rules_lock):
        done = _rewrite(layout, item, removed, mark, part is None, writer, rules_path, also)
    files = list(done.files)
    for name, other in shared:  # a copy `share` made (by hand, or as a mistake was written)
        copy = _copy_in(other, removed)
        if copy is None:
            continue
        with role_lock(other.lock_path(str(copy["role"]))):
            there = _rewrite(other, copy, removed, mark, copy["text"] == removed, writer, None, also)
        files += [f"{name}:{f}" for f in there.files]
    return replace(done, files=tuple(files))


def _leaves(item: dict[str, Any], text: str) -> list[str]:
    """The other texts of a whole item (its fields but where it came from), long enough to
    look for in every file."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            if len(value.strip()) >= MIN_PART and value != text and value not in out:
                out.append(value)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    for k, v in item.items():
        if k not in _KEEP and k != "text":
            walk(v)
    return out


def _copy_in(layout: Layout, removed: str) -> dict[str, Any] | None:
    """A record of a shared root that holds the text (one whose whole text it is first)."""
    found: list[dict[str, Any]] = []
    for role in layout.roles():
        ids = _ids_holding(layout.archive_path(role), [removed])
        found += [{"id": i, "role": role, **s} for i, s in _states(layout, ids).items()]
    found.sort(key=lambda c: c.get("text") != removed)
    return found[0] if found else None


def _rewrite(
    layout: Layout,
    item: dict[str, Any],
    removed: str,
    mark: Mark,
    whole: bool,
    writer: Writer,
    rules_path: Path | None,
    also: list[str] | None = None,
) -> Redacted:
    target = str(item["id"])
    needles = [removed, *(also or [])]
    marks = [mark, *(Mark.of(x) for x in also or [])]
    files: list[str] = []
    held: dict[str, set[str]] = {}  # role -> ids whose archive lines hold the text (none: not rewritten)
    for role in layout.roles():
        if ids := _ids_holding(layout.archive_path(role), needles):
            held[role] = ids
    notebooks: dict[str, tuple[str, Notebook, dict[str, Entry]]] = {}
    met: dict[str, Entry] = {}  # entries of the notebooks that held it, by id
    for role in layout.roles():
        planned = _notebook_plan(layout, role, removed, target if whole else None)
        if planned is not None:
            _, old_nb, _ = planned
            notebooks[role] = planned
            old = {e.id(role): e for e in old_nb.entries() if removed in e.text}
            met.update(old)
            held.setdefault(role, set()).update(old)
    owner = str(item["role"])
    held.setdefault(owner, set()).add(target)
    stamp = writer.stamp()
    recorded: list[str] = []
    replaced: dict[str, str] = {}
    appended: dict[str, list[bytes]] = {}
    for role, ids in held.items():
        record = Recorder(role, writer, stamp)
        fresh = notebooks[role][2] if role in notebooks else {}
        states = _states(layout, ids)
        lines: list[bytes] = []
        for i in sorted(ids):
            state = states.get(i) or _entry_state(met.get(i))
            kept: dict[str, Any] = {"hash": mark.hash, "length": mark.length, "part": not whole}
            if i != target:
                kept["of"] = target
            new = fresh.get(i)
            if new is not None:
                kept["replaced_by"] = new.id(role)
                replaced[i] = new.id(role)
            shown = "" if (whole and i == target) or new is not None else scrub(str(state.get("text") or ""), marks)
            r = record.record(
                "redacted", i, str(state.get("section") or ""), str(state.get("date") or ""), shown, (), **kept
            )
            lines.append(r.to_line().encode("utf-8"))
            recorded.append(i)
        for new in fresh.values():
            lines.append(record("added", new, origin="redact").to_line().encode("utf-8"))
        appended[role] = lines
    _note_pending(layout, notebooks)
    for role, lines in appended.items():
        path = layout.check_inside(layout.archive_path(role))
        gone = (removed, target if whole else None)
        atomic_write(path, b"".join(_scrubbed_lines(path, needles, marks, gone)) + b"".join(lines))
        files.append(_rel(layout, path))
    scrubbed = partial(_scrubbed_lines, needles=needles, marks=marks, gone=(removed, None))
    files += [_rel(layout, path) for path in scrub_journals(layout, _forms(needles), scrubbed)]
    for role, (new_text, _, _) in notebooks.items():
        path = layout.check_inside(layout.notebook_path(role))
        atomic_write(path, new_text.encode("utf-8"))
        files.append(_rel(layout, path))
    if rules_path is not None and _replace_in_file(layout, rules_path, removed):
        files.append(_rel(layout, rules_path))
    _clean_derived(layout, removed, {i for ids in held.values() for i in ids}, set(notebooks))
    return Redacted(
        target,
        owner,
        str(item.get("section") or ""),
        str(item.get("date") or ""),
        mark,
        tuple(recorded),
        replaced,
        tuple(files),
    )


def _forms(needles: list[str]) -> list[bytes]:
    """Each text as written and as JSON writes it."""
    return [f for t in needles for f in (t.encode(), json.dumps(t, ensure_ascii=False)[1:-1].encode())]


def _ids_holding(path: Path, needles: list[str]) -> set[str]:
    forms = _forms(needles)
    out = set()
    for _, _, raw, item in read_lines(path):
        if any(form in raw for form in forms) and isinstance(item, ArchiveRecord):
            out.add(item.id)
    return out


def _scrubbed_lines(path: Path, needles: list[str], marks: list[Mark], gone: tuple[str, str | None]) -> Iterator[bytes]:
    """Every byte of the archive, the lines that hold a text rewritten without it (a line
    that is not a record keeps its bytes, but those of the text). `gone`: the text, and the
    id of the item redacted whole (its records lose every field but where they came from)."""
    forms = _forms(needles)
    removed, whole = gone
    with open_file(path) as f:
        for raw in f:
            if not any(form in raw for form in forms):
                yield raw
                continue
            try:
                data = json.loads(raw)
            except ValueError:
                data = None
            if isinstance(data, dict):
                end = b"\r\n" if raw.endswith(b"\r\n") else b"\n"
                clean = _cleaned(scrub(data, marks), removed, whole)
                yield json.dumps(clean, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + end
            else:
                for form in forms:
                    raw = raw.replace(form, PLACEHOLDER.encode())
                yield raw


def _cleaned(data: dict[str, Any], removed: str, whole: str | None) -> dict[str, Any]:
    """A scrubbed record: a context hash that was a slug of the text loses those words (the
    hash is `tool-action-pattern`, lowercased: the scrub cannot see the text in it); the
    record of an item redacted whole keeps no text of any field."""
    from ..longterm import _words

    ctx = data.get("ctx_hash")
    if isinstance(ctx, str):
        words = set(_words(removed))
        kept = [w for w in ctx.split("-") if w not in words]
        if len(kept) != len(ctx.split("-")):
            data["ctx_hash"] = "-".join(kept) or "redacted"
    if whole is not None and data.get("id") == whole:
        for k in list(data):
            if k not in _KEEP and k != "text" and data[k] not in (None, ""):
                data[k] = PLACEHOLDER
    return data


def _notebook_plan(
    layout: Layout, role: str, removed: str, drop: str | None
) -> tuple[str, Notebook, dict[str, Entry]] | None:
    """(new text, new notebook, {old id: entry written again}) for a notebook that holds the
    text, or None. The entry `drop` leaves whole; any other entry holding the text is
    written again without it."""
    text = load_text(layout, layout.notebook_path(role))
    if text is None or removed not in text:
        return None
    nb = parse(text)
    gone = {(si, pi) for si, pi, e in entry_positions(nb) if e.id(role) == drop}
    kept = remove_parts(nb, gone)
    new_text = render(kept).replace(removed, PLACEHOLDER)
    return new_text, nb, _again(role, kept, parse(new_text), drop)


def _again(role: str, kept: Notebook, after_nb: Notebook, drop: str | None) -> dict[str, Entry]:
    """{old id: the entry as written again} for the entries the text was taken out of."""
    before = [e for _, _, e in entry_positions(kept)]
    after = [e for _, _, e in entry_positions(after_nb)]
    again: dict[str, Entry] = {}
    if len(before) == len(after):
        for old, new in zip(before, after, strict=True):
            if old.id(role) != new.id(role):
                again[old.id(role)] = new
    else:  # the text spanned an entry's marker: the entries are told apart by what they say
        old_ids = {e.id(role) for e in before}
        new_ids = {e.id(role) for e in after}
        lost = [e for e in before if e.id(role) not in new_ids]
        fresh = [e for e in after if e.id(role) not in old_ids]
        again = {o.id(role): n for o, n in zip(lost, fresh, strict=False)}
    if drop is not None:
        again.pop(drop, None)
    return again


def _entry_state(entry: Entry | None) -> dict[str, Any]:
    """What a redacted record keeps of an entry the archive never journalled (typed by hand)."""
    return {} if entry is None else {"section": entry.section, "date": entry.date, "text": entry.text}


def _states(layout: Layout, ids: set[str]) -> dict[str, dict[str, Any]]:
    with Index(layout) as index:
        return {i: {"section": s.section, "date": s.date, "text": s.text} for i, s in index.states(ids).items()}


def _note_pending(layout: Layout, notebooks: dict[str, tuple[str, Notebook, dict[str, Entry]]]) -> None:
    """The journal's pending note for each notebook about to change: a crash before it is
    replaced is finished by the next write (the old entries leave, the new ones come in)."""
    for role, (_, _, again) in notebooks.items():
        data = {
            "add": [{"section": e.section, "date": e.date, "text": e.text, "count": e.count} for e in again.values()],
            "remove": list(again),
        }
        path = layout.pending_path(role)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data), encoding="utf-8")


def _replace_in_file(layout: Layout, path: Path, removed: str) -> bool:
    try:
        data = read_file(path, layout.root)
    except (FileNotFoundError, IsADirectoryError, InputError):
        return False
    needle = removed.encode("utf-8")
    if needle not in data:
        return False
    atomic_write(layout.check_inside(path), data.replace(needle, PLACEHOLDER.encode("utf-8")))
    return True


def _clean_derived(layout: Layout, removed: str, ids: set[str], noted: set[str]) -> None:
    """The derived folder holds no copy of the text afterwards: the index and the caches go
    (rebuilt from the files), notebook backups and pending notes are scrubbed, the vectors
    of the records are dropped."""
    Index.remove(layout.index_path)
    for pattern in ("read-*.json", "rules-*.json", "drift-*.json", "drift.json"):
        for cached in layout.cache.glob(pattern):
            with contextlib.suppress(OSError):
                cached.unlink()
    for folder in (layout.derived / "backup", layout.pending):
        if folder.is_dir():
            for path in folder.iterdir():
                if path.is_file():
                    _replace_in_file(layout, path, removed)
    _drop_vectors(layout.vectors, ids)
    for role in noted:  # the notes this redaction left: its notebooks are written
        with contextlib.suppress(OSError):
            layout.pending_path(role).unlink()
    with Index(layout) as index:
        refresh(layout, index)


def _drop_vectors(folder: Path, ids: set[str]) -> None:
    """Remove the rows of `ids` from every model's vector files (`<model>.ids` beside its rows)."""
    if not folder.is_dir():
        return
    for ids_path in folder.glob("*.ids"):
        try:
            listed = ids_path.read_text(encoding="utf-8").split("\n")
        except OSError:
            continue
        listed = [i for i in listed if i]
        if not ids & set(listed):
            continue
        data_paths = [p for p in folder.glob(ids_path.stem + ".*") if p.suffix not in (".ids", ".lock")]
        for data in data_paths:  # a model's rows are lost: embedded again when next searched
            with contextlib.suppress(OSError):
                data.unlink()
        with contextlib.suppress(OSError):
            ids_path.unlink()


def reapply(layout: Layout, writer: Writer) -> list[str]:
    """Take out again, under the lock, the redacted texts that came back into the archives
    (lines an older branch merged back, say); the files rewritten. `doctor --repair` runs it."""
    done = []
    for role in layout.roles():
        with role_lock(layout.lock_path(role)):
            path = layout.archive_path(role)
            raws = [raw for _, _, raw, _ in read_lines(path)]
            marks = marks_in(raws)
            if not marks or not any(marks.line(raw) != raw for raw in raws):
                continue
            atomic_write(layout.check_inside(path), b"".join(_healed(path, marks)))
            done.append(_rel(layout, path))
    if done:
        Index.remove(layout.index_path)
    return done


def _healed(path: Path, marks: Marks) -> Iterator[bytes]:
    with open_file(path) as f:
        for raw in f:
            yield marks.line(raw) if raw.endswith(b"\n") else raw


def returned(layout: Layout, role: str) -> list[str]:
    """`path:line` of each archive line that holds a text a redaction took out."""
    path = layout.archive_path(role)
    lines = list(read_lines(path))
    marks = marks_in(raw for _, _, raw, _ in lines)
    if not marks:
        return []
    return [f"{path}:{n}" for _, n, raw, _ in lines if marks.line(raw) != raw]


def _rel(layout: Layout, path: Path) -> str:
    try:
        return os.path.relpath(path, layout.root)
    except ValueError:
        return str(path)
