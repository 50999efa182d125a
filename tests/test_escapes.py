"""Every field of every record from any source is shown escaped (DESIGN.md section 10).

Records holding terminal escapes (`ESC [`, an OSC 8 hyperlink, a bell), bidirectional
overrides, zero-width characters, Unicode tags, NUL, CR and line breaks in every field
(id, date, role, section, op, text, tags, category, origin) reach a root every way there
is: a shared root's archive written by hand, the root's own archive and rules file
edited by hand, an export imported, sources with hostile file names; update, store and log
refuse them. Then every output is read: search (text and JSON), read --task, the recall
hook in each agent's form, the session-start hook, MCP tools (text and structured
content), promote's review, rules, stats, doctor and the import reports. None may hold a
character a terminal or a reader acts on, but the line breaks between lines."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from rolebook.agents import hooks
from rolebook.agents.cli import app
from rolebook.notebook.display import ACTIVE, shown, shown_json, shown_line
from roots import project
from served import served
from typer.testing import CliRunner

runner = CliRunner()
#: clears the screen, a hyperlink, a bell, an RTL override, a zero-width space, NUL, CR, a
#: line that forges one of rolebook's own, a Unicode tag (invisible, read by models)
HOSTILE = "\x1b[2J\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\u202e\u200b\x00\r\nrolebook: forged\U000e0041"
_ACTIVE = re.compile(f"[{ACTIVE}]")


def inert(text: str, lines: bool = True) -> list[str]:
    """The characters of `text` a terminal or a reader would act on (line breaks allowed
    between the lines of a multi-line output when `lines`)."""
    return [repr(c) for c in _ACTIVE.findall(text) if not (lines and c == "\n")]


#: a failure (and a task) that the shared root's hostile lesson is surely about: the recall
#: hook and read --task show only what they are sure of
BROKE = "deploy broke with EDEPLOYLOCK: the deploy lock file was held"


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def record(rid: str, **fields: Any) -> str:
    base = {"v": 1, "id": rid, "op": "added", "role": "coder", "section": "mistakes", "date": "2026-01-05"}
    return json.dumps({**base, "count": 1, **fields}) + "\n"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A root, its shared root and an import, every field of their records hostile."""
    root, team = tmp_path / "app", tmp_path / "team"
    team.mkdir()
    assert rb(team, "init")[0] == 0
    (team / "agents/state/archive").mkdir(parents=True, exist_ok=True)
    (team / "agents/state/archive/coder.jsonl").write_text(
        record(
            "t1" + HOSTILE,
            date="2026" + HOSTILE,
            section="mistakes" + HOSTILE,
            role=HOSTILE,
            text=f"deploy broke with EDEPLOYLOCK: the deploy lock file was held; run deploy --unlock first {HOSTILE}",
        )
        + record("t2", op="stored", section=HOSTILE, category=HOSTILE, text=f"deploy notes {HOSTILE}", tags=[HOSTILE])
        + record("t3", op="shared", text=f"deploy shared {HOSTILE}", origin={"repo": HOSTILE, "id": HOSTILE}),
        encoding="utf-8",
    )
    root.mkdir()
    (root / "rolebook.yaml").write_text("shared_roots:\n  - {name: team, path: ../team}\n", encoding="utf-8")
    assert rb(root, "init", "coder")[0] == 0
    with (root / "agents/state/archive/coder.jsonl").open("a", encoding="utf-8") as f:
        for n, day in enumerate(("2026-02-01", "2026-02-02", "2026-02-03")):  # a promotion candidate
            f.write(
                record(f"m{n}{HOSTILE}", date=day, op="pruned", text=f"deploy skipped the lock {HOSTILE}; lock first")
            )
        f.write(record("o1", op=f"[bold red]op{HOSTILE}", text=f"deploy odd op {HOSTILE}", tags=[HOSTILE]))
    rules = "<!-- rolebook:rules:start -->\n- Deploy \x1b[2J with \u202ecare. _(coder; incidents 2026-01-01)_\n"
    (root / "CLAUDE.md").write_text(rules + "<!-- rolebook:rules:end -->\n", encoding="utf-8")
    export = tmp_path / "export.jsonl"
    header = {"format": "rolebook-export", "v": 1, "rolebook": "0", "at": "x", "roles": ["qa"]}
    fields = {"date": HOSTILE, "section": HOSTILE, "tags": [HOSTILE], "by": HOSTILE, "session": HOSTILE}
    export.write_text(
        json.dumps(header)
        + "\n"
        + json.dumps(
            {
                "archive": "qa",
                "record": json.loads(record("q" + HOSTILE, role="qa", **fields, text=f"deploy imported {HOSTILE}")),
            }
        )
        + "\n",
        encoding="utf-8",
    )
    code, out, err = rb(root, "import", "rolebook", str(export))
    assert code == 0, err
    assert not inert(out) and not inert(err)
    return root


