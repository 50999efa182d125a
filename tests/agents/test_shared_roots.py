"""Shared roots: three repositories and a team's knowledge repository, through the installed command."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from rolebook.notebook.store.archive import ArchiveRecord, read_records
from rolebook.notebook.store.layout import Layout

ROLEBOOK = str(Path(sys.executable).parent / "rolebook")
TEAM = "shared_roots:\n  - {name: team, path: ../knowledge%s}\n"


def rolebook(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ROLEBOOK, *args], cwd=cwd, capture_output=True, text=True)


def ok(cwd: Path, *args: str) -> str:
    done = rolebook(cwd, *args)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def git_repo(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    return path


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """knowledge (a rolebook root), app1 and app2 (sharing every new mistake), app3."""
    for name, value in (("NAME", "Test"), ("EMAIL", "test@example.invalid")):
        monkeypatch.setenv(f"GIT_AUTHOR_{name}", value)
        monkeypatch.setenv(f"GIT_COMMITTER_{name}", value)
    roots = {name: git_repo(tmp_path / name) for name in ("knowledge", "app1", "app2", "app3")}
    ok(roots["knowledge"], "init")
    for name in ("app1", "app2", "app3"):
        ok(roots[name], "init", "coder")
        share = ", share: [mistakes]" if name != "app3" else ""
        with (roots[name] / "rolebook.yaml").open("a") as f:
            f.write(TEAM % share)
    return roots


def team_records(team: dict[str, Path], role: str = "coder") -> list[ArchiveRecord]:
    path = Layout.default(team["knowledge"]).archive_path(role)
    return [r for _, _, r in read_records(path) if isinstance(r, ArchiveRecord)]


def first_id(cwd: Path, query: str) -> str:
    hits = json.loads(ok(cwd, "search", query, "--json", "--root-only"))["hits"]
    return str(hits[0]["id"])


def test_a_lesson_shared_from_one_repository_is_found_from_another_with_its_origin(team: dict[str, Path]) -> None:
    ok(team["app1"], "update", "coder", "-l", "npm ci fails with EACCES on a root-owned checkout; chown it first")
    eid = first_id(team["app1"], "EACCES")
    out = ok(team["app1"], "share", eid[:8])
    assert out.startswith(f"team: shared #{eid} (coder/learnings) into {team['knowledge']}: agents/state/archive/")
    assert "git -C" in out and "push" in out
    again = ok(team["app1"], "share", eid)
    assert again == f"team: #{eid} is shared already; nothing changed\n"
    (copy,) = team_records(team)
    assert (copy.op, copy.id, copy.extra["origin"]["repo"], copy.extra["origin"]["id"]) == ("shared", eid, "app1", eid)
    found = ok(team["app3"], "search", "npm EACCES")
    assert found.startswith("[") and "team:coder/learnings: npm ci fails with EACCES" in found
    assert rolebook(team["app3"], "search", "npm EACCES", "--root-only").returncode == 1
    task = ok(team["app3"], "read", "coder", "--task", "fix the npm EACCES failure in CI")
    assert "team:coder/learnings: npm ci fails" in task
    # the repository it came from shows it once, as its own
    assert ok(team["app1"], "search", "EACCES").count(f"#{eid}") == 1
    assert "team:" not in ok(team["app1"], "search", "EACCES")


def test_hits_from_every_root_are_ranked_on_one_scale(team: dict[str, Path]) -> None:
    local, shared = team["app3"], team["app1"]
    for i in range(30):  # the team root is large: its own BM25 would weigh its words differently
        ok(shared, "update", "coder", "-l", f"unrelated note number {i} about caching layers")
    ok(shared, "update", "coder", "-l", "flaky playwright test: wait for the network to be idle before the click")
    strong = first_id(shared, "playwright idle")
    ok(shared, "share", strong)
    ok(local, "update", "coder", "-l", "the playwright report folder is large")
    lines = ok(local, "search", "flaky playwright test click").splitlines()
    assert "team:coder/learnings: flaky playwright" in lines[0] and "report folder" in lines[1]
    # the same words in both roots: this root's hit wins the tie
    ok(shared, "update", "coder", "-l", "rotate the staging keys monthly")
    ok(shared, "share", first_id(shared, "rotate staging keys"))
    ok(local, "update", "coder", "-l", "Rotate the staging keys, monthly.")  # other text, the same words
    lines = ok(local, "search", "rotate staging keys").splitlines()
    assert len(lines) == 2 and "team:" in lines[1] and "team:" not in lines[0]


def test_new_mistakes_are_shared_and_one_recurring_across_repositories_becomes_a_team_rule(
    team: dict[str, Path],
) -> None:
    ok(team["app1"], "update", "coder", "-m", "deployed without the staging migration; run migrations on staging first",
       "--date", "2026-10-01")  # fmt: skip
    ok(team["app1"], "update", "coder", "-m", "deployed without the staging migration; run migrations on staging first",
       "--date", "2026-10-03")  # fmt: skip
    assert ok(team["knowledge"], "promote", "--json").count('"id"') == 0  # one repository is not the team
    assert json.loads(ok(team["app3"], "promote", "--shared", "--json"))["candidates"] == []
    ok(team["app2"], "update", "coder", "-m", "Deployed without the staging migration, again; run migrations on "
       "staging first", "--date", "2026-10-15")  # fmt: skip
    assert [r.extra["origin"]["repo"] for r in team_records(team)] == ["app1", "app1", "app2"]
    review = ok(team["app3"], "promote", "--shared")
    assert "(from app1)" in review and "(from app2)" in review and "--shared --apply ID" in review
    out = ok(team["app3"], "promote", "--shared", "--yes")
    assert "promoted R" in out and "@../knowledge/CLAUDE.md" in out
    rules = (team["knowledge"] / "CLAUDE.md").read_text()
    assert "- Run migrations on staging first. _(coder; incidents 2026-10-01, 2026-10-03, 2026-10-15)_" in rules
    assert not (team["app3"] / "CLAUDE.md").exists() or "staging" not in (team["app3"] / "CLAUDE.md").read_text()
    assert json.loads(ok(team["app3"], "promote", "--shared", "--json"))["candidates"] == []


@pytest.mark.load
def test_concurrent_shares_from_several_processes_lose_nothing_and_add_nothing_twice(team: dict[str, Path]) -> None:
    ids = []
    for app in ("app1", "app2"):
        for i in range(6):
            ok(team[app], "update", "coder", "-l", f"{app} lesson {i} about the build cache")
            ids.append((app, first_id(team[app], f"{app} lesson {i}")))
    jobs = ids * 2  # every item shared twice, all at once
    with ThreadPoolExecutor(max_workers=12) as pool:
        done = list(pool.map(lambda job: rolebook(team[job[0]], "share", job[1]), jobs))
    assert all(d.returncode == 0 for d in done), [d.stderr for d in done if d.returncode]
    assert sorted(r.id for r in team_records(team)) == sorted(eid for _, eid in ids)


def test_a_missing_shared_root_is_one_warning_and_never_a_failure(tmp_path: Path) -> None:
    app = git_repo(tmp_path / "app")
    ok(app, "init", "coder")
    (app / "rolebook.yaml").write_text(TEAM % "" + "  - {name: other, path: " + str(tmp_path) + "}\n")
    ok(app, "update", "coder", "-l", "a local lesson about caches")
    done = rolebook(app, "search", "caches")
    assert done.returncode == 0 and "a local lesson about caches" in done.stdout
    said = done.stderr.splitlines()
    assert said == [
        f"rolebook: shared root 'team' ({tmp_path / 'knowledge'}) is missing: it is left out",
        f"rolebook: shared root 'other' ({tmp_path}) is not a rolebook root (`rolebook init` there makes it one): "
        "it is left out",
    ]
    refused = rolebook(app, "share", first_id(app, "caches"), "--to", "nobody")
    assert refused.returncode == 2 and "no shared root named 'nobody'" in refused.stderr


def test_share_redacts_again_keeps_scope_and_commits_when_asked(team: dict[str, Path]) -> None:
    notebook = Layout.default(team["app1"]).notebook_path("coder")
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    text = notebook.read_text().replace("## Learnings\n", f"## Learnings\n\n- [2026-11-01] the CI token is {token}\n")
    notebook.write_text(text)  # typed by hand: never through rolebook's intake
    eid = first_id(team["app1"], "CI token")
    scoped = rolebook(team["app1"], "--as", "qa", "share", eid)
    assert scoped.returncode == 2 and "scoped to role 'qa'" in scoped.stderr
    done = rolebook(team["app1"], "share", eid, "--commit")
    assert done.returncode == 0 and "redacted" in done.stderr and "committed" in done.stdout
    shared = Layout.default(team["knowledge"]).archive_path("coder").read_text()
    assert token not in shared and "[REDACTED:" in shared
    log = subprocess.run(["git", "log", "--oneline"], cwd=team["knowledge"], capture_output=True, text=True)
    assert f"rolebook: share #{eid} from app1" in log.stdout


def test_the_mcp_search_tool_shows_shared_hits_with_their_origin_and_can_leave_them_out(
    team: dict[str, Path],
) -> None:
    import anyio
    import mcp.types as t
    from mcp import Client
    from served import served

    ok(team["app1"], "update", "coder", "-l", "npm ci fails with EACCES on a root-owned checkout; chown it first")
    ok(team["app1"], "share", first_id(team["app1"], "EACCES"))

    async def main() -> tuple[t.CallToolResult, t.CallToolResult]:
        async with Client(served(team["app3"], None)) as client:
            both = await client.call_tool("search", {"query": "npm EACCES"})
            mine = await client.call_tool("search", {"query": "npm EACCES", "root_only": True})
            return both, mine

    both, mine = anyio.run(main)
    assert both.structured_content is not None and mine.structured_content is not None
    (hit,) = both.structured_content["hits"]
    assert (hit["origin"], hit["role"], hit["section"]) == ("team", "coder", "learnings")
    block = both.content[0]
    assert isinstance(block, t.TextContent) and "team:coder/learnings: npm ci fails" in block.text
    assert mine.structured_content["hits"] == []


def test_the_recall_hook_finds_a_lesson_in_the_shared_root(team: dict[str, Path]) -> None:
    ok(team["app1"], "update", "coder", "-l", "npm ci fails with EACCES on a root-owned checkout; chown it first")
    ok(team["app1"], "share", first_id(team["app1"], "EACCES"))
    payload = json.dumps(
        {
            "hook_event_name": "PostToolUseFailure",
            "tool_input": {"command": "npm ci"},
            "error": "npm ERR! code EACCES permission denied",
        }
    )
    done = subprocess.run([ROLEBOOK, "recall"], cwd=team["app3"], input=payload, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "team:coder/learnings: npm ci fails with EACCES" in context


def test_integrate_offers_the_line_that_makes_each_cli_read_the_team_rules(team: dict[str, Path]) -> None:
    claude = ok(team["app3"], "integrate", "claude", "--role", "coder")
    assert "add this line to CLAUDE.md so claude reads them: @../knowledge/CLAUDE.md" in claude
    codex = ok(team["app3"], "integrate", "codex", "--role", "coder", "--print")
    assert "codex reads no @-imports; paste what `rolebook rules --rules-file ../knowledge/CLAUDE.md`" in codex


def test_the_same_mistake_in_two_repositories_is_each_ones_and_forms_a_team_rule(team: dict[str, Path]) -> None:
    mistake = "pushed a tag before CI passed; wait for the green build before tagging"
    ok(team["app1"], "update", "coder", "-m", mistake, "--date", "2026-10-01")
    ok(team["app1"], "update", "coder", "-m", mistake + " (again)", "--date", "2026-10-06")
    assert json.loads(ok(team["app3"], "promote", "--shared", "--json"))["candidates"] == []  # one repository
    # the same words on the same day in another repository: one id, and a second repository that saw it
    ok(team["app2"], "update", "coder", "-m", mistake, "--date", "2026-10-01")
    first, _, second = team_records(team)
    assert first.id == second.id and second.extra["origin"]["repos"] == ["app1", "app2"]
    (candidate,) = json.loads(ok(team["app3"], "promote", "--shared", "--json"))["candidates"]
    assert candidate["dates"] == ["2026-10-01", "2026-10-06"]
    # shared again from either repository: nothing added
    ok(team["app2"], "share", second.id)
    ok(team["app1"], "share", second.id)
    assert len(team_records(team)) == 3
    hits = json.loads(ok(team["app2"], "search", "tag before CI", "--json"))["hits"]
    assert sum(1 for h in hits if "pushed a tag before CI passed" in h["text"]) == 2  # the local one and app1's (again)
