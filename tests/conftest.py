"""Shared fixtures: a fresh root in a temporary folder, the real-world corpus in place."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from rolebook.notebook.limits import Limits
from rolebook.notebook.store.layout import Layout

settings.register_profile("default", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

PROJECT = Path(__file__).resolve().parent.parent
# ../shared/corpus beside the clone (a worktree one level deeper finds it further up)
CORPUS = next(
    (p / "shared" / "corpus" for p in PROJECT.parents if (p / "shared" / "corpus").is_dir()),
    PROJECT.parent / "shared" / "corpus",
)
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return Layout.default(tmp_path)


@pytest.fixture
def limits() -> Limits:
    return Limits()


@pytest.fixture(autouse=True)
def _no_ambient_rolebook_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for name in ("ROLEBOOK_ROOT", "ROLEBOOK_ROLE", "ROLEBOOK_SESSION", "ROLEBOOK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    # no test's root is ever found above its own temp folder: a rolebook.yaml or an
    # agents/state/ in /tmp (or wherever pytest puts its temp folders) changes nothing
    monkeypatch.setenv("ROLEBOOK_CEILING", str(tmp_path_factory.getbasetemp()))
    monkeypatch.setenv("HOME", str(tmp_path_factory.getbasetemp() / "home"))
    # the rolebook beside this Python comes first on PATH: integrate then writes a bare
    # `rolebook`, as it does for a user whose PATH leads to the installation they run
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    # the keyword paths are what these tests pin down; tests/notebook/search/test_semantic.py asks for meaning itself
    monkeypatch.setenv("ROLEBOOK_SEARCH_MODE", "keyword")
    # tests never download: a model's weights come from a package or a folder, or not at all
    monkeypatch.setenv("ROLEBOOK_OFFLINE", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))
    # a search by meaning embeds every record before it answers: under the default budget
    # (2 s) a loaded machine embeds fewer, finds the rest by keywords, and a quality figure
    # moves with the load; the budget's own tests set theirs (tests/.../test_embedding_budget.py)
    monkeypatch.setenv("ROLEBOOK_EMBED_SECONDS", "inf")


def _corpus(*parts: str) -> Path:
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"the shared corpus is not beside this clone ({path})")
    return path


@pytest.fixture
def corpus() -> Callable[..., Path]:
    """A folder of ../shared/corpus, or a skip where this clone has none beside it."""
    return _corpus


sys.path.insert(0, str(Path(__file__).parent))
from roots import DECLARED  # noqa: E402


def _declare(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "rolebook.yaml").write_text(DECLARED, encoding="utf-8")
    return root


@pytest.fixture
def declared_roles(tmp_path: Path) -> Path:
    """tmp_path as a rolebook project whose roles are declared, with no notebook yet."""
    return _declare(tmp_path)


@pytest.fixture
def declare() -> Callable[[Path], Path]:
    """Make a folder a rolebook project whose roles are declared, with no notebook yet."""
    return _declare
