"""Batching shared by the embedders: length-sorted batches, in order, on one
thread or several, with the same vectors either way."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from ruleslawyer.ingest.embed import PARALLEL_MIN_TEXTS, Embedder, OnnxMiniLMEmbedder


class _Recording(Embedder):
    """Each text's vector is its length (so rows can be checked) and every batch
    records the thread that encoded it; a short sleep lets threads overlap."""

    dim = 2
    name = "recording"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.batches: list[tuple[int, list[str]]] = []
        self.lock = threading.Lock()

    def embed(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 3,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        def encode(batch: list[str]) -> np.ndarray:
            time.sleep(0.01)
            with self.lock:
                self.batches.append((threading.get_ident(), batch))
            return np.array([[len(t), 1.0] for t in batch], dtype=np.float32)

        return self._in_batches(texts, batch_size, encode, progress, self.workers)


TEXTS = ["x" * n for n in (9, 1, 5, 3, 7, 2, 8, 4, 6, 10, 11)]


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_rows_come_back_in_the_callers_order(workers: int) -> None:
    out = _Recording(workers).embed(TEXTS)
    assert out[:, 0].tolist() == [len(t) for t in TEXTS]


@pytest.mark.parametrize("workers", [1, 2])
def test_batches_hold_texts_of_similar_length(workers: int) -> None:
    emb = _Recording(workers)
    emb.embed(TEXTS)
    batches = sorted(batch for _, batch in emb.batches)
    assert [len(t) for b in batches for t in b] == sorted(len(t) for t in TEXTS)
    assert all(len(b) <= 3 for b in batches)


def test_several_workers_share_the_batches() -> None:
    emb = _Recording(2)
    emb.embed(TEXTS)
    assert len({thread for thread, _ in emb.batches}) == 2


def test_progress_adds_up_on_the_callers_thread() -> None:
    seen: list[tuple[int, int]] = []
    _Recording(2).embed(TEXTS, progress=lambda n: seen.append((threading.get_ident(), n)))
    assert sum(n for _, n in seen) == len(TEXTS)
    assert {thread for thread, _ in seen} == {threading.get_ident()}


def test_a_failing_batch_raises_to_the_caller() -> None:
    class _Failing(_Recording):
        def embed(self, texts, *, batch_size=3, progress=None):
            def encode(batch: list[str]) -> np.ndarray:
                if "x" * 7 in batch:
                    raise RuntimeError("model fell over")
                return np.zeros((len(batch), 2), dtype=np.float32)

            return self._in_batches(texts, batch_size, encode, progress, self.workers)

    with pytest.raises(RuntimeError, match="fell over"):
        _Failing(2).embed(TEXTS)


def test_an_interrupt_drops_the_queued_batches() -> None:
    """An error raised between batches (here by the progress callback, as a
    Ctrl-C during the bar's refresh would be) must not wait for the whole
    rulebook's remaining batches to be embedded first."""
    ran: list[int] = []

    class _Slow(_Recording):
        def embed(self, texts, *, batch_size=3, progress=None):
            def encode(batch: list[str]) -> np.ndarray:
                ran.append(1)
                time.sleep(0.01)
                return np.zeros((len(batch), 2), dtype=np.float32)

            return self._in_batches(texts, batch_size, encode, progress, self.workers)

    def interrupt(_n: int) -> None:
        raise KeyboardInterrupt

    texts = ["x" * n for n in range(1, 301)]  # 100 batches
    with pytest.raises(KeyboardInterrupt):
        _Slow(2).embed(texts, progress=interrupt)
    assert len(ran) < 20


class _FakeEncoding:
    def __init__(self, text: str) -> None:
        self.ids = [len(text), 1]
        self.attention_mask = [1, 1]
        self.type_ids = [0, 0]


class _FakeTokenizer:
    def encode_batch(self, batch: list[str]) -> list[_FakeEncoding]:
        return [_FakeEncoding(t) for t in batch]


class _FakeSession:
    """Hidden states whose mean is (length, 1, 0...): the vector names its text."""

    def __init__(self, users: list[int]) -> None:
        self.users = users

    def run(self, _outputs: object, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        self.users.append(threading.get_ident())
        ids = feeds["input_ids"]
        hidden = np.zeros((ids.shape[0], ids.shape[1], 384), dtype=np.float32)
        hidden[:, :, 0] = ids[:, :1]
        hidden[:, :, 1] = 1.0
        time.sleep(0.002)
        return [hidden]


def _onnx_with_fakes(threads: int) -> tuple[OnnxMiniLMEmbedder, list[int]]:
    users: list[int] = []
    emb = OnnxMiniLMEmbedder(Path("unused"), threads)
    emb._new_pair = lambda: (_FakeSession(users), _FakeTokenizer())
    return emb, users


def test_only_an_ingest_sized_call_loads_a_second_session() -> None:
    emb, users = _onnx_with_fakes(2)
    texts = ["x" * (1 + i % 40) for i in range(PARALLEL_MIN_TEXTS)]
    emb.embed(texts[:1])
    emb.embed(texts[:60])  # an answer's candidate sentences
    assert emb._loaded == 1
    assert len(set(users)) == 1
    out = emb.embed(texts)
    assert emb._loaded == 2
    # each row is its own text's vector, whichever session embedded it
    want = np.array([len(t) for t in texts], dtype=np.float32)
    assert np.allclose(out[:, 0], want / np.sqrt(want**2 + 1), atol=1e-6)


def test_one_thread_means_one_session() -> None:
    emb, _ = _onnx_with_fakes(1)
    emb.embed(["x" * (1 + i % 9) for i in range(PARALLEL_MIN_TEXTS)])
    assert emb._loaded == 1
