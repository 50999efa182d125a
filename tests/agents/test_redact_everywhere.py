"""`redact` takes the text out of every copy rolebook made, and says where: the shared
root a mistake was auto-shared to, the context hash an event's slug was made from, every
field of an imported memory redacted whole."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")
SECRET = "vendorportal-hunter2-code"


def ok(cwd: Path, *args: str) -> str:
    done = subprocess.run([ROLEBOOK, *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def files_holding(root: Path, text: str) -> list[str]:
    """Every file under `root` whose bytes hold `text` (as written or lowercased)."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and ".git" not in path.parts:
            data = path.read_bytes().lower()
            if text.lower().encode() in data:
                found.append(str(path.relative_to(root)))
    return found


@pytest.fixture
def team(tmp_path: Path) -> dict[str, Path]:
    roots = {}
    for name in ("knowledge", "app"):
        roots[name] = tmp_path / name
        roots[name].mkdir()
        subprocess.run(["git", "init", "-q"], cwd=roots[name], check=True)
    ok(roots["knowledge"], "init")
    ok(roots["app"], "init", "coder")
    with (roots["app"] / "rolebook.yaml").open("a") as f:
        f.write("shared_roots:\n  - {name: team, path: ../knowledge, share: [mistakes]}\n")
    return roots


def test_redact_takes_the_text_out_of_the_shared_root_it_was_auto_shared_to_and_names_the_files(
    team: dict[str, Path],
) -> None:
    ok(team["app"], "update", "coder", "-m", f"pasted the portal code {SECRET} into the log; use the vault")
    assert files_holding(team["knowledge"], SECRET)  # auto-shared
    rid = json.loads(ok(team["app"], "search", SECRET, "--json", "--root-only"))["hits"][0]["id"]
    said = ok(team["app"], "redact", f"#{rid}", "--text", SECRET)
    assert "team:agents/state/archive/coder.jsonl" in said
    assert files_holding(team["app"], SECRET) == []
    assert files_holding(team["knowledge"], SECRET) == []
    assert SECRET not in ok(team["app"], "search", "portal code", "--json")


def test_redact_text_leaves_no_slug_of_the_secret_in_an_events_context_hash(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    ok(tmp_path, "init", "coder")
    ok(tmp_path, "log", "coder", "--type", "error", "--lesson", "use the vault", "--context", f"portal {SECRET} login")
    record = json.loads((tmp_path / "agents/state/archive/coder.jsonl").read_text().splitlines()[-1])
    assert "hunter2" in record["ctx_hash"]
    ok(tmp_path, "redact", f"#{record['id']}", "--text", SECRET)
    assert files_holding(tmp_path, "hunter2") == []


def test_a_whole_item_redact_leaves_nothing_of_an_imported_memory(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    ok(tmp_path, "init", "coder")
    memory = tmp_path / ".claude" / "agent-memory" / "coder"
    memory.mkdir(parents=True)
    (memory / "portal.md").write_text(
        "---\nname: portal-login\ndescription: the portal code word is kept here\ntype: reference\n---\n"
        "The portal code word is swordfish-blue-42.\n",
        encoding="utf-8",
    )
    ok(tmp_path, "import", "claude-memory", str(memory))
    rid = json.loads(ok(tmp_path, "search", "swordfish", "--json"))["hits"][0]["id"]
    (memory / "portal.md").unlink()
    ok(tmp_path, "redact", f"#{rid}")
    for text in ("swordfish-blue-42", "the portal code word is kept here", "portal-login"):
        assert files_holding(tmp_path, text) == [], text
