"""The use cases: ingest rulebooks, look up rules, search, answer.

The CLI, the UI and the eval runner all go through ``RulesService``; none of
them touch the index, the embedder or the LLM directly. Heavy pieces (the
embedding model, the index, the LLM) are created on first use and shared,
so a one-shot ``rules show`` never imports torch.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ruleslawyer.errors import InputError, ModelError, RuleNotFoundError
from ruleslawyer.ingest.embed import Embedder, make_embedder
from ruleslawyer.ingest.normalize import normalize
from ruleslawyer.ingest.pipeline import IngestReport, build_index
from ruleslawyer.ingest.reader import read_rulebook
from ruleslawyer.ingest.sources import Rulebook, add_to_library, check_game, read_manifest
from ruleslawyer.ingest.store import IndexStore, StoredIndex
from ruleslawyer.records import RuleUnit, SearchResult
from ruleslawyer.settings import Settings

_UNSET: Any = object()


def rule_key(rule_id: str) -> str:
    """How rule IDs compare: case, quote style, hyphens and spacing ignored."""
    return normalize(rule_id).lower().replace('"', "")


def number_ranges(rule_ids: Sequence[str]) -> str:
    """'10.01-10.07, 16.01, 24.01-24.38': the numbered rules present, compactly."""
    nums = sorted(
        (int(a), int(b))
        for a, b in (r.split(".") for r in rule_ids if re.fullmatch(r"\d+\.\d+", r))
    )
    parts: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == (nums[j][0], nums[j][1] + 1):
            j += 1
        a, b = nums[i], nums[j]
        parts.append(f"{a[0]}.{a[1]:02d}" + (f"-{b[0]}.{b[1]:02d}" if j > i else ""))
        i = j + 1
    return ", ".join(parts) or "none"


class RulesService:
    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        llm: Any = _UNSET,
    ) -> None:
        self.settings = settings
        self.store = IndexStore(settings.index_dir)
        self._embedder = embedder
        self._llm = llm
        self._index: StoredIndex | None = None
        self._index_dir: Path | None = None
        self._retriever: Any = None
        self._answerer: Any = None
        self._lock = threading.RLock()

    # --- components ---------------------------------------------------------
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = make_embedder(self.settings.embedder, self.settings.n_threads)
            return self._embedder

    def rulebooks(self) -> list[Rulebook]:
        return read_manifest(self.settings.seeds_dir, "seeds") + read_manifest(
            self.settings.library_dir, "library"
        )

    # --- ingest -------------------------------------------------------------
    def ingest(
        self,
        paths: Sequence[Path] = (),
        *,
        game: str | None = None,
        encoding: str | None = None,
        force: bool = False,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> IngestReport:
        """Add ``paths`` (if any) to the library, then (re)build the index from all rulebooks."""
        from filelock import FileLock, Timeout

        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        new: list[tuple[Path, str]] = []
        if paths:
            if not game:
                names = ", ".join(str(p) for p in paths)
                raise InputError(
                    f"{names}: say which game these rules are for (--game 40k|aos|warmachine)"
                )
            g = check_game(game)
            for p in paths:
                # Validate before the library or the index is touched.
                text = read_rulebook(
                    p, max_bytes=self.settings.max_rulebook_bytes, encoding=encoding
                )
                new.append((p, text))
        lock = FileLock(str(self.settings.data_dir / "ingest.lock"))
        try:
            lock.acquire(timeout=600)
        except Timeout:
            raise InputError(
                "another ingest has held the index lock for 10 minutes; try again later"
            ) from None
        try:
            for p, text in new:
                add_to_library(self.settings.library_dir, p.name, text, g)
            report = build_index(
                self.rulebooks(),
                self.store,
                self.embedder(),
                max_bytes=self.settings.max_rulebook_bytes,
                encoding=None,
                force=force,
                progress=progress,
            )
        finally:
            lock.release()
        with self._lock:
            self._index = None
            self._retriever = None
            self._answerer = None
        return report

    # --- the index ----------------------------------------------------------
    def index(self) -> StoredIndex:
        """The live index, loaded once and reloaded when an ingest replaced it."""
        with self._lock:
            current = self.store.current_dir()
            if current is None:
                self.ingest()
                current = self.store.current_dir()
            if self._index is None or current != self._index_dir:
                # embedder() only names the model; it loads weights on first embed
                embedder = self.embedder()
                self._index = self.store.load(embedder.name, embedder.dim)
                self._index_dir = current
                self._retriever = None
                self._answerer = None
            return self._index

    def units(self, game: str | None = None) -> list[RuleUnit]:
        units = self.index().units
        if game:
            g = check_game(game)
            units = [u for u in units if u.game == g]
        return units

    def lookup(self, game: str, rule_id: str) -> RuleUnit | None:
        key = rule_key(rule_id)
        for u in self.index().units:
            if u.game == game and rule_key(u.rule_id) == key:
                return u
        return None

    def find_rules(self, rule_id: str, game: str | None = None) -> list[RuleUnit]:
        """Units whose ID (or failing that, title) is ``rule_id``; raises with suggestions."""
        if not rule_id.strip():
            raise InputError("give a rule number or name, e.g. 24.21 or Redeploy")
        units = self.units(game)
        key = rule_key(rule_id)
        hits = [u for u in units if rule_key(u.rule_id) == key]
        if not hits:
            hits = [
                u for u in units if u.title and rule_key(u.title).strip("[]") == key.strip("[]")
            ]
        if hits:
            return hits
        names = sorted({u.rule_id for u in units} | {u.title for u in units if u.title})
        close = difflib.get_close_matches(rule_id, names, n=4, cutoff=0.6)
        if close:
            hint = f"; did you mean {', '.join(close)}?"
        elif re.fullmatch(r"\d{1,2}(\.\d{1,2})?", rule_id.strip()):
            hint = f"; numbered rules here: {number_ranges([u.rule_id for u in units])}"
        else:
            hint = ""
        where = f" in {check_game(game)}" if game else ""
        raise RuleNotFoundError(f"no rule {rule_id}{where}{hint}")

    # --- search ---------------------------------------------------------------
    def retriever(self) -> Any:
        from ruleslawyer.retrieval.hybrid import HybridRetriever

        index = self.index()
        with self._lock:
            if self._retriever is None:
                self._retriever = HybridRetriever(index, self.embedder())
            return self._retriever

    def search(
        self, query: str, game: str | None = None, *, k: int | None = None, **kwargs: Any
    ) -> SearchResult:
        from ruleslawyer.retrieval.hybrid import clean_query

        clean_query(query)  # refuse an empty question before loading anything
        g = check_game(game) if game else None
        return self.retriever().search(
            query,
            game=g,
            k=k or self.settings.top_k,
            max_chars=self.settings.max_question_chars,
            **kwargs,
        )

    # --- answers ----------------------------------------------------------------
    def llm(self) -> Any:
        """The configured LLM backend (None for evidence-only), created once."""
        with self._lock:
            if self._llm is _UNSET:
                from ruleslawyer.llm import make_llm

                self._llm = make_llm(self.settings)
            return self._llm

    def check_llm(self) -> None:
        """Create the LLM backend and check it can be reached; raises ModelError."""
        llm = self.llm()
        if llm is not None:
            llm.check()

    def answerer(self) -> Any:
        from ruleslawyer.answer import Answerer
        from ruleslawyer.evidence import EvidencePicker

        retriever = self.retriever()
        with self._lock:
            if self._answerer is None:
                from dataclasses import replace

                from ruleslawyer.verdict import Calibration

                picker = EvidencePicker(retriever.embedder, retriever.units)
                llm = self.llm()
                cal = Calibration.for_model(llm.name) if llm is not None else Calibration()
                if self.settings.verdict_confidence is not None:
                    cal = replace(cal, confidence=self.settings.verdict_confidence)
                self._answerer = Answerer(llm, picker, cal)
            return self._answerer

    def ask(
        self,
        question: str,
        game: str | None = None,
        *,
        evidence_only: bool = False,
        on_text: Callable[[str], None] | None = None,
    ) -> Any:
        """Answer ``question`` from the loaded rules (see ``ruleslawyer.answer``)."""
        import time

        from ruleslawyer.answer import AnswerOptions
        from ruleslawyer.retrieval.hybrid import clean_query

        # Searching can live with a truncated query; an answer to half a question
        # cannot, so an over-long question is refused rather than cut.
        length = len(clean_query(question))
        limit = self.settings.max_question_chars
        if length > limit:
            raise InputError(
                f"the question is {length:,} characters; the limit is {limit:,} "
                "(ask about one rule at a time)"
            )
        t0 = time.perf_counter()
        result = self.search(question, game=game)
        retrieve_ms = (time.perf_counter() - t0) * 1000
        answerer = self.answerer()
        opts = AnswerOptions(evidence_only=evidence_only, max_tokens=self.settings.max_tokens)
        return answerer.answer(
            question, result, options=opts, on_text=on_text, timings={"retrieve": retrieve_ms}
        )

    def warm_up(self) -> dict[str, float]:
        """Load the index, the embedding model and the LLM now; ms each took.

        Everything loads lazily on first use anyway; this is for a server
        that should be warm before its first visitor, and for measuring
        where a cold start goes (``ask --timings``).
        """
        import time

        took: dict[str, float] = {}
        t = time.perf_counter()
        self.index()
        took["index"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        self.embedder().embed(["warm up"])
        took["embedder"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        llm = self.llm()
        if llm is not None:
            llm.check()
            llm.load()
        took["model"] = (time.perf_counter() - t) * 1000
        return took

    def describe(self) -> dict[str, Any]:
        llm = self._llm if self._llm is not _UNSET else None
        return {
            "embedder": self.embedder().name,
            "llm": self.settings.llm,
            "llm_name": llm.name if llm is not None else "none",
            "model": str(self.settings.model_path or self.settings.default_model),
            "llm_url": self.settings.llm_url,
            "top_k": self.settings.top_k,
        }

    def close(self) -> None:
        llm = self._llm
        if llm not in (None, _UNSET):
            with contextlib.suppress(ModelError):
                llm.close()
