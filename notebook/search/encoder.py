"""A BERT sentence encoder in NumPy: all-MiniLM-L6-v2 and its kin without PyTorch.

The semantic extra used to run the model through sentence-transformers, which pulls
PyTorch in (several GB of GPU packages on a normal Linux machine, 610-760 MB resident,
6.8 s to the first search). A six-layer, 384-wide BERT is a handful of matrix products,
so this runs it with NumPy from the same files: `model.safetensors` (read by the
`safetensors` library), `tokenizer.json` (the `tokenizers` library), `config.json`,
and mean pooling then unit length, as sentence-transformers does for this model. The
vectors match sentence-transformers' to within float rounding (tests/semantic).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

#: tokens past this are cut, as sentence-transformers cuts them for this model
MAX_TOKENS = 256
#: texts encoded together, at most: enough to keep the matrix products busy
BATCH = 32
#: tokens a batch holds, padding included: a batch of long texts is smaller, so its memory
#: (attention: texts x heads x length^2) stays bounded: 13 MB at 256 tokens. Smaller
#: batches ran faster than larger (their arrays stay in the cache): 16 to 64 texts a batch
#: of 1,024 tokens 37-40 texts/s on one thread, 4,096 tokens 35, 16,384 tokens 25
BATCH_TOKENS = 1024


#: BLAS threads for the encoder by default. On a 16-core machine more threads barely
#: helped it (22-34 texts/s from 1 to 16 threads, issue 39), and on a busy 2-core one the
#: default (a thread a core) cost 2-7x: the measurements are in docs/benchmarks.md
THREADS = 1
#: what the BLAS builds NumPy may load read for their thread count, once, as they load
_BLAS_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


def limit_threads(setting: int | None = None) -> int | None:
    """Set the BLAS thread count before NumPy loads: ROLEBOOK_THREADS, else `setting`
    (rolebook.yaml's `search.threads`), else THREADS; 0 leaves BLAS its own default. A
    variable the user set for BLAS itself (OPENBLAS_NUM_THREADS, ...) is kept. Returns the
    count set, or None when NumPy was loaded already (too late) or 0 was asked for."""
    import os
    import sys

    raw = os.environ.get("ROLEBOOK_THREADS", "").strip()
    if raw and not raw.isdigit():
        raise ValueError(f"ROLEBOOK_THREADS must be a whole number of threads (0: BLAS's own default), not {raw!r}")
    count = int(raw) if raw else setting if setting is not None else THREADS
    if count <= 0 or "numpy" in sys.modules:
        return None
    for name in _BLAS_VARIABLES:
        os.environ.setdefault(name, str(count))
    return count


def is_encoder_folder(folder: Path) -> bool:
    """Whether a folder holds what `Encoder` runs: a BERT's config, weights and tokenizer."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(config, dict)
        and config.get("model_type") == "bert"
        and (folder / "model.safetensors").is_file()
        and (folder / "tokenizer.json").is_file()
    )


