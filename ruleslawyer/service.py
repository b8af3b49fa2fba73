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
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ruleslawyer.errors import InputError, ModelError, RuleNotFoundError, RulesLawyerError
from ruleslawyer.ingest.embed import LEGACY_ONNX_DIRS, ONNX_DIR, Embedder, make_embedder
from ruleslawyer.ingest.normalize import normalize
from ruleslawyer.ingest.pipeline import IngestReport, build_index
from ruleslawyer.ingest.sources import (
    Catalog,
    Rulebook,
    add_to_library,
    check_game,
    check_replacements,
    library_names,
    read_manifest,
    remove_from_library,
    restored_on_failure,
    rulebook_files,
    source_of,
)
from ruleslawyer.ingest.store import IndexStore, StoredIndex
from ruleslawyer.records import GameInfo, RuleUnit, SearchResult, rules_under
from ruleslawyer.settings import Settings

_UNSET: Any = object()


def rule_key(rule_id: str) -> str:
    """How rule IDs compare: case, quote style, hyphens and spacing ignored."""
    return normalize(rule_id).lower().replace('"', "")


# "rule 4.1", "section 3.2", "§ 24.21", "4.1 Boarding", "4.1. Boarding"
_WRITTEN_AS = re.compile(
    r"(?i)(?:(?:rule|section|§)\s*)?(?P<number>\d{1,3}(?:\.\d{1,3})+[a-z]?)\.?(?:\s+(?P<title>\S.*))?"
)


def _numeric(rule_id: str) -> tuple[int, ...]:
    """'24.3' before '24.21': the order a printed number sorts in the book."""
    # "100.2a" sorts with 100.2 (a card game's lettered sub-rule)
    return tuple(int(re.sub(r"\D.*", "", p) or 0) for p in rule_id.split("."))


def number_ranges(rule_ids: Sequence[str]) -> str:
    """'10.01-10.07, 16.01, 24.01-24.38': the numbered rules present, compactly, each
    spelled as the book prints it ("1.1-1.3, 1.2.1", never "1.01")."""
    keyed = sorted(
        {(_numeric(r), r) for r in rule_ids if re.fullmatch(r"\d+(?:\.\d+)*", r)},
        key=lambda k: (len(k[0]), k),  # chapters, rules, then sub-rules: "1-2, 1.1-1.3, 1.2.1"
    )

    def follows(a: tuple[tuple[int, ...], str], b: tuple[tuple[int, ...], str]) -> bool:
        # the next number of the same rule family, printed the same way (10.09 -> 10.10)
        (x, xs), (y, ys) = a, b
        return (
            len(x) == len(y)
            and x[:-1] == y[:-1]
            and y[-1] == x[-1] + 1
            and len(xs.rsplit(".", 1)[-1]) == len(ys.rsplit(".", 1)[-1])
        )

    parts: list[str] = []
    i = 0
    while i < len(keyed):
        j = i
        while j + 1 < len(keyed) and follows(keyed[j], keyed[j + 1]):
            j += 1
        parts.append(keyed[i][1] + (f"-{keyed[j][1]}" if j > i else ""))
        i = j + 1
    return ", ".join(parts) or "none"


