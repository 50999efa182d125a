"""`rolebook export` carries each role's failure journal and `import rolebook` restores it:
moving a root loses no failure, link or seen record, nor a line rolebook does not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.agents.config import load_config
from rolebook.agents.importers import run as importing
from rolebook.agents.session.failures import seen
from rolebook.notebook.search import failure_of
from typer.testing import CliRunner

from tests.agents.test_failure_loop import AGAIN, FIRST, LESSON, NEAR
from tests.roots import canonical, project

runner = CliRunner()
JOURNAL = "agents/state/archive/failures/{}.jsonl"
#: lines another rolebook (or hand) wrote: a record type this one does not know, spaced
#: JSON, a line that is not JSON, one ending in a carriage return
FOREIGN = b'{"type":"lesson-rated","failure":"f0","stars":4}\n{"type": "seen", "failure": "f0"}\nnot json\r\n'


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def failures_of(root: Path) -> dict[str, object]:
    code, out, err = rb(root, "stats", "coder", "--json")
    assert code == 0, err
    return json.loads(out)["roles"][0]["failures"]


def seeded(root: Path) -> Path:
    """A root whose coder saw failures (one answered by a lesson, one recognised and shown,
    one withheld on purpose, one of another kind), and whose journal holds foreign lines."""
    project(root)
    assert rb(root, "init", "coder")[0] == 0
    layout = load_config(root).layout
    seen(layout, "coder", "s-1", failure_of(*FIRST, 1), *FIRST)
    assert rb(root, "--session", "s-1", "update", "coder", "-m", LESSON)[0] == 0
    seen(layout, "coder", "s-2", failure_of(*AGAIN, 1), *AGAIN)
    seen(layout, "coder", "s-3", failure_of(*AGAIN, 1), *AGAIN, 1.0)  # withheld
    seen(layout, "coder", "s-4", failure_of(*NEAR, 1), *NEAR)
    with open(root / JOURNAL.format("coder"), "ab") as f:
        f.write(FOREIGN)
    return root


def test_export_then_import_gives_back_the_failure_journal_byte_for_byte_and_its_figures(tmp_path: Path) -> None:
    old = seeded(tmp_path / "old")
    kinds = [json.loads(x).get("type") for x in (old / JOURNAL.format("coder")).read_bytes().splitlines()[:-1]]
    assert {"failure", "link", "seen"} <= set(kinds)
    code, dump, _ = rb(old, "export")
    assert code == 0 and sum('"failures":"coder"' in x for x in dump.splitlines()) == len(kinds) + 1
    (tmp_path / "dump.jsonl").write_text(dump, encoding="utf-8")
    new = project(tmp_path / "new")
    code, out, err = rb(new, "import", "rolebook", str(tmp_path / "dump.jsonl"))
    assert code == 0, err
    assert f"{len(kinds) + 1} failure journal lines" in out
    assert (new / JOURNAL.format("coder")).read_bytes() == (old / JOURNAL.format("coder")).read_bytes()
    assert canonical(new) == canonical(old)
    assert failures_of(new) == failures_of(old) and failures_of(old)["seen"] == 4
    assert rb(new, "export")[1].splitlines()[1:] == dump.splitlines()[1:]  # exported again: the same stream

    code, out, _ = rb(new, "import", "rolebook", str(tmp_path / "dump.jsonl"))  # twice: nothing added
    assert code == 0 and "failure journal" not in out and canonical(new) == canonical(old)


@pytest.mark.parametrize("batch", [2, importing.BATCH])
def test_an_import_into_a_root_with_a_journal_adds_only_the_lines_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    monkeypatch.setattr(importing, "BATCH", batch)  # 2: the journal comes in several batches
    old = seeded(tmp_path / "old")
    (tmp_path / "dump.jsonl").write_text(rb(old, "export")[1], encoding="utf-8")
    new = project(tmp_path / "new")
    assert rb(new, "init", "coder")[0] == 0
    theirs = (old / JOURNAL.format("coder")).read_bytes().splitlines(keepends=True)
    own = b'{"type":"seen","failure":"f-own","session":"s-9","at":"2026-01-02T00:00:00Z","lessons":[]}\n'
    (new / JOURNAL.format("coder")).parent.mkdir(parents=True)
    (new / JOURNAL.format("coder")).write_bytes(theirs[0] + own + theirs[3])
    code, out, err = rb(new, "import", "rolebook", str(tmp_path / "dump.jsonl"))
    assert code == 0, err
    assert f"{len(theirs) - 2} failure journal lines" in out and "; 2 already there" in out
    lines = (new / JOURNAL.format("coder")).read_bytes().splitlines(keepends=True)
    assert lines[:3] == [theirs[0], own, theirs[3]] and sorted(lines) == sorted([own, *theirs])
    assert failures_of(new) == failures_of(old)


def test_a_role_that_only_saw_failures_is_exported_and_a_secret_in_its_journal_is_redacted_coming_in(
    tmp_path: Path,
) -> None:
    old = project(tmp_path / "old")
    assert rb(old, "init", "coder")[0] == 0
    journal = old / JOURNAL.format("qa")
    journal.parent.mkdir(parents=True)
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    journal.write_text(
        json.dumps({"type": "failure", "id": "f1", "session": "s", "at": "2026-01-01", "command": f"aws --key {key}"})
        + "\n{torn: "
        + key,
        encoding="utf-8",
    )
    code, dump, _ = rb(old, "export")
    assert code == 0 and json.loads(dump.splitlines()[0])["roles"] == ["coder", "qa"]
    (tmp_path / "dump.jsonl").write_text(dump, encoding="utf-8")
    new = project(tmp_path / "new")
    code, out, err = rb(new, "import", "rolebook", str(tmp_path / "dump.jsonl"))
    assert code == 0 and "qa: added 0 notebook entries, 0 archived, 2 failure journal lines" in out
    assert "aws-access-key" in err
    restored = (new / JOURNAL.format("qa")).read_text(encoding="utf-8")
    assert key not in restored and restored.count("[REDACTED:aws-access-key]") == 2 and restored.count("\n") == 2
    assert not (new / "agents/state/memory/qa.md").exists()
    code, out, err = rb(new, "import", "rolebook", str(tmp_path / "dump.jsonl"))
    assert code == 0 and "qa: added 0 notebook entries, 0 archived; 2 already there" in out
