"""One small test for each mutation the whole default suite let live (issue 41): each
fails when its behaviour is mutated as the issue lists it, and passes on the code as it is.

Each section below names its mutation: the archive's fsync dropped; a lesson citing another
error code not penalised (recall); ANSI colour not stripped from a failure; the recency boost
off (search ranking); "N of M hits shown" missing when one hit is cut; drift's same-day
boundary; `ghr_` tokens not redacted; C1 controls (U+009B is CSI) not escaped when shown;
the import spool unredacted.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import tempfile
from pathlib import Path
from typing import IO

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rolebook.agents.config import load_config
from rolebook.agents.session import open_session
from rolebook.notebook.display import shown, shown_json
from rolebook.notebook.search import failure_of
from rolebook.notebook.search.abstention import Decision, evidence
from rolebook.notebook.search.query import Query
from rolebook.notebook.search.render import Hit, SearchResult, render_hits
from rolebook.notebook.store import Layout
from rolebook.notebook.store.secrets import redact
from rolebook.rules.drift import find_drift

sys.path.insert(0, str(Path(__file__).resolve().parent))
from roots import project


def _write(root: Path, role: str, date: str, **sections: list[str]) -> None:
    session = open_session(load_config(project(root)))
    session.end(role, session.entries(date, **sections))


# -- the archive's fsync ---------------------------------------------------------------


def test_a_write_fsyncs_the_archive_holding_the_record_before_the_notebook_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real fsync runs; the spy notes, for each fsync of the archive, what the archive
    and the notebook held then: the record is durable before the notebook names it."""
    layout = Layout.default(project(tmp_path))
    archive, notebook = layout.archive_path("coder"), layout.notebook_path("coder")
    text = "ran the migration on prod; use the staging DB first"
    seen: list[tuple[bytes, str]] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        real(fd)
        try:
            if os.fstat(fd).st_ino == archive.stat().st_ino:
                seen.append((archive.read_bytes(), notebook.read_text(encoding="utf-8") if notebook.exists() else ""))
        except FileNotFoundError:
            pass

    monkeypatch.setattr(os, "fsync", fsync)
    _write(tmp_path, "coder", "2026-03-01", mistakes=[text])
    assert notebook.read_text(encoding="utf-8").count(text) == 1
    assert any(text.encode() in held and text not in shows for held, shows in seen), seen


# -- recall: another error code ----------------------------------------------------------


def test_a_lesson_citing_another_error_code_weighs_less_than_one_citing_none(tmp_path: Path) -> None:
    """TS2307 fails; a lesson saying the same words about TS2322 is about another error."""
    words = "tsc cannot find the generated api client module; run npm run codegen before the build"
    _write(tmp_path, "coder", "2026-03-01", learnings=[f"{words} (TS2322)"])
    _write(tmp_path, "qa", "2026-03-01", learnings=[words])
    failure = failure_of("npx tsc", "src/app.ts(3,20): error TS2307: Cannot find module './generated/api-client'", 2)
    found, _ = evidence([("", Layout.default(tmp_path))], failure, today=dt.date(2026, 3, 2))
    by_role = {e.hit.role: e for e in found}
    other, plain = by_role["coder"], by_role["qa"]
    assert (other.terms, other.pairs) == (plain.terms, plain.pairs)  # the same words shared
    assert other.code == -1 and plain.code == 0
    assert Decision().strength(other) < Decision().strength(plain)


# -- failures: ANSI colour ---------------------------------------------------------------

_COLOURED = {
    "npx tsc": (
        "\x1b[96msrc/app.ts\x1b[0m:\x1b[93m3\x1b[0m:\x1b[93m20\x1b[0m - \x1b[91merror\x1b[0m"
        "\x1b[90m TS2307: \x1b[0mCannot find module './generated/api-client'.\n"
    ),
    "pytest -q": (
        "\x1b[1m\x1b[31mE       ModuleNotFoundError: No module named 'requests'\x1b[0m\n"
        "\x1b[31mFAILED\x1b[0m tests/test_app.py::test_get - ModuleNotFoundError\n"
        "\x1b[31m\x1b[1m1 failed\x1b[0m\x1b[31m in 0.12s\x1b[0m\n"
    ),
    "cargo build": (
        "\x1b[0m\x1b[1m\x1b[38;5;9merror[E0502]\x1b[0m\x1b[0m\x1b[1m: cannot borrow `v` as mutable because it is "
        "also borrowed as immutable\x1b[0m\n\x1b]8;;https://doc.rust-lang.org/error_codes/E0502.html\x1b\\"
        "E0502\x1b]8;;\x1b\\\n"
    ),
}


@pytest.mark.parametrize("command", sorted(_COLOURED))
def test_a_failures_colours_change_nothing_of_what_recall_reads(command: str) -> None:
    import re

    coloured = _COLOURED[command]
    plain = re.sub(r"\x1b\[[0-9;]*m|\x1b\]8;;[^\x1b]*\x1b\\", "", coloured)
    assert "\x1b" not in plain
    failure = failure_of(command, coloured, 1)
    assert failure == failure_of(command, plain, 1)
    assert failure.lines and not any("\x1b" in x or "[0m" in x for x in (*failure.lines, *failure.keys))


# -- search: recency ---------------------------------------------------------------------


