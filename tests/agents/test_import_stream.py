"""An import streams: it checks the whole source, then writes it a batch at a time, so a
source of any size is never held whole. Batches are made tiny here, so that a handful of
records spans several of them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.agents.importers import run as importing
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from roots import canonical, project

runner = CliRunner()


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    project(root)
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def tiny_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importing, "BATCH", 2)


def journal(path: Path, n: int, tail: str = "") -> Path:
    path.mkdir(parents=True)
    lines = [
        json.dumps({"id": f"m{i}", "ts": f"2026-01-{1 + i:02d}T10:00:00Z", "kind": "note", "summary": f"note {i}"})
        for i in range(n)
    ]
    (path / "journal.jsonl").write_text("\n".join([*lines, tail]) + "\n", encoding="utf-8")
    return path


def test_a_bad_line_after_several_batches_still_leaves_everything_unwritten(tmp_path: Path, tiny_batches: None) -> None:
    src = journal(tmp_path / "src", 7, tail='{"ts": "2026-02-01", "kind": "rant", "summary": "x"}')
    code, _, err = rb(tmp_path / "root", "import", "memcache", str(src), "--role", "coder")
    assert code == 2 and f"{src / 'journal.jsonl'}:8: " in err and "nothing was written" in err
    assert canonical(tmp_path / "root") == {}
    code, out, _ = rb(tmp_path / "root", "import", "memcache", str(src), "--role", "coder", "--skip-bad")
    assert code == 0 and out.startswith("coder: added 0 notebook entries, 7 archived")


def test_a_source_bigger_than_a_batch_is_written_whole_and_once(tmp_path: Path, tiny_batches: None) -> None:
    src = journal(tmp_path / "src", 7)
    code, out, _ = rb(tmp_path / "root", "import", "memcache", str(src), "--role", "coder", "--dry-run")
    assert code == 0 and out.startswith("coder: would add 0 notebook entries, 7 archived")
    code, out, _ = rb(tmp_path / "root", "import", "memcache", str(src), "--role", "coder")
    assert code == 0 and out.startswith("coder: added 0 notebook entries, 7 archived")
    archive = (tmp_path / "root/agents/state/archive/coder.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["text"] for line in archive) == [f"note {i}" for i in range(7)]
    code, out, _ = rb(tmp_path / "root", "import", "memcache", str(src), "--role", "coder", "--dry-run")
    assert code == 0 and "would add 0 notebook entries, 0 archived; 7 already there" in out


def test_notebook_entries_past_a_batch_reach_the_notebook_in_date_order(tmp_path: Path, tiny_batches: None) -> None:
    lessons = tmp_path / "coder.md"
    lessons.write_text(
        "# coder\n\n## Learnings\n" + "".join(f"- [2026-01-{d:02d}] learning {d}\n" for d in range(1, 6)),
        encoding="utf-8",
    )
    code, out, err = rb(tmp_path / "root", "import", "markdown", str(lessons))
    assert code == 0, err
    assert out.startswith("coder: added 5 notebook entries")
    nb = (tmp_path / "root/agents/state/memory/coder.md").read_text(encoding="utf-8")
    assert [ln for ln in nb.splitlines() if ln.startswith("- ")] == [
        f"- [2026-01-{d:02d}] learning {d}" for d in range(5, 0, -1)
    ]


def test_an_export_bigger_than_a_batch_restores_the_same_files(tmp_path: Path, tiny_batches: None) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for n in range(5):
        assert rb(a, "store", "coder", "gotchas", f"gotcha number {n}")[0] == 0
    assert rb(a, "update", "coder", "-m", "forgot the lockfile; commit it", "-l", "pnpm needs a lockfile")[0] == 0
    assert rb(a, "export", "-o", str(tmp_path / "x.jsonl"))[0] == 0
    code, out, err = rb(b, "import", "rolebook", str(tmp_path / "x.jsonl"))
    assert code == 0, err
    assert "notebook restored" in out
    assert canonical(b) == canonical(a)
    code, out, _ = rb(b, "import", "rolebook", str(tmp_path / "x.jsonl"))
    assert code == 0 and "0 archived" in out and canonical(b) == canonical(a)


def test_each_batch_written_is_reported_as_it_is_written(tmp_path: Path, tiny_batches: None) -> None:
    from rolebook.agents.config import load_config
    from rolebook.agents.importers import READERS, Source
    from rolebook.agents.session import open_session

    src = journal(tmp_path / "src", 5)
    assert rb(tmp_path / "root", "init", "coder")[0] == 0
    session = open_session(load_config(tmp_path / "root"))
    seen: list[tuple[str, int]] = []
    writing = importing._Writer(session, "coder", lambda role, n: seen.append((role, n)))
    READERS["memcache"](src, Source(sink=writing.add))
    assert seen == [("coder", 2), ("coder", 2)]  # two full batches while reading
    writing.close()
    assert seen == [("coder", 2), ("coder", 2), ("coder", 1)] and writing.roles["coder"].items == 5


def test_an_import_with_nowhere_to_go_says_so_before_it_reads_a_line(tmp_path: Path) -> None:
    """No project, or a role given outright that the project does not know: said at once,
    before the source is read (every line of this one is bad: reading it would say so first)."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "journal.jsonl").write_text("not json\n" * 1000, encoding="utf-8")
    bare = tmp_path / "bare"
    bare.mkdir()
    done = runner.invoke(app, ["--root", str(bare), "import", "memcache", str(source), "--role", "coder"])
    assert done.exit_code == 2
    assert "no rolebook project" in done.stderr and "bad line" not in done.stderr
    done = runner.invoke(app, ["--root", str(bare), "import", "memcache", str(source)])
    assert done.exit_code == 2 and "no rolebook project" in done.stderr and "bad line" not in done.stderr
    assert list(bare.iterdir()) == []
    code, _, err = rb(tmp_path / "proj", "import", "memcache", str(source), "--role", "codr")
    assert code == 2 and "no role 'codr'" in err and "bad line" not in err
    assert canonical(tmp_path / "proj") == {}
    code, _, err = rb(tmp_path / "proj", "import", "memcache", str(source), "--dry-run")  # a dry run reads
    assert code == 2 and "bad line" in err
