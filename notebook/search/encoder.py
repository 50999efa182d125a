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
#: texts encoded together: long enough to keep the matrix products busy, short enough to pad little
BATCH = 32


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
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        limit = min(MAX_TOKENS, int(config.get("max_position_embeddings", 512)))
        self.tokenizer.enable_truncation(max_length=limit)
        self.tokenizer.enable_padding(pad_id=int(config.get("pad_token_id", 0)))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit float32 row per text."""
        import numpy as np

        rows = [self._batch(list(texts[i : i + BATCH])) for i in range(0, len(texts), BATCH)]
        return np.concatenate(rows) if rows else np.zeros((0, self.dim), dtype=np.float32)

    def _batch(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        encoded = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        types = np.array([e.type_ids for e in encoded], dtype=np.int64)
        w = self.w
        n, length = ids.shape
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

            q, k, v = (
                self._dense(x, p + f"attention.self.{part}").reshape(n, length, self.heads, size).transpose(0, 2, 1, 3)
                for part in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(size)) + blocked
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
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
        flat = x.reshape(-1, x.shape[-1]) @ weight + self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], weight.shape[1])

    def _norm(self, x: Any, name: str) -> Any:
        import numpy as np

        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]


def _gelu(x: Any) -> Any:
    """The exact GELU, x * Phi(x), with erf from Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7)."""
    import numpy as np

    z = x / np.float32(math.sqrt(2.0))
    sign = np.sign(z)
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = sign * (1.0 - poly * np.exp(-a * a))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)