class RulesService:
    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        llm: Any = _UNSET,
        calibration: Any = None,
    ) -> None:
        self.settings = settings
        self._calibration = calibration  # None: the LLM's own from prompts/calibration.toml
        self.store = IndexStore(settings.index_dir)
        self._embedder = embedder
        self._llm = llm
        self._index: StoredIndex | None = None
        self._index_dir: Path | None = None
        self._retriever: Any = None
        self._answerer: Any = None
        self._games: list[GameInfo] | None = None
        self._lock = threading.RLock()

    # --- components ---------------------------------------------------------
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = make_embedder(
                    self.settings.embedder, self.settings.n_threads, self.onnx_dir
                )
            return self._embedder

    @property
    def onnx_dir(self) -> Path:
        """Where the ONNX export of the embedding model is cached (made at ingest)."""
        return self.settings.model_cache_dir / ONNX_DIR

    def prepare_embedder(self) -> bool:
        """Export the embedding model to ONNX once, so later starts skip torch.

        Returns True when an export was made. A failed export is not fatal:
        the sentence-transformers model keeps working, only slower to start.
        """
        from ruleslawyer.ingest.embed import ONNX_FILE, export_onnx

        if self.settings.embedder != "minilm" or (self.onnx_dir / ONNX_FILE).exists():
            return False
        try:
            export_onnx(self.onnx_dir, self.settings.n_threads)
        except (ModelError, ImportError, RuntimeError, OSError) as err:
            import logging

            logging.getLogger(__name__).warning("no ONNX export of the embedder: %s", err)
            return False
        with self._lock:
            self._embedder = None  # the next use loads the fast one
        for name in LEGACY_ONNX_DIRS:  # an older export, superseded by this one
            shutil.rmtree(self.settings.model_cache_dir / name, ignore_errors=True)
        return True

    def catalog(self) -> Catalog:
        """The seeds' and the library's manifests: every rulebook and game detail."""
        return read_manifest(self.settings.seeds_dir, "seeds").merged(
            read_manifest(self.settings.library_dir, "library")
        )

    def rulebooks(self) -> list[Rulebook]:
        return list(self.catalog().rulebooks)

    # --- ingest -------------------------------------------------------------
    def ingest(
        self,
        paths: Sequence[Path] = (),
        *,
        game: str | None = None,
        encoding: str | None = None,
        force: bool = False,
        progress: Callable[[str, int, int], None] | None = None,
        format: str | None = None,
        game_name: str | None = None,
        edition: str | None = None,
        title: str | None = None,
        replace: bool = False,
        keep_sources: bool = True,
    ) -> IngestReport:
        """Add ``paths`` (if any) to the library, then (re)build the index from all rulebooks.

        ``game`` is any slug (a new one creates the game); ``game_name`` and
        ``edition`` say how it is shown. Every new file is read and parsed
        before the library or the index is touched. A file whose name the
        library already holds for another file, or for another game, is
        refused unless ``replace``; a failed or interrupted build puts the
        library back as it was. ``keep_sources`` records where each file was
        added from (``library_names``), so adding it again replaces it; the
        page's uploads, whose paths are temporary, record none.
        """
        from ruleslawyer.ingest import formats
        from ruleslawyer.ingest.pipeline import parse_file
        from ruleslawyer.ingest.reader import decode_rulebook, read_bytes

        try:
            self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:  # a file where the folder should be, no permission
            raise InputError(
                f"the data dir {self.settings.data_dir} cannot be used: "
                f"{err.strerror or type(err).__name__}; choose another with --data-dir "
                "or RULESLAWYER_DATA_DIR"
            ) from None
        catalog = self.catalog()
        new: list[tuple[Path, bytes, str]] = []
        if paths:
            if not game:
                names = ", ".join(str(p) for p in paths)
                known = ", ".join(sorted(catalog.games)) or "a new game's slug"
                raise InputError(
                    f"{names}: say which game these rules are for "
                    f"(--game {known}, or a new game's slug)"
                )
            g = check_game(game, catalog.games.values())
            for p in rulebook_files(paths, formats.extensions()):
                # Read and parse before the library or the index is touched.
                data = read_bytes(p, max_bytes=self.settings.max_rulebook_bytes)
                fmt = formats.detect(p.name, data, format)
                if not fmt.binary:  # stored as UTF-8, so --encoding is never needed again
                    data = decode_rulebook(data, str(p), encoding).encode("utf-8")
                parse_file(p.name, data, game=g, format=fmt.name)
                new.append((p, data, fmt.name))
        with self._ingest_lock():
            library = self.settings.library_dir
            as_named = (
                library_names(
                    [(p, data) for p, data, _ in new],
                    self.catalog().rulebooks,
                    formats.extensions(),
                    g,
                    by_place=keep_sources,
                )
                if new
                else []
            )
            stored = [(p, n, data) for (p, data, _), n in zip(new, as_named, strict=True)]
            replaced = (
                check_replacements(library, stored, g, replace_existing=replace) if new else []
            )
            with restored_on_failure(library, [name for _, name, _ in stored]):
                info = GameInfo(g, game_name or "", edition or "") if paths else None
                for (p, data, fmt_name), name in zip(new, as_named, strict=True):
                    add_to_library(
                        library,
                        name,
                        data,
                        g,
                        title=title or "",
                        format=fmt_name if format else "",
                        game_info=info,
                        extensions=formats.extensions(),
                        source=source_of(p) if keep_sources else "",
                    )
                catalog = self.catalog()
                report = self._build(
                    catalog, list(catalog.rulebooks), force=force, progress=progress
                )
            report.replaced.extend(replaced)
            report.added.extend(name for _, name, _ in stored)
            # Under the same lock: two ingests never export at once.
            self.prepare_embedder()
        self._forget_index()
        return report

    def remove(
        self,
        files: Sequence[str] = (),
        *,
        game: str | None = None,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> tuple[list[str], IngestReport]:
        """Take added rulebooks out of the library, by file name (of ``game``, when
        both are given) or all of ``game``'s, and rebuild the index without
        them: (the files removed, the ingest report).

        Only the library's files can go; the seed rulebooks ship with
        ruleslawyer. The index is rebuilt from the remaining rulebooks first,
        then the library's manifest is rewritten once: a failed rebuild leaves
        both as they were, and a library that cannot be written after it (a
        read-only folder) keeps the books, which the next ``ingest`` indexes
        again.
        """
        with self._ingest_lock():
            catalog = self.catalog()
            added = [b for b in catalog.rulebooks if b.origin == "library"]
            seeds = {b.file for b in catalog.rulebooks if b.origin != "library"}
            wanted = list(dict.fromkeys(self._library_file(f, added, seeds) for f in files))
            for name in wanted:
                if name in seeds:
                    raise InputError(f"{name}: a seed rulebook ships with ruleslawyer and stays")
                if name not in {b.file for b in added}:
                    listed = ", ".join(b.file for b in added) or "none yet"
                    raise InputError(f"{name}: no added rulebook of that name (added: {listed})")
            if game is not None:
                of_game = [b.file for b in added if b.game == game]
                if not of_game:
                    raise InputError(f"{game}: no added rulebooks of that game")
                # With files named, the game narrows, as it does everywhere else:
                # "remove v2.docx --game market" took market's other books too.
                others = [f for f in wanted if f not in of_game]
                if others:
                    raise InputError(
                        f"{others[0]}: not a rulebook of {game} (its rulebooks: {', '.join(of_game)})"
                    )
                if not wanted:
                    wanted = of_game
            if not wanted:
                raise InputError("say which rulebooks to remove: file names, or --game")
            # a seed of the same name stays (only the library's files go)
            keep = [b for b in catalog.rulebooks if b.origin != "library" or b.file not in wanted]
            report = self._build(catalog, keep, progress=progress)
            remove_from_library(self.settings.library_dir, wanted)
        self._forget_index()
        return wanted, report

    @staticmethod
    def _library_file(named: str, added: Sequence[Rulebook], seeds: set[str]) -> str:
        """The library file ``named`` names: a rulebook is named as `games` lists
        it, by its stored name, or by the path it was added from. A path the
        library knows no file from names none by its last part alone when the
        file of that name came from elsewhere: `remove site1/core/index.md`
        must not take another game's index.md."""
        source = source_of(named)
        added_from = next((b for b in added if source and b.source == source), None)
        if named in seeds or any(b.file == named for b in added):
            if added_from is not None and added_from.file != named and Path(named).exists():
                raise InputError(
                    f"{named}: names both the library's {named} and the file "
                    f"{added_from.file} was added from; to remove {added_from.file}, give its "
                    f"full path ({source}); to remove the library's {named}, run this from "
                    "another folder"
                )
            return named
        if added_from is not None:
            return added_from.file
        name = Path(named).name or named
        book = next((b for b in added if b.file == name), None)
        if book is not None and book.source and name != named:
            raise InputError(
                f"{named}: no rulebook was added from there (the library's {name} was "
                f"added from {book.source}); name the file as `ruleslawyer games` lists it"
            )
        return name

    def _build(
        self,
        catalog: Catalog,
        books: list[Rulebook],
        *,
        force: bool = False,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> IngestReport:
        """The index built from ``books`` (the library's copies, stored as UTF-8), with
        ``catalog``'s game details; under ``_ingest_lock``."""
        return build_index(
            books,
            self.store,
            self.embedder(),
            max_bytes=self.settings.max_rulebook_bytes,
            games=catalog.games,
            encoding=None,
            force=force,
            progress=progress,
        )

    @contextlib.contextmanager
    def _ingest_lock(self) -> Iterator[None]:
        """The data dir's ingest lock, across processes: one writer of the library
        and the index at a time (a CLI ingest, the page, a remove)."""
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.settings.data_dir / "ingest.lock"))
        try:
            lock.acquire(timeout=600)
        except Timeout:
            raise InputError(
                "another ingest has held the index lock for 10 minutes; try again later"
            ) from None
        try:
            yield
        finally:
            lock.release()

    def _forget_index(self) -> None:
        """Drop what was built on the old index; the next use loads the new one."""
        with self._lock:
            self._index = None
            self._retriever = None
            self._answerer = None
            self._games = None

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
                self._games = None
            return self._index

    def games(self) -> list[GameInfo]:
        """The games in the index, in index order, with what the manifests said of them."""
        index = self.index()
        with self._lock:
            if self._games is None:
                self._games = index.games()
            return list(self._games)

    def sources(self) -> list[dict[str, Any]]:
        """One row per indexed rulebook file: game, format, units, pages, what was
        left out and every warning, as the last ingest reported them."""
        return [dict(r) for r in self.index().manifest.get("report", [])]

    def game_info(self, slug: str | None) -> GameInfo | None:
        return next((g for g in self.games() if g.slug == slug), None) if slug else None

    def close_game(self, game: str) -> str | None:
        """The slug of the loaded game whose slug, alias or name ``game`` is a slip of
        a letter or two of ("irnfen", "saltmarch"), if it names none outright."""
        try:
            games = self.games()
        except RulesLawyerError:  # no index yet, or none usable: no game to slip from
            return None
        known = {n.lower(): g.slug for g in games for n in (g.slug, *g.aliases, g.name) if n}
        if game.strip().lower() in known:
            return None
        close = difflib.get_close_matches(game.strip().lower(), list(known), n=1, cutoff=0.8)
        return known[close[0]] if close else None

    def game(self, game: str) -> str:
        """The slug of the loaded game ``game`` names (slug, alias or name); else a clear error."""
        games = self.games()
        not_a_slug: InputError | None = None
        try:
            slug: str | None = check_game(game, games)
        except InputError as e:  # not even a slug ("Ironfen Raider"): perhaps a slip
            slug, not_a_slug = None, e
        if slug in {g.slug for g in games}:
            return str(slug)
        loaded = ", ".join(g.slug for g in games)
        close = self.close_game(game)
        if close:
            raise InputError(
                f"no rules loaded for game {game!r}; did you mean {close}? (loaded: {loaded})"
            )
        if not_a_slug is not None:
            raise not_a_slug  # its own message: what a game's slug may be
        raise InputError(
            f"no rules loaded for game {game!r} (loaded: {loaded}); "
            f"add its rulebook with `ruleslawyer ingest FILE --game {slug}`"
        )

    def units(self, game: str | None = None) -> list[RuleUnit]:
        units = self.index().units
        if game:
            g = self.game(game)
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
        if not hits and re.search(r"[^\W\d_]", rule_id):
            # A term a rule defines in a run-in label ("Pierce: Each point of
            # Pierce..."), as a glossary written in bold paragraphs does; then
            # a heading with no text of its own ("2. Movement" over 2.1-2.5, a
            # chapter page's title): the rules under it, in book order.
            # (a definition's words after the colon, not a value: a weapon's
            # "Range: 24"" defines nothing)
            term = re.escape(" ".join(rule_id.split()))
            label = re.compile(rf"(?im)^[\W_]*{term}[\W_]*:[^\S\n]*[^\W\d_]")
            hits = [u for u in units if label.search(u.text)]
            hits += [
                u
                for u in units
                if any(rule_key(h) == key for h in u.parent.split(" > ")) and u not in hits
            ]
        if not hits and re.fullmatch(r"\d+(?:\.\d+)*", key):
            # A bare chapter number ("24", "1.2" where only 1.2.1... are printed):
            # the heading printed with it ("2. Morale"), then the rules numbered
            # under it, in book order.
            hits = [u for u in units if u.number == key]
            under = rules_under(key, ((u, u.rule_id, u.in_its_heading) for u in units))
            hits += sorted(under, key=lambda u: _numeric(u.rule_id))
        if hits:
            return hits
        # as players write one: "rule 4.1", "§ 24.21", "4.1 Boarding" (number and title)
        m = _WRITTEN_AS.fullmatch(rule_id.strip())
        if m:
            named = self._written_as(m, units)
            if named:
                return named
        names = sorted({u.rule_id for u in units} | {u.title for u in units if u.title})
        # a close spelling, or a name with the word in it ("Shoals" of "Shoals and
        # Running Aground")
        close = difflib.get_close_matches(rule_id, names, n=4, cutoff=0.6)
        if len(key) > 3:  # a word, not "the" or "of"
            close += [n for n in names if key in rule_key(n).split() and n not in close][
                : max(0, 4 - len(close))
            ]
        if close:
            hint = f"; did you mean {', '.join(close)}?"
        elif re.fullmatch(r"\d{1,2}(\.\d{1,2})?", rule_id.strip()):
            by_game: dict[str, list[str]] = {}
            for u in units:
                by_game.setdefault(u.game, []).extend(
                    [u.rule_id, u.number] if u.number else [u.rule_id]
                )
            for numbers in by_game.values():
                # and the chapters only their rules print ("2" over 2.1-2.5), which
                # a lookup finds by the rules numbered under them
                numbers += [n.split(".")[0] for n in numbers if re.fullmatch(r"\d+(?:\.\d+)+", n)]
            ranges = {g: number_ranges(n) for g, n in by_game.items()}
            numbered = {g: r for g, r in ranges.items() if r != "none"}
            if len(numbered) > 1:  # each game's own, not one list of them all
                hint = "; numbered rules here: " + "; ".join(
                    f"{g} {r}" for g, r in numbered.items()
                )
            else:
                hint = f"; numbered rules here: {next(iter(numbered.values()), 'none')}"
        else:
            hint = ""
        where = f" in {self.game(game)}" if game else ""
        raise RuleNotFoundError(f"no rule {rule_id}{where}{hint}")

    @staticmethod
    def _written_as(m: re.Match[str], units: list[RuleUnit]) -> list[RuleUnit]:
        """The rule "rule 4.1" or "4.1 Boarding" names: the rule numbered so,
        when the words after the number, if any, are its title."""
        number, title = m.group("number"), m.group("title")
        return [
            u
            for u in units
            if rule_key(u.rule_id) == rule_key(number)
            and (not title or rule_key(u.title).strip("[]") == rule_key(title).strip("[]"))
        ]

    # --- search ---------------------------------------------------------------
    def retriever(self) -> Any:
        from ruleslawyer.retrieval.hybrid import HybridRetriever

        index = self.index()
        with self._lock:
            if self._retriever is None:
                self._retriever = HybridRetriever(index, self.embedder())
            return self._retriever

    def names_a_rule(self, text: str) -> bool:
        """Is ``text`` the name or number of one of the loaded rules (what the
        exact lookup finds), but for one word ("Deep Strike range?")? The page
        asks it of a short message: "Deep Strike?" asks about that rule; "how
        far?", or "with a pistol?" where a rule is named Pistol, about the
        previous question. Only a name that vouches for its rule (``strong``:
        a longer name, or a word no other rule uses) leaves a word over."""
        from ruleslawyer.retrieval.exact import name_words

        words = len(name_words(text))
        return any(
            m.whole or m.number or (m.strong and words - len(m.matched.split()) <= 1)
            for m in self.retriever().exact.match(text)
        )

    def search(
        self, query: str, game: str | None = None, *, k: int | None = None, **kwargs: Any
    ) -> SearchResult:
        from ruleslawyer.retrieval.hybrid import clean_query

        clean_query(query)  # refuse an empty question before loading anything
        g = self.game(game) if game else None
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

    def check_llm(self, *, probe: bool = False) -> None:
        """Create the LLM backend and check it can be reached; raises ModelError.

        ``probe`` also has it generate a token: an eval measures the model, and
        a model that cannot load (a truncated GGUF) or a server that is no LLM
        server would otherwise be measured as quotes alone, every answer
        "fully correct", since the quote is the answer."""
        llm = self.llm()
        if llm is not None:
            llm.check()
            if probe:
                llm.complete([{"role": "user", "content": "Reply OK."}], max_tokens=1)

    def answerer(self) -> Any:
        from ruleslawyer.answer import Answerer
        from ruleslawyer.evidence import EvidencePicker

        retriever = self.retriever()
        with self._lock:
            if self._answerer is None:
                from dataclasses import replace

                picker = EvidencePicker(retriever.embedder, retriever.units, retriever.sentences)
                llm = self.llm()
                cal, check = self._measured(llm)
                if self.settings.verdict_confidence is not None:
                    cal = replace(cal, confidence=self.settings.verdict_confidence)
                names = {g.slug: g.display for g in self.games()}
                explain = self._explains(llm) if llm is not None else False
                self._answerer = Answerer(llm, picker, cal, names, check=check, explain=explain)
            return self._answerer

    def _measured(self, llm: Any) -> tuple[Any, Any]:
        """(verdict calibration, answerability check) measured for ``llm``: small
        files read by the model's name, so they are known before the index loads."""
        from ruleslawyer.answerable import AnswerCheck
        from ruleslawyer.verdict import Calibration

        cal = self._calibration or (
            Calibration.for_model(llm.name) if llm is not None else Calibration()
        )
        return cal, AnswerCheck.for_model(llm.name) if llm is not None else None

    def _explains(self, llm: Any) -> bool:
        """Whether open questions get the model's explanation (as measured for
        the model, unless the settings say)."""
        from ruleslawyer.answer import explains

        return self.settings.explain if self.settings.explain is not None else explains(llm.name)

    def _scores(self, llm: Any) -> bool:
        """Whether answers score prompts (a verdict or the answerability check)."""
        cal, check = self._measured(llm)
        return bool(cal.enabled or (check is not None and check.enabled))

    def preload_llm(self, question: str | None = None) -> Callable[[], None] | None:
        """Start loading the LLM in a thread, beside the index and the embedder.

        llama.cpp loads in C with the GIL released, so on two cores its 0.4-0.5 s
        overlaps the embedder's and the word index's loading, and the first
        answer of a one-shot ``ask`` comes sooner. Given the question, only when
        answering it is likely to call the model (an open question, or any
        question when the model scores verdicts or answerability): a yes/no
        question is most often answered from its quotes alone and should not
        share the two cores with a load it never uses (one whose FAQ entry earns
        an explanation loads the model when it gets there, as before).

        Returns a function that waits for the load and raises what it failed
        with (None when nothing loads). Whoever does not wait loses nothing: the
        first real use of a model that failed to load loads again and says why.
        """
        from ruleslawyer.verdict import is_yes_no

        llm = self.llm()
        if llm is None:
            return None
        scoring = self._scores(llm)
        if not scoring and not self._explains(llm):
            return None  # the model would never be asked anything
        if question is not None and is_yes_no(question) and not scoring:
            return None

        failed: list[Exception] = []

        def load() -> None:
            try:
                llm.load(scoring=scoring)
            except Exception as err:  # for wait(); never out of the thread
                failed.append(err)

        thread = threading.Thread(target=load, name="rl-load-model")
        thread.start()

        def wait() -> None:
            thread.join()
            if failed:
                raise failed[0]

        return wait

    def check_question(self, question: str) -> None:
        """Refuse an empty or over-long question (``InputError``), loading nothing."""
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

        self.check_question(question)
        t0 = time.perf_counter()
        result = self.search(question, game=game)
        retrieve_ms = (time.perf_counter() - t0) * 1000
        answerer = self.answerer()
        opts = AnswerOptions(evidence_only=evidence_only, max_tokens=self.settings.max_tokens)
        return answerer.answer(
            question, result, options=opts, on_text=on_text, timings={"retrieve": retrieve_ms}
        )

    def warm_up(self, question: str | None = None) -> dict[str, float]:
        """Load the index, the embedding model and the LLM now; ms each took.

        Everything loads lazily on first use anyway; this is for a server
        that should be warm before its first visitor, and for measuring
        where a cold start goes (``ask --timings``). The LLM loads in a thread
        beside the rest (``preload_llm``; given the question, only if answering
        it may use the model), so "model" is the wait left after the rest.
        """
        import time

        self.check_llm()  # a bad model path or server fails before anything loads
        wait_for_model = self.preload_llm(question)
        took: dict[str, float] = {}
        t = time.perf_counter()
        self.index()
        took["index"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        self.embedder().embed(["warm up"])
        took["embedder"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        self.retriever()  # BM25 and name indexes, built on first use
        took["retriever"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        if wait_for_model is not None:
            wait_for_model()
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