def test_shown_writes_every_active_character_as_an_escape_and_keeps_the_rest() -> None:
    assert shown("a\x1b[2Jb") == "a\\u001b[2Jb" and shown("tab\there") == "tab\\u0009here"
    assert shown("\u202eabc\u200b") == "\\u202eabc\\u200b" and shown("\U000e0041") == "\\U000e0041"
    assert shown("naïve café 日本 🙂\ufe0f") == "naïve café 日本 🙂\ufe0f"  # text, emoji and their style kept
    assert shown_line("two\nlines\r\n  here") == "two lines here" and shown(42) == "42"
    assert not inert(shown(HOSTILE), lines=False)


def test_json_output_reads_back_the_same_values_and_holds_no_active_character() -> None:
    data = {"text": HOSTILE + "\ud800", HOSTILE: [HOSTILE, 1]}
    out = shown_json(data)
    assert json.loads(out) == data and not inert(out)


def test_commands_refuse_what_they_cannot_show_and_say_so_inertly(tmp_path: Path) -> None:
    for args in (
        ["update", "coder", "-l", f"deploy {HOSTILE}"],
        ["store", "coder", "notes", f"deploy {HOSTILE}"],
        ["store", "coder", HOSTILE, "deploy"],
        ["store", "coder", "notes", "deploy", "--tag", HOSTILE],
        ["log", "coder", "--type", "error", "--lesson", "deploy", "--context", HOSTILE],
        ["search", "deploy", "--role", HOSTILE],
        ["read", HOSTILE],
        ["import", "xmem", str(tmp_path / f"gone{HOSTILE.replace('/', '').replace(chr(0), '')}")],
    ):
        code, out, err = rb(tmp_path, *args)
        assert code == 2 and not inert(out) and not inert(err), (args, err)


def test_every_output_form_shows_hostile_fields_escaped(hostile: Path) -> None:
    root = hostile
    code, out, err = rb(root, "search", "deploy", "--limit", "20", "--budget", "5000")
    assert code == 0 and not inert(out) and not inert(err)
    assert "\\u001b[2J" in out and "team:coder/" in out and "#t1\\u001b" in out and "[2026\\u001b" in out
    code, out, _ = rb(root, "search", "deploy", "--json", "--limit", "20")
    assert code == 0 and not inert(out)
    assert any(h["id"] == "t1" + HOSTILE for h in json.loads(out)["hits"])  # JSON keeps the value, escaped
    code, out, _ = rb(root, "read", "coder", "--task", BROKE)
    assert code == 0 and not inert(out) and "\\u001b" in out
    code, out, _ = rb(root, "read", "coder", "--task", BROKE, "--json")
    assert code == 0 and not inert(out)
    for args in (["promote", "--no-interactive"], ["promote", "--json"], ["rules"], ["stats"], ["doctor"]):
        code, out, err = rb(root, *args)
        assert code in (0, 1) and not inert(out) and not inert(err), (args, out)
    stats = rb(root, "stats")[1]
    assert "[bold" in stats and "red]op" in stats  # what an archive says is text, never markup


def test_the_recall_and_session_start_hooks_show_hostile_fields_escaped_in_every_agents_form(
    hostile: Path, tmp_path: Path
) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent / "agents"))
    from payloads import FORMS, payload

    for form in FORMS:  # each agent CLI's own payload of a failed command
        (tmp_path / form).mkdir()
        stdin, extra = payload(form, "deploy", 1, BROKE, tmp_path / form)
        options = dict(zip(extra[::2], extra[1::2], strict=True))
        agent = options.get("--agent")
        out = hooks.recall(stdin, hostile, "coder", options.get("--command"), options.get("--error"), agent)
        said = out if not out.startswith("{") else json.loads(out).get("hookSpecificOutput", json.loads(out))
        said = said if isinstance(said, str) else said["additionalContext"]
        assert "\\u001b" in said and not inert(said), (form, said)  # a lesson shown, its fields escaped
    for agent in ("codex", "gemini", "copilot"):
        result = runner.invoke(
            app, ["--root", str(hostile), "hook", "session-start", "--role", "coder", "--agent", agent], input="{}"
        )
        assert not inert(result.stdout) and not inert(json.dumps(json.loads(result.stdout), ensure_ascii=False))


