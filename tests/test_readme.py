"""The README's commands work as written, through the installed `rolebook` command."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
README = (PROJECT / "README.md").read_text(encoding="utf-8")


def block_after(heading: str, which: int = 0) -> list[str]:
    section = README.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    bodies = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return [line for line in bodies[which].splitlines() if line.strip()]


def run_lines(lines: list[str], cwd: Path) -> list[str]:
    outputs = []
    for line in lines:
        argv = shlex.split(line)
        assert argv[0] == "rolebook"
        done = subprocess.run([installed_rolebook(), *argv[1:]], cwd=cwd, capture_output=True, text=True)
        assert done.returncode == 0, (line, done.stderr)
        assert done.stderr == ""
        outputs.append(done.stdout)
    return outputs


def installed_rolebook() -> str:
    beside = Path(sys.executable).parent / "rolebook"
    found = str(beside) if beside.exists() else shutil.which("rolebook")
    assert found, "the rolebook command is not installed next to this Python"
    return found


def scratch_repository(path: Path) -> Path:
    """A fresh git repository: a project boundary, so no rolebook.yaml above the temp folder
    can capture what the README's commands write."""
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    return path


def test_try_it_runs_as_written_through_the_installed_command(tmp_path: Path) -> None:
    scratch_repository(tmp_path)
    outputs = run_lines(block_after("Try it"), tmp_path)
    notebook = outputs[3]
    assert "- [2026-03-01] npm ci needs package-lock.json committed" in notebook
    assert "ran the migration on prod; use the staging DB first" in notebook
    assert outputs[4] == "coder: within limits, 12/80 lines\ndesigner: within limits, 9/80 lines\n"
    assert outputs[5].startswith("designer/rejected_designs: stored #")
    assert outputs[6].startswith("coder: logged error npm-install-eacces #")
    assert "coder/error: check ownership first (9/10 worked)" in outputs[7]
    assert outputs[8].startswith(notebook)
    assert "memory for this task" in outputs[8] and "check ownership first" in outputs[8]


def test_the_recurring_mistake_example_ends_in_a_rule(tmp_path: Path) -> None:
    scratch_repository(tmp_path)
    run_lines(block_after("Try it"), tmp_path)
    outputs = run_lines(block_after("Try it", 1), tmp_path)
    assert "a mistake that recurs (x3)" in outputs[2]
    assert "1 promotion due" in outputs[3].splitlines()[-1]
    assert '"count": 3' in outputs[4]
    assert outputs[5].startswith("designer: promoted R")
    assert outputs[6].endswith(": Keep the bubble inside the outline. (incidents 2026-02-05, 2026-03-01, 2026-03-15)\n")
    assert "<!-- rolebook:rules:start -->" in (tmp_path / "CLAUDE.md").read_text(encoding="utf-8")


def test_the_id_the_recurring_mistake_example_confirms_is_the_first_mistakes(tmp_path: Path) -> None:
    """Without --same-as the second update proposes the first mistake, by the id the README names."""
    scratch_repository(tmp_path)
    first, second = block_after("Try it", 1)[:2]
    run_lines([block_after("Try it")[0], first], tmp_path)  # the first block's `init`, then the first mistake
    (said,) = run_lines([second.split(" --same-as ")[0] + " --json"], tmp_path)
    (proposed,) = json.loads(said)["added"][0]["possible_recurrences"]
    assert second.endswith(f" --same-as {proposed['id']}") and proposed["dates"] == ["2026-02-05"]


def test_ci_installs_and_tests_exactly_as_the_readme_says() -> None:
    ci = (PROJECT / ".ci" / "run").read_text(encoding="utf-8")
    for line in block_after("Quick start") + block_after("Set up") + block_after("Test"):
        assert line in ci.splitlines(), line


def test_the_first_code_block_is_the_quick_start_two_one_line_commands() -> None:
    first = re.search(r"```sh\n(.*?)```", README, re.DOTALL)
    assert first is not None
    lines = [line for line in first.group(1).splitlines() if line.strip()]
    assert lines == block_after("Quick start")
    install, test = lines
    assert install.startswith("pip install . && ") and test == "pip install '.[test]' && python -m pytest"
    assert block_after("Test") == [test]


def test_the_quick_start_runs_its_main_job_on_a_scratch_project(tmp_path: Path) -> None:
    """The first command after its `pip install .`, with this installation's rolebook, as bash runs it."""
    install = block_after("Quick start")[0]
    scratch = install.removeprefix("pip install . && ")
    env = {"PATH": f"{Path(installed_rolebook()).parent}:/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(tmp_path)}
    done = subprocess.run(["bash", "-c", scratch], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "# coder notebook" in done.stdout and "ran the migration on prod; use the staging DB first" in done.stdout


def test_python_dash_m_rolebook_is_the_same_command(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rolebook", "--root", str(tmp_path), "read", "qa"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "no notebook for qa yet" in done.stdout
