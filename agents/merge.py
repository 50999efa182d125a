"""`rolebook merge-driver %O %A %B %P`: git's merge of two branches' notebooks.

Entries are merged by id: those both sides kept, plus those either side added; one that
either side removed since the base stays removed (it left for that side's archive). The
text around the entries comes from the side that changed it; when both changed it,
`git merge-file` merges it and leaves its conflict markers there only.

The driver writes only the file git hands it. It does not prune: git merges the
archive (merge=union) after or before the notebook, in an order of its choosing, over
whatever a driver would append to it, so a `pruned` record written here could be lost
and its entry with it. A notebook merged past its caps says so at the next `read`, and
the next write (`update`, `tidy`) prunes it through the journal like any other.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from rolebook.notebook import Entry, Notebook, parse, render
from rolebook.notebook.markdown import add_entries, entry_positions, remove_parts
from rolebook.notebook.model import is_role


def _skeleton(nb: Notebook) -> Notebook:
    return remove_parts(nb, {(si, pi) for si, pi, _ in entry_positions(nb)})


def _entries(nb: Notebook, role: str) -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    for e in nb.entries():
        known = out.get(e.id(role))
        if known is None or e.count > known.count:
            out[e.id(role)] = e
    return out


def _merge_text(base: str, ours: str, theirs: str) -> tuple[str, bool]:
    """git merge-file of three texts: (result, whether it conflicted)."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(tmp) / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        run = subprocess.run(
            ["git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *paths], capture_output=True
        )
    return run.stdout.decode("utf-8"), run.returncode != 0


def merge(base: str, ours: str, theirs: str, role: str) -> tuple[str, bool]:
    """The merged notebook text (caps not applied yet), and whether its text conflicted."""
    o, a, b = parse(base), parse(ours), parse(theirs)
    eo, ea, eb = _entries(o, role), _entries(a, role), _entries(b, role)
    kept = {i: e for i, e in ea.items() if i in eb or i not in eo}
    for i, e in eb.items():
        if i not in eo or i in ea:
            kept[i] = e if i not in kept or e.count > kept[i].count else kept[i]
    sa, sb, so = (render(_skeleton(x)) for x in (a, b, o))
    conflict = False
    if sa == sb or sb == so:
        skeleton = _skeleton(a)
    elif sa == so:
        skeleton = _skeleton(b)
    else:
        text, conflict = _merge_text(so, sa, sb)
        skeleton = parse(text)
    merged = add_entries(skeleton, sorted(kept.values(), key=lambda e: e.date, reverse=True))
    return render(merged), conflict


#: The driver's exit status for "merged, with conflict markers": not 1, which is also what
#: Python exits with when it cannot import rolebook; the command `init` registers tells
#: the two apart (see scaffold.merge_driver).
CONFLICT = 3


def run(base: Path, ours: Path, theirs: Path, pathname: str | None) -> int:
    """Merge into `ours` as git expects: exit 0 when clean, CONFLICT when text conflicted.
    A notebook the driver cannot read (not UTF-8, say) is merged as text by `git
    merge-file`, its markers left for a person: never `ours` kept as it was."""
    role = Path(pathname or ours.name).name.removesuffix(".md")
    if not is_role(role):
        role = "unknown"
    raw = [p.read_bytes() for p in (base, ours, theirs)]
    why = "the text around the entries conflicted"
    try:
        o, a, b = (data.decode("utf-8") for data in raw)
        text, conflict = merge(o, a, b, role)
        data = text.encode("utf-8")
    except (UnicodeDecodeError, RecursionError, ValueError) as exc:
        why = f"cannot merge it by entries ({exc.__class__.__name__}): merged as text, conflicts marked"
        done = subprocess.run(
            ["git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", str(ours), str(base), str(theirs)],
            capture_output=True,
        )
        data, conflict = done.stdout, True
        if done.returncode >= 128:  # git could not merge them either: git reports the conflict
            data = raw[1]
            why = f"cannot merge it by entries, nor as text: {done.stderr.decode('utf-8', 'replace').strip()[:200]}"
    ours.write_bytes(data)
    if conflict:
        sys.stderr.write(f"rolebook merge-driver: {pathname or ours}: {why}\n")
    return CONFLICT if conflict else 0