@pytest.mark.parametrize("recent_role", ["coder", "qa"])
def test_of_two_equally_worded_lessons_search_ranks_the_recent_one_first(tmp_path: Path, recent_role: str) -> None:
    """The same words, in two roles (so neither is a duplicate of the other), one written
    today, one years ago: the recent one first, whichever role holds it."""
    old_role = "qa" if recent_role == "coder" else "coder"
    _write(tmp_path, old_role, "2019-05-01", learnings=["flush the widget cache before the deploy"])
    _write(tmp_path, recent_role, dt.date.today().isoformat(), learnings=["before the deploy flush the widget cache"])
    hits = open_session(load_config(tmp_path)).search(Query("widget cache deploy")).hits
    assert [h.role for h in hits] == [recent_role, old_role]
    assert hits[0].score > hits[1].score


# -- search: "N of M hits shown" ---------------------------------------------------------


def _hit(n: int) -> Hit:
    return Hit(f"id{n}", "coder", "learnings", "active", "added", "2026-03-01", f"lesson number {n} " * 3, 1, (), 1.0)


@pytest.mark.parametrize("total", [2, 3, 4])
def test_a_search_that_cuts_one_hit_says_how_many_it_showed(total: int) -> None:
    hits = tuple(_hit(n) for n in range(total))
    room = sum(len(h.line()) + 1 for h in hits[:-1])  # every hit but the last fits
    lines = render_hits(SearchResult(hits, total), budget=(room + 4) // 4)
    assert lines[:-1] == [h.line() for h in hits[:-1]]
    assert lines[-1] == f"{total - 1} of {total} hits shown; refine the query or raise --limit/--budget"
    assert render_hits(SearchResult(hits, total), budget=10_000) == [h.line() for h in hits]  # none cut: no line


# -- drift: the same day ---------------------------------------------------------------


def test_an_instruction_dropped_on_the_day_an_entry_was_written_leaves_it_stale(tmp_path: Path) -> None:
    """Which came first that day is unknown: the entry may follow the old instruction, so
    it is named; a line dropped the day before the entry was written is not its source."""
    line = "mention the company name in every public comment"
    _write(tmp_path, "coder", "2026-03-10", learnings=[line])
    layout = Layout.default(tmp_path)

    def stale(day: str) -> list[str]:
        return [d.what for d in find_drift(layout, "coder", [("CLAUDE.md", line, "dropped", day, None)], [])]

    assert stale("2026-03-10") == [f'CLAUDE.md dropped "{line}" on 2026-03-10']
    assert stale("2026-03-11") == [f'CLAUDE.md dropped "{line}" on 2026-03-11']
    assert stale("2026-03-09") == []


# -- secrets: GitHub's token kinds -------------------------------------------------------


@pytest.mark.parametrize("prefix", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
def test_every_kind_of_github_token_is_redacted_as_one(prefix: str) -> None:
    """Personal, OAuth, user-to-server, server-to-server and refresh tokens (GitHub's
    prefixes); the body is random-looking, as a real token's is."""
    token = prefix + "R8kq2ZxW4mT7vLp9sQ3nB6yH1cJ5dF0gAeU2"
    text, kinds = redact(f"export GH_AUTH={token} # from the CI settings")
    assert token not in text and token[4:] not in text
    assert "github-token" in kinds


# -- display: C1 controls ----------------------------------------------------------------


def test_every_c1_control_is_shown_escaped() -> None:
    """U+0080-U+009F: a terminal reads U+009B as CSI (ESC [), so `\\x9b31m` colours as
    `\\x1b[31m` does; each is shown as its escape, in text and in JSON."""
    for code in range(0x80, 0xA0):
        assert shown(f"a{chr(code)}31mb") == f"a\\u{code:04x}31mb"
        assert shown_json({"t": chr(code)}, indent=None) == f'{{"t": "\\u{code:04x}"}}'


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xBF)))
def test_what_is_shown_holds_no_c1_control(text: str) -> None:
    out = shown(text) + shown_json(text)
    assert not any(0x80 <= ord(c) <= 0x9F for c in out)


# -- import: the spool -------------------------------------------------------------------


def test_an_import_keeps_no_secret_in_its_spool_on_the_way_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The import's first pass keeps each item in an unnamed temporary file; here it is
    named (in tmp_path) so it can be read after: it holds the item, its secret redacted
    everywhere (the text, the fields, the source record kept whole, the record's key)."""
    import json

    token = "ghp_R8kq2ZxW4mT7vLp9sQ3nB6yH1cJ5dF0gAeU2"
    journal = tmp_path / "journal"
    journal.mkdir()
    record = {
        "id": "a1b2c3d4e5f6g7h8",
        "ts": "2026-03-15T16:40:00Z",
        "kind": "command",
        "summary": "Deploy the widget job",
        "text": f"GH_AUTH={token} ./deploy.sh",
        "metadata": {"env": {"GH_AUTH": token}},
    }
    (journal / "15.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    spools: list[Path] = []

    def named(*args: object, **kwargs: object) -> IO[bytes]:
        spools.append(tmp_path / f"spool-{len(spools)}")
        return open(spools[-1], "w+b")

    monkeypatch.setattr(tempfile, "TemporaryFile", named)
    from rolebook.agents.cli.app import app
    from typer.testing import CliRunner

    root = project(tmp_path / "root")
    done = CliRunner().invoke(app, ["--root", str(root), "import", "memcache", str(journal), "--role", "coder"])
    assert done.exit_code == 0, done.output
    held = b"".join(p.read_bytes() for p in spools)
    assert b"Deploy the widget job" in held  # the spool was written
    assert token.encode() not in held and token[4:].encode() not in held
