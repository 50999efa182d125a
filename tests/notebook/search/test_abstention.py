"""The recall hook's decision (notebook/search/abstention.py) on labelled real failures.

Sets a and c (tests/fixtures/failures, read the cards) were split before anything was
fitted on them: the constants were chosen on a's and c's "fit" rows and all of set b
(`python tests/bench/bench_recall.py --fit`), and these tests pin what they do on a's and
c's held-out rows, which the fit never saw. The figures through every agent CLI's form are
the bench's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from rolebook.agents.config import load_config
from rolebook.agents.session import open_session
from rolebook.notebook.search import bounded, failure_of, sure_hits
from rolebook.notebook.search.abstention import Decision
from rolebook.notebook.store import Layout, Writer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench_recall import tally
from roots import remember

FAILURES = Path(__file__).resolve().parents[2] / "fixtures" / "failures"


def rows(name: str, folder: str = "a") -> list[dict[str, Any]]:
    with (FAILURES / folder / name).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def remember_set(root: Path, folder: str) -> tuple[Layout, dict[str, str]]:
    """A set's lessons in a fresh root, searched by keywords; which lesson each record is."""
    return Layout.default(root), remember(root, rows("lessons.jsonl", folder), "search:\n  mode: keyword\n")


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> tuple[Layout, dict[str, str]]:
    return remember_set(tmp_path_factory.mktemp("memory"), "a")


@pytest.fixture(scope="module")
def memory_c(tmp_path_factory: pytest.TempPathFactory) -> tuple[Layout, dict[str, str]]:
    return remember_set(tmp_path_factory.mktemp("memory_c"), "c")


def figures(memory: tuple[Layout, dict[str, str]], split: str, folder: str = "a") -> tuple[float, float, float, float]:
    """(hit rate, precision, silence, characters per failure) of the hook's decision."""
    layout, ids = memory
    picks: list[tuple[set[str], list[str]]] = []
    chars = 0
    for case in rows("failures.jsonl", folder):
        if case["split"] != split:
            continue
        output = "\n".join(s for s in (case["stdout"], case["stderr"]) if s)
        found = sure_hits([("", layout)], failure_of(case["command"], bounded(output), case["exit_code"]))
        picks.append((set(case["relevant"]), [ids.get(h.id, "?") for h in found.hits]))
        chars += sum(len(h.line(200)) for h in found.hits)
    return (*tally(picks), chars / len(picks))  # the bench's own tally: one definition of each figure


#: The held-out floors, at the constants fitted on three hands (measured; through the hook,
#: bench_recall.py, the same). Set a: fitted on a's fit rows alone (the last stop) it was
#: 0.615 / 0.805 / 0.907, its hit rate bought on a's own hand (on set b, then never fitted
#: on: 0.635 / 0.741 / 0.832); before the decision (every failure got its 3-5 best keyword
#: hits) 0.62 / 0.08 / 0.00. Set c, a third hand whose lessons paraphrase their errors
#: (keyword evidence is weakest there): the last stop's decision 0.396 / 0.618 / 0.860;
#: what the hook cannot yet do is pinned too, a drop fails.
HELD_OUT_FLOORS = {"a": (0.55, 0.80, 0.93), "c": (0.30, 0.59, 0.88)}  # measured 0.558/0.806/0.930, 0.302/0.593/0.880


@pytest.mark.parametrize("folder", sorted(HELD_OUT_FLOORS))
def test_on_held_out_failures_the_hook_shows_the_lesson_for_most_and_stays_silent_on_the_rest(
    folder: str, request: pytest.FixtureRequest
) -> None:
    memory = request.getfixturevalue("memory" if folder == "a" else "memory_c")
    hit, precision, silence, chars = figures(memory, "held-out", folder)
    print(f"{folder} held-out: hit {hit:.3f}, precision {precision:.3f}, silence {silence:.3f}, {chars:.0f} chars")
    least_hit, least_precision, least_silence = HELD_OUT_FLOORS[folder]
    assert hit >= least_hit
    assert precision >= least_precision
    assert silence >= least_silence
    assert chars <= 400


def test_a_failure_no_lesson_is_about_gets_nothing_even_when_its_tool_has_lessons(
    memory: tuple[Layout, dict[str, str]],
) -> None:
    layout, _ = memory
    output = "npm error code ENEEDAUTH\nnpm error need auth This command requires you to be logged in."
    assert sure_hits([("", layout)], failure_of("npm whoami", output)).hits == ()


def test_a_lesson_that_names_the_failures_error_code_and_message_is_shown_alone(
    memory: tuple[Layout, dict[str, str]],
) -> None:
    layout, ids = memory
    output = (
        "fatal: detected dubious ownership in repository at '/work/app'\n"
        "To add an exception for this directory, call:\n\n\tgit config --global --add safe.directory /work/app\n"
    )
    found = sure_hits([("", layout)], failure_of("git status", output))
    assert [ids[h.id] for h in found.hits] == ["la285"]


def test_a_lesson_citing_another_code_of_the_kind_counts_against_it() -> None:
    from rolebook.notebook.search.abstention import Evidence
    from rolebook.notebook.search.render import Hit

    hit = Hit("x", "coder", "learnings", "active", "added", "2026-01-01", "t", 1, (), 0.0)
    same, other = Evidence(hit, ((1, False),), (), 1), Evidence(hit, ((1, False),), (), -1)
    decision = Decision(other=-2.0)
    assert decision.strength(same) - decision.strength(other) == decision.code + 2.0


def test_function_words_a_failure_shares_with_a_lesson_are_no_evidence(
    memory: tuple[Layout, dict[str, str]],
) -> None:
    """'No such file or directory' is not 'no such table': "such" sits in one lesson of
    set a, so counted as a word it looked rare."""
    from rolebook.notebook.search.abstention import signal
    from rolebook.notebook.store import Index

    layout, _ = memory
    failure = failure_of("cd build && ls", "bash: line 1: cd: build: No such file or directory\n")
    with Index(layout) as index:
        words = signal(index, failure).words()
    assert {"such", "no", "t"}.isdisjoint(words)
    assert {"file", "directori"} <= words


def test_a_pair_of_words_side_by_side_weighs_more_than_a_word_as_rare() -> None:
    from rolebook.notebook.search.abstention import Evidence
    from rolebook.notebook.search.render import Hit

    hit = Hit("x", "coder", "learnings", "active", "added", "2026-01-01", "t", 1, (), 0.0)
    word, pair = Evidence(hit, ((3, False),), (), 0), Evidence(hit, (), (3,), 0)
    decision = Decision()
    assert decision.pair > 1.0
    assert decision.strength(pair) == decision.pair * decision.strength(word)


def test_a_word_held_by_more_lessons_than_the_cap_brings_no_candidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FTS5 scores every document holding a query word: at 100k lessons one word all of
    them hold costs the hook more than its start-up (bench_cli.py)."""
    from rolebook.notebook.search import abstention

    (tmp_path / "rolebook.yaml").write_text("roles: [coder]\nsearch:\n  mode: keyword\n", encoding="utf-8")
    session = open_session(load_config(tmp_path), Writer())
    texts = [f"npm flaky deploys, case {n}" for n in ("one", "two", "three")]
    session.end("coder", session.entries("2026-01-02", learnings=texts))
    roots = [("", Layout.default(tmp_path))]
    failure = failure_of("npm ci", "npm error flaky deploys\n")
    assert len(abstention.evidence(roots, failure)[0]) == 3
    monkeypatch.setattr(abstention, "QUERY_MAX_DOCS", 2)
    assert abstention.evidence(roots, failure)[0] == []
