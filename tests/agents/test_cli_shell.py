"""The command line in a user's shell: `--help` lists the session's commands first, and
shell completion (typer's) answers through the installed command (a completion request
carries no arguments: the fast path leaves it to typer)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from rolebook.agents.cli import app
from typer.testing import CliRunner

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")


def installed(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The installed `rolebook`, with a home and working directory of the test's own."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ROLEBOOK_", "_ROLEBOOK_", "COMP_", "_TYPER"))}
    return subprocess.run(
        [ROLEBOOK, *args],
        cwd=tmp_path,
        env={**clean, "HOME": str(tmp_path), **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_help_lists_init_read_update_and_promote_first() -> None:
    out = CliRunner().invoke(app, ["--help"]).stdout
    listed = [line.split()[0] for line in out.split("Commands:\n", 1)[1].splitlines() if line.startswith("  ")]
    assert listed[:4] == ["init", "read", "update", "promote"]
    assert {"recall", "hook", "integrate", "mcp", "search"} <= set(listed[4:])


def test_help_offers_shell_completion() -> None:
    out = CliRunner().invoke(app, ["--help"]).stdout
    assert "--install-completion" in out and "--show-completion" in out


def test_bash_completes_command_names_and_a_hot_commands_options(tmp_path: Path) -> None:
    names = installed(tmp_path, _ROLEBOOK_COMPLETE="complete_bash", COMP_WORDS="rolebook re", COMP_CWORD="1")
    assert names.returncode == 0 and names.stdout.split() == ["read", "recall", "report", "redact"]
    # `read` is a hot command (the fast path): its options still complete through typer
    options = installed(
        tmp_path, _ROLEBOOK_COMPLETE="complete_bash", COMP_WORDS="rolebook read coder --ta", COMP_CWORD="3"
    )
    assert options.returncode == 0 and options.stdout.split() == ["--task"]


def test_show_completion_prints_the_script_for_a_shell(tmp_path: Path) -> None:
    shown = installed(tmp_path, "--show-completion", "bash")
    assert shown.returncode == 0 and "_ROLEBOOK_COMPLETE=complete_bash" in shown.stdout
    assert "complete -o default -F _rolebook_completion rolebook" in shown.stdout
