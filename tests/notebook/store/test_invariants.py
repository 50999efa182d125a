"""For any sequence of writes and hand edits: nothing lost, caps held, foreign text kept."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rolebook.notebook.errors import InputError, NoMatch
from rolebook.notebook.limits import Limits, prune
from rolebook.notebook.markdown import parse
from rolebook.notebook.model import TITLES, entry_id
from rolebook.notebook.store.archive import ArchiveRecord, read_records
from rolebook.notebook.store.changes import obsolete, tidy, update
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout

LIMITS = Limits(lines=24, mistakes=3, learnings=3, session_log=2)
ROLE = "coder"

_dates = st.dates(min_value=__import__("datetime").date(2026, 1, 1), max_value=__import__("datetime").date(2026, 1, 20))
_sections = st.sampled_from(list(TITLES))
_words = st.sampled_from(["npm", "cache", "deploy", "lock", "retry", "timeout", "schema", "font"])
_text = st.lists(_words, min_size=1, max_size=4).map(" ".join)
_entry = st.tuples(_sections, _dates.map(str), _text)
_op = st.one_of(
    st.tuples(st.just("update"), st.lists(_entry, min_size=1, max_size=6)),
    st.tuples(st.just("hand_entry"), _entry),
    st.tuples(st.just("hand_prose"), st.sampled_from(["Some prose.", "<!-- a note -->", "> quoted", "| a | b |"])),
    st.tuples(st.just("tidy"), st.none()),
    st.tuples(st.just("obsolete"), _words),
)


@settings(max_examples=60 if os.environ.get("HYPOTHESIS_PROFILE") != "long" else 3000)
@given(st.lists(_op, min_size=1, max_size=12))
def test_nothing_is_lost_caps_hold_and_foreign_text_stays(ops: list[tuple[str, object]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        layout = Layout.default(Path(tmp))
        path = layout.notebook_path(ROLE)
        ever: set[str] = set()
        prose: list[str] = []
        for kind, arg in ops:
            if kind == "update":
                entries = [new_entry(s, t, d) for s, d, t in arg]  # type: ignore[attr-defined]
                update(layout, ROLE, entries, LIMITS, Writer())
                ever |= {e.id(ROLE) for e in entries}
            elif kind in ("hand_entry", "hand_prose") and path.exists():
                text = path.read_text(encoding="utf-8")
                if kind == "hand_entry":
                    section, date, body = arg  # type: ignore[misc]
                    heading = f"## {TITLES[section]}\n"
                    if heading not in text:
                        continue
                    text = text.replace(heading, f"{heading}- [{date}] {body}\n", 1)
                    ever.add(entry_id(ROLE, section, date, body))
                else:
                    marker = f"{arg} #{len(prose)}"
                    prose.append(marker)
                    text = text.replace("## Feedback\n", f"## Feedback\n\n{marker}\n\n", 1)
                path.write_text(text, encoding="utf-8")
                continue
            elif kind == "tidy":
                tidy(layout, ROLE, LIMITS, Writer())
            elif kind == "obsolete":
                before = path.read_bytes() if path.exists() else None
                try:
                    obsolete(layout, ROLE, str(arg), LIMITS, Writer())
                except (NoMatch, InputError):  # none or several match: refused, nothing written
                    assert (path.read_bytes() if path.exists() else None) == before
                    continue
            if not path.exists():
                continue
            nb = parse(path.read_text(encoding="utf-8"))
            # caps held: after any write there is nothing left to prune
            assert prune(nb, LIMITS)[1] == []
            last_op: dict[str, str] = {}
            for _, _, rec in read_records(layout.archive_path(ROLE)):
                assert isinstance(rec, ArchiveRecord)
                last_op[rec.id] = rec.op
            live = [e.id(ROLE) for e in nb.entries()]
            # the archive is the journal: every active entry's last word is "added"
            assert all(last_op.get(i) == "added" for i in live)
            # nothing lost: every entry ever written is active or archived
            assert ever <= set(live) | set(last_op)
            text = path.read_text(encoding="utf-8")
            for marker in prose:
                assert marker in text
