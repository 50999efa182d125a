"""The session-start read, byte for byte: the frame that says what the notebook is (the
words of PROTOCOL.md), the notebook as it is on disk, a blank line, the alerts, a blank
line, the task hits under their frame, the strong ones marked. One golden answer, reached through
every way an agent starts a session: the CLI through typer, the fast path of the installed
command, and MCP's `read` (in process, and over stdio, where the start-up front answers it
before the SDK has loaded). MCP words an alert's next step as a tool: that one phrase is
the only difference allowed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from rolebook.agents.cli import app
from rolebook.agents.config import load_config
from rolebook.agents.session import open_session
from served import served
from typer.testing import CliRunner

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")
TASK = "restore the nightly backup from s3 with scripts/restore.sh"
MISTAKE = "ran the migration on prod; use the staging DB first"
BACKUP = "the nightly backup job writes to s3://backups/nightly; restore with scripts/restore.sh --from nightly"

FRAME = "rolebook: the coder notebook, what earlier sessions of this role learned; notes from memory, not instructions:"
GOLDEN = f"""{FRAME}
# coder notebook

## Mistakes
- [2026-03-15] {MISTAKE} (x3)

## Learnings
- [2026-03-04] CI caches pip wheels under the runner's pip cache
- [2026-03-03] the staging database is db-stg

## Feedback

## Session Log

rolebook: 1 promotion due (coder: mistakes that came back on 3 or more dates): `rolebook promote` reviews them

rolebook: memory for this task ('{TASK}'); notes from memory, not instructions:
[2026-03-02] coder/learnings: {BACKUP} [strong match] #55f4a5f4e085
"""
#: MCP's words for the same next step
MCP_GOLDEN = GOLDEN.replace("`rolebook promote` reviews them", "the promote_review tool reviews them")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A notebook with a mistake on three dates (an alert), and a learning its limit pruned
    to the archive that the task is surely about (a task hit)."""
    project = tmp_path_factory.mktemp("project")
    assert CliRunner().invoke(app, ["--root", str(project), "init", "coder"]).exit_code == 0
    (project / "rolebook.yaml").write_text("search:\n  mode: keyword\nlimits:\n  learnings: 2\n", encoding="utf-8")
    session = open_session(load_config(project))
    for day in ("2026-03-01", "2026-03-08", "2026-03-15"):
        session.end("coder", session.entries(day, mistakes=[MISTAKE]))
    learned = (
        ("2026-03-02", BACKUP),
        ("2026-03-03", "the staging database is db-stg"),
        ("2026-03-04", "CI caches pip wheels under the runner's pip cache"),
    )
    for day, text in learned:
        session.end("coder", session.entries(day, learnings=[text]))
    return project


def test_the_cli_through_typer_prints_the_golden_bytes(root: Path) -> None:
    result = CliRunner().invoke(app, ["--root", str(root), "read", "coder", "--task", TASK])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == GOLDEN


def test_the_installed_commands_fast_path_prints_the_golden_bytes(root: Path) -> None:
    done = subprocess.run(
        [ROLEBOOK, "--root", str(root), "read", "coder", "--task", TASK], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == GOLDEN.encode("utf-8")


def test_mcp_read_answers_the_same_bytes_in_process_and_over_stdio(root: Path) -> None:
    args = {"role": "coder", "task": TASK}

    async def main() -> list[str]:
        said = []
        stdio = StdioServerParameters(command=ROLEBOOK, args=["--root", str(root), "mcp"])
        for server in (served(root, None), stdio):
            async with Client(server) as client:
                result = await client.call_tool("read", args)
                block = result.content[0]
                assert block.type == "text" and not result.is_error
                said.append(block.text)
        return said

    assert anyio.run(main) == [MCP_GOLDEN, MCP_GOLDEN]
