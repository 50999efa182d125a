"""Faults and hostile input: a full disk, a read-only folder, huge and broken notebooks,
secrets, hostile role names. Each ends in a clear error or a clean write, never a
half-written file or a lost entry."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from rolebook.notebook.errors import StorageError
from rolebook.notebook.limits import Limits
from rolebook.notebook.markdown import parse
from rolebook.notebook.store import archive as archive_module
from rolebook.notebook.store.archive import ArchiveRecord, read_records
from rolebook.notebook.store.changes import update
from rolebook.notebook.store.intake import new_entry
from rolebook.notebook.store.journal import Writer
from rolebook.notebook.store.layout import Layout
from typer.testing import CliRunner

runner = CliRunner()


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".rolebook" not in p.parts
    }


@contextlib.contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A small tmpfs at `path`: a real disk that fills up. Skips where mounting is not allowed."""
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(folder: Path) -> None:
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)


def test_a_full_disk_is_a_clear_error_and_nothing_is_half_written_or_lost(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "disk", "2m") as root:
        rb(root, "init", "coder")
        assert rb(root, "update", "coder", "-l", "written before the disk filled")[0] == 0
        before = snapshot(root)
        fill(root)
        code, _, err = rb(root, "update", "coder", "-l", "x" * 900, "-m", "y" * 900)
        assert code == 2
        assert "cannot" in err and ("nothing was" in err or "nothing is lost" in err) and err.count("\n") == 1
        assert snapshot(root) == {**before, "filler": (root / "filler").read_bytes()}
        (root / "filler").unlink()
        assert rb(root, "update", "coder", "-l", "written after space came back")[0] == 0
        texts = [e.text for e in parse((root / "agents/state/memory/coder.md").read_text()).entries()]
        assert texts == ["written after space came back", "written before the disk filled"]


def test_a_read_only_folder_refuses_writes_clearly_and_still_reads(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", "1m") as root:
        rb(root, "init", "coder")
        rb(root, "update", "coder", "-l", "a lesson")
        before = snapshot(root)
        subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True, capture_output=True)
        code, _, err = rb(root, "update", "coder", "-l", "refused")
        assert code == 2 and "Read-only file system" in err and err.count("\n") == 1
        assert snapshot(root) == before
        code, out, _ = rb(root, "read", "coder")
        assert code == 0 and "a lesson" in out


def test_a_read_only_checkout_reads_its_config_each_time_without_a_word(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", "1m") as root:
        rb(root, "init", "coder")
        rb(root, "update", "coder", "-l", "a lesson")
        cache = root / "agents/state/.rolebook/config.json"
        cache.unlink()
        subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True, capture_output=True)
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-m", "rolebook", "--root", str(root), "read", "coder"], capture_output=True, text=True
            )
            assert (done.returncode, done.stderr) == (0, "") and "a lesson" in done.stdout
        assert not cache.exists()


