"""Hybrid retrieval: dense + BM25 + exact lookup, fused, scoped to a game.

Each retriever ranks the units of the game in scope; weighted reciprocal
rank fusion combines the rankings (rank-based, so the retrievers' score
scales never need reconciling). A rule number, or a question that is only
a rule's name, is a lookup and goes first. Cross-references of the top hits
("see 13.08", "(24.13)", a dangling "assault shooting (") are then brought
along, marked ``ref``, so two-rule questions get both rules. Before that,
the first few rules are ordered again with their best single sentence's
meaning match added (``retrieval/sentences.py``): the dense index embeds
windows of several sentences, which blur the one that answers.

Which game: the one the player gave, else the one whose rules match the
question best by a clear margin (``choose_game``): how well each game's
best rule matches by meaning and by words, plus its name or jargon in the
question. A question no game clearly wins is searched in all of them.

Whether anything relevant was found is a separate question from ranking.
``relevance`` is the probability that the loaded rules answer the question,
from a small logistic model over signals that mean the same in any
rulebook: the best meaning match, the best word match, how much better the
game's own rules match than the other loaded games' (the other games are a
background: a question the game does not cover matches its rules no better
than unrelated rules), the share of the question's rare words the best rule
holds, a rule named outright, and whether the game was unclear (a question
no loaded game clearly owns, answered from whichever game's rule matches
best, is often one none of them covers). Every weight is fitted by
``python -m benchmarks tune`` on the *fit* questions (two games' rulebooks,
one of them heading-structured), and the floor is chosen on the *choose*
questions (``retrieval/tuning.toml``); test figures come from questions and
a rulebook neither saw.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from ruleslawyer.errors import require_question
from ruleslawyer.ingest.embed import Embedder
from ruleslawyer.ingest.pipeline import chunk_texts
from ruleslawyer.ingest.store import StoredIndex
from ruleslawyer.records import Hit, SearchResult
from ruleslawyer.retrieval.exact import ExactIndex, ExactMatch, name_key
from ruleslawyer.retrieval.games import GameDetector
from ruleslawyer.retrieval.sentences import SentenceVectors
from ruleslawyer.retrieval.tokens import tokenize

TUNING_FILE = Path(__file__).with_name("tuning.toml")
# How many of the fused top rules the best-sentence match re-orders. On the
# fit questions (depths 3 to 10): by MRR 5 is as good as 8-10 (0.886 against
# 0.887); by recall@5 8 is better (0.991 against 0.982), but it changed no
# answer's quotes on any split and embeds the sentences of three more rules
# for every new question (README, "What was tried").
# "rule 99.99", "section 3.2", "§ 10.05": a rule number the player names as one
# (a bare "2.5" may be inches)
_NAMED_NUMBER = re.compile(r"(?i)(?:\brule|\bsection|§)\s*(\d{1,3}(?:\.\d{1,3})+)\b")
SENTENCE_DEPTH = 5
# The relevance model's inputs, in order (see ``relevance_features``).
RELEVANCE_FEATURES = (
    "dense",
    "log_bm25",
    "dense_contrast",
    "bm25_contrast",
    "coverage",
    "named",
    "game_unsure",
)


@dataclass(frozen=True)
class Tuning:
    """Fusion weights, game choice and the relevance model, fitted by ``benchmarks tune``."""

    w_dense: float = 1.0
    w_bm25: float = 1.0
    w_exact: float = 1.0
    rrf_k: float = 60.0
    pin_names: float = 0.0  # 1 = a rule named inside a question goes first
    # The top SENTENCE_DEPTH rules re-ordered by fused score (the best one's 1)
    # + w_sentence x their best sentence's meaning match; 0 = off.
    w_sentence: float = 0.0
    # Game choice: score = lexical cues + named rules + how well the game's best
    # rule matches (dense, relative to the best game; BM25, as a share of the best).
    game_lexical: float = 1.0
    game_named: float = 2.0
    game_dense: float = 0.0
    game_bm25: float = 0.0
    game_margin: float = 1.0
    # Relevance: logistic model over RELEVANCE_FEATURES; floor on its probability.
    rel_bias: float = 0.0
    rel_dense: float = 1.0
    rel_log_bm25: float = 0.0
    rel_dense_contrast: float = 0.0
    rel_bm25_contrast: float = 0.0
    rel_coverage: float = 0.0
    rel_named: float = 0.0
    rel_game_unsure: float = 0.0
    floor: float = 0.0
    # The other games' best match an average question gets (means on the fit
    # split). With a single game loaded there is no background to contrast
    # with, and a contrast of "everything" would make every question look
    # covered; these stand in for it.
    bg_dense: float = 0.0
    bg_log_bm25: float = 0.0

    @property
    def relevance_weights(self) -> tuple[float, ...]:
        return tuple(getattr(self, f"rel_{name}") for name in RELEVANCE_FEATURES)

    @classmethod
    def load(cls, path: Path = TUNING_FILE) -> Tuning:
        if not path.exists():
            return cls()
        return cls.from_table(tomllib.loads(path.read_text(encoding="utf-8")).get("retrieval", {}))

    @classmethod
    def from_table(cls, table: dict[str, Any]) -> Tuning:
        """A tuning from a ``[retrieval]`` table; keys it does not know are ignored."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: float(v) for k, v in table.items() if k in names})


