"""Nothing rolebook writes outside its stores goes through a symlink that leaves the project:
`integrate` for every agent CLI, `init`, the rules file, shared roots, and the files `report`
and `export` write in the project (one named outside it is the user's). A cloned repository
can carry such a link; it must never make rolebook edit a user's global settings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from rolebook.agents.cli import app
from typer.testing import CliRunner

runner = CliRunner()

#: every file `integrate AGENT --role coder` writes, by agent CLI
WRITES = {
    "claude": (".claude/settings.json", ".mcp.json", "CLAUDE.md"),
    "codex": (".codex/config.toml", ".codex/hooks.json", "AGENTS.md"),
    "gemini": (".gemini/settings.json", "GEMINI.md"),
    "copilot": (".mcp.json", ".github/hooks/rolebook.json", ".github/copilot-instructions.md"),
    "cursor": (".cursor/mcp.json", ".cursor/hooks.json", ".cursor/rules/rolebook.mdc"),
}
FILES = [(agent, name) for agent, names in WRITES.items() for name in names]
FOLDERS = sorted({(agent, name.split("/")[0]) for agent, name in FILES if "/" in name})


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


def snapshot(*folders: Path) -> dict[str, object]:
    """Every file's bytes and every link's target under the folders, links not followed."""
    out: dict[str, object] = {}
    for folder in folders:
        for here, dirs, names in os.walk(folder):
            for name in dirs + names:
                path = Path(here) / name
                if path.is_symlink():
                    out[str(path)] = ("link", os.readlink(path))
                elif path.is_file():
                    out[str(path)] = path.read_bytes()
                else:
                    out[str(path)] = "folder"
    return out


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    """A project (a git work tree) and a folder outside it standing for the user's home."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    return project, home


def refused(code: int, err: str, path: Path) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and str(path) in err and "outside the root" in err


@pytest.mark.parametrize(("agent", "name"), FILES)
def test_integrate_refuses_a_settings_file_that_is_a_symlink_out_of_the_project(
    places: tuple[Path, Path], agent: str, name: str
) -> None:
    project, home = places
    target = home / "global-settings"
    target.write_text("{}\n" if name.endswith(".json") else "# mine\n")
    link = project / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    before = snapshot(project, home)
    code, _, err = rb(project, "integrate", agent, "--role", "coder")
    refused(code, err, link)
    assert snapshot(project, home) == before


@pytest.mark.parametrize(("agent", "folder"), FOLDERS)
def test_integrate_refuses_a_settings_folder_that_is_a_symlink_out_of_the_project(
    places: tuple[Path, Path], agent: str, folder: str
) -> None:
    project, home = places
    (home / "dot-folder").mkdir()
    (project / folder).symlink_to(home / "dot-folder")
    before = snapshot(project, home)
    code, _, err = rb(project, "integrate", agent, "--role", "coder")
    assert code == 2 and "outside the root" in err and f"{project / folder}/" in err
    assert snapshot(project, home) == before


@pytest.mark.parametrize("agent", sorted(WRITES))
def test_integrate_refuses_a_dangling_link_out_of_the_project_and_creates_nothing_there(
    places: tuple[Path, Path], agent: str
) -> None:
    project, home = places
    name = WRITES[agent][-1]
    link = project / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(home / "not-yet" / "anything.md")
    code, _, err = rb(project, "integrate", agent, "--role", "coder", "--print")
    refused(code, err, link)
    assert list(home.iterdir()) == []


def test_integrate_writes_through_a_symlink_that_stays_inside_the_project(places: tuple[Path, Path]) -> None:
    project, _ = places
    (project / "config").mkdir()
    (project / "config/mcp.json").write_text("{}\n")
    (project / ".mcp.json").symlink_to("config/mcp.json")
    (project / "AGENTS.md").write_text("# Agents\n")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    code, _, err = rb(project, "integrate", "claude", "--role", "coder")
    assert code == 0, err
    assert (project / ".mcp.json").is_symlink() and '"rolebook"' in (project / "config/mcp.json").read_text()
    assert "@agents/state/PROTOCOL.md" in (project / "AGENTS.md").read_text()


def test_init_with_an_agent_writes_nothing_at_all_when_one_of_its_files_leads_out(places: tuple[Path, Path]) -> None:
    project, home = places
    (home / "mcp.json").write_text("{}\n")
    (project / ".mcp.json").symlink_to(home / "mcp.json")
    before = snapshot(project, home)
    code, _, err = rb(project, "init", "coder", "--agent", "claude")
    refused(code, err, project / ".mcp.json")
    assert snapshot(project, home) == before


INIT_FILES = [
    ".gitignore",
    ".gitattributes",
    "rolebook.yaml",
    "agents/state/PROTOCOL.md",
    "agents/state/memory/coder.md",
]


@pytest.mark.parametrize("name", INIT_FILES)
def test_init_refuses_a_file_it_writes_that_is_a_symlink_out_and_writes_nothing(
    places: tuple[Path, Path], name: str
) -> None:
    project, home = places
    (home / "target").write_text("mine\n")
    link = project / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(home / "target")
    before = snapshot(project, home)
    code, _, err = rb(project, "init", "coder")
    refused(code, err, link)
    assert snapshot(project, home) == before


@pytest.mark.parametrize("folder", ["agents", "agents/state", "agents/state/archive"])
def test_init_refuses_a_store_folder_that_is_a_symlink_out_and_writes_nothing(
    places: tuple[Path, Path], folder: str
) -> None:
    project, home = places
    (home / "elsewhere").mkdir()
    (project / folder).parent.mkdir(parents=True, exist_ok=True)
    (project / folder).symlink_to(home / "elsewhere")
    before = snapshot(project, home)
    code, _, err = rb(project, "init", "coder")
    assert code == 2 and "outside the root" in err, err
    assert snapshot(project, home) == before


