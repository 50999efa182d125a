"""The one write path: journal first, then the notebook; retries, crashes, refusals."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from rolebook.notebook.errors import InputError, NoMatch, ScopeError, StorageError
from rolebook.notebook.limits import Limits
from rolebook.notebook.markdown import parse
from rolebook.notebook.store import journal
from rolebook.notebook.store.archive import ArchiveRecord, read_records
from rolebook.notebook.store.changes import obsolete, tidy, update
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout


def records(layout: Layout, role: str = "coder") -> list[ArchiveRecord]:
    return [r for _, _, r in read_records(layout.archive_path(role)) if isinstance(r, ArchiveRecord)]


def active(layout: Layout, role: str = "coder") -> list[str]:
    return [e.text for e in parse(layout.notebook_path(role).read_text(encoding="utf-8")).entries()]


def mistakes(*texts: str, date: str = "2026-03-01") -> list:
    return [new_entry("mistakes", t, date) for t in texts]


def test_update_journals_every_entry_as_added(layout: Layout, limits: Limits) -> None:
    result = update(layout, "coder", mistakes("a", "b"), limits, Writer(session="s1"))
    assert [(r.op, r.text, r.session) for r in records(layout)] == [("added", "a", "s1"), ("added", "b", "s1")]
    assert active(layout) == ["a", "b"]
    assert result.summary() == "coder: +2 entries, 11/80 lines"


def test_retried_update_writes_nothing_twice(layout: Layout, limits: Limits) -> None:
    update(layout, "coder", mistakes("a"), limits, Writer())
    before = (layout.archive_path("coder").read_bytes(), layout.notebook_path("coder").read_bytes())
    again = update(layout, "coder", mistakes("a", "A  "), limits, Writer())
    assert again.added == () and len(again.duplicates) == 2 and not again.changed
    assert (layout.archive_path("coder").read_bytes(), layout.notebook_path("coder").read_bytes()) == before


def test_update_moves_oldest_mistake_to_archive(layout: Layout) -> None:
    update(
        layout,
        "coder",
        [new_entry("mistakes", f"m{d}", f"2026-01-{d:02d}") for d in range(1, 4)],
        Limits(mistakes=2),
        Writer(),
    )
    assert active(layout) == ["m3", "m2"]
    assert [(r.op, r.text) for r in records(layout)][-1] == ("pruned", "m1")


def test_hand_typed_entries_are_journalled_before_they_can_be_pruned(layout: Layout) -> None:
    update(layout, "coder", mistakes("first"), Limits(), Writer())
    path = layout.notebook_path("coder")
    path.write_text(path.read_text().replace("## Mistakes\n", "## Mistakes\n- [2020-01-01] typed by hand\n"))
    update(layout, "coder", mistakes("second"), Limits(mistakes=2), Writer())
    ops = [(r.op, r.text, r.extra.get("origin")) for r in records(layout)]
    assert ops[1:] == [
        ("added", "typed by hand", "notebook"),
        ("added", "second", None),
        ("pruned", "typed by hand", None),
    ]


def test_an_entry_put_back_by_hand_is_journalled_again_and_stays(layout: Layout) -> None:
    update(layout, "coder", mistakes("gone"), Limits(), Writer())
    obsolete(layout, "coder", "gone", Limits(), Writer())
    path = layout.notebook_path("coder")
    path.write_text(path.read_text().replace("## Mistakes\n", "## Mistakes\n- [2026-03-01] gone\n"))
    tidy(layout, "coder", Limits(), Writer())
    assert active(layout) == ["gone"]
    assert [r.op for r in records(layout)] == ["added", "obsolete", "added"]


def test_a_crash_between_archive_and_notebook_is_finished_by_the_next_write(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    update(layout, "coder", [new_entry("mistakes", "old", "2026-01-01")], Limits(), Writer())

    def crash(self: object, why: str) -> None:
        raise KeyboardInterrupt("killed after the archive append")

    monkeypatch.setattr(journal.Replacement, "commit", crash)
    with pytest.raises(KeyboardInterrupt):
        update(layout, "coder", [new_entry("mistakes", "new", "2026-02-01")], Limits(mistakes=1), Writer())
    monkeypatch.undo()
    assert active(layout) == ["old"]  # the notebook was never replaced ...
    assert [(r.op, r.text) for r in records(layout)][-2:] == [
        ("added", "new"),
        ("pruned", "old"),
    ]  # ... the journal was

    tidy(layout, "coder", Limits(mistakes=1), Writer())
    assert active(layout) == ["new"]
    assert [(r.op, r.text) for r in records(layout)][-2:] == [("added", "new"), ("pruned", "old")]
    assert not (layout.derived / "pending" / "coder.json").exists()


def test_a_retry_after_a_crash_puts_the_entry_back_without_a_second_record(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(journal.Replacement, "commit", lambda self, why: (_ for _ in ()).throw(OSError("disk gone")))
    with pytest.raises(StorageError, match="disk gone"):
        update(layout, "coder", mistakes("a"), Limits(), Writer())
    monkeypatch.undo()
    (layout.derived / "pending" / "coder.json").unlink()  # even with the pending note lost
    update(layout, "coder", mistakes("a"), Limits(), Writer())
    assert active(layout) == ["a"]
    assert [r.op for r in records(layout)] == ["added"]


def test_obsolete_by_id_prefix_and_by_words(layout: Layout, limits: Limits) -> None:
    result = update(layout, "coder", mistakes("use node 20", "pin the lockfile"), limits, Writer())
    node_id = result.added[0].id("coder")
    obsolete(layout, "coder", f"#{node_id[:6]}", limits, Writer())
    obsolete(layout, "coder", "LOCKFILE", limits, Writer())
    assert active(layout) == []
    assert [r.op for r in records(layout)] == ["added", "added", "obsolete", "obsolete"]


def test_obsolete_with_no_match_or_several_matches_changes_nothing(layout: Layout, limits: Limits) -> None:
    update(layout, "coder", mistakes("npm one", "npm two"), limits, Writer())
    before = layout.archive_path("coder").read_bytes()
    with pytest.raises(NoMatch):
        obsolete(layout, "coder", "yarn", limits, Writer())
    with pytest.raises(InputError, match="matches 2 entries"):
        obsolete(layout, "coder", "npm", limits, Writer())
    assert layout.archive_path("coder").read_bytes() == before


def test_a_scoped_writer_may_not_write_another_role(layout: Layout, limits: Limits) -> None:
    with pytest.raises(ScopeError):
        update(layout, "designer", mistakes("x"), limits, Writer(by="coder"))
    assert not layout.notebook_path("designer").exists()
    update(layout, "coder", mistakes("x"), limits, Writer(by="coder"))
    assert records(layout)[0].by == "coder"


def test_an_unclosed_fence_that_would_hide_new_entries_is_refused(layout: Layout, limits: Limits) -> None:
    path = layout.notebook_path("coder")
    path.parent.mkdir(parents=True)
    path.write_text("## Mistakes\n- [2026-01-01] a\n```\nnever closed\n")
    with pytest.raises(InputError, match="unclosed code fence") as err:
        update(layout, "coder", [new_entry("learnings", "x", "2026-02-01")], limits, Writer())
    assert err.value.line is not None
    assert path.read_text() == "## Mistakes\n- [2026-01-01] a\n```\nnever closed\n"
    assert not layout.archive_path("coder").exists()


def test_a_notebook_that_is_not_utf8_is_refused_untouched(layout: Layout, limits: Limits) -> None:
    path = layout.notebook_path("coder")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"## Mistakes\n- [2026-01-01] caf\xe9\n")
    with pytest.raises(InputError) as err:
        update(layout, "coder", mistakes("x"), limits, Writer())
    assert str(err.value) == f"{path}:2: not UTF-8 text; fix or remove the bad bytes"
    assert path.read_bytes() == b"## Mistakes\n- [2026-01-01] caf\xe9\n"


def test_a_symlinked_notebook_pointing_outside_the_root_is_refused(tmp_path: Path, limits: Limits) -> None:
    layout = Layout.default(tmp_path / "root")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("## Mistakes\n")
    layout.memory.mkdir(parents=True)
    layout.notebook_path("coder").symlink_to(outside)
    with pytest.raises(InputError, match="outside the root"):
        update(layout, "coder", mistakes("x"), limits, Writer())
    assert outside.read_text() == "## Mistakes\n"


@pytest.mark.load
def test_ten_thousand_entries_in_one_update_keep_every_one(layout: Layout, limits: Limits) -> None:
    today = dt.date.today()  # dates before today: a fixed year becomes a refused future one
    entries = [
        new_entry("learnings", f"learning number {i}", (today - dt.timedelta(days=i // 365 * 365)).isoformat())
        for i in range(10_000)
    ]
    result = update(layout, "coder", entries, limits, Writer())
    assert len(result.added) == 10_000
    assert len(active(layout)) == 20
    ops = [r.op for r in records(layout)]
    assert ops.count("added") == 10_000 and ops.count("pruned") == 9_980


def test_pending_file_that_is_garbage_is_ignored(layout: Layout, limits: Limits) -> None:
    pending = layout.derived / "pending" / "coder.json"
    pending.parent.mkdir(parents=True)
    pending.write_text("{not json")
    update(layout, "coder", mistakes("a"), limits, Writer())
    assert active(layout) == ["a"]
    assert not pending.exists()
    assert json.loads(layout.archive_path("coder").read_text())["text"] == "a"
