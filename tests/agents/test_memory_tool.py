"""The Anthropic API's memory tool backed by rolebook (agents/integrations/memory_tool.py):
each command directly, the path attacks, the SDK's own view format, two processes at once,
and a whole session driven by the real SDK's tool runner against a stand-in Messages API."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("anthropic", reason="the anthropic extra is not installed: pip install '.[anthropic]'")

from anthropic import Anthropic
from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.tools import BetaLocalFilesystemMemoryTool
from hypothesis import given
from hypothesis import strategies as st
from rolebook import RolebookMemoryTool
from rolebook.agents.integrations.memory_edit import plan_edit
from rolebook.notebook import parse

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

TODAY = dt.date.today().isoformat()
NOTEBOOK = """# coder notebook

## Mistakes
- [2026-03-02] ran the migration on prod; use the staging DB first

## Learnings
- [2026-03-01] npm ci needs the lockfile
- [2026-02-27] the CI cache key is the lockfile hash

## Feedback

## Session Log
"""


def records(root: Path, role: str = "coder") -> list[dict[str, Any]]:
    path = root / "agents" / "state" / "archive" / f"{role}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def notebook(root: Path, role: str = "coder") -> str:
    return (root / "agents" / "state" / "memory" / f"{role}.md").read_text(encoding="utf-8")


def texts(root: Path, op: str) -> list[str]:
    return [r["text"] for r in records(root) if r["op"] == op]


@pytest.fixture
def tool(tmp_path: Path) -> RolebookMemoryTool:
    made = RolebookMemoryTool(root=tmp_path)
    made.call({"command": "create", "path": "/memories/coder.md", "file_text": NOTEBOOK})
    return made


def call(tool: RolebookMemoryTool, **command: Any) -> str:
    result = tool.call(command)
    assert isinstance(result, str)
    return result


def refused(tool: RolebookMemoryTool, **command: Any) -> str:
    with pytest.raises(ToolError) as caught:
        tool.call(command)
    return str(caught.value)


# -- the package and the SDK -------------------------------------------------------------------


def test_import_rolebook_loads_no_anthropic_sdk_until_the_tool_is_asked_for() -> None:
    code = (
        "import sys, rolebook\nprint('anthropic' in sys.modules)\n"
        "from rolebook import RolebookMemoryTool\nprint('anthropic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_without_the_sdk_the_import_names_the_extra_to_install() -> None:
    code = "import sys\nsys.modules['anthropic'] = None\nfrom rolebook import RolebookMemoryTool\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 1
    assert "ImportError: RolebookMemoryTool needs the Anthropic SDK: pip install 'rolebook[anthropic]'" in run.stderr


def test_the_tool_is_the_sdks_memory_tool(tmp_path: Path) -> None:
    made = RolebookMemoryTool(root=tmp_path)
    assert isinstance(made, BetaAbstractMemoryTool)
    assert made.to_dict() == {"type": "memory_20250818", "name": "memory"}
    assert made.name == "memory"


# -- view -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("view_range", [None, [3, 5], [6, -1], [0, 2], [12, 99]])
def test_view_of_a_notebook_is_exactly_what_the_sdks_own_backend_shows(
    tool: RolebookMemoryTool, tmp_path: Path, view_range: list[int] | None
) -> None:
    sdk = BetaLocalFilesystemMemoryTool(base_path=str(tmp_path / "sdk"))
    (tmp_path / "sdk" / "memories" / "coder.md").write_text(notebook(tmp_path), encoding="utf-8")
    command = {"command": "view", "path": "/memories/coder.md", "view_range": view_range}
    assert call(tool, **command) == sdk.call(command)


@pytest.mark.parametrize("path", ["/memories", "/memories/"])
def test_view_of_memories_lists_the_notebooks_as_the_sdk_lists_a_folder(
    tool: RolebookMemoryTool, tmp_path: Path, path: str
) -> None:
    call(tool, command="create", path="/memories/qa.md", file_text="## Learnings\n- [2026-01-02] flaky test\n")
    sdk = BetaLocalFilesystemMemoryTool(base_path=str(tmp_path / "sdk"))
    for role in ("coder", "qa"):
        (tmp_path / "sdk" / "memories" / f"{role}.md").write_text(notebook(tmp_path, role), encoding="utf-8")
    answer = call(tool, command="view", path=path)
    assert answer == sdk.call({"command": "view", "path": path})
    sizes = [len(notebook(tmp_path, role).encode()) for role in ("coder", "qa")]
    assert answer.splitlines()[2:] == [f"{sizes[0]}B\t{path}/coder.md", f"{sizes[1]}B\t{path}/qa.md"]


def test_view_of_a_role_without_a_notebook_says_it_does_not_exist(tool: RolebookMemoryTool) -> None:
    message = refused(tool, command="view", path="/memories/qa.md")
    assert message == "The path /memories/qa.md does not exist. Please provide a valid path."


# -- create ---------------------------------------------------------------------------------------


def test_create_writes_its_entries_through_the_write_path_with_provenance(tmp_path: Path) -> None:
    made = RolebookMemoryTool(root=tmp_path, session="s-1")
    text = "# My notes\n\n## Mistakes\n- [2026-03-02] pushed to main; open a PR\n\n## Learnings\n- deploys need VPN\n"
    answer = call(made, command="create", path="/memories/coder.md", file_text=text)
    assert answer.splitlines()[0] == "File created successfully at: /memories/coder.md"
    assert "rolebook: coder: +2 entries, 11/80 lines" in answer
    assert f"- [{TODAY}] deploys need VPN" in notebook(tmp_path)  # an undated item is today's, as in update --from
    assert notebook(tmp_path).startswith("# coder notebook\n")
    added = [r for r in records(tmp_path) if r["op"] == "added"]
    assert [(r["text"], r["source"], r["session"]) for r in added] == [
        ("pushed to main; open a PR", "memory-tool", "s-1"),
        ("deploys need VPN", "memory-tool", "s-1"),
    ]


def test_create_redacts_a_secret_and_says_so(tmp_path: Path) -> None:
    made = RolebookMemoryTool(root=tmp_path)
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    answer = call(made, command="create", path="/memories/coder.md", file_text=f"## Learnings\n- token is {key}\n")
    assert "rolebook: redacted before writing:" in answer
    assert key not in notebook(tmp_path) and key not in json.dumps(records(tmp_path))


def test_create_refuses_a_notebook_that_exists(tool: RolebookMemoryTool) -> None:
    message = refused(tool, command="create", path="/memories/coder.md", file_text="## Learnings\n- x\n")
    assert message.startswith("File /memories/coder.md already exists: view it, then add entries with str_replace")


def test_create_with_prose_beside_its_entries_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    made = RolebookMemoryTool(root=tmp_path)
    text = "# Notes\nThe user likes coffee.\n\n## Learnings\n- [2026-01-01] x\n"
    message = refused(made, command="create", path="/memories/coder.md", file_text=text)
    assert message.startswith("/memories/coder.md:2: `The user likes coffee.` is not a dated entry:")
    assert message.endswith("Nothing was written.")
    state = tmp_path / "agents" / "state"
    assert not (state / "memory" / "coder.md").exists() and not (state / "archive" / "coder.jsonl").exists()


# -- str_replace and insert ----------------------------------------------------------------------


def test_str_replace_of_an_entry_retires_the_old_text_and_writes_the_new(
    tool: RolebookMemoryTool, tmp_path: Path
) -> None:
    answer = call(
        tool,
        command="str_replace",
        path="/memories/coder.md",
        old_str="needs the lockfile",
        new_str="needs package-lock",
    )
    assert answer.splitlines()[:6] == [
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):",
        "     5\t",
        "     6\t## Learnings",
        "     7\t- [2026-03-01] npm ci needs package-lock",
        "     8\t- [2026-02-27] the CI cache key is the lockfile hash",
        "     9\t",
    ]
    assert "rolebook: coder: 1 entry left for the archive (obsolete)" in answer
    assert texts(tmp_path, "obsolete") == ["npm ci needs the lockfile"]
    assert "npm ci needs the lockfile" not in notebook(tmp_path)


def test_a_mistake_changed_by_an_edit_is_not_counted_as_its_own_recurrence(
    tool: RolebookMemoryTool, tmp_path: Path
) -> None:
    call(
        tool, command="str_replace", path="/memories/coder.md", old_str="staging DB first", new_str="staging DB, always"
    )
    assert "- [2026-03-02] ran the migration on prod; use the staging DB, always\n" in notebook(tmp_path)
    assert "(x2)" not in notebook(tmp_path) and not texts(tmp_path, "recurred")


def test_an_edit_of_the_title_or_a_heading_is_refused_and_writes_nothing(
    tool: RolebookMemoryTool, tmp_path: Path
) -> None:
    before = (notebook(tmp_path), records(tmp_path))
    title = refused(tool, command="str_replace", path="/memories/coder.md", old_str="# coder", new_str="# my")
    assert title.startswith("/memories/coder.md:1: `# my notebook` is not a dated entry: the memory tool writes")
    heading = refused(tool, command="str_replace", path="/memories/coder.md", old_str="## Learnings\n", new_str="")
    assert heading.startswith("/memories/coder.md: the edit removes line 6, `## Learnings`:")
    assert (notebook(tmp_path), records(tmp_path)) == before


def test_an_edit_that_changes_no_entry_is_refused_with_the_notebook(tool: RolebookMemoryTool) -> None:
    message = refused(
        tool, command="str_replace", path="/memories/coder.md", old_str="\n\n## Feedback", new_str="\n## Feedback"
    )
    assert message.startswith("No change was written: the edit adds, changes or removes no dated entry")
    assert "     6\t## Learnings" in message


def test_insert_adds_an_entry_newest_first_wherever_it_was_put(tool: RolebookMemoryTool, tmp_path: Path) -> None:
    answer = call(
        tool, command="insert", path="/memories/coder.md", insert_line=8, insert_text="- [2026-03-05] pnpm is faster"
    )
    assert "     7\t- [2026-03-05] pnpm is faster" in answer
    assert notebook(tmp_path).split("## Learnings\n")[1].splitlines()[:2] == [
        "- [2026-03-05] pnpm is faster",
        "- [2026-03-01] npm ci needs the lockfile",
    ]


def test_insert_out_of_range_answers_with_the_notebook(tool: RolebookMemoryTool) -> None:
    message = refused(tool, command="insert", path="/memories/coder.md", insert_line=99, insert_text="- x")
    assert message.startswith("Invalid `insert_line` parameter: 99. It should be within the range [0, 12].")
    assert "Here's the content of /memories/coder.md with line numbers:\n     1\t# coder notebook" in message


def test_the_section_cap_prunes_the_oldest_entry_to_the_archive(tmp_path: Path) -> None:
    with open(tmp_path / "rolebook.yaml", "a", encoding="utf-8") as config:  # beside the declared roles
        config.write("limits:\n  learnings: 2\n")
    made = RolebookMemoryTool(root=tmp_path)
    call(made, command="create", path="/memories/coder.md", file_text=NOTEBOOK)
    answer = call(made, command="insert", path="/memories/coder.md", insert_line=6, insert_text="- [2026-03-09] new")
    assert "rolebook: coder: +1 entry, 1 pruned to the archive, 12/80 lines" in answer
    assert texts(tmp_path, "pruned") == ["the CI cache key is the lockfile hash"]


def test_changing_an_entry_of_a_full_section_pushes_nothing_out(tmp_path: Path) -> None:
    with open(tmp_path / "rolebook.yaml", "a", encoding="utf-8") as config:  # beside the declared roles
        config.write("limits:\n  learnings: 2\n")
    made = RolebookMemoryTool(root=tmp_path)
    call(made, command="create", path="/memories/coder.md", file_text=NOTEBOOK)
    call(made, command="str_replace", path="/memories/coder.md", old_str="the lockfile\n", new_str="pnpm-lock.yaml\n")
    assert [e.text for e in parse(notebook(tmp_path)).entries("learnings")] == [
        "npm ci needs pnpm-lock.yaml",
        "the CI cache key is the lockfile hash",
    ]
    assert texts(tmp_path, "pruned") == []


def test_an_edit_of_an_entry_pruned_since_view_answers_with_the_fresh_notebook(tmp_path: Path) -> None:
    with open(tmp_path / "rolebook.yaml", "a", encoding="utf-8") as config:  # beside the declared roles
        config.write("limits:\n  learnings: 2\n")
    mine, theirs = RolebookMemoryTool(root=tmp_path), RolebookMemoryTool(root=tmp_path)
    call(mine, command="create", path="/memories/coder.md", file_text=NOTEBOOK)
    assert "cache key" in call(mine, command="view", path="/memories/coder.md")
    call(theirs, command="insert", path="/memories/coder.md", insert_line=6, insert_text="- [2026-03-09] new")
    message = refused(
        mine, command="str_replace", path="/memories/coder.md", old_str="cache key is the lockfile hash", new_str="x"
    )
    assert message.startswith("No replacement was performed, old_str `cache key is the lockfile hash` did not appear")
    assert "It may have changed since you viewed it (a full section sends its oldest entries to the archive)" in message
    assert message.split("here it is now. ")[1] == call(mine, command="view", path="/memories/coder.md")
    assert texts(tmp_path, "pruned") == ["the CI cache key is the lockfile hash"]


def test_an_entry_that_left_for_the_archive_is_not_written_back(tmp_path: Path) -> None:
    with open(tmp_path / "rolebook.yaml", "a", encoding="utf-8") as config:  # beside the declared roles
        config.write("limits:\n  learnings: 2\n")
    made = RolebookMemoryTool(root=tmp_path)
    call(made, command="create", path="/memories/coder.md", file_text=NOTEBOOK)
    call(made, command="insert", path="/memories/coder.md", insert_line=6, insert_text="- [2026-03-09] new")
    again = "- [2026-02-27] the CI cache key is the lockfile hash"
    answer = call(made, command="insert", path="/memories/coder.md", insert_line=6, insert_text=again)
    assert answer.splitlines()[0].startswith("No entry was added: rolebook already holds them")
    assert "rolebook: coder: +0 entries, 1 already recorded, 12/80 lines" in answer
    assert again not in notebook(tmp_path)


# -- delete and rename ----------------------------------------------------------------------------


def test_delete_retires_every_entry_to_the_archive_and_erases_nothing(tool: RolebookMemoryTool, tmp_path: Path) -> None:
    answer = call(tool, command="delete", path="/memories/coder.md")
    assert answer.startswith("Retired /memories/coder.md: 3 entries left for the archive (archived as obsolete")
    assert sorted(texts(tmp_path, "obsolete")) == sorted(texts(tmp_path, "added"))
    assert len(texts(tmp_path, "obsolete")) == 3
    assert parse(notebook(tmp_path)).entries() == []
    assert "## Learnings" in notebook(tmp_path)


def test_delete_of_the_folder_or_a_missing_notebook_is_refused(tool: RolebookMemoryTool) -> None:
    assert refused(tool, command="delete", path="/memories") == "Cannot delete the /memories directory itself"
    assert refused(tool, command="delete", path="/memories/qa.md") == "The path /memories/qa.md does not exist"


def test_rename_of_a_notebook_is_refused_with_a_pointer(tool: RolebookMemoryTool, tmp_path: Path) -> None:
    message = refused(tool, command="rename", old_path="/memories/coder.md", new_path="/memories/qa.md")
    assert message == (
        "rolebook does not rename notebooks: /memories/coder.md is the notebook of role 'coder'; "
        "to move entries, add them to /memories/qa.md and delete them here"
    )
    assert "\n" not in message and (tmp_path / "agents" / "state" / "memory" / "coder.md").exists()


# -- other files and path attacks ----------------------------------------------------------------


@pytest.mark.parametrize("path", ["/memories/notes/todo.md", "/memories/progress.txt", "/memories/Coder.md"])
def test_other_files_under_memories_are_refused_with_a_one_line_pointer(tool: RolebookMemoryTool, path: str) -> None:
    message = refused(tool, command="create", path=path, file_text="- [2026-01-01] x")
    assert message.startswith(f"{path}: rolebook keeps memory in one notebook per role, /memories/<role>.md")
    assert "\n" not in message
    assert refused(tool, command="view", path=path) == message


ESCAPES = [
    "/memories/../etc/passwd",
    "/memories/../../coder.md",
    "/memories/%2e%2e/%2e%2e/etc/passwd",
    "/memories/%2E%2E%2Fsecret.md",
    "/memories/%252e%252e/coder.md",
    "/memories/..%5c..%5cwindows.md",
    "/memories/..\\coder.md",
]


@pytest.mark.parametrize("path", ESCAPES)
def test_traversal_plain_or_url_encoded_is_refused(tool: RolebookMemoryTool, path: str) -> None:
    for command in ({"command": "view"}, {"command": "create", "file_text": "- [2026-01-01] x"}):
        assert refused(tool, path=path, **command) == f"Path {path} would escape /memories directory"


@pytest.mark.parametrize("path", ["/etc/passwd", "memories/coder.md", "/memoriesX/coder.md", "/tmp/memories/coder.md"])
def test_a_path_outside_memories_is_refused(tool: RolebookMemoryTool, path: str) -> None:
    assert refused(tool, command="view", path=path) == f"Path must start with /memories, got: {path}"


@pytest.mark.parametrize("path", ["/memories//etc/passwd", "/memories/coder.md\x00.txt", "/memories/con.md"])
def test_an_absolute_path_inside_memories_or_a_bad_role_name_is_no_notebook(
    tool: RolebookMemoryTool, path: str
) -> None:
    assert "rolebook keeps memory in one notebook per role" in refused(tool, command="view", path=path)


def test_a_notebook_that_links_out_of_memories_is_refused_and_not_listed(tmp_path: Path) -> None:
    made = RolebookMemoryTool(root=tmp_path)
    memory = tmp_path / "agents" / "state" / "memory"
    memory.mkdir(parents=True)
    outside = tmp_path.parent / f"{tmp_path.name}-outside.md"
    outside.write_text("## Learnings\n- [2026-01-01] secret\n", encoding="utf-8")
    (memory / "qa.md").symlink_to(outside)
    (tmp_path / "CLAUDE.md").write_text("rules\n", encoding="utf-8")
    (memory / "ops.md").symlink_to(tmp_path / "CLAUDE.md")  # inside the root, outside /memories
    for role in ("qa", "ops"):
        message = refused(made, command="view", path=f"/memories/{role}.md")
        assert message == f"Path /memories/{role}.md would escape /memories directory via symlink"
        refused(made, command="str_replace", path=f"/memories/{role}.md", old_str="secret", new_str="x")
    assert call(made, command="view", path="/memories").splitlines()[2:] == []
    assert outside.read_text(encoding="utf-8").endswith("secret\n")


def test_a_scoped_tool_writes_only_its_own_role(tmp_path: Path) -> None:
    made = RolebookMemoryTool(root=tmp_path, role="qa")
    message = refused(made, command="create", path="/memories/coder.md", file_text=NOTEBOOK)
    assert message.startswith("/memories/coder.md: this memory writes only role 'qa''s notebook, /memories/qa.md")
    call(made, command="create", path="/memories/qa.md", file_text="## Learnings\n- [2026-01-02] flaky\n")
    assert [r["by"] for r in records(tmp_path, "qa")] == ["qa"]


# -- the reading of an edit, as an invariant --------------------------------------------------------

ENTRY = st.tuples(
    st.sampled_from(["Mistakes", "Learnings", "Feedback", "Session Log"]),
    st.dates(dt.date(2020, 1, 1), dt.date(2030, 1, 1)).map(dt.date.isoformat),
    st.text("abcdefgh ", min_size=1, max_size=12).map(str.strip).filter(bool),
)


def _text(entries: list[tuple[str, str, str]]) -> str:
    out = ["# coder notebook", ""]
    for title in ("Mistakes", "Learnings", "Feedback", "Session Log"):
        out += [f"## {title}", *(f"- [{d}] {t}" for s, d, t in entries if s == title), ""]
    return "\n".join(out)


@given(st.lists(ENTRY, max_size=6, unique=True), st.lists(ENTRY, max_size=6, unique=True))
def test_an_edit_adds_exactly_the_entries_it_brings_and_retires_exactly_those_it_drops(
    old: list[tuple[str, str, str]], new: list[tuple[str, str, str]]
) -> None:
    edit = plan_edit("coder", _text(old), _text(new), "2026-01-01")
    ids = {e.id("coder") for e in parse(_text(new)).entries()}
    was = {e.id("coder") for e in parse(_text(old)).entries()}
    assert {e.id("coder") for e in edit.adds} == ids - was
    assert {e.id("coder") for e in edit.retires} == was - ids


# -- two processes ------------------------------------------------------------------------------------

WRITER = """
import sys
from rolebook import RolebookMemoryTool
root, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tool = RolebookMemoryTool(root=root)
for k in range(n):
    entry = f"- [2026-04-{k + 1:02d}] {who} learned thing {k}"
    if who == "a":
        tool.call({"command": "str_replace", "path": "/memories/coder.md", "old_str": "## Learnings\\n",
                   "new_str": "## Learnings\\n" + entry + "\\n"})
    else:
        lines = tool.call({"command": "view", "path": "/memories/coder.md"}).split("\\n")[1:]
        at = next(i for i, line in enumerate(lines) if line.endswith("## Learnings")) + 1
        tool.call({"command": "insert", "path": "/memories/coder.md", "insert_line": at, "insert_text": entry})
