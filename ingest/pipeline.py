"""Build the index from rulebooks: read -> parse -> embed -> store, with a report.

Everything that can fail on bad input (reading, decoding, parsing) happens
before anything is written, and the write itself is atomic (``store``), so a
bad file in the batch leaves the live index exactly as it was.

Re-ingesting is cheap: when the files, fixes, embedder and format are
unchanged the index is left alone without loading the embedding model; when
only some files changed, vectors of unchanged chunks are reused.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ruleslawyer.errors import IndexCorruptError, RulebookError
from ruleslawyer.ingest import formats
from ruleslawyer.ingest.embed import Embedder
from ruleslawyer.ingest.reader import read_bytes
from ruleslawyer.ingest.sources import Rulebook, file_sha256
from ruleslawyer.ingest.store import FORMAT_VERSION, IndexStore
from ruleslawyer.ingest.units import ParseResult
from ruleslawyer.records import GameInfo, RuleUnit

_SENTENCE = re.compile(r"(?<=[.!?:])\s+(?=[A-Z\[(\"'])")
CHUNK_CHARS = 600


@dataclass
class FileReport:
    file: str
    game: str
    parser: str
    units: int
    titles_printed: int
    titles_inferred: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    furniture_chars: int = 0
    furniture: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    format: str = "text"
    pages: int = 0
    dropped: dict[str, int] = field(default_factory=dict)  # reason -> lines/elements
    origin: str = "seeds"


@dataclass
class IngestReport:
    files: list[FileReport] = field(default_factory=list)
    units_by_game: dict[str, int] = field(default_factory=dict)
    up_to_date: bool = False
    reused_vectors: int = 0
    embedded_chunks: int = 0
    seconds: float = 0.0
    index_path: str = ""
    warnings: list[str] = field(default_factory=list)
    # library files this ingest put in another's place (``ingest --replace``)
    replaced: list[str] = field(default_factory=list)
    # the files this ingest added, as the library names them (none: a rebuild)
    added: list[str] = field(default_factory=list)

    @property
    def units(self) -> int:
        return sum(self.units_by_game.values())

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        d = asdict(self)
        d["units"] = self.units
        return d


def chunk_texts(unit: RuleUnit) -> list[str]:
    """What gets embedded for a unit, each piece headed by its title and ID.

    A short unit is one piece. A long one is sentence windows of about
    ``CHUNK_CHARS`` with one sentence of overlap, and no whole-unit piece: the
    windows already cover it, a 1,000-character piece blurs one relevant
    sentence into the rest, and leaving it out embeds a fifth less text (on
    the fit questions, recall@5 0.973 -> 0.982).
    """
    text = unit.search_text or unit.text
    if unit.slug_id:
        # "Resolving Fire (Combat)": the section it sits in tells two "Movement"s
        # apart; the full slug path would repeat every title in every window.
        section = unit.parent.rsplit(" > ", 1)[-1]
        head = f"{unit.title} ({section})" if section else unit.title
    else:
        head = f"{unit.title} ({unit.rule_id})" if unit.title else unit.rule_id
    if len(text) <= CHUNK_CHARS:
        return [f"{head}: {text}"]
    chunks: list[str] = []
    window: list[str] = []
    for sentence in _SENTENCE.split(text):
        if window and len(" ".join(window)) + len(sentence) > CHUNK_CHARS:
            chunks.append(f"{head}: {' '.join(window)}")
            window = window[-1:]  # one sentence of overlap keeps context
        window.append(sentence)
    if window and (len(window) > 1 or not chunks):
        chunks.append(f"{head}: {' '.join(window)}")
    return chunks


_DANGLING = re.compile(r"([A-Za-z\u2011\- ]{3,80}?)\s*\($")


def link_dangling_refs(units: list[RuleUnit]) -> list[RuleUnit]:
    """Resolve references the PDF cut off: "...can shoot using assault shooting (".

    The words before a dangling "(" usually name the rule referred to; when
    their tail equals another unit's title in the same game, that unit's ID
    is added to ``refs``.
    """
    titles = {(u.game, u.title.lower().replace("\u2011", "-")): u.rule_id for u in units if u.title}
    out = []
    for u in units:
        m = _DANGLING.search(u.text)
        if m:
            words = m.group(1).lower().replace("\u2011", "-").split()
            for n in range(min(4, len(words)), 0, -1):
                target = titles.get((u.game, " ".join(words[-n:])))
                if target and target != u.rule_id and target not in u.refs:
                    u = replace(u, refs=(*u.refs, target))
                    break
        out.append(u)
    return out


# The libraries whose output is the units' text: the PDF, HTML and Markdown readers'.
READER_LIBRARIES = ("pypdfium2", "beautifulsoup4", "lxml", "markdown-it-py")


@functools.cache
def readers_fingerprint() -> str:
    """A hash of what turns a rulebook into units: the ingest code itself (the
    readers, parsers and chunking) and the versions of the libraries the
    readers rest on.

    The index records it, so a ruleslawyer whose readers changed (an upgrade,
    a fix in a checkout, a new pypdfium2) reads the rulebooks again on the
    next ``ingest`` instead of keeping units the old readers made. Hashing the
    source, not a version number someone must remember to bump, makes that
    automatic; the vectors of unchanged chunks are reused, so the re-read
    costs little.
    """
    from importlib import metadata

    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    for library in READER_LIBRARIES:
        try:
            digest.update(f"{library}=={metadata.version(library)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library} missing".encode())
    return digest.hexdigest()[:16]


def _fingerprint(books: list[Rulebook]) -> list[dict[str, Any]]:
    return [
        {
            "file": b.file,
            "path": str(b.path),
            "origin": b.origin,
            "game": b.game,
            "title": b.title,
            "edition": b.edition,
            "format": b.format,
            "sha256": file_sha256(b.path),
            "fixes": hashlib.sha1(json.dumps(b.title_fixes, sort_keys=True).encode()).hexdigest(),
        }
        for b in books
    ]


def parse_file(
    name: str,
    data: bytes,
    *,
    game: str,
    title: str = "",
    title_fixes: dict[str, str] | None = None,
    format: str | None = None,
    encoding: str | None = None,
) -> ParseResult:
    """Rule units from one file's bytes, read by its format's reader; raises RulebookError."""
    fmt = formats.detect(name, data, format)
    request = formats.ReadRequest(name, game, title, title_fixes or {}, encoding)
    try:
        parsed = fmt.read(data, request)
    except RulebookError:
        raise
    except (RecursionError, MemoryError, ValueError, OSError, RuntimeError) as err:
        # A reader library choking on a hostile file is a bad file, not a crash.
        reason = " ".join(str(err).split())[:120] or type(err).__name__
        raise RulebookError(f"{name}: cannot be read as {fmt.name} ({reason})") from None
    if not parsed.units:
        raise RulebookError(f"{name}: no rule text found in this {fmt.name} file")
    parsed.parser = parsed.parser or fmt.name
    parsed.format = parsed.format or fmt.name
    return parsed


def read_book(book: Rulebook, *, max_bytes: int, encoding: str | None = None) -> ParseResult:
    """Parse one rulebook of the catalog; raises RulebookError."""
    return parse_file(
        book.file,
        read_bytes(book.path, max_bytes=max_bytes),
        game=book.game,
        title=book.title,
        title_fixes=book.title_fixes,
        format=book.format or None,
        encoding=encoding,
    )


def _game_tables(books: list[Rulebook], games: dict[str, GameInfo]) -> dict[str, Any]:
    """What the index records of each game it holds: name, edition, detection help."""
    present = dict.fromkeys(b.game for b in books)
    out = {}
    for slug in present:
        info = games.get(slug) or GameInfo(slug)
        edition = info.edition or next(
            (b.edition for b in books if b.game == slug and b.edition), ""
        )
        out[slug] = {**info.to_dict(), "edition": edition}
    return out


def build_index(
    books: list[Rulebook],
    store: IndexStore,
    embedder: Embedder,
    *,
    max_bytes: int,
    games: dict[str, GameInfo] | None = None,
    encoding: str | None = None,
    force: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> IngestReport:
    """Ingest ``books`` into ``store``. Raises RulebookError before writing anything.

    ``embedder`` loads its model only when it embeds, so an up-to-date index
    never pays for it.
    """
    t0 = time.perf_counter()
    report = IngestReport()
    if not books:
        raise RulebookError("no rulebooks to ingest (the seeds manifest and the library are empty)")
    embedder_name = embedder.name
    sources = _fingerprint(books)
    game_tables = _game_tables(books, games or {})
    try:
        old_manifest = store.read_manifest()
    except IndexCorruptError:
        old_manifest = None
    if (
        not force
        and old_manifest
        and old_manifest.get("format_version") == FORMAT_VERSION
        and old_manifest.get("embedder") == embedder_name
        and old_manifest.get("readers") == readers_fingerprint()
        and old_manifest.get("sources") == sources
        and old_manifest.get("games") == game_tables
    ):
        report.up_to_date = True
        report.units_by_game = dict(old_manifest.get("units_by_game", {}))
        report.files = [FileReport(**f) for f in old_manifest.get("report", [])]
        report.index_path = str(store.current_dir())
        report.seconds = time.perf_counter() - t0
        return report

    units: list[RuleUnit] = []
    keys: dict[tuple[str, str], int] = {}
    for n, book in enumerate(books, start=1):
        if progress:
            progress("reading", n, len(books))
        parsed = read_book(book, max_bytes=max_bytes, encoding=encoding)
        fr = FileReport(
            file=book.file,
            game=book.game,
            parser=parsed.parser,
            units=len(parsed.units),
            titles_printed=sum(1 for u in parsed.units if u.title_source in ("printed", "heading")),
            titles_inferred=[
                f"{u.rule_id} -> {u.title} ({u.title_source})"
                for u in parsed.units
                if u.title_inferred and u.title_source != "first-words"
            ],
            merged=list(parsed.merged),
            furniture_chars=parsed.furniture_chars,
            furniture=sorted({why for _, _, why in parsed.furniture}),
            warnings=list(parsed.warnings),
            format=parsed.format,
            pages=parsed.pages,
            dropped=dict(parsed.dropped),
            origin=book.origin,
        )
        for unit in parsed.units:
            if unit.key in keys:
                first = units[keys[unit.key]]
                if first.search_text == unit.search_text:
                    units[keys[unit.key]] = replace(first, merged=first.merged + 1)
                    fr.merged.append(unit.rule_id)
                    continue
                renamed = f"{unit.rule_id} ({book.path.stem})"
                fr.warnings.append(
                    f"{book.file}: rule {unit.rule_id} already exists in {unit.game}; kept as {renamed!r}"
                )
                unit = replace(unit, rule_id=renamed)
            keys[unit.key] = len(units)
            units.append(unit)
        report.files.append(fr)

    units = link_dangling_refs(units)

    # Vectors: reuse rows whose embedded text is unchanged.
    texts: list[str] = []
    chunk_unit: list[int] = []
    for i, unit in enumerate(units):
        for chunk in chunk_texts(unit):
            texts.append(chunk)
            chunk_unit.append(i)
    hashes = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
    reuse: dict[str, np.ndarray] = {}
    if old_manifest and old_manifest.get("embedder") == embedder_name:
        try:
            old = store.load(embedder_name, embedder.dim)
            vecs = old.vectors()
            reuse = {h: vecs[row] for row, h in enumerate(old.chunk_text_hash) if row < len(vecs)}
        except IndexCorruptError:
            reuse = {}
    todo = [i for i, h in enumerate(hashes) if h not in reuse]
    vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for i, h in enumerate(hashes):
        if h in reuse:
            vectors[i] = reuse[h]
    if todo:
        done = 0

        def tick(n: int) -> None:
            nonlocal done
            done += n
            if progress:
                progress("embedding", done, len(todo))

        new = embedder.embed([texts[i] for i in todo], progress=tick)
        vectors[todo] = new
    report.reused_vectors = len(texts) - len(todo)
    report.embedded_chunks = len(todo)

    by_game = Counter(u.game for u in units)
    report.units_by_game = dict(sorted(by_game.items()))
    manifest = {
        "embedder": embedder_name,
        "dim": embedder.dim,
        "readers": readers_fingerprint(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "sources": sources,
        "units_by_game": report.units_by_game,
        "games": game_tables,
        "report": [fr.__dict__ for fr in report.files],
    }
    path = store.write(units, vectors, chunk_unit, hashes, manifest)
    report.index_path = str(path)
    report.seconds = time.perf_counter() - t0
    return report