def test_init_never_registers_the_merge_driver_through_a_git_folder_that_leads_out(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(elsewhere)], check=True)
    (project / ".git").symlink_to(elsewhere / ".git")
    config = (elsewhere / ".git/config").read_bytes()
    code, _, err = rb(project, "init", "coder")
    refused(code, err, project / ".git")
    assert (elsewhere / ".git/config").read_bytes() == config
    assert sorted(p.name for p in project.iterdir()) == [".git"]


def test_init_registers_the_merge_driver_in_this_repository_only_not_in_a_parent_one(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)  # not a repository git can use: git would look up
    before = (tmp_path / ".git/config").read_bytes()
    code, _, err = rb(project, "init", "coder")
    assert code == 0 and "could not register the notebook merge driver" in err
    assert (tmp_path / ".git/config").read_bytes() == before


@pytest.mark.parametrize("command", [["promote", "--yes"], ["demote", "RULE"]])
def test_promote_and_demote_refuse_a_rules_file_that_is_a_symlink_out(
    places: tuple[Path, Path], command: list[str]
) -> None:
    project, home = places
    rb(project, "init", "coder")
    for day in ("2026-01-05", "2026-02-05", "2026-03-05"):
        rb(project, "update", "coder", "-m", "pushed without the tests; run the tests first", "--date", day)
    if command[0] == "demote":
        assert rb(project, "promote", "--yes")[0] == 0
        rid = json.loads(rb(project, "rules", "--json")[1])["rules"][0]["id"]
        rule = (project / "CLAUDE.md").read_text()
        (project / "CLAUDE.md").unlink()
        (home / "CLAUDE.md").write_text(rule)
        command = ["demote", rid]
    else:
        (home / "CLAUDE.md").write_text("# my global rules\n")
    (project / "CLAUDE.md").symlink_to(home / "CLAUDE.md")
    before = snapshot(home)
    code, _, err = rb(project, *command)
    assert code == 2 and "outside the root" in err and str(project / "CLAUDE.md") in err, err
    assert snapshot(home) == before


def test_share_refuses_a_shared_root_whose_archive_folder_leads_out_of_it(tmp_path: Path) -> None:
    project, team, home = tmp_path / "project", tmp_path / "team", tmp_path / "home"
    for folder in (project, team, home):
        folder.mkdir()
    rb(team, "init")
    (team / "agents/state").mkdir(parents=True, exist_ok=True)
    (team / "agents/state/archive").symlink_to(home)
    rb(project, "init", "coder")
    (project / "rolebook.yaml").write_text("shared_roots: [{name: team, path: ../team}]\n")
    rb(project, "update", "coder", "-m", "forgot the lockfile; commit it")
    mid = next(line.split("#")[-1].strip() for line in rb(project, "search", "lockfile")[1].splitlines() if "#" in line)
    code, _, err = rb(project, "share", mid, "--to", "team")
    assert code == 2 and "outside the root" in err, err
    assert list(home.iterdir()) == []


@pytest.mark.parametrize(
    "args", [["read", "coder"], ["search", "anything"], ["doctor", "--repair"], ["update", "coder", "-l", "x"]]
)
def test_a_derived_folder_that_is_a_symlink_out_is_refused_and_nothing_there_is_written_or_deleted(
    places: tuple[Path, Path], args: list[str]
) -> None:
    project, home = places
    rb(project, "init", "coder")
    (home / "index.sqlite").write_text("the user's own file of that name\n")
    (home / "cache").mkdir()
    shutil.rmtree(project / "agents/state/.rolebook", ignore_errors=True)
    (project / "agents/state/.rolebook").symlink_to(home)  # git ignores the folder, not a link in its place
    before = snapshot(home)
    code, _, err = rb(project, *args)
    assert code == 2 and "the derived folder" in err and "outside the root" in err, err
    assert snapshot(home) == before


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("rolebook-report.html", ["report"]),
        ("backup.jsonl", ["export", "-o", "backup.jsonl"]),
        ("memory/MEMORY.md", ["export", "--format", "claude-agent-memory", "--role", "coder", "memory"]),
    ],
)
def test_report_and_export_refuse_a_file_in_the_project_that_is_a_symlink_out(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, name: str, args: list[str]
) -> None:
    project, home = places
    rb(project, "init", "coder")
    rb(project, "update", "coder", "-l", "pin node to 20 in CI")
    (home / "bashrc").write_text("export PATH=~/bin:$PATH\n")
    (project / name).parent.mkdir(parents=True, exist_ok=True)
    (project / name).symlink_to(home / "bashrc")
    monkeypatch.chdir(project)  # the default report and relative names are of the folder one is in
    before = snapshot(home)
    code, _, err = rb(project, *args)
    refused(code, err, Path(name))
    assert snapshot(home) == before


def test_report_and_export_write_a_file_named_outside_the_project_as_asked(places: tuple[Path, Path]) -> None:
    project, home = places
    rb(project, "init", "coder")
    rb(project, "update", "coder", "-l", "pin node to 20 in CI")
    assert rb(project, "report", "-o", str(home / "report.html"))[0] == 0
    assert rb(project, "export", "-o", str(home / "backup.jsonl"))[0] == 0
    assert "pin node to 20 in CI" in (home / "backup.jsonl").read_text()
    assert (home / "report.html").read_text().startswith("<!DOCTYPE html>")
