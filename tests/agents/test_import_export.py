"""import (each format), export, and the round trip between them, through the command line."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.agents.importers import read_markdown
from rolebook.notebook.store.intake import redact
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from roots import canonical, project

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "importers"
runner = CliRunner()


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def records(root: Path, role: str) -> list[dict]:
    path = root / "agents" / "state" / "archive" / f"{role}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "src" / src.name
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        dst.parent.mkdir(parents=True)
        shutil.copy(src, dst)
    return dst


# -- each format, on fixtures from its documentation or made by its real tool --------------


def test_cerebro_home_from_the_real_tool_keeps_roles_categories_tags_and_dates(tmp_path: Path) -> None:
    code, out, err = rb(tmp_path, "import", "cerebro", str(FIX / "cerebro"))
    assert code == 0, err
    assert "coder: added 5 notebook entries, 4 archived" in out
    assert "designer: added 0 notebook entries, 2 archived" in out
    stored = {r["text"]: r for r in records(tmp_path, "coder") if r["op"] == "stored"}
    gotcha = stored["Run migrations before seeding the test database"]
    assert (gotcha["section"], gotcha["tags"], gotcha["source"]) == ("gotchas", ["db", "tests"], "cerebro")
    assert gotcha["original"]["created_at"] == gotcha["date"]
    superseded = stored["Rewriting the ORM layer for speed: tried twice, no gain"]
    assert superseded["invalidated"] == "Superseded by corrected memory"
    assert superseded["original"]["superseded_by"] == 6
    designer = {r["section"] for r in records(tmp_path, "designer")}
    assert designer == {"rejected_designs", "learnings_longterm"}  # a section's name is not a category
    notebook = (tmp_path / "agents/state/memory/coder.md").read_text(encoding="utf-8")
    assert "- [2026-03-02] Forgot to await the session close in async tests. (x2)" in notebook
    assert '## Feedback\n- [2026-02-20] "Ship smaller pull requests."' in notebook
    added = [r for r in records(tmp_path, "coder") if r["op"] == "added"]
    assert {r["source"] for r in added} == {"markdown"} and len(added) == 5


def test_xmem_failures_and_successes_become_logged_events_with_their_hash_and_outcome(tmp_path: Path) -> None:
    code, out, err = rb(tmp_path, "import", "xmem", str(FIX / "xmem"), "--role", "coder")
    assert code == 0, err
    assert "coder: added 0 notebook entries, 3 archived" in out
    by_hash = {r["ctx_hash"]: r for r in records(tmp_path, "coder")}
    rclone = by_hash["rclone-sync-config-not-found"]
    assert (rclone["op"], rclone["type"], rclone["date"]) == ("logged", "error", "2026-02-14")
    assert rclone["text"] == "Verify remote name exists before sync"
    assert rclone["original"]["tried_also"] == ["rclone ls gdrive-jimmy:", "rclone config show"]
    assert rclone["source"] == "xmem" and rclone["source_id"] == "2026-02-14-001"
    git = by_hash["git-commit-heredoc"]
    assert git["type"] == "success" and git["outcome"] == "11/12"  # confidence 0.95 of 12 uses
    assert git["text"].startswith("Atomic commit with Co-Authored-By: Stage specific files only")
    code, out, _ = rb(tmp_path, "search", "rclone remote", "--json")
    assert code == 0 and json.loads(out)["hits"][0]["text"] == "Verify remote name exists before sync"


def test_agent_knowledge_events_take_their_role_from_agent_id_or_need_one(tmp_path: Path) -> None:
    code, _, err = rb(tmp_path, "import", "agent-knowledge", str(FIX / "agent-knowledge"))
    assert code == 2
    assert "gptcoach2.jsonl:3): pass --role ROLE" in err  # agent_id "Claude Code" is no role name
    assert records(tmp_path, "coder") == []
    code, _out, err = rb(tmp_path, "import", "agent-knowledge", str(FIX / "agent-knowledge"), "--role", "coder")
    assert code == 0, err
    events = {r["type"]: r for r in records(tmp_path, "coder")}
    assert events["success"]["outcome"] == "4/5" and events["success"]["date"] == "2025-11-02"
    assert events["error"]["command"] == "sudo chown -R $USER . && npm ci"
    assert events["pattern"]["original"]["agent_id"] == "Claude Code" and "outcome" not in events["pattern"]


def test_memcache_journal_records_become_stored_items_by_kind(tmp_path: Path) -> None:
    code, _out, err = rb(tmp_path, "import", "memcache", str(FIX / "memcache"), "--role", "coder")
    assert code == 0, err
    stored = {r["source_id"]: r for r in records(tmp_path, "coder")}
    decision = stored["m4u7kq3x2vjn5a6b"]
    assert (decision["section"], decision["date"]) == ("decision", "2026-03-14")  # RFC 3339 nanoseconds
    assert decision["text"] == "Keep store under .agents/.memcache\nTracked in git so memory moves with the repo."
    assert decision["original"]["importance"] == 3
    assert stored["p0o9i8u7y6t5r4e3"]["original"]["metadata"]["memcache_compaction"]["entry_ids"]
    # the store folder, its journal and one journal file are all accepted
    journal = FIX / "memcache" / ".agents" / ".memcache" / "journal"
    assert rb(tmp_path, "import", "memcache", str(journal), "--role", "coder")[1].endswith("4 already there\n")


def test_mcp_memory_graph_from_the_real_server_keeps_every_observation_and_relation(tmp_path: Path) -> None:
    code, _out, err = rb(tmp_path, "import", "mcp-memory", str(FIX / "mcp-memory" / "memory.jsonl"), "--role", "coder")
    assert code == 0, err
    texts = sorted(r["text"] for r in records(tmp_path, "coder"))
    assert texts == [
        "Dana (person): reviews every migration",
        "Dana maintains upload-client",
        "staging (environment): reset every Monday",
        "upload-client (module): retries 3 times with backoff",
        "upload-client (module): times out after 30 s",
    ]
    assert "no dates" in err


@pytest.mark.parametrize(
    ("fmt", "src", "role"),
    [
        ("cerebro", FIX / "cerebro", None),
        ("xmem", FIX / "xmem", "coder"),
        ("agent-knowledge", FIX / "agent-knowledge", "coder"),
        ("memcache", FIX / "memcache", "coder"),
        ("mcp-memory", FIX / "mcp-memory" / "memory.jsonl", "coder"),
    ],
)
def test_importing_the_same_source_twice_adds_nothing(
    declare: Callable[[Path], Path], tmp_path: Path, fmt: str, src: Path, role: str | None
) -> None:
    args = ["import", fmt, str(src)] + (["--role", role] if role else [])
    assert rb(declare(tmp_path / "root"), *args)[0] == 0
    before = canonical(tmp_path / "root")
    code, out, _ = rb(tmp_path / "root", *args)
    assert code == 0 and "added 0 notebook entries, 0 archived" in out
    assert canonical(tmp_path / "root") == before


# -- bad lines: reported as path:line, nothing written unless --skip-bad ---------------------


BROKEN = [
    ("xmem", "xmem/data/failures.jsonl", '{"ts": "yesterday", "pattern_avoid": "x"}', "field 'ts' is not an ISO date"),
    ("xmem", "xmem/data/failures.jsonl", '{"ts": "2099-01-01T10:00:00Z", "pattern_avoid": "x"}', "is in the future"),
    ("agent-knowledge", "agent-knowledge/logs/gptcoach2.jsonl", '{"event_type": "oops"', "not JSON"),
    (
        "memcache",
        "memcache/.agents/.memcache/journal/2026/03/15.jsonl",
        '{"ts": "2026-03-16", "kind": "rant"}',
        "'kind'",
    ),
    ("mcp-memory", "mcp-memory/memory.jsonl", '{"type": "entity", "name": "x", "observations": "no"}', "entityType"),
]


@pytest.mark.parametrize(("fmt", "file", "bad", "why"), BROKEN)
def test_a_bad_line_is_named_and_nothing_is_written(
    declare: Callable[[Path], Path], tmp_path: Path, fmt: str, file: str, bad: str, why: str
) -> None:
    src = copy(FIX / file.split("/")[0], tmp_path)
    broken = src.parent / file
    text = broken.read_text(encoding="utf-8")
    good = text.rstrip("\n").count("\n") + 1
    with open(broken, "a", encoding="utf-8") as f:
        f.write(("" if text.endswith("\n") else "\n") + bad + "\n")
    root = declare(tmp_path / "root")
    code, out, err = rb(root, "import", fmt, str(src), "--role", "coder")
    assert code == 2, out
    assert f"{broken}:{good + 1}: " in err and why in err
    assert "nothing was written" in err
    assert canonical(root) == {}
    code, out, err = rb(root, "import", fmt, str(src), "--role", "coder", "--skip-bad")
    assert code == 0 and f"skipped {broken}:{good + 1}" in err and "1 bad line(s) skipped" in out
    assert records(root, "coder")


def test_a_bad_cerebro_row_is_named_by_database_and_row(tmp_path: Path) -> None:
    import contextlib
    import sqlite3

    src = copy(FIX / "cerebro", tmp_path)
    with contextlib.closing(sqlite3.connect(src / "memory.sqlite3")) as db, db:  # closed, not left to the GC
        db.execute("INSERT INTO entries(role, category, text, created_at) VALUES ('Bad Role', 'x', 'y', '2026-01-01')")
    # in a project: where there is none, import says so before it reads the source
    code, _, err = rb(project(tmp_path / "root"), "import", "cerebro", str(src))
    assert code == 2 and f"{src / 'memory.sqlite3'}:7: role 'Bad Role' is not a role name" in err
    assert canonical(tmp_path / "root") == {}


def test_dry_run_counts_and_writes_nothing(tmp_path: Path) -> None:
    code, out, _ = rb(tmp_path, "import", "cerebro", str(FIX / "cerebro"), "--dry-run")
    assert code == 0
    assert "coder: would add 5 notebook entries, 4 archived" in out and "dry run: nothing was written" in out
    assert canonical(tmp_path) == {}


def test_unknown_format_and_missing_path_are_clear_errors(tmp_path: Path) -> None:
    code, _, err = rb(tmp_path, "import", "notion", str(tmp_path))
    assert code == 2 and "unknown format 'notion'" in err
    code, _, err = rb(tmp_path, "import", "xmem", str(tmp_path / "nope"), "--role", "coder")
    assert code == 2 and "no such file or folder" in err


def test_a_scoped_writer_cannot_import_into_another_role(tmp_path: Path) -> None:
    code, _, err = rb(tmp_path, "--as", "qa", "import", "xmem", str(FIX / "xmem"), "--role", "coder")
    assert code == 2 and "scoped to role 'qa'" in err
    assert canonical(tmp_path) == {}


# -- markdown: a hand-kept lessons file loses nothing --------------------------------------


def test_markdown_lessons_file_keeps_entries_undated_items_and_prose(
    declare: Callable[[Path], Path], tmp_path: Path
) -> None:
    lessons = tmp_path / "LESSONS.md"
    lessons.write_text(
        "---\nowner: platform\n---\n# Lessons\n\nWhat we learned the hard way.\n\n"
        "## Mistakes\n- [2026-01-05] Deployed on a Friday.\n- Forgot the changelog.\n\n"
        "## Architecture\nThe queue is at-least-once: make handlers idempotent.\n\n"
        "<!-- template comment -->\n",
        encoding="utf-8",
    )
    os.utime(lessons, (1767225600, 1767225600))  # 2026-01-01
    code, out, err = rb(declare(tmp_path / "root"), "import", "markdown", str(lessons), "--role", "ops")
    assert code == 0, err
    assert "ops: added 2 notebook entries, 2 archived" in out
    nb = (tmp_path / "root/agents/state/memory/ops.md").read_text(encoding="utf-8")
    assert "- [2026-01-05] Deployed on a Friday.\n- [2026-01-01] Forgot the changelog." in nb
    notes = sorted(r["text"] for r in records(tmp_path / "root", "ops") if r["op"] == "stored")
    assert notes == [
        "Architecture: The queue is at-least-once: make handlers idempotent.",
        "What we learned the hard way.",
    ]
    undated = [r for r in records(tmp_path / "root", "ops") if r.get("undated")]
    assert [r["text"] for r in undated] == ["Forgot the changelog."]


def test_every_line_of_the_real_notebooks_is_imported(corpus: Callable[..., Path]) -> None:
    """Each non-blank line of each real notebook lands in an item, but for the template:
    frontmatter, the `#` title, headings and HTML comments."""
    for path in sorted(corpus("notebooks").glob("*.md")):
        source = read_markdown(path)
        assert source.problems == [] or all("characters, over the cap" in str(p) for p in source.problems), path
        kept = "\n".join(i.text for i in source.items)
        text = path.read_text(encoding="utf-8-sig")
        body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
        in_comment = False
        for line in body.splitlines():
            s = line.strip()
            if s.startswith("<!--"):
                in_comment = "-->" not in s
                continue
            if in_comment:
                in_comment = "-->" not in s
                continue
            if not s or s.startswith("#"):
                continue
            s = redact(s)[0]  # secrets are redacted on the way in, as with every write
            words = [w for w in s.replace("[", " ").replace("]", " ").split() if len(w) > 3][:3]
            assert all(w in kept for w in words), f"{path.name}: {line!r}"


# -- export, and the round trip -------------------------------------------------------------


WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
    "november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee"
).split()


def seeded(root: Path) -> Path:
    root.mkdir()
    (root / "rolebook.yaml").write_text("roles: [coder, qa]\n")  # a project, its roles declared
    assert rb(root, "import", "cerebro", str(FIX / "cerebro"))[0] == 0
    assert rb(root, "import", "xmem", str(FIX / "xmem"), "--role", "coder")[0] == 0
    for n, word in enumerate(WORDS):
        rb(root, "update", "qa", "-m", f"{word} went wrong", "--date", f"2026-02-{n + 1:02d}")
    rb(root, "update", "qa", "-l", "retry the upload suite once before reporting", "--date", "2026-03-01")
    archive = root / "agents/state/archive/qa.jsonl"
    with open(archive, "ab") as f:
        f.write(b"{torn line, kept as it is\n")
    return root


QUERIES = ["flaky upload", "migrations", "rclone remote", "linter CI", "sticker", "retry", "ORM"]


def hits(root: Path) -> list[object]:
    out = []
    for q in QUERIES:
        code, text, _ = rb(root, "search", q, "--limit", "20", "--json")
        out.append((q, code, [(h["id"], h["status"], h["text"]) for h in json.loads(text)["hits"]] if text else []))
    return out


def test_export_then_import_into_an_empty_root_gives_the_same_files_and_search_results(
    declare: Callable[[Path], Path], tmp_path: Path
) -> None:
    old = seeded(tmp_path / "old")
    code, dump, _ = rb(old, "export")
    assert code == 0
    (tmp_path / "dump.jsonl").write_text(dump, encoding="utf-8")
    code, _, err = rb(declare(tmp_path / "new"), "import", "rolebook", str(tmp_path / "dump.jsonl"))
    assert code == 0, err
    assert canonical(tmp_path / "new") == canonical(old)  # malformed line included, byte for byte
    assert hits(tmp_path / "new") == hits(old)
    assert any(h for _, code, h in hits(old) if code == 0)
    code, _out, _ = rb(tmp_path / "new", "import", "rolebook", str(tmp_path / "dump.jsonl"))
    assert code == 0 and canonical(tmp_path / "new") == canonical(old)  # idempotent


def test_export_to_a_file_and_of_one_role(declare: Callable[[Path], Path], tmp_path: Path) -> None:
    old = seeded(tmp_path / "old")
    target = tmp_path / "qa.jsonl"
    assert rb(old, "export", "--role", "qa", "-o", str(target))[0] == 0
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["format"] == "rolebook-export" and lines[0]["roles"] == ["qa"]
    assert {line.get("archive") or line.get("notebook") for line in lines[1:]} == {"qa"}
    code, _, err = rb(declare(tmp_path / "new"), "import", "rolebook", str(target), "--role", "coder")
    assert code == 2 and "holds no role 'coder'" in err


def test_import_of_an_export_into_a_root_with_memory_merges_the_notebook(
    declare: Callable[[Path], Path], tmp_path: Path
) -> None:
    old = seeded(tmp_path / "old")
    (tmp_path / "dump.jsonl").write_text(rb(old, "export", "--role", "qa")[1], encoding="utf-8")
    new = declare(tmp_path / "new")
    rb(new, "update", "qa", "-m", "a mistake of the other root", "--date", "2026-03-05")
    code, out, err = rb(new, "import", "rolebook", str(tmp_path / "dump.jsonl"))
    assert code == 0, err
    nb = (new / "agents/state/memory/qa.md").read_text(encoding="utf-8")
    assert "a mistake of the other root" in nb and "retry the upload suite once" in nb
    assert "entries merged" in out


def test_a_file_that_is_not_an_export_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"hello": 1}\n', encoding="utf-8")
    code, _, err = rb(project(tmp_path / "root"), "import", "rolebook", str(bad))
    assert code == 2 and f"{bad}:1: not a rolebook export" in err


def test_markdown_export_shows_each_notebook_and_its_archive(tmp_path: Path) -> None:
    old = seeded(tmp_path / "old")
    code, out, _ = rb(old, "export", "--format", "markdown")
    assert code == 0
    assert "<!-- rolebook export: role qa -->" in out and "## Archive of qa" in out
    assert "- [2026-02-01] pruned mistakes: alpha went wrong `" in out
    assert "(1 malformed archive line(s) not shown" in out
    assert (old / "agents/state/memory/qa.md").read_text(encoding="utf-8") in out


def test_export_and_import_carry_the_rules_and_every_archive_byte(
    declare: Callable[[Path], Path], tmp_path: Path
) -> None:
    old = declare(tmp_path / "old")
    for day in ("2026-02-05", "2026-03-01", "2026-03-15"):
        text = "the speech bubble broke the die-cut; keep the bubble inside the outline"
        assert rb(old, "update", "designer", "-m", text, "--date", day)[0] == 0
    assert rb(old, "promote", "--yes")[0] == 0
    claude = old / "CLAUDE.md"
    # the rule reworded by hand, a rule line written with a star; a record written by another
    # hand (spaced, its é escaped, keys in another order) and a torn line in the archive
    claude.write_text(claude.read_text().replace("Keep the bubble inside the outline.", "Keep every bubble in."))
    archive = old / "agents/state/archive/designer.jsonl"
    with open(archive, "ab") as f:
        f.write(
            b'{"id": "a1b2c3d4e5f6", "v": 1, "op": "added", "role": "designer", "section": "learnings", '
            b'"date": "2026-03-20", "text": "caf\\u00e9 proofs go out on matte stock", "count": 1}\n'
            b"{torn line, kept as it is\n"
        )
    code, dump, _ = rb(old, "export")
    assert code == 0
    (tmp_path / "dump.jsonl").write_text(dump, encoding="utf-8")
    new = declare(tmp_path / "new")
    code, out, err = rb(new, "import", "rolebook", str(tmp_path / "dump.jsonl"))
    assert code == 0, err
    assert "1 rule line(s) written to" in out + err
    assert canonical(new) == canonical(old)  # every archive line byte for byte: nothing added
    block = [x for x in claude.read_text().splitlines() if "_(designer; incidents" in x]
    assert [x for x in (new / "CLAUDE.md").read_text().splitlines() if "_(designer; incidents" in x] == block
    assert json.loads(rb(new, "rules", "--json")[1])["rules"] == json.loads(rb(old, "rules", "--json")[1])["rules"]
    assert json.loads(rb(new, "promote", "--json")[1])["candidates"] == []
    code, again, _ = rb(new, "export")
    assert again.splitlines()[1:] == dump.splitlines()[1:]  # the round trip is byte-equal (the header dates it)
    assert canonical(new) == canonical(old) and (new / "CLAUDE.md").read_bytes().count(b"incidents") == 1
    before = (new / "CLAUDE.md").read_bytes()
    assert rb(new, "import", "rolebook", str(tmp_path / "dump.jsonl"))[0] == 0
    assert (new / "CLAUDE.md").read_bytes() == before and canonical(new) == canonical(old)  # idempotent
