"""The hot commands read their command line without typer, from typer's own definition
(agents/cli/spec.json), and answer exactly as typer does."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
from rolebook.agents import fastpath
from rolebook.agents.cli import run as typer_run
from rolebook.agents.cli import spec

STDIN = json.dumps({"session_id": "s1", "tool_input": {"command": "npm ci"}, "error": "EACCES npm"})

#: (argv after `--root ROOT`, whether the fast path takes it or leaves it to typer)
CASES: list[tuple[list[str], bool]] = [
    (["read", "coder"], True),
    (["read", "coder", "--json"], True),
    (["read", "--json", "coder"], True),
    (["read", "coder", "--task", "npm", "--budget", "60"], True),
    (["read", "coder", "--task=npm", "--budget=60"], True),
    (["--as", "coder", "--session", "s9", "read", "coder"], True),
    (["--as", "../x", "read", "coder"], True),
    (["read", "../x"], True),
    (["read", "-"], True),
    (["read", "coder", "--budget", "10"], False),
    (["read", "coder", "--budget", "ten"], False),
    (["read", "coder", "--budget", "1e3"], False),
    (["read", "coder", "--budget", "5_0"], True),
    (["read"], False),
    (["read", "coder", "extra"], False),
    (["read", "coder", "--bogus"], False),
    (["read", "coder", "--help"], False),
    (["read", "coder", "-h"], False),
    (["read", "coder", "--task"], False),
    (["read", "coder", "--json=1"], False),
    (["read", "coder", "--", "x"], False),
    (["--bogus", "read", "coder"], False),
    (["--help"], False),
    ([], False),
    (["reed", "coder"], False),
    (["update", "coder", "-m", "ran it on prod; use staging", "-l", "one", "--log=WQ-1", "--date", "2026-01-02"], True),
    (["update", "coder", "--learning", "two", "--json", "--date=2026-01-02"], True),
    (["update", "coder", "-l", "one", "--date", "2026-01-01"], True),  # nothing new: exit 1
    (["update", "coder", "-l", "one", "--date", "2026-13-02"], True),
    (["update", "../x", "-l", "one"], True),
    (["update", "coder"], True),
    (["update", "coder", "-l", "token ghp_" + "a" * 36, "--date", "2026-01-03"], True),
    (["--as", "qa", "update", "coder", "-l", "not mine", "--date", "2026-01-03"], True),
    (["update", "--date", "2026-01-04", "coder", "-m", "-h", "--mistake", "b; c"], True),
    (["update", "coder", "--from", "-", "--date", "2026-01-05"], True),
    (["update", "coder", "--from", "no-such-file.md"], True),
    (["update", "coder", "-l"], False),
    (["update", "coder", "-lx"], False),
    (["update", "coder", "--mistake"], False),
    (["update", "-h"], False),
    (["search", "npm"], True),
    (["search", "npm", "--role", "coder", "--role", "qa", "--section", "mistakes", "--limit", "3", "--json"], True),
    (["search", "--root-only", "npm", "--mode", "keyword", "--budget", "50", "--tag", "X"], True),
    (["search", "npm", "--category", "learnings", "--since", "2026-01-01", "--until", "2026-12-31"], True),
    (["search", "npm", "--status", "weird"], True),
    (["search", "npm", "--since", "2026-99-01"], True),
    (["search", "nothing matches this"], True),
    (["search", "npm", "--limit", " +2"], True),
    (["search", "npm", "--limit", "0"], False),
    (["search", "npm", "--limit", "1001"], False),
    (["search"], False),
    (["search", "a", "b"], False),
    (["recall", "--role", "coder", "--command", "npm ci", "--error", "EACCES"], True),
    (["recall", "--role=coder", "--agent", "codex"], True),
    (["recall", "--role", "coder", "--newer-option", "x"], True),
    (["recall", "-x", "--role", "coder"], True),
    (["recall", "--role"], False),
    (["recall", "--help"], False),
    (["recall", "-xy"], False),
    (["hook", "session-start", "--role", "coder"], True),
    (["hook", "session-start", "--role", "coder", "--agent", "codex"], True),
    (["hook", "stop", "--role", "coder"], True),
    (["hook", "stop"], True),
    (["hook", "nope", "--role", "coder"], True),
    (["hook", "stop", "--role", "coder", "--future=1"], True),
    (["hook"], False),
    (["hook", "stop", "--role"], False),
    (["--as", "../x", "mcp"], True),
    (["mcp", "--bogus"], False),
    (["mcp", "-h"], False),
]


@pytest.fixture(scope="module")
def lived_in(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root with a notebook and an archive, made once and copied for each case."""
    root = tmp_path_factory.mktemp("template")
    assert typer_run(["--root", str(root), "init", "coder"]) == 0
    assert typer_run(["--root", str(root), "update", "coder", "-l", "one", "-m", "npm ci failed: EACCES; chown"]) == 0
    assert typer_run(["--root", str(root), "update", "coder", "-l", "one", "--date", "2026-01-01"]) == 0
    return root


