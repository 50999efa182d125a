"""The archive: records round-trip with unknown fields, bad lines are reported, never dropped."""

from __future__ import annotations

import json
from pathlib import Path

from rolebook.notebook.store.archive import ArchiveRecord, MalformedLine, append_records, read_records
from rolebook.notebook.store.index import Index
from rolebook.notebook.store.layout import Layout


def record(text: str = "t", op: str = "added", **extra: object) -> ArchiveRecord:
    return ArchiveRecord(
        id=f"id-{text}",
        op=op,
        role="coder",
        section="mistakes",
        date="2026-01-01",
        text=text,
        at="2026-01-01T00:00:00Z",
        extra=extra,
    )


def test_unknown_fields_survive_a_read_and_a_write(tmp_path: Path) -> None:
    line = {
        "v": 1,
        "id": "a",
        "op": "added",
        "role": "coder",
        "section": "mistakes",
        "date": "2026-01-01",
        "text": "x",
        "count": 2,
        "at": "",
        "future_field": {"nested": [1, 2]},
        "by": "coder",
    }
    parsed = ArchiveRecord.from_dict(line)
    assert parsed.extra == {"future_field": {"nested": [1, 2]}}
    assert json.loads(parsed.to_line()) == {**line, "session": None}  # provenance keys always there


def test_malformed_lines_are_reported_with_path_and_line_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "coder.jsonl"
    path.write_text(record("a").to_line() + "{not json\n" + "[1,2]\n" + '{"op":"added"}\n' + record("b").to_line())
    items = [item for _, _, item in read_records(path)]
    assert [i.text for i in items if isinstance(i, ArchiveRecord)] == ["a", "b"]
    bad = [str(i) for i in items if isinstance(i, MalformedLine)]
    assert bad == [
        f"{path}:2: not JSON (JSONDecodeError)",
        f"{path}:3: not a JSON object",
        f"{path}:4: field 'id' missing or not a string",
    ]
    assert path.read_text().count("\n") == 5  # nothing was rewritten


def test_append_after_a_torn_line_keeps_both_lines_apart(tmp_path: Path) -> None:
    path = tmp_path / "coder.jsonl"
    path.write_text(record("a").to_line() + '{"v":1,"id":"cut sho')
    append_records(path, [record("b")])
    lines = path.read_text().splitlines()
    assert lines[1] == '{"v":1,"id":"cut sho'
    assert json.loads(lines[2])["text"] == "b"


def test_a_last_line_still_being_written_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "coder.jsonl"
    path.write_text(record("a").to_line() + '{"v":1,"id":"half')
    assert [i.text for _, _, i in read_records(path) if isinstance(i, ArchiveRecord)] == ["a"]


def test_a_whole_last_record_without_newline_is_read(tmp_path: Path) -> None:
    path = tmp_path / "coder.jsonl"
    path.write_text(record("a").to_line() + record("b").to_line().rstrip("\n"))
    assert [i.text for _, _, i in read_records(path) if isinstance(i, ArchiveRecord)] == ["a", "b"]


def test_index_reads_only_appended_lines_and_notices_a_rewrite(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    path = layout.archive_path("coder")
    append_records(path, [record("a")])
    with Index(layout) as index:
        index.sync("coder")
        assert index.states(["id-a"])["id-a"].op == "added"
        append_records(path, [record("a", op="pruned"), record("b")])
        index.sync("coder")
        assert index.states(["id-a"])["id-a"].op == "pruned"
        path.write_text(record("c").to_line())  # rewritten, as a merge or a hand edit might
        index.sync("coder")
        assert set(index.states(["id-a", "id-b", "id-c"])) == {"id-c"}


def test_index_reports_malformed_lines_with_their_real_line_numbers(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    path = layout.archive_path("coder")
    append_records(path, [record("a"), record("b")])
    with Index(layout) as index:
        index.sync("coder")
        with open(path, "a") as f:
            f.write("garbage\n")
        index.sync("coder")
        assert [(m.line, m.reason) for m in index.malformed("coder")] == [(3, "not JSON (JSONDecodeError)")]


def test_a_corrupt_index_file_is_rebuilt_from_the_archive(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    append_records(layout.archive_path("coder"), [record("a")])
    layout.derived.mkdir(parents=True)
    (layout.derived / "index.sqlite").write_bytes(b"this is not a database" * 100)
    with Index(layout) as index:
        index.sync("coder")
        assert index.states(["id-a"])["id-a"].op == "added"