@dataclass
class Signals:
    """Everything fusion needs for one query, over *all* units (the tuner caches these)."""

    query: str
    given_game: str | None
    dense: np.ndarray | None
    bm25: np.ndarray | None
    exact: list[ExactMatch]
    lexical_games: dict[str, float]  # GameDetector.scores: names, cues, distinctive words
    named_games: dict[str, float]  # rules named outright that only that game has
    warnings: list[str] = field(default_factory=list)
    query_vector: np.ndarray | None = None  # the question embedded (with ``dense``)


@dataclass
class _Ranked:
    game: str | None
    mask: np.ndarray
    exact: list[ExactMatch]
    fused: np.ndarray
    why: dict[int, list[str]]
    top: list[int]
    pinned: int = 0  # how many of ``top`` are lookups, pinned first


class HybridRetriever:
    def __init__(
        self, index: StoredIndex, embedder: Embedder, tuning: Tuning | None = None
    ) -> None:
        import bm25s

        self.index = index
        self.units = index.units
        self.embedder = embedder
        # shared with the evidence picker, which quotes the same sentences
        self.sentences = SentenceVectors(embedder)
        self.tuning = tuning or Tuning.load()
        self.games = np.array([u.game for u in self.units])
        # A changelog's entries state rules the book has replaced: looked up by
        # name or shown, never found by a question's words or meaning
        self._current = np.array([u.kind != "changelog" for u in self.units], dtype=bool)
        self.detector = GameDetector(self.units, index.games())
        self.game_names = sorted(set(self.games.tolist()))
        self._game_rows = {g: np.flatnonzero(self.games == g) for g in self.game_names}
        self.exact = ExactIndex(self.units)
        corpus = [tokenize(f"{u.title} {u.rule_id} {u.search_text}") or [""] for u in self.units]
        self.bm25 = bm25s.BM25()
        self.bm25.index(corpus, show_progress=False)
        # The same passages the dense index embeds (sentence windows of long
        # rules), so a long rule whose one paragraph answers is found by words too.
        passages: list[list[str]] = []
        owners: list[int] = []
        for i, u in enumerate(self.units):
            for text in chunk_texts(u):
                passages.append(tokenize(f"{text} {u.rule_id}") or [""])
                owners.append(i)
        self.bm25_passages = bm25s.BM25()
        self.bm25_passages.index(passages, show_progress=False)
        self._passage_unit = np.asarray(owners, dtype=np.int64)
        self._unit_tokens = [set(doc) for doc in corpus]
        df: dict[str, int] = {}
        for doc in self._unit_tokens:
            for t in doc:
                df[t] = df.get(t, 0) + 1
        n = max(1, len(self.units))
        self._idf = {t: math.log(1 + n / c) for t, c in df.items()}
        self._idf_unseen = math.log(1 + n)
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
    def dense_scores(self, query: str, query_vector: np.ndarray | None = None) -> np.ndarray:
        """Best chunk cosine per unit (units with no scored chunk get -1)."""
        qv = self.embedder.embed([query]) if query_vector is None else query_vector.reshape(1, -1)
        n_chunks = self.index.faiss_index.ntotal
        k = min(n_chunks, 400)
        sims, rows = self.index.faiss_index.search(qv, k)
        out = np.full(len(self.units), -1.0, dtype=np.float32)
        owners = self.index.chunk_unit[rows[0][rows[0] >= 0]]
        vals = sims[0][rows[0] >= 0]
        np.maximum.at(out, owners, vals)
        return out

    def bm25_scores(self, query: str) -> np.ndarray:
        """Per unit, the mean of its whole-rule BM25 and its best passage's.

        Whole-rule BM25 alone fails long rules: length normalisation buries
        the one paragraph that answers under everything else the section
        says; the best passage alone loses a rule whose words are spread out.
        """
        tokens = tokenize(query)
        if not tokens:
            return np.zeros(len(self.units), dtype=np.float32)
        whole = np.asarray(self.bm25.get_scores(tokens), dtype=np.float32)
        best = np.zeros(len(self.units), dtype=np.float32)
        np.maximum.at(best, self._passage_unit, self.bm25_passages.get_scores(tokens))
        return 0.5 * whole + 0.5 * best

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
        if game is not None:
            # "What does Redeploy do in AoS?" with 40k chosen: answered from 40k's
            # rules, as asked, but the player should know why AoS's is not quoted.
            others = [g for g in dict.fromkeys(self.detector.named(query)) if g != game]
            if others:
                warnings.append(
                    f"the question names {', '.join(others)}, but {game} was chosen: "
                    f"answered from {game}'s rules (choose {others[0]}, or Auto, for its)"
                )
        matches = self.exact.match(query, game) if "exact" in use else []
        # A rule the question names outright is evidence of its game.
        named: dict[str, float] = {}
        for m in matches:
            g = self.units[m.position].game
            if m.strong and self._only_in(m.matched, g):
                named[g] = named.get(g, 0.0) + 1.0
        # The rules are searched for what the question asks, not for the game it
        # names ("in Ironfen Raiders, can my guys see through their own squad?"
        # found the chapter blurb that names the game): the name picks the game,
        # from the whole question, above and in ``lexical_games`` (the figures
        # that kept this are in the README's "What was tried").
        content = self.detector.without_names(query)
        content = content if any(c.isalnum() for c in content) else query
        # through the sentence cache: the evidence picker embeds the question
        # again with the quotes' sentences, and then finds it there
        qv = self.sentences.embed([content])[0] if "dense" in use else None
        return Signals(
            query=query,
            given_game=game,
            dense=self.dense_scores(content, qv) if qv is not None else None,
            bm25=self.bm25_scores(content) if "bm25" in use else None,
            exact=matches,
            lexical_games=self.detector.scores(query) if game is None else {},
            named_games=named,
            warnings=warnings,
            query_vector=qv,
        )

    def choose_game(self, sig: Signals, tuning: Tuning | None = None) -> str | None:
        """The game whose rules the question is about, or None when none clearly wins."""
        t = tuning or self.tuning
        if len(self.game_names) < 2:
            return self.game_names[0] if self.game_names else None
        dense = {g: self._best(sig.dense, g) for g in self.game_names}
        bm25 = {g: self._best(sig.bm25, g) for g in self.game_names}
        top_dense, top_bm25 = max(dense.values()), max(bm25.values()) or 1.0
        score = {
            g: t.game_lexical * sig.lexical_games.get(g, 0.0)
            + t.game_named * sig.named_games.get(g, 0.0)
            + t.game_dense * (dense[g] - top_dense)
            + t.game_bm25 * bm25[g] / top_bm25
            for g in self.game_names
        }
        ranked = sorted(score, key=lambda g: score[g], reverse=True)
        return ranked[0] if score[ranked[0]] - score[ranked[1]] >= t.game_margin else None

    def _best(self, scores: np.ndarray | None, game: str) -> float:
        rows = self._game_rows[game]
        return float(scores[rows].max()) if scores is not None and len(rows) else 0.0

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
        # at least the re-ordered depth, so a search for 1 or 3 rules gets the
        # first ones an answer would (relevance reads the first five, as fitted)
        ranked = self._rank(sig, t, max(k, SENTENCE_DEPTH))
        hits = [
            Hit(self.units[i], score, tuple(ranked.why.get(i, ())))
            for i, score in self._by_sentence(sig, ranked, t)[:k]
        ]
        if refs:
            hits = self._with_refs(hits, ranked.game)
        if any(m.number or m.whole for m in ranked.exact):
            relevance = 1.0  # a lookup of a rule that exists
        else:
            x = self._relevance_inputs(sig, ranked, t)
            z = t.rel_bias + sum(w * v for w, v in zip(t.relevance_weights, x, strict=True))
            relevance = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
        named = tuple(dict.fromkeys(_NAMED_NUMBER.findall(sig.query)))
        missing = self._missing_numbers(sig, named)
        # A question naming only rules that do not exist ("what does rule 2.6
        # say?") asks for nothing the closest rules hold: it is turned away,
        # saying so, whatever game was searched (with a game chosen, relevance
        # turned it away already; across games a rule numbered "3" matched).
        asks_only_missing = bool(missing) and len(missing) == len(named)
        return SearchResult(
            query=sig.query,
            game=ranked.game,
            game_detected=sig.given_game is None and ranked.game is not None,
            hits=tuple(hits),
            relevant=bool(hits) and relevance >= t.floor and not asks_only_missing,
            relevance=relevance,
            warnings=tuple(sig.warnings),
            missing_numbers=missing,
        )

    def _missing_numbers(self, sig: Signals, named: tuple[str, ...]) -> tuple[str, ...]:
        """Of the rule numbers the question names (``named``: "rule 99.99"), those no
        rule has in the game the player chose, or, when the game was only
        detected, in any game."""
        return tuple(
            n
            for n in named
            if not any(
                sig.given_game is None or self.units[i].game == sig.given_game
                for i in self.exact.by_number.get(n, ())
            )
            # a section whose text is all in the rules numbered under it
            and not self.exact.numbered_under(n, sig.given_game)
        )

    def _by_sentence(self, sig: Signals, ranked: _Ranked, t: Tuning) -> list[tuple[int, float]]:
        """The top rules and their scores, the first ``SENTENCE_DEPTH`` re-ordered by
        fused score + ``w_sentence`` x their best sentence's meaning match.

        Scores are the fused score divided by the best rule's, the match added
        for the re-ordered ones, and all divided again by the best, so the
        first is 1 and none is above the one before it: a match is taken as at
        least 0, so the rules beyond the depth, which were below the re-ordered
        ones, stay below them. Lookups (a rule number, a question that is only
        a rule's name) stay first and score 1. The relevance model reads the
        fused order: it was fitted on that.
        """
        top = ranked.top
        best = max((float(ranked.fused[i]) for i in top), default=1.0) or 1.0
        scores = {i: float(ranked.fused[i]) / best for i in top}
        pinned = ranked.pinned
        movable = top[pinned:SENTENCE_DEPTH]
        if t.w_sentence > 0 and sig.query_vector is not None and len(movable) > 1:
            match = self.sentences.best_match(sig.query_vector, [self.units[i] for i in movable])
            for i, m in zip(movable, match, strict=True):
                scores[i] += t.w_sentence * max(0.0, m)
            movable = sorted(movable, key=lambda i: -scores[i])  # stable: fused order breaks ties
        order = [*top[:pinned], *movable, *top[pinned + len(movable) :]]
        high = max((scores[i] for i in order[pinned:]), default=1.0) or 1.0
        return [(i, 1.0 if n < pinned else scores[i] / high) for n, i in enumerate(order)]

    def relevance_inputs(self, sig: Signals, tuning: Tuning | None = None) -> tuple[float, ...]:
        """The relevance model's inputs for one query, as ``fuse`` computes them (the
        tuner fits the model on these)."""
        t = tuning or self.tuning
        return self._relevance_inputs(sig, self._rank(sig, t, 5), t)

    def _relevance_inputs(self, sig: Signals, ranked: _Ranked, t: Tuning) -> tuple[float, ...]:
        return self.relevance_features(
            sig,
            ranked.mask,
            ranked.top,
            ranked.exact,
            unsure=ranked.game is None,
            background=(t.bg_dense, t.bg_log_bm25),
        )

    def _rank(self, sig: Signals, t: Tuning, k: int) -> _Ranked:
        """The game in scope and the fused ranking of its units (weighted RRF)."""
        game = sig.given_game or self.choose_game(sig, t)
        mask = self.games == game if game else np.ones(len(self.units), dtype=bool)
        exact = [m for m in sig.exact if mask[m.position]]
        fused = np.zeros(len(self.units), dtype=np.float64)
        why: dict[int, list[str]] = {}
        searched = mask & self._current
        for name, scores, weight in (("dense", sig.dense, t.w_dense), ("bm25", sig.bm25, t.w_bm25)):
            if scores is None or weight <= 0:
                continue
            cand = (
                np.flatnonzero(searched & (scores > 0))
                if name == "bm25"
                else np.flatnonzero(searched)
            )
            order = cand[np.argsort(-scores[cand], kind="stable")[:50]].tolist()
            for rank, i in enumerate(order):
                fused[i] += weight / (t.rrf_k + rank + 1)
                if rank < 10:
                    why.setdefault(i, []).append(name)
        pinned: list[int] = []
        for rank, m in enumerate(exact):
            fused[m.position] += t.w_exact / (t.rrf_k + rank + 1)
            why.setdefault(m.position, []).append("exact")
            # A rule number, or a question that is only a rule's name, is a lookup:
            # always first. Pinning rules named inside a question is tuned.
            if m.number or m.whole or (m.strong and t.pin_names):
                pinned.append(m.position)
        idx = np.flatnonzero(mask & (fused > 0))
        top_idx = idx[np.argsort(-fused[idx], kind="stable")[: k + len(pinned)]]
        top = (pinned + [int(i) for i in top_idx if int(i) not in pinned])[:k]
        return _Ranked(game, mask, exact, fused, why, top, min(len(pinned), len(top)))

    def relevance_features(
        self,
        sig: Signals,
        mask: np.ndarray,
        top: Sequence[int],
        exact: Sequence[ExactMatch],
        *,
        unsure: bool = False,
        background: tuple[float, float] = (0.0, 0.0),
    ) -> tuple[float, ...]:
        """The relevance model's inputs (``RELEVANCE_FEATURES``), all in [0, ~3].

        When no game is in scope, the game of the best hit plays the game's
        part, so the contrast with the other games still means something.
        With no other game loaded, ``background`` (dense, log BM25) is the
        other games' typical best match.
        """
        if not mask.all():
            own = mask
        elif top:
            own = self.games == self.units[top[0]].game
        else:
            own = mask
        other = ~own
        dense = sig.dense if sig.dense is not None else np.zeros(len(self.units))
        bm25 = sig.bm25 if sig.bm25 is not None else np.zeros(len(self.units))
        d_own = float(dense[own].max()) if own.any() else 0.0
        b_own = float(bm25[own].max()) if own.any() else 0.0
        # the other games' best three by meaning: one lucky sentence is not a background
        if other.any():
            d_other = float(np.sort(dense[other])[-3:].mean())
            log_b_other = math.log1p(float(bm25[other].max()))
        else:
            d_other, log_b_other = background
        return (
            d_own,
            math.log1p(b_own),
            d_own - d_other,
            math.log1p(b_own) - log_b_other,
            self.coverage(self.detector.without_names(sig.query), top[:5]),
            1.0 if any(m.strong for m in exact) else 0.0,
            1.0 if unsure else 0.0,
        )

    def coverage(self, query: str, rows: Sequence[int]) -> float:
        """The largest share of the query's words (weighted by rarity) one of ``rows`` holds."""
        words = set(tokenize(query))
        total = sum(self._idf.get(w, self._idf_unseen) for w in words)
        if not total:
            return 0.0
        return max(
            (
                sum(self._idf.get(w, self._idf_unseen) for w in words & self._unit_tokens[i])
                / total
                for i in rows
            ),
            default=0.0,
        )

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
    """Strip control characters and outer space; refuse an empty question (one
    with no letter or digit: "", "   ", a bare "?")."""
    query = _CONTROL.sub(" ", query or "").strip()
    require_question(query)
    return " ".join(query.split())