"""


def test_two_processes_writing_through_their_own_tools_lose_nothing(tool: RolebookMemoryTool, tmp_path: Path) -> None:
    n = 12
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), who, str(n)], stderr=subprocess.PIPE, text=True)
        for who in ("a", "b")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    wanted = {f"{who} learned thing {k}" for who in "ab" for k in range(n)}
    active = {e.text for e in parse(notebook(tmp_path)).entries("learnings")}
    pruned = set(texts(tmp_path, "pruned"))
    assert wanted <= set(texts(tmp_path, "added"))
    assert wanted <= active | pruned and not active & pruned
    assert len(active) == 20  # the learnings cap, with 26 learnings written


# -- a whole session through the SDK's tool runner ---------------------------------------------------


class MessagesStandIn:
    """A Messages API on 127.0.0.1 that asks for one memory command a turn, then says "Done.".

    Turn n asks for step n, whether the client threads the conversation on the server (the
    SDK's default: each request carries only what is new) or sends it whole (`thread=False`)."""

    def __init__(self, steps: list[dict[str, Any]]) -> None:
        self.steps, self.requests = steps, []
        self.answered: dict[str, tuple[bool, str]] = {}  # tool_use_id -> (is_error, text)
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                standin.requests.append(body)
                standin.record(body)
                n = len(standin.requests) - 1
                if n < len(standin.steps):
                    content = [{"type": "tool_use", "id": f"toolu_{n}", "name": "memory", "input": standin.steps[n]}]
                    stop = "tool_use"
                else:
                    content, stop = [{"type": "text", "text": "Done."}], "end_turn"
                message = {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-standin"}
                message |= {"content": content, "stop_reason": stop, "stop_sequence": None}
                message |= {"usage": {"input_tokens": 10, "output_tokens": 5}}
                raw = json.dumps(message).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def record(self, body: dict[str, Any]) -> None:
        for m in body["messages"]:
            for part in m["content"] if isinstance(m["content"], list) else []:
                if part.get("type") == "tool_result":
                    content = part["content"]
                    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
                    self.answered[part["tool_use_id"]] = (bool(part.get("is_error")), text)

    def results(self) -> list[tuple[bool, str]]:
        """(is_error, text) of every tool result that reached the model, in the order asked."""
        return [self.answered[f"toolu_{n}"] for n in range(len(self.answered))]


@pytest.fixture
def standin(request: pytest.FixtureRequest) -> Iterator[MessagesStandIn]:
    model = MessagesStandIn(request.param)
    threading.Thread(target=model.server.serve_forever, daemon=True).start()
    yield model
    model.server.shutdown()
    model.server.server_close()


SESSION = [
    {"command": "view", "path": "/memories"},
    {
        "command": "create",
        "path": "/memories/coder.md",
        "file_text": "# Coder\n\n## Mistakes\n- [2026-03-02] ran the migration on prod; use staging first\n\n"
        "## Learnings\n- npm ci needs the lockfile\n",
    },
    {"command": "view", "path": "/memories/coder.md"},
    {"command": "str_replace", "path": "/memories/coder.md", "old_str": "the lockfile", "new_str": "package-lock.json"},
    {
        "command": "insert",
        "path": "/memories/coder.md",
        "insert_line": 4,
        "insert_text": "- [2026-03-05] skipped tests",
    },
    {"command": "str_replace", "path": "/memories/coder.md", "old_str": "the lockfile", "new_str": "x"},
    {"command": "create", "path": "/memories/notes/todo.md", "file_text": "buy milk"},
    {"command": "view", "path": "/memories/%2e%2e/%2e%2e/rolebook.yaml"},
    {"command": "rename", "old_path": "/memories/coder.md", "new_path": "/memories/old.md"},
    {"command": "delete", "path": "/memories/coder.md"},
    {"command": "view", "path": "/memories/coder.md"},
]


@pytest.mark.parametrize("standin", [SESSION], indirect=True)
@pytest.mark.parametrize("threaded", [True, False], ids=["server-thread", "whole-history"])
def test_the_sdks_tool_runner_drives_every_command_against_a_stand_in_api(
    standin: MessagesStandIn, tmp_path: Path, threaded: bool
) -> None:
    client = Anthropic(base_url=standin.url, api_key="standin-key", max_retries=0)
    runner = client.beta.messages.tool_runner(
        model="claude-standin",
        max_tokens=1024,
        messages=[{"role": "user", "content": "Remember what you learn."}],
        tools=[RolebookMemoryTool(root=tmp_path, role="coder", session="api-1")],
        **({} if threaded else {"thread": False}),
    )
    final = runner.until_done()
    assert [b.text for b in final.content if b.type == "text"] == ["Done."]
    assert standin.requests[0]["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    answers = standin.results()
    assert [error for error, _ in answers] == [False, False, False, False, False, True, True, True, True, False, False]
    first = [text.splitlines()[0] for _, text in answers]
    assert first == [
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:",
        "File created successfully at: /memories/coder.md",
        "Here's the content of /memories/coder.md with line numbers:",
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):",
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):",
        "No replacement was performed, old_str `the lockfile` did not appear verbatim in /memories/coder.md. It "
        "may have changed since you viewed it (a full section sends its oldest entries to the archive); here it "
        "is now. Here's the content of /memories/coder.md with line numbers:",
        "/memories/notes/todo.md: rolebook keeps memory in one notebook per role, /memories/<role>.md (a role: 1-64 "
        "of a-z 0-9 - _), and nothing else; view /memories to see them, and write dated entries there: "
        "`- [YYYY-MM-DD] text` under ## Mistakes, ## Learnings, ## Feedback or ## Session Log",
        "Path /memories/%2e%2e/%2e%2e/rolebook.yaml would escape /memories directory",
        "rolebook does not rename notebooks: /memories/coder.md is the notebook of role 'coder'; to move "
        "entries, add them to /memories/old.md and delete them here",
        "Retired /memories/coder.md: 3 entries left for the archive (archived as obsolete, still searchable); "
        "the file stays, with its headings and any text rolebook does not manage",
        "Here's the content of /memories/coder.md with line numbers:",
    ]
    assert f"     7\t- [{TODAY}] npm ci needs the lockfile" in answers[2][1]
    assert "     4\t- [2026-03-05] skipped tests" in answers[5][1]  # the fresh notebook, for a retry
    ops = [(r["op"], r["text"]) for r in records(tmp_path)]
    assert ops == [
        ("added", "ran the migration on prod; use staging first"),
        ("added", "npm ci needs the lockfile"),
        ("obsolete", "npm ci needs the lockfile"),
        ("added", "npm ci needs package-lock.json"),
        ("added", "skipped tests"),
        ("obsolete", "skipped tests"),  # delete: the notebook's entries in its order
        ("obsolete", "ran the migration on prod; use staging first"),
        ("obsolete", "npm ci needs package-lock.json"),
    ]
    assert {(r["by"], r["session"]) for r in records(tmp_path)} == {("coder", "api-1")}
    assert {r.get("source") for r in records(tmp_path) if r["op"] == "added"} == {"memory-tool"}
    assert parse(notebook(tmp_path)).entries() == []
    assert sorted(os.listdir(tmp_path / "agents" / "state" / "memory")) == ["coder.md"]
