"""The sentences of the rules, and how well the best one matches a question.

A rule is embedded for the index as sentence windows of about 600
characters, headed by its title: good for finding the rule, but one
sentence that answers the question is blurred by the others in its window.
So the few rules fusion ranks first are ordered again with their single
best sentence's meaning match added (``HybridRetriever.fuse``), and the
evidence picker scores the sentences of the first three to choose its
quotes (a rule of 400 characters or fewer it scores whole).

Sentences are embedded when first needed, not at ingest: the 1 MB
rulebook's 60 s indexing budget has no room for a vector per sentence
(about three times the windows), while a question touches only its top
rules' sentences (about 60, ~0.3 s with MiniLM on two cores when none is
cached). The vectors are kept in one LRU cache shared by the retriever and
the picker, so the picker embeds only the question and the short rules it
quotes whole.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ruleslawyer.ingest.embed import Embedder
from ruleslawyer.ingest.units import trim_span
from ruleslawyer.records import RuleUnit

_BOUNDARY = re.compile(r"(?<=[.!?])\s+|(?<=:)\s+(?=[A-Z\u25aa\u2022])|\n+|\s*[\u25aa\u2022]\s*")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence or list item in ``text``, trimmed."""
    spans = []
    pos = 0
    for m in [*list(_BOUNDARY.finditer(text)), None]:
        end = m.start() if m else len(text)
        s, e = trim_span(text, pos, end)
        if e - s >= 3 and re.search(r"[A-Za-z]", text[s:e]):
            spans.append((s, e))
        pos = m.end() if m else len(text)
    return spans


def span_text(text: str, start: int, end: int) -> str:
    """A span as it is embedded: its words, one space apart."""
    return " ".join(text[start:end].split())


class SentenceVectors:
    """Unit vectors of rule sentences (any text, really), embedded on first use
    and kept in a thread-safe LRU cache of ``cache_size`` texts."""

    def __init__(self, embedder: Embedder, cache_size: int = 20000) -> None:
        self.embedder = embedder
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, in order; only the texts not cached are embedded."""
        with self._lock:
            missing = []
            for t in dict.fromkeys(texts):
                if t in self._cache:
                    self._cache.move_to_end(t)  # used again: the last to be dropped
                else:
                    missing.append(t)
        if missing:
            vecs = self.embedder.embed(missing)
            with self._lock:
                for t, v in zip(missing, vecs, strict=True):
                    # a copy: a row of the batch's array would keep the whole batch alive
                    self._cache[t] = np.array(v, dtype=np.float32, copy=True)
                    self._cache.move_to_end(t)
                    if len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
        with self._lock:
            # Recomputed if another thread's misses pushed one out meanwhile.
            rows = [self._cache.get(t) for t in texts]
        lost = [t for t, v in zip(texts, rows, strict=True) if v is None]
        if lost:
            again = dict(zip(lost, self.embedder.embed(lost), strict=True))
            rows = [again[t] if v is None else v for t, v in zip(texts, rows, strict=True)]
        if not rows:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([np.asarray(v) for v in rows])

    def best_match(self, query_vector: np.ndarray, units: Sequence[RuleUnit]) -> list[float]:
        """Per unit, the cosine of its sentence that best matches the query (0 for
        a unit with no sentence)."""
        texts: list[str] = []
        owner: list[int] = []
        for i, unit in enumerate(units):
            for s, e in sentence_spans(unit.text):
                texts.append(span_text(unit.text, s, e))
                owner.append(i)
        best = [0.0] * len(units)
        if not texts:
            return best
        cos = self.embed(texts) @ np.asarray(query_vector, dtype=np.float32).reshape(-1)
        for i, c in zip(owner, cos.tolist(), strict=True):
            best[i] = max(best[i], float(c))
        return best