class Encoder:
    """Unit sentence vectors from a BERT folder (see the module docstring)."""

    def __init__(self, folder: Path):
        import os

        limit_threads()  # before NumPy loads, in case no one set them earlier
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # no warning when a process forks later
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if (
            config.get("hidden_act", "gelu") != "gelu"
            or config.get("position_embedding_type", "absolute") != "absolute"
        ):
            raise ValueError(f"{folder}: only BERT with gelu and absolute positions is supported")
        self.dim = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        weights = load_file(str(folder / "model.safetensors"))
        self.w = {
            k.removeprefix("bert."): v if v.dtype == np.float32 else v.astype(np.float32)
            for k, v in weights.items()
            if v.dtype.kind == "f"
        }
        for name in [k for k in self.w if k.endswith(".weight") and self.w[k].ndim == 2 and "embeddings" not in k]:
            self.w[name] = np.ascontiguousarray(self.w[name].T)  # (in, out): one plain product a layer
        for i in range(self.layers):  # query, key and value side by side: one product, not three
            p = f"encoder.layer.{i}.attention.self."
            parts = [p + part for part in ("query", "key", "value")]
            self.w[p + "qkv.weight"] = np.ascontiguousarray(
                np.concatenate([self.w.pop(q + ".weight") for q in parts], axis=1)
            )
            self.w[p + "qkv.bias"] = np.concatenate([self.w.pop(q + ".bias") for q in parts])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        limit = min(MAX_TOKENS, int(config.get("max_position_embeddings", 512)))
        self.tokenizer.enable_truncation(max_length=limit)
        self.tokenizer.no_padding()  # each batch is padded to its own longest text
        self.pad = int(config.get("pad_token_id", 0))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit float32 row per text, in the order given. The texts are encoded in
        batches of like length, as sentence-transformers does: a batch is padded to its
        longest text, and in input order a few long texts made every batch pay for them."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encoded = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i].ids))
        start = 0
        while start < len(order):
            longest = len(encoded[order[min(start + BATCH, len(order)) - 1]].ids)
            size = max(1, min(BATCH, BATCH_TOKENS // max(longest, 1)))
            part = order[start : start + size]
            out[part] = self._batch([encoded[i] for i in part])
            start += size
        return out

    def _batch(self, encoded: list[Any]) -> np.ndarray:
        import numpy as np

        n, length = len(encoded), max(len(e.ids) for e in encoded)
        ids = np.full((n, length), self.pad, dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        types = np.zeros((n, length), dtype=np.int64)
        for row, e in enumerate(encoded):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1.0
            types[row, : len(e.ids)] = e.type_ids
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(length)][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        blocked = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)  # padding is never attended to
        size = self.dim // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            qkv = self._dense(x, p + "attention.self.qkv").reshape(n, length, 3, self.heads, size)
            q, k, v = (qkv[:, :, j].transpose(0, 2, 1, 3) for j in range(3))
            scores = q @ k.transpose(0, 1, 3, 2)
            scores *= np.float32(1.0 / math.sqrt(size))
            scores += blocked
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, self.dim)
            x = self._norm(self._dense(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            inner = _gelu(self._dense(x, p + "intermediate.dense"))
            x = self._norm(self._dense(inner, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.maximum(norms, 1e-12), dtype=np.float32)

    def _dense(self, x: Any, name: str) -> Any:
        """A linear layer over the last axis, as one 2-D product (what BLAS does fastest)."""
        weight = self.w[name + ".weight"]
        flat = x.reshape(-1, x.shape[-1]) @ weight
        flat += self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], weight.shape[1])

    def _norm(self, x: Any, name: str) -> Any:
        import numpy as np

        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]


#: rows (of 1,536 floats) the GELU works on at a time: its dozen passes stay in the cache
GELU_ROWS = 64


def _gelu(x: Any) -> Any:
    """The exact GELU, x * Phi(x), with erf from Abramowitz and Stegun 7.1.26 (|error| <
    1.5e-7), written over `x` (a layer's scratch), a few rows at a time: the same sums as
    a whole-array expression, which allocated a fresh array an operation and made the GELU
    a third of a batch's time."""
    flat = x.reshape(-1, x.shape[-1])
    for start in range(0, flat.shape[0], GELU_ROWS):
        rows = flat[start : start + GELU_ROWS]
        rows[...] = _gelu_rows(rows)
    return x


def _gelu_rows(x: Any) -> Any:
    import numpy as np

    a = np.abs(x)
    a *= np.float32(1.0 / math.sqrt(2.0))  # |z|, z = x / sqrt(2)
    t = a * np.float32(0.3275911)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    q = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        q += np.float32(c)
        q *= t
    a *= a
    np.negative(a, out=a)
    np.exp(a, out=a)
    q *= a  # 1 - erf(|z|)
    q *= np.float32(0.5)  # Phi(-|x|)
    q *= x  # x * Phi(-|x|): the GELU where x < 0; x - that where x >= 0
    np.subtract(x, q, out=q, where=x >= 0)
    return q