def test_a_failed_archive_append_is_undone_so_no_half_record_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = Layout.default(tmp_path)
    update(layout, "coder", [new_entry("learnings", "kept", "2026-01-01")], Limits(), Writer())
    archive_before = layout.archive_path("coder").read_bytes()
    notebook_before = layout.notebook_path("coder").read_bytes()

    def no_space(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(archive_module.os, "fsync", no_space)
    with pytest.raises(StorageError, match="No space left on device"):
        update(layout, "coder", [new_entry("learnings", "refused", "2026-01-02")], Limits(), Writer())
    monkeypatch.undo()
    assert layout.archive_path("coder").read_bytes() == archive_before
    assert layout.notebook_path("coder").read_bytes() == notebook_before


@pytest.mark.load
def test_a_ten_megabyte_notebook_of_100k_lines_is_read_and_tidied_losing_nothing(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    layout.memory.mkdir(parents=True)
    lines = [f"- [2026-01-{1 + i % 28:02d}] mistake number {i} " + "x" * 80 for i in range(100_000)]
    layout.notebook_path("big").write_text("# big\n\n## Mistakes\n" + "\n".join(lines) + "\n")
    assert layout.notebook_path("big").stat().st_size > 10_000_000
    code, out, _ = rb(tmp_path, "read", "big")
    assert code == 0 and "Mistakes has 100000 entries" in out.splitlines()[-1]
    code, out, _ = rb(tmp_path, "tidy", "big")
    assert code == 0 and "99980 pruned to the archive" in out
    records = [r for _, _, r in read_records(layout.archive_path("big")) if isinstance(r, ArchiveRecord)]
    assert sum(r.op == "added" for r in records) == 100_000
    live = {e.text for e in parse(layout.notebook_path("big").read_text()).entries()}
    gone = {r.text for r in records if r.op == "pruned"}
    assert len(live) == 20 and len(gone) == 99_980 and not live & gone


def test_nested_lists_and_nul_bytes_are_kept(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    layout.memory.mkdir(parents=True)
    nested = "".join("  " * i + f"- level {i}\n" for i in range(40))
    text = "## Mistakes\n- [2026-01-01] top\n" + nested + "\nA NUL \x00 byte in prose.\n"
    layout.notebook_path("deep").write_text(text)
    assert rb(tmp_path, "update", "deep", "-l", "still works")[0] == 0
    after = layout.notebook_path("deep").read_text()
    assert nested in after and "A NUL \x00 byte in prose.\n" in after


def test_lists_nested_past_what_the_parser_follows_are_refused_not_mangled(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    layout.memory.mkdir(parents=True)
    nested = "".join("  " * i + f"- [2026-01-01] level {i}\n" for i in range(500))
    layout.notebook_path("deep").write_text("## Mistakes\n" + nested + "\nProse after the lists.\n")
    before = snapshot(tmp_path)
    code, _, err = rb(tmp_path, "update", "deep", "-l", "x")
    assert code == 2 and "nested over 100 levels deep" in err and err.count("\n") == 1
    assert snapshot(tmp_path) == before
    code, out, _ = rb(tmp_path, "read", "deep")
    assert code == 0 and "nested over 100 levels deep" in out.splitlines()[-1]


def test_binary_bytes_in_a_notebook_are_refused_naming_the_line(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    layout.memory.mkdir(parents=True)
    layout.notebook_path("bin").write_bytes(b"## Mistakes\n- [2026-01-01] ok\n" + bytes(range(256)) + b"\n")
    before = snapshot(tmp_path)
    code, _, err = rb(tmp_path, "update", "bin", "-l", "x")
    assert code == 2 and f"{layout.notebook_path('bin')}:4: not UTF-8" in err  # range(256) holds a newline
    assert snapshot(tmp_path) == before
    assert rb(tmp_path, "read", "bin")[0] == 0


@pytest.mark.parametrize("role", ["../etc", "/etc/passwd", "a\x00b", "NUL", "aux", "com1", "", "x" * 65, "a b", "é"])
def test_hostile_role_names_are_refused_before_any_path_is_built(tmp_path: Path, role: str) -> None:
    code, _, err = rb(tmp_path, "update", role, "-l", "x")
    assert code == 2 and "invalid role name" in err
    assert snapshot(tmp_path) == {}


SECRETS = {
    "aws-access-key": "AKIAIOSFODNN7EXAMPLE",
    "github-token": "ghp_" + "A1b2C3d4" * 5,
    "openai-key": "sk-proj-" + "Zy9" * 10,
    "anthropic-key": "sk-ant-api03-" + "Qw8" * 10,
    "slack-token": "xoxb-1234567890-abcdefghij",
    "stripe-key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "google-api-key": "AIza" + "SyD-" * 8 + "abc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "bearer-token": "Authorization: Bearer abcdefghijklmnopqrstuvwx",
    "url-password": "postgres://admin:hunter2hunter2@db.internal/prod",
    "password": "DB_PASSWORD=correcthorsebattery",
    "private-key": "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ "
    "-----END OPENSSH PRIVATE KEY-----",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_secrets_are_redacted_before_any_write_and_the_command_says_so(tmp_path: Path, kind: str) -> None:
    rb(tmp_path, "init", "coder")
    secret = SECRETS[kind]
    code, out, err = rb(tmp_path, "update", "coder", "-m", f"pasted {secret} into the log", "--json")
    assert code == 0
    assert err == f"rolebook: redacted before writing: {kind}\n"
    assert json.loads(out)["redacted"] == [kind]
    value = secret.split("=")[-1].split("Bearer ")[-1].split(":")[-1].split("@")[0]
    for path in (tmp_path / "agents/state").rglob("*"):
        if path.is_file() and ".rolebook" not in path.parts:
            assert value not in path.read_text(errors="replace"), path
    assert f"[REDACTED:{kind}]" in (tmp_path / "agents/state/memory/coder.md").read_text()


def test_store_and_log_redact_too(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    code, _, err = rb(tmp_path, "store", "coder", "snippets", f"export GH_TOKEN={SECRETS['github-token']}")
    assert code == 0 and "redacted before writing: github-token" in err
    code, _, err = rb(
        tmp_path,
        "log",
        "coder",
        "--type",
        "error",
        "--lesson",
        "rotate it",
        "--command",
        f"curl -u admin:{'x' * 12} https://user:pa55word99@example.com",
    )
    assert code == 0 and "url-password" in err
    assert "pa55word99" not in (tmp_path / "agents/state/archive/coder.jsonl").read_text()


@pytest.mark.load
def test_slow_work_says_so_on_stderr_first(tmp_path: Path) -> None:
    layout = Layout.default(tmp_path)
    layout.memory.mkdir(parents=True)
    layout.notebook_path("big").write_text(
        "## Learnings\n" + "".join(f"- [2026-01-01] learning {i} " + "z" * 60 + "\n" for i in range(20_000))
    )
    code, _, err = rb(tmp_path, "tidy", "big")
    assert code == 0 and err.startswith("rolebook: big.md is 2 MB: reading, journalling and pruning it takes a while\n")
    shutil.rmtree(layout.derived)
    code, _, err = rb(tmp_path, "search", "learning")
    assert (
        code == 0 and "MB of big.jsonl (once; later reads are quick)" in err and err.startswith("rolebook: indexing ")
    )


# -- the edges of the write path: exit 2 means nothing changed, or says exactly what did

ARCHIVE = "agents/state/archive/coder.jsonl"
NOTEBOOK = "agents/state/memory/coder.md"


def entries(root: Path) -> list[str]:
    return [e.text for e in parse((root / NOTEBOOK).read_text()).entries()]


def test_a_full_archive_folder_is_an_error_naming_the_archive_with_no_half_record(tmp_path: Path) -> None:
    root = tmp_path / "project"
    rb(root, "init", "coder")
    rb(root, "update", "coder", "-l", "written before the archive filled")
    with tmpfs(root / "agents/state/archive", "64k") as folder:
        rb(root, "tidy")  # an empty archive on the new disk: the notebook's entries are journalled there
        before = snapshot(root)
        fill(folder)
        big = [arg for n in range(6) for arg in ("-l", f"{n} " + "x" * 900)]
        code, _, err = rb(root, "update", "coder", *big)
        assert code == 2 and err.count("\n") == 1
        assert f"{folder / 'coder.jsonl'}: cannot append to the archive" in err and "nothing was" in err
        assert snapshot(root) == {**before, "agents/state/archive/filler": (folder / "filler").read_bytes()}


def test_a_read_only_notebook_folder_refuses_the_write_before_the_archive_changes(tmp_path: Path) -> None:
    root = tmp_path / "project"
    rb(root, "init", "coder")
    with tmpfs(root / "agents/state/memory", "1m") as folder:
        rb(root, "update", "coder", "-l", "a lesson")
        before = snapshot(root)
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)
        code, _, err = rb(root, "update", "coder", "-l", "refused")
        assert code == 2 and "Read-only file system" in err and "nothing was written" in err
        assert snapshot(root) == before  # the archive too
        subprocess.run(["mount", "-o", "remount,rw", str(folder)], check=True, capture_output=True)
        assert rb(root, "update", "coder", "-l", "accepted")[0] == 0
        assert entries(root) == ["accepted", "a lesson"]  # the refused write is not applied later


def test_a_broken_rules_block_is_a_warning_after_the_write_never_exit_2(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    (tmp_path / "CLAUDE.md").write_text("<!-- rolebook:rules:start -->\n- a rule _(coder; incidents 2026-01-01)_\n")
    code, out, err = rb(tmp_path, "update", "coder", "-m", "ran the migration on prod; use staging")
    assert code == 0 and out.startswith("coder: +1 entry")
    assert err.startswith("rolebook: warning: ") and "not checked against the rules" in err
    assert entries(tmp_path) == ["ran the migration on prod; use staging"]


def test_a_promotion_cut_short_before_the_rule_line_is_finished_by_the_next_promote(tmp_path: Path) -> None:
    root = tmp_path / "project"
    rb(root, "init", "coder")
    (root / "rolebook.yaml").write_text("rules_file: docs/CLAUDE.md\n")
    for day in ("2026-01-05", "2026-02-05", "2026-03-05"):
        rb(
            root,
            "update",
            "coder",
            "-m",
            "pushed to main without running the tests; run the tests before pushing",
            "--date",
            day,
        )
    with tmpfs(root / "docs", "1m") as docs:
        subprocess.run(["mount", "-o", "remount,ro", str(docs)], check=True, capture_output=True)
        code, _, err = rb(root, "promote", "--yes")
        assert code == 2 and "the archive records the promotion of R" in err and "`rolebook promote`" in err
        assert "nothing was written" not in err
        assert entries(root) == []  # the entries left, journalled as promoted
        subprocess.run(["mount", "-o", "remount,rw", str(docs)], check=True, capture_output=True)
        code, out, _ = rb(root, "promote", "--json")
        assert code == 0 and json.loads(out)["candidates"] == []
        rules = (docs / "CLAUDE.md").read_text()
        assert rules.count("Run the tests before pushing.") == 1
        assert "incidents 2026-01-05, 2026-02-05, 2026-03-05" in rules
        _, read, _ = rb(root, "read", "coder")
        assert "promotion" not in read and "violates" not in read


def secret_values() -> list[str]:
    """The secret part of each sample: what must appear in no file rolebook writes."""
    return [s.split("=")[-1].split("Bearer ")[-1].split(":")[-1].split("@")[0] for s in SECRETS.values()]


def test_no_secret_reaches_any_file_through_any_command_importer_or_field(tmp_path: Path) -> None:
    root, source = tmp_path / "project", tmp_path / "source"
    rb(root, "init", "coder")
    one = " ".join(SECRETS.values())[:900]
    assert rb(root, "update", "coder", "-m", one[:900], "-l", f"token {SECRETS['github-token']}")[0] == 0
    assert rb(root, "store", "coder", "snippets", f"key {SECRETS['aws-access-key']}")[0] == 0
    for field in ("--lesson", "--context", "--command"):
        args = {"--lesson": "rotate it", "--context": "", "--command": ""} | {field: f"psql {SECRETS['url-password']}"}
        code, out, err = rb(root, "log", "coder", "--type", "error", *(a for kv in args.items() for a in kv if kv[1]))
        assert code == 0 and "hunter2" not in out + err
    # a tag, a category or a context hash cannot be redacted in place: refused
    assert rb(root, "store", "coder", "snippets", "x", "--tag", SECRETS["github-token"])[0] == 2
    assert rb(root, "log", "coder", "--type", "error", "--lesson", "x", "--ctx-hash", "akiaiosfodnn7example")[0] in (
        0,
        2,
    )
    # every importer, with the secret in the source record kept under `original`
    xmem = source / "xmem"
    xmem.mkdir(parents=True)
    (xmem / "failures.jsonl").write_text(
        json.dumps(
            {
                "id": "f1",
                "ts": "2026-02-01T00:00:00Z",
                "type": "tool_failure",
                "tool": "psql",
                "error": "auth",
                "command": f"psql {SECRETS['url-password']}",
                "solution": f"use {SECRETS['password']}",
                "ctx_hash": "psql-auth",
                "tags": ["db"],
            }
        )
        + "\n"
    )
    code, _, err = rb(root, "import", "xmem", str(xmem), "--role", "coder")
    assert code == 0 and "redacted before writing" in err
    notes = source / "lessons.md"
    notes.write_text(f"# Lessons\n\n- [2026-01-02] never paste {SECRETS['slack-token']}\n\nprose {SECRETS['jwt']}\n")
    assert rb(root, "import", "markdown", str(notes), "--role", "coder")[0] == 0
    # an export holding a secret (written by hand, or by an older rolebook) imported into a new root
    export = source / "export.jsonl"
    rb(root, "export", "-o", str(export))
    lines = export.read_text().splitlines()
    record = {"v": 1, "id": "abc123abc123", "op": "stored", "role": "coder", "section": "notes"}
    record |= {"date": "2026-01-01", "text": f"old {SECRETS['stripe-key']}", "count": 1, "at": "2026-01-01T00:00:00Z"}
    lines.append(json.dumps({"archive": "coder", "record": record}))
    export.write_text("\n".join(lines) + "\n")
    other = tmp_path / "other"
    rb(other, "init")
    code, _, err = rb(other, "import", "rolebook", str(export))
    assert code == 0 and "redacted before writing" in err
    assert rb(other, "search", "old", "--status", "all")[1].count("[REDACTED:stripe-key]") == 1
    for folder in (root, other):
        rb(folder, "search", "never paste")
        rb(folder, "doctor", "--repair")
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                for value in secret_values():
                    assert value.encode() not in data, (path, value)


# -- writes outside the project, or outside the writer's scope


@pytest.mark.parametrize(
    "config",
    [
        "paths:\n  archive: /tmp/elsewhere\n",
        "paths:\n  derived: ../derived\n",
        "paths:\n  memory: agents/../../x\n",
        "rules_file: ../CLAUDE.md\n",
    ],
)
def test_a_config_path_outside_the_root_is_refused_naming_the_line(tmp_path: Path, config: str) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "rolebook.yaml").write_text(config)
    code, _, err = rb(root, "update", "coder", "-l", "x")
    assert code == 2 and "outside the project root" in err and f"{root / 'rolebook.yaml'}:" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["project", "rolebook.yaml"]


def test_an_archive_folder_symlinked_out_of_the_root_is_not_written_through(tmp_path: Path) -> None:
    root, outside = tmp_path / "project", tmp_path / "outside"
    outside.mkdir()
    (root / "agents/state").mkdir(parents=True)
    (root / "agents/state/archive").symlink_to(outside)
    code, _, err = rb(root, "update", "coder", "--new-role", "-l", "x")
    assert code == 2 and "outside the root" in err
    assert list(outside.iterdir()) == []


def test_promote_writes_through_a_rules_file_symlink_to_its_target(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    (tmp_path / "AGENTS.md").write_text("# Agents\n")
    (tmp_path / "CLAUDE.md").symlink_to("AGENTS.md")
    for day in ("2026-01-05", "2026-02-05", "2026-03-05"):
        rb(
            tmp_path,
            "update",
            "coder",
            "-m",
            "pushed to main without running the tests; run the tests before pushing",
            "--date",
            day,
        )
    assert rb(tmp_path, "promote", "--yes")[0] == 0
    assert (tmp_path / "CLAUDE.md").is_symlink()
    assert "Run the tests before pushing." in (tmp_path / "AGENTS.md").read_text()


def test_repair_deletes_only_what_rolebook_made_in_a_shared_derived_folder(tmp_path: Path) -> None:
    (tmp_path / "rolebook.yaml").write_text("paths:\n  derived: .\n")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "project-data.bin").write_bytes(b"keep me")
    rb(tmp_path, "update", "coder", "-l", "x")
    assert rb(tmp_path, "doctor", "--repair")[0] == 0
    assert (tmp_path / "cache" / "project-data.bin").read_bytes() == b"keep me"


def test_a_scoped_repair_finishes_only_its_own_roles_writes(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder", "designer")
    pending = tmp_path / "agents/state/.rolebook/pending"
    for role in ("coder", "designer"):
        rb(tmp_path, "update", role, *[a for n in range(25) for a in ("-l", f"{role} {n}")])
    before = (tmp_path / "agents/state/memory/designer.md").read_bytes()
    (tmp_path / "agents/state/memory/designer.md").write_text(before.decode() + "- [2026-01-01] typed by hand\n")
    edited = (tmp_path / "agents/state/memory/designer.md").read_bytes()
    pending.mkdir(parents=True, exist_ok=True)
    (pending / "designer.json").write_text('{"add": [], "remove": []}')
    code, out, _ = rb(tmp_path, "--as", "coder", "doctor", "--repair")
    assert (tmp_path / "agents/state/memory/designer.md").read_bytes() == edited
    assert "interrupted write: designer" in out and code == 1
    assert "backup" not in {p.name for p in (tmp_path / "agents/state").iterdir()}  # none in a tracked folder


def test_doctor_reports_and_repair_removes_the_temp_files_killed_writers_left(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    rb(tmp_path, "update", "coder", "-l", "x")
    left = [tmp_path / "agents/state/memory/.coder.md.0a1b2c3d4e5f.tmp", tmp_path / ".CLAUDE.md.abcd_123.tmp"]
    for path in left:
        path.write_text("half")
        os.utime(path, (1, 1))
    (tmp_path / "agents/state/memory/.notes.txt.0a1b2c3d4e5f.tmp").write_text("not ours")
    code, out, _ = rb(tmp_path, "doctor")
    assert code == 1 and all(f"temp file a killed writer left: {p}" in out for p in left)
    code, out, _ = rb(tmp_path, "doctor", "--repair")
    assert code == 0 and not any(p.exists() for p in left)
    assert (tmp_path / "agents/state/memory/.notes.txt.0a1b2c3d4e5f.tmp").exists()


# -- hostile input: refused with one line naming the file, never a crash


def test_yaml_nested_fifty_thousand_deep_is_refused_not_crashed_on(tmp_path: Path) -> None:
    import sys

    deep = "x: " + "[" * 50_000 + "]" * 50_000 + "\n"
    notebook = tmp_path / NOTEBOOK
    notebook.parent.mkdir(parents=True)
    notebook.write_text("---\n" + deep + "---\n# coder\n\n## Mistakes\n")
    for args in (["read", "coder"], ["update", "coder", "-l", "x"]):
        done = subprocess.run(
            [sys.executable, "-m", "rolebook", "--root", str(tmp_path), *args], capture_output=True, text=True
        )
        assert done.returncode in (0, 2) and "nested 50001 levels deep" in done.stdout + done.stderr
    hook = subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(tmp_path), "hook", "session-start", "--role", "coder"],
        input='{"session_id": "s1"}',
        capture_output=True,
        text=True,
    )
    assert hook.returncode == 0
    (tmp_path / "rolebook.yaml").write_text(deep)
    code, _, err = rb(tmp_path, "read", "coder")
    assert (
        code == 2
        and err == f"rolebook: {tmp_path / 'rolebook.yaml'}:1: nested 50001 levels deep (at most 64); refused\n"
    )


def test_json_nested_deep_or_a_huge_record_in_an_import_is_a_bad_line(tmp_path: Path) -> None:
    assert rb(tmp_path, "init", "coder")[0] == 0  # import now refuses an unknown role before reading
    source = tmp_path / "xmem"
    source.mkdir()
    deep = "[" * 30_000 + "]" * 30_000  # under the size limit, past any parser's depth
    huge = json.dumps({"id": "f", "type": "tool_failure", "error": "x" * 100_000})
    (source / "failures.jsonl").write_text(deep + "\n" + huge + "\n")
    code, _, err = rb(tmp_path, "import", "xmem", str(source), "--role", "coder")
    assert code == 2 and "failures.jsonl:1: JSON nested too deep" in err
    assert "failures.jsonl:2: a record of 100," in err and "over the limit of 65,536" in err


def test_a_folder_where_a_notebook_or_archive_should_be_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / NOTEBOOK).mkdir(parents=True)
    (tmp_path / "agents/state/archive/qa.jsonl").mkdir(parents=True)
    for args in (["read", "coder"], ["update", "coder", "-l", "x"], ["search", "x"], ["update", "qa", "-l", "y"]):
        code, _, err = rb(tmp_path, *args)
        assert code == 2 and err.count("\n") == 1 and "a folder stands where rolebook keeps" in err, args


def test_export_refuses_to_overwrite_rolebooks_own_files_and_keeps_a_cut_short_last_line(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    rb(tmp_path, "update", "coder", "-l", "kept")
    archive = tmp_path / ARCHIVE
    before = archive.read_bytes()
    for target in (archive, tmp_path / NOTEBOOK, tmp_path / "CLAUDE.md", tmp_path / "agents/state/archive/x.jsonl"):
        code, _, err = rb(tmp_path, "export", "-o", str(target))
        assert code == 2 and "one of rolebook's own files" in err
    assert archive.read_bytes() == before
    archive.write_bytes(before + b'{"v":1,"id":"cut')  # a writer killed mid-line
    code, out, _ = rb(tmp_path, "export")
    assert code == 0 and base64.b64encode(b'{"v":1,"id":"cut').decode() in out


def test_invisible_characters_are_taken_out_of_entries_and_escapes_out_of_search_lines(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    rb(tmp_path, "update", "coder", "-l", "pay\u202eusd\u200b now", "-m", "line one\u2028rolebook: fake alert")
    text = (tmp_path / NOTEBOOK).read_text()
    assert "payusd now" in text and "\u202e" not in text and "\u2028" not in text
    notebook = tmp_path / NOTEBOOK
    notebook.write_text(notebook.read_text().replace("payusd now", "typed \x1b[31mred\x1b[0m by hand"))
    code, out, _ = rb(tmp_path, "search", "typed hand")
    assert code == 0 and "\x1b" not in out and "\\u001b[31mred" in out


MORE_SECRETS = [
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    ('{"password": "hunter2hunter2", "user": "x"}', "hunter2hunter2"),
    ("postgres://admin:p4ss/w0rd@db.internal/prod", "p4ss/w0rd"),
    ("https://hooks.slack.com/services/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", "a1B2c3D4e5F6g7H8i9J0k1L2"),
    ("https://discord.com/api/webhooks/123456/abcdefABCDEFghij", "abcdefABCDEFghij"),
    (
        "-----BEGIN PGP PRIVATE KEY BLOCK----- lQOYBF0secretbody -----END PGP PRIVATE KEY BLOCK-----",
        "lQOYBF0secretbody",
    ),
    ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='", "dXNlcjpwYXNzd29yZA"),
    ("glpat-" + "x1Y2z3" * 4, "x1Y2z3x1Y2z3"),
    ("npm_" + "a1B2c3D4e5" * 3 + "abcdef", "a1B2c3D4e5a1B2c3D4e5"),
    ("hf_" + "AbCdEfGhIj" * 3 + "klmn", "AbCdEfGhIjAbCdEfGhIj"),
    ("SG." + "a1" * 11 + "." + "b2" * 21, "a1a1a1a1a1a1a1a1a1a1a1"),
    ("AccountName=x;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA"),
    ("pypi-AgEIcHlwaS5vcmc" + "Q" * 60, "QQQQQQQQQQQQQQQQQQQQ"),
    ("shpat_" + "a1" * 16, "a1a1a1a1a1a1a1a1"),
    ("dop_v1_" + "ab" * 32, "abababababababababab"),
]


@pytest.mark.parametrize(("text", "secret"), MORE_SECRETS)
def test_more_secret_shapes_are_redacted_in_every_file(tmp_path: Path, text: str, secret: str) -> None:
    rb(tmp_path, "init", "coder")
    assert rb(tmp_path, "update", "coder", "-l", f"pasted {text} by mistake")[0] == 0
    assert rb(tmp_path, "store", "coder", "notes", f"kept {text}")[0] == 0
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_plain_words_next_to_secret_keywords_are_not_redacted(tmp_path: Path) -> None:
    rb(tmp_path, "init", "coder")
    texts = ("a basic understanding of the password policy", "the bearer of bad news is a basic authorization")
    for text in texts:
        assert rb(tmp_path, "update", "coder", "-l", text)[0] == 0
    notebook = (tmp_path / NOTEBOOK).read_text()
    assert all(text in notebook for text in texts) and "REDACTED" not in notebook


def test_a_failure_after_the_write_is_a_warning_not_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rb(tmp_path, "init", "coder")
    from rolebook.rules import violations

    def broken(*args: object, **kwargs: object) -> None:
        raise StorageError(tmp_path / "agents/state/.rolebook", "write the derived index", OSError(5, "I/O error"))

    monkeypatch.setattr(violations, "refresh_alerts", broken)
    code, out, err = rb(tmp_path, "update", "coder", "-m", "ran it on prod; use staging")
    assert code == 0 and out.startswith("coder: +1 entry")
    assert err.startswith("rolebook: warning: the alerts `read` shows were not refreshed")
    assert "ran it on prod" in (tmp_path / NOTEBOOK).read_text()