def answer(
    route: str, root: Path, argv: list[str], capfdbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> tuple[int | None, bytes, bytes]:
    """(exit code, stdout, stderr) of one route, the root's path written as ROOT."""
    monkeypatch.setattr("sys.stdin", io.StringIO("## Learnings\n- from stdin\n" if "--from" in argv else STDIN))
    full = ["--root", str(root), *argv]
    code = fastpath.run(full) if route == "fast" else typer_run(full)
    out, err = capfdbinary.readouterr()
    where = str(root).encode()
    return code, out.replace(where, b"ROOT"), err.replace(where, b"ROOT")


@pytest.mark.parametrize("argv", [a for a, fast in CASES if fast], ids=[" ".join(a) for a, fast in CASES if fast])
def test_the_fast_path_answers_exactly_as_typer_does(
    tmp_path: Path,
    lived_in: Path,
    argv: list[str],
    capfdbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    roots = {"fast": tmp_path / "fast", "typer": tmp_path / "typer"}
    for root in roots.values():
        shutil.copytree(lived_in, root)
    monkeypatch.chdir(tmp_path)
    capfdbinary.readouterr()
    got = answer("fast", roots["fast"], argv, capfdbinary, monkeypatch)
    assert got[0] is not None, "left to typer"
    assert got == answer("typer", roots["typer"], argv, capfdbinary, monkeypatch)
    notebook = "agents/state/memory/coder.md"
    assert (roots["fast"] / notebook).read_bytes() == (roots["typer"] / notebook).read_bytes()


@pytest.mark.parametrize(
    "argv", [a for a, fast in CASES if not fast], ids=[" ".join(a) for a, fast in CASES if not fast]
)
def test_a_command_line_the_fast_path_cannot_read_exactly_is_left_to_typer_untouched(
    tmp_path: Path, argv: list[str], capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert fastpath.run(["--root", str(tmp_path), *argv]) is None
    assert capfdbinary.readouterr() == (b"", b"")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [a for a, fast in CASES if fast], ids=[" ".join(a) for a, fast in CASES if fast])
def test_the_fast_path_hands_each_command_the_values_typer_hands_it(
    tmp_path: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    calls: list[tuple[str, Any, dict[str, Any]]] = []
    for name in fastpath.COMMANDS:
        monkeypatch.setitem(fastpath.COMMANDS, name, lambda g, _n=name, **v: calls.append((_n, g, v)) or 0)
    full = ["--root", str(tmp_path), *argv]
    assert fastpath.run(full) == 0
    assert typer_run(full) == 0
    fast, slow = calls
    assert fast == slow
    assert [type(v) for v in fast[2].values()] == [type(v) for v in slow[2].values()]


def test_an_environment_variable_stands_for_a_global_option_as_in_typer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[Any] = []
    monkeypatch.setitem(fastpath.COMMANDS, "read", lambda g, **v: calls.append(g) or 0)
    monkeypatch.setenv("ROLEBOOK_ROOT", str(tmp_path))
    monkeypatch.setenv("ROLEBOOK_ROLE", "qa")
    monkeypatch.setenv("ROLEBOOK_SESSION", "")  # empty: not given, as click reads it
    assert fastpath.run(["read", "coder"]) == typer_run(["read", "coder"]) == 0
    assert calls[0] == calls[1] == fastpath.Globals(tmp_path, "qa", None)


def test_the_spec_file_is_what_typer_says_the_hot_commands_take() -> None:
    assert fastpath.SPEC.read_text(encoding="utf-8") == spec.text(), "run: python -m rolebook.agents.cli.spec"


def test_a_typer_option_added_to_a_hot_command_changes_the_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    from rolebook.agents.cli import app as the_app

    before = spec.generate()
    read = next(c for c in the_app.registered_commands if c.name == "read")
    original = read.callback
    assert original is not None

    def with_more(ctx: typer.Context, role: str, more: Annotated[int, typer.Option("--more")] = 3) -> None: ...

    monkeypatch.setattr(read, "callback", with_more)
    after = spec.generate()
    assert after != before
    assert [p["name"] for p in after["commands"]["read"]["params"]] == ["role", "more"]


def test_a_parameter_of_a_type_the_fast_path_does_not_read_sends_every_line_to_typer() -> None:
    spec_data = json.loads(fastpath.SPEC.read_text(encoding="utf-8"))
    assert fastpath.parse(spec_data, ["read", "coder"]) is not None
    budget = next(p for p in spec_data["commands"]["read"]["params"] if p["name"] == "budget")
    budget["type"] = "other"
    assert fastpath.parse(spec_data, ["read", "coder"]) is None
    assert fastpath.parse(spec_data, ["read", "coder", "--budget", "60"]) is None


def test_a_choice_is_read_only_when_offered() -> None:
    param = {"name": "x", "type": "choice", "choices": ["a", "b"]}
    assert [fastpath._convert(param, v) for v in ("a", "c", "A")] == ["a", None, None]


def test_a_hook_given_options_it_does_not_know_still_runs_and_names_them(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = [
        (["recall", "-xy", "--role", "coder"], "rolebook recall: ignored what it does not know: -xy\n"),
        (
            ["hook", "stop", "--role", "coder", "--future", "1"],
            "rolebook hook: ignored what it does not know: --future 1\n",
        ),
    ]
    for argv, said in cases:
        monkeypatch.setattr("sys.stdin", io.StringIO(STDIN))
        assert typer_run(["--root", str(tmp_path), *argv]) == 0
        assert capfd.readouterr().err.startswith(said)