def test_mcp_tools_show_hostile_fields_escaped_in_text_and_structured_content(hostile: Path) -> None:
    def strings(value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [s for k, v in value.items() for s in [str(k), *strings(v)]]
        return [s for v in value for s in strings(v)] if isinstance(value, list) else []

    async def body(client: Client) -> None:
        for tool, args in (
            ("search", {"query": "deploy", "limit": 20}),
            ("read", {"role": "coder", "task": "deploy"}),
            ("promote_review", {}),
        ):
            result = await client.call_tool(tool, args)
            block = result.content[0]
            assert not result.is_error and hasattr(block, "text") and not inert(block.text), tool
            assert not [s for s in strings(result.structured_content) if inert(s, lines=tool == "read")], tool

    async def main() -> None:
        async with Client(served(hostile)) as client:
            await body(client)

    anyio.run(main)


def test_a_rule_worded_with_escapes_reaches_the_rules_file_inert(hostile: Path) -> None:
    (candidate,) = json.loads(rb(hostile, "promote", "--json")[1])["candidates"]
    assert "\x1b" in candidate["phrasing"]  # the JSON keeps what the archive says
    code, out, err = rb(hostile, "promote", "--apply", candidate["id"], "--text", f"Lock before deploy {HOSTILE}")
    assert code == 0 and not inert(out) and not inert(err), err
    rules = (hostile / "CLAUDE.md").read_text(encoding="utf-8")
    assert "Lock before deploy \\u001b[2J" in rules and not inert(rules.replace("\x1b[2J with \u202ecare", ""))


def sources(folder: Path) -> dict[str, Path]:
    """A source of each format with a hostile field (and a hostile file name where a folder is read)."""
    import contextlib
    import sqlite3

    folder.mkdir()
    day = "2026-01-01T00:00:00Z"
    made = {
        "xmem": ("failures.jsonl", {"id": HOSTILE, "type": "tool_failure", "ts": day, "action": HOSTILE, "error": "x"}),
        "memcache": ("j.jsonl", {"id": HOSTILE, "kind": "note", "ts": day, "summary": f"s {HOSTILE}"}),
        "mcp-memory": ("m.jsonl", {"type": "entity", "name": HOSTILE, "entityType": "t", "observations": [HOSTILE]}),
    }
    out = {}
    for fmt, (name, row) in made.items():
        (folder / fmt).mkdir()
        (folder / fmt / name).write_text(json.dumps(row) + "\n", encoding="utf-8")
        out[fmt] = folder / fmt / name
    (folder / "md").mkdir()
    out["markdown"] = folder / "md" / "coder.md"
    out["markdown"].write_text(f"## Learnings\n- [2026-01-01] x {HOSTILE}\n\nProse {HOSTILE}\n", encoding="utf-8")
    (folder / "cerebro").mkdir()
    with contextlib.closing(sqlite3.connect(folder / "cerebro" / "memory.sqlite3")) as db, db:  # closed
        db.execute(
            "CREATE TABLE entries (id INTEGER PRIMARY KEY, role TEXT, category TEXT, text TEXT, created_at TEXT)"
        )
        db.execute(
            "INSERT INTO entries(role, category, text, created_at) VALUES (?, ?, ?, ?)",
            (HOSTILE, HOSTILE, HOSTILE, day),
        )
        db.execute(
            "INSERT INTO entries(role, category, text, created_at) VALUES ('qa', ?, ?, ?)", (HOSTILE, HOSTILE, day)
        )
    out["cerebro"] = folder / "cerebro"
    return out


def test_every_importer_reports_hostile_files_and_fields_escaped_and_what_it_took_shows_escaped(tmp_path: Path) -> None:
    source = tmp_path / "knowledge"
    source.mkdir()
    (source / f"log{HOSTILE.replace('/', '').replace(chr(0), '')}.jsonl").write_text(
        json.dumps({"event_type": "error", "timestamp": "2026-01-01", "lesson": f"x {HOSTILE}", "agent_id": "qa"})
        + "\n"
        + json.dumps({"event_type": HOSTILE, "timestamp": "2026-01-01", "lesson": "y"})
        + "\n",
        encoding="utf-8",
    )
    # in a project: where there is none, import says so before it reads a line
    root = project(tmp_path / "root")
    for extra in ([], ["--skip-bad"], ["--json"]):
        code, out, err = rb(root, "import", "agent-knowledge", str(source), "--role", "qa", *extra)
        assert code in (0, 2) and not inert(out) and not inert(err), (extra, err)
        assert "\\u001b" in err

    for fmt, path in sources(tmp_path / "sources").items():
        for extra in ([], ["--skip-bad"], ["--json"]):
            role = [] if fmt == "cerebro" else ["--role", "qa"]
            code, out, err = rb(root, "import", fmt, str(path), *role, *extra)
            assert code in (0, 2) and not inert(out) and not inert(err), (fmt, extra, err)
    code, out, err = rb(root, "search", "entity note", "--limit", "50")
    assert not inert(out) and not inert(err)
