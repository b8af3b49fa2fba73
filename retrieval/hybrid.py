"""Hybrid retrieval: dense + BM25 + exact lookup, fused, scoped to a game.

Each retriever ranks the units of the game in scope; weighted reciprocal
rank fusion combines the rankings (rank-based, so the retrievers' score
scales never need reconciling). Strong exact matches (a rule number, a
multi-word or bracketed rule name) are pinned to the top: a player who
names a rule means that rule. Cross-references of the top hits ("see
13.08", "(24.13)", a dangling "assault shooting (") are then brought along,
marked ``ref``, so two-rule questions get both rules.

Whether anything relevant was found is a separate question from ranking:
``relevance`` combines the best dense cosine and the best BM25 score, and
the floor it must clear is calibrated on the dev set (see
``retrieval/tuning.toml`` and ``benchmarks/tune_retrieval.py``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ruleslawyer.errors import InputError
from ruleslawyer.ingest.embed import Embedder
from ruleslawyer.ingest.store import StoredIndex
from ruleslawyer.records import GameInfo, Hit, SearchResult
from ruleslawyer.retrieval.exact import ExactIndex, ExactMatch, name_key
from ruleslawyer.retrieval.games import GameDetector
from ruleslawyer.retrieval.tokens import tokenize

TUNING_FILE = Path(__file__).with_name("tuning.toml")
NAMED_RULE_VOTE = 2.0


@dataclass(frozen=True)
class Tuning:
    """Fusion weights and the relevance floor, chosen by measurement on the dev set."""

    w_dense: float = 1.0
    w_bm25: float = 1.0
    w_exact: float = 1.0
    rrf_k: float = 60.0
    pin_names: float = 1.0  # 1 = a rule named outright (not a common word) goes first
    floor: float = 0.0  # relevance below this = "nothing relevant"
    bm25_scale: float = 10.0  # BM25 score that counts as fully relevant
    dense_weight: float = 0.5  # share of the dense cosine in relevance
    agree_bonus: float = 0.0  # added when dense, BM25 and exact lookup agree on the top unit

    @classmethod
    def load(cls, path: Path = TUNING_FILE) -> Tuning:
        if not path.exists():
            return cls()
        data = tomllib.loads(path.read_text(encoding="utf-8")).get("retrieval", {})
        fields = {k: float(v) for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**fields)


@dataclass
class Signals:
    query: str
    game: str | None
    detected: bool
    mask: np.ndarray
    dense: np.ndarray | None
    bm25: np.ndarray | None
    exact: list[ExactMatch]
    warnings: list[str] = field(default_factory=list)


class HybridRetriever:
    def __init__(
        self, index: StoredIndex, embedder: Embedder, tuning: Tuning | None = None
    ) -> None:
        import bm25s

        self.index = index
        self.units = index.units
        self.embedder = embedder
        self.tuning = tuning or Tuning.load()
        self.games = np.array([u.game for u in self.units])
        games = [
            GameInfo.from_dict({**d, "slug": g})
            for g, d in (index.manifest.get("games") or {}).items()
        ]
        self.detector = GameDetector(self.units, games)
        self.exact = ExactIndex(self.units)
        corpus = [tokenize(f"{u.title} {u.rule_id} {u.search_text}") or [""] for u in self.units]
        self.bm25 = bm25s.BM25()
        self.bm25.index(corpus, show_progress=False)
        self._by_key = {(u.game, name_key(u.rule_id)): i for i, u in enumerate(self.units)}
        self._by_title = {
            (u.game, name_key(u.title)): i for i, u in enumerate(self.units) if u.title
        }
        texts: dict[str, list[str]] = {}
        for u in self.units:
            texts.setdefault(u.game, []).append(name_key(f"{u.title} {u.search_text}"))
        self._game_text = {g: " | ".join(t) for g, t in texts.items()}
        self._phrase_games: dict[tuple[str, str], bool] = {}

    # --- single retrievers (also used alone by the benchmark) -----------------
    def dense_scores(self, query: str) -> np.ndarray:
        """Best chunk cosine per unit (units with no scored chunk get -1)."""
        qv = self.embedder.embed([query])
        n_chunks = self.index.faiss_index.ntotal
        k = min(n_chunks, 400)
        sims, rows = self.index.faiss_index.search(qv, k)
        out = np.full(len(self.units), -1.0, dtype=np.float32)
        owners = self.index.chunk_unit[rows[0][rows[0] >= 0]]
        vals = sims[0][rows[0] >= 0]
        np.maximum.at(out, owners, vals)
        return out

    def bm25_scores(self, query: str) -> np.ndarray:
        tokens = tokenize(query)
        if not tokens:
            return np.zeros(len(self.units), dtype=np.float32)
        return np.asarray(self.bm25.get_scores(tokens), dtype=np.float32)

    # --- the fused search -----------------------------------------------------
    def signals(
        self,
        query: str,
        *,
        game: str | None = None,
        max_chars: int = 2000,
        use: Sequence[str] = ("dense", "bm25", "exact"),
    ) -> Signals:
        """Everything the fusion needs for one query (the tuner caches these)."""
        warnings: list[str] = []
        query = clean_query(query)
        if len(query) > max_chars:
            warnings.append(
                f"question truncated to its first {max_chars} of {len(query)} characters"
            )
            query = query[:max_chars]
        detected = False
        matches = self.exact.match(query) if "exact" in use else []
        if game is None:
            # A rule the question names outright is strong evidence of its game.
            named: dict[str, float] = {}
            for m in matches:
                g = self.units[m.position].game
                if m.strong and self._only_in(m.matched, g):
                    named[g] = named.get(g, 0.0) + NAMED_RULE_VOTE
            game = self.detector.detect(query, named)
            detected = game is not None
        mask = self.games == game if game else np.ones(len(self.units), dtype=bool)
        return Signals(
            query=query,
            game=game,
            detected=detected,
            mask=mask,
            dense=self.dense_scores(query) if "dense" in use else None,
            bm25=self.bm25_scores(query) if "bm25" in use else None,
            exact=[m for m in matches if mask[m.position]],
            warnings=warnings,
        )

    def search(
        self,
        query: str,
        *,
        game: str | None = None,
        k: int = 5,
        max_chars: int = 2000,
        use: Sequence[str] = ("dense", "bm25", "exact"),
        refs: bool = True,
    ) -> SearchResult:
        sig = self.signals(query, game=game, max_chars=max_chars, use=use)
        return self.fuse(sig, k=k, refs=refs)

    def fuse(
        self, sig: Signals, *, k: int = 5, refs: bool = True, tuning: Tuning | None = None
    ) -> SearchResult:
        t = tuning or self.tuning
        mask = sig.mask
        fused = np.zeros(len(self.units), dtype=np.float64)
        why: dict[int, list[str]] = {}
        for name, scores, weight in (("dense", sig.dense, t.w_dense), ("bm25", sig.bm25, t.w_bm25)):
            if scores is None or weight <= 0:
                continue
            cand = np.flatnonzero(mask & (scores > 0)) if name == "bm25" else np.flatnonzero(mask)
            order = cand[np.argsort(-scores[cand], kind="stable")[:50]].tolist()
            for rank, i in enumerate(order[:50]):
                fused[i] += weight / (t.rrf_k + rank + 1)
                if rank < 10:
                    why.setdefault(i, []).append(name)
        pinned: list[int] = []
        for rank, m in enumerate(sig.exact):
            fused[m.position] += t.w_exact / (t.rrf_k + rank + 1)
            why.setdefault(m.position, []).append("exact")
            # A rule number, or a question that is only a rule's name, is a lookup:
            # always first. Pinning rules named inside a question is tuned.
            if m.number or m.whole or (m.strong and t.pin_names):
                pinned.append(m.position)

        idx = np.flatnonzero(mask & (fused > 0))
        top_idx = idx[np.argsort(-fused[idx], kind="stable")[: k + len(pinned)]]
        top = (pinned + [int(i) for i in top_idx if int(i) not in pinned])[:k]
        best = max((float(fused[i]) for i in top), default=1.0)
        hits = [
            Hit(self.units[i], float(fused[i]) / best if best else 0.0, tuple(why.get(i, ())))
            for i in top
        ]
        if refs:
            hits = self._with_refs(hits, sig.game)
        named = any(m.strong for m in sig.exact)  # the player named a rule that exists
        relevance = self.relevance(sig.dense, sig.bm25, mask, bool(pinned) or named, t)
        if top and relevance < 1.0 and self._agree(sig, top[0]):
            relevance = min(1.0, relevance + t.agree_bonus)
        return SearchResult(
            query=sig.query,
            game=sig.game,
            game_detected=sig.detected,
            hits=tuple(hits),
            relevant=bool(hits) and relevance >= t.floor,
            relevance=relevance,
            warnings=tuple(sig.warnings),
        )

    def relevance(
        self,
        dense: np.ndarray | None,
        lexical: np.ndarray | None,
        mask: np.ndarray,
        pinned: bool,
        tuning: Tuning | None = None,
    ) -> float:
        """0..1: how well the best unit matches, whatever its rank (for abstention)."""
        if pinned:
            return 1.0
        t = tuning or self.tuning
        d = float(dense[mask].max()) if dense is not None and mask.any() else 0.0
        b = float(lexical[mask].max()) if lexical is not None and mask.any() else 0.0
        return t.dense_weight * max(d, 0.0) + (1 - t.dense_weight) * min(b / t.bm25_scale, 1.0)

    @staticmethod
    def _agree(sig: Signals, best: int) -> bool:
        """Do two independent signals put the same unit first (or name it)?"""
        votes = 0
        for scores in (sig.dense, sig.bm25):
            if scores is not None:
                cand = np.flatnonzero(sig.mask)
                if len(cand) and int(cand[np.argmax(scores[cand])]) == best:
                    votes += 1
        votes += any(m.position == best for m in sig.exact)
        return votes >= 2

    def _only_in(self, phrase: str, game: str) -> bool:
        """True when ``phrase`` occurs in no other game's rules ("charge phase" is
        everywhere; "tactical gambit" is AoS only). Cached: checked per match."""
        key = (phrase, game)
        if key not in self._phrase_games:
            self._phrase_games[key] = not any(
                phrase in text for g, text in self._game_text.items() if g != game
            )
        return self._phrase_games[key]

    def _with_refs(self, hits: list[Hit], game: str | None) -> list[Hit]:
        present = {h.unit.key for h in hits}
        extra: list[Hit] = []
        for h in hits[:3]:
            for ref in h.unit.refs:
                i = self._resolve(h.unit.game, ref)
                if i is None:
                    continue
                u = self.units[i]
                if u.key in present or (game and u.game != game):
                    continue
                present.add(u.key)
                extra.append(Hit(u, h.score * 0.5, ("ref",)))
        return hits + extra[:3]

    def _resolve(self, game: str, ref: str) -> int | None:
        key = name_key(ref)
        return self._by_key.get((game, key), self._by_title.get((game, key)))


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_query(query: str) -> str:
    """Strip control characters and outer space; refuse an empty question."""
    query = _CONTROL.sub(" ", query or "").strip()
    if not query:
        raise InputError(
            "the question is empty: ask about a rule, e.g. 'Can a battle-shocked unit start an action?'"
        )
    return " ".join(query.split())
