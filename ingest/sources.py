"""Which rulebooks make up the index, and which games they belong to.

Two folders hold rulebooks, each with a ``manifest.toml``: the shipped seeds
and the user's library in the data dir (validated copies of files added with
``ruleslawyer ingest PATH --game G`` or the page's upload), so the index can
always be rebuilt from these two folders alone. A manifest has

- ``[[rulebook]]`` entries: ``file``, ``game``, and optionally ``title``,
  ``edition``, ``format`` (text | pdf | markdown | html; default: detected)
  and ``[rulebook.titles]`` fixes for headings an extraction lost;
- ``[games.<slug>]`` tables: ``name``, ``edition``, and optionally
  ``aliases`` (other names players use) and ``cues`` (regexes of jargon only
  that game uses). Games are data: any slug is a game, and a game with no
  table is simply shown by its slug.

Trade-off: the library keeps the original bytes of binary formats (PDF,
HTML, which carry their own encoding) and UTF-8 text of the others (so a
cp1252 file given once with ``--encoding`` never needs it again).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ruleslawyer.errors import InputError, RulebookError
from ruleslawyer.records import GameInfo

_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")


@dataclass(frozen=True)
class Rulebook:
    path: Path
    game: str
    title: str = ""
    edition: str = ""
    title_fixes: dict[str, str] = field(default_factory=dict)
    origin: str = "seeds"  # seeds | library
    format: str = ""  # "" = detect from the name and the content
    # Where a library file was added from (an absolute path; "" for the seeds,
    # uploads and files added before it was kept): adding it again finds its
    # stored name by it, and `remove PATH` finds the file by it.
    source: str = ""

    @property
    def file(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Catalog:
    """Everything the manifests say: the rulebooks and the games' details."""

    rulebooks: tuple[Rulebook, ...] = ()
    games: dict[str, GameInfo] = field(default_factory=dict)

    def game(self, slug: str) -> GameInfo:
        return self.games.get(slug) or GameInfo(slug)

    def merged(self, other: Catalog) -> Catalog:
        """Both catalogs; a game's details from ``other`` fill in what this one lacks."""
        games = dict(self.games)
        for slug, info in other.games.items():
            mine = games.get(slug)
            games[slug] = (
                info
                if mine is None
                else replace(
                    mine,
                    name=mine.name or info.name,
                    edition=mine.edition or info.edition,
                    aliases=tuple(dict.fromkeys(mine.aliases + info.aliases)),
                    cues=mine.cues + info.cues,
                )
            )
        return Catalog(self.rulebooks + other.rulebooks, games)


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"})


def slugify(text: str) -> str:
    """``"Line of Sight"`` -> ``"line-of-sight"``: ASCII, lower case, hyphens.

    A typographic apostrophe counts as a typed one ("Officer’s Orders" and
    "Officer's Orders" are both ``officer-s-orders``): a word processor or a
    PDF curls what the Markdown or web page of the same book types straight,
    and a rule keeps its ID across them."""
    text = text.translate(_APOSTROPHES)
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def check_game(game: str, known: Iterable[GameInfo] = ()) -> str:
    """The slug a ``--game`` value names: a known game's slug or alias, or a new slug.

    A new game's slug must be lower-case letters, digits and hyphens; a name
    with spaces or slashes is refused with the slug to use instead.
    """
    raw = (game or "").strip()
    low = raw.lower()
    for info in known:
        names = {info.slug, *(a.lower() for a in info.aliases)}
        if info.name:
            names.add(info.name.lower())
        if low in names or slugify(raw) in {slugify(n) for n in names}:
            return info.slug
    if _SLUG.fullmatch(low):
        return low
    hint = slugify(raw)
    suggestion = (
        f"; use --game {hint} (and --game-name {raw!r} for how it is shown)" if hint else ""
    )
    raise InputError(
        f"{raw!r} is not a game name: use lower-case letters, digits and hyphens, "
        f"at most 40 characters{suggestion}"
    )


def read_manifest(folder: Path, origin: str) -> Catalog:
    path = folder / "manifest.toml"
    if not path.exists():
        return Catalog()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        # A manifest that exists but cannot be read (a folder of that name, no
        # permission) is the player's to mend, not a traceback.
        raise InputError(f"{path}: cannot read the manifest ({err.strerror or err})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: not a valid manifest ({err})") from None
    games: dict[str, GameInfo] = {}
    raw_games = data.get("games") or {}
    if not isinstance(raw_games, dict):
        raise InputError(f"{path}: [games] must be a table of [games.<slug>] tables")
    for slug, entry in raw_games.items():
        if not isinstance(entry, dict):
            raise InputError(f"{path}: [games.{slug}] must be a table")
        game = check_game(str(slug))
        aliases = _strings(entry, "aliases", path, f"games.{slug}")
        if any(len(a.strip()) < 2 for a in aliases):
            raise InputError(f"{path}: games.{slug}.aliases: an alias needs 2 or more characters")
        games[game] = GameInfo.from_dict(
            {
                "slug": game,
                "name": str(entry.get("name", "")),
                "edition": str(entry.get("edition", "")),
                "aliases": aliases,
                "cues": _strings(entry, "cues", path, f"games.{slug}"),
            }
        )
    known = list(games.values())
    books = []
    for i, entry in enumerate(data.get("rulebook", []), start=1):
        if not isinstance(entry, dict) or "file" not in entry or "game" not in entry:
            raise InputError(f"{path}: rulebook entry {i} needs 'file' and 'game'")
        name = str(entry["file"])
        if Path(name).name != name:
            raise InputError(f"{path}: rulebook entry {i}: file must be a plain file name")
        books.append(
            Rulebook(
                path=folder / name,
                game=check_game(str(entry["game"]), known),
                title=str(entry.get("title", "")),
                edition=str(entry.get("edition", "")),
                title_fixes=_titles(entry, path, i),
                origin=origin,
                format=str(entry.get("format", "")),
                source=str(entry.get("source", "")),
            )
        )
    return Catalog(tuple(books), games)


def _strings(entry: dict[str, Any], key: str, path: Path, where: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{path}: {where}.{key} must be a list of strings")
    return value


def _titles(entry: dict[str, Any], path: Path, n: int) -> dict[str, str]:
    value = entry.get("titles", {})
    if not isinstance(value, dict):
        raise InputError(f"{path}: rulebook entry {n}: titles must be a table")
    return {str(k): str(v) for k, v in value.items()}


def safe_name(name: str, extensions: Iterable[str] = (".txt",)) -> str:
    """A file name that cannot escape the library folder ('../../etc/passwd' -> 'passwd.txt').

    The extension is kept when it is one of ``extensions`` (the known
    formats'), so the library copy is read the same way; else ``.txt``.
    """
    base = Path(name.replace("\\", "/")).name
    base = re.sub(r"[^A-Za-z0-9._ -]", "_", base).strip(" .")
    if not base:
        raise InputError(f"{name!r} is not a usable file name")
    exts = tuple(e.lower() for e in extensions)
    return base if base.lower().endswith(exts) else base + ".txt"


def rulebook_files(paths: Iterable[Path], extensions: Iterable[str]) -> list[Path]:
    """``paths`` with each folder replaced by the rulebook files in it.

    A folder (a wiki export, a rulebook split into chapters) stands for every
    file under it whose extension a reader takes, in name order; hidden files
    and folders are skipped, and so are links to folders (``Path.rglob``
    does not follow them; links to files are followed). One file named twice
    (``book/a.md`` and ``book/``) is taken once. What each is stored as is
    ``library_names``'s to say.
    """
    known = tuple(e.lower() for e in extensions)
    out: list[Path] = []
    for path in paths:
        if not path.is_dir():
            out.append(path)
            continue
        found = sorted(
            f
            for f in path.rglob("*")
            if f.suffix.lower() in known
            and f.is_file()
            and not any(part.startswith(".") for part in f.relative_to(path).parts)
        )
        if not found:
            raise InputError(
                f"{path}: a folder with no rulebook files in it (looked for {', '.join(known)})"
            )
        out.extend(found)
    unique: dict[Path, Path] = {}
    for f in out:
        unique.setdefault(f.resolve(), f)
    return list(unique.values())


def source_of(path: Path | str) -> str:
    """What the library records as where a file was added from: its absolute
    path ("" for a path the UTF-8 manifest cannot hold, a folder named in an
    old archive's encoding: such a file is matched by its bytes instead)."""
    # absolute, not resolved: the place is the path the player gives ("current/"
    # linked to this release, then the next), not where a link points today
    where = os.path.normpath(os.path.abspath(Path(path).expanduser()))
    try:
        where.encode("utf-8")
    except UnicodeEncodeError:
        return ""
    return where


def _shared_tail(was: str, now: str) -> int:
    """How many of the two paths' last parts are the same ("1e/core/index.md"
    and "new/1e/core/index.md": 3)."""
    n = 0
    for a, b in zip(reversed(Path(was).parts), reversed(Path(now).parts), strict=False):
        if a != b:
            break
        n += 1
    return n


def _same_place(was: str, now: str) -> bool:
    """Is ``now`` where the file added from ``was`` is: the same path, or, that
    path being gone, the same name in a folder of the same name (moved)."""
    if not now:
        return False
    return was == now or (_shared_tail(was, now) >= 2 and not Path(was).exists())


def library_names(
    files: Sequence[tuple[Path, bytes]],
    held: Iterable[Rulebook],
    extensions: Iterable[str],
    game: str,
    *,
    by_place: bool = True,
) -> list[str]:
    """The name the library stores each of ``files`` (path, bytes as stored)
    under: the name citations show. ``held`` is every rulebook loaded (the
    seeds' names are never given to a library file). ``by_place=False`` (the
    page's uploads, whose folders are temporary) names no file by its folders
    and matches none by its place: a clash is ``check_replacements``'s.

    The library is one flat folder, so a name is the file's own name made
    safe (``safe_name``), but a file the library already holds keeps the name
    it was stored under, whatever else is added beside it, so that a docs
    folder added again after it grew replaces its files instead of adding
    second copies under new names (which would then be quoted beside the new
    text). A file is known as one the library holds when it comes from the
    same place; else, among ``game``'s files, by its bytes (the folder moved
    or renamed, or the file added before the library kept where files come
    from); else when one of them came from a place that is gone and had the
    same name in a folder of the same name (the folder moved, and the file was
    edited).

    A new file sharing its name with another file of this one addition (a
    docs site's ``core/index.md`` and ``combat/index.md``), or with a name
    kept or taken as above, is named by the folders above it, as few as
    tell it apart from those and from the library's other files:
    ``core-index.md``, ``combat-index.md``. Two files no folder tells apart
    are refused, and so are namesakes of a library file added before the
    library kept where files come from (which of them it was cannot be
    told). A plain name the library holds for a file from elsewhere (an
    expansion's ``rules.md`` beside the core book's) is left to
    ``check_replacements``, which refuses it unless it is meant to replace.
    """
    known = tuple(e.lower() for e in extensions)
    held = list(held)
    library = [b for b in held if b.origin == "library"]
    reserved = {b.file for b in held if b.origin != "library"}
    names: list[str | None] = [None] * len(files)
    claimed: set[str] = set()

    def claim(i: int, book: Rulebook | None) -> None:
        if book is not None and book.file not in claimed:
            names[i] = book.file
            claimed.add(book.file)

    sources = [source_of(f) if by_place else "" for f, _ in files]
    by_source = {b.source: b for b in library if b.source}
    for i in range(len(files)):
        claim(i, by_source.get(sources[i]) if sources[i] else None)
    mine = [b for b in library if b.game == game]
    stored_bytes: dict[str, bytes | None] = {}  # each library file read once, if at all

    def holds(book: Rulebook, data: bytes) -> bool:
        if book.file not in stored_bytes:
            try:
                stored_bytes[book.file] = book.path.read_bytes()
            except OSError:
                stored_bytes[book.file] = None
        return stored_bytes[book.file] == data

    for i, (_, data) in enumerate(files):
        if names[i] is None:
            claim(i, next((b for b in mine if b.file not in claimed and holds(b, data)), None))
    for i in range(len(files)):
        if names[i] is None and sources[i]:
            # moved: of the files whose place is gone, the one sharing the most
            # of this path's last parts (two editions laid out alike are told
            # apart by their folders' names), when one does
            moved = sorted(
                (
                    (_shared_tail(b.source, sources[i]), b.file, b)
                    for b in mine
                    if b.file not in claimed and b.source and _same_place(b.source, sources[i])
                ),
                reverse=True,
            )
            if moved and (len(moved) == 1 or moved[0][0] > moved[1][0]):
                claim(i, moved[0][2])
    plain = [safe_name(f.name, known) for f, _ in files]
    shared = Counter(plain)
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        if name is None:
            groups.setdefault(plain[i], []).append(i)
    unsourced = {b.file for b in mine if not b.source and b.file not in claimed}
    # another game's file of this name: no edition of this file, so a place name
    # (its --replace would take the other game's rules)
    others = (
        {b.file for b in library if b.game != game and b.file not in claimed} if by_place else set()
    )
    taken = reserved | {b.file for b in library}  # (every name claimed is a library file's)
    for stored, members in groups.items():
        if not by_place:
            names[members[0]] = stored  # the page refuses two uploads of one name
            continue
        if (
            shared[stored] == 1
            and stored not in claimed
            and stored not in reserved
            and stored not in others
        ):
            names[members[0]] = stored
            continue
        if stored in unsourced:
            raise InputError(
                f"{files[members[0]][0]}: the library's {stored} was added before it kept "
                "where each file comes from, so which of these files it is cannot be "
                f"told; remove it first (ruleslawyer remove {stored}) and add them again"
            )
        # the folders above each file, nearest first, the root left out
        parts = [Path(sources[i] or files[i][0].absolute()).parts[1:] for i in members]
        for depth in range(1, max(len(p) for p in parts)):
            tried = [safe_name("-".join(p[-depth - 1 :]), known) for p in parts]
            if len(set(tried)) == len(tried) and not taken & set(tried):
                for i, name in zip(members, tried, strict=True):
                    names[i] = name
                break
        else:
            clash = [str(files[i][0]) for i in members[:2]]
            if len(clash) == 1:
                clash.append(f"the library's {stored}")
            raise InputError(
                f"{clash[0]} and {clash[1]}: both would be stored as {stored}; the library "
                "keeps one file per name, so rename one"
            )
    stored_as: dict[str, Path] = {}
    for (f, _), name in zip(files, names, strict=True):
        assert name is not None
        if name in stored_as:  # a folder's name matching another's file name ("a-b.md")
            raise InputError(
                f"{stored_as[name]} and {f}: both would be stored as {name}; the library "
                "keeps one file per name, so rename one"
            )
        stored_as[name] = f
    return [n for n in names if n is not None]


def add_to_library(
    library: Path,
    name: str,
    data: bytes,
    game: str,
    *,
    title: str = "",
    format: str = "",
    game_info: GameInfo | None = None,
    extensions: Iterable[str] = (".txt",),
    source: str = "",
) -> Rulebook:
    """Store validated rulebook bytes in the library and record them in its manifest.

    Writes go to temp files renamed into place, so a crash leaves the library
    as it was. ``game_info`` records a new game's display name and edition.
    """
    library.mkdir(parents=True, exist_ok=True)
    fname = safe_name(name, extensions)
    target = library / fname
    _atomic_write(target, data)
    catalog = read_manifest(library, "library")
    before = next((b for b in catalog.rulebooks if b.file == fname), None)
    # an upload (no source) keeps where the CLI had added the file from
    source = source or (before.source if before is not None else "")
    book = Rulebook(
        target, game, title or Path(fname).stem, "", {}, "library", format, source=source
    )
    # a file added again keeps its place: the library's order is the book's
    # (`rules list`, `games`), and an unchanged file leaves the index as it is;
    # any second entry of it (a manifest edited by hand) goes
    at = next((i for i, b in enumerate(catalog.rulebooks) if b.file == fname), None)
    books = [b for b in catalog.rulebooks if b.file != fname]
    books.insert(len(books) if at is None else at, book)
    games = dict(catalog.games)
    if game_info is not None and (game_info.name or game_info.edition):
        old = games.get(game)
        games[game] = GameInfo(
            game,
            game_info.name or (old.name if old else ""),
            game_info.edition or (old.edition if old else ""),
            old.aliases if old else (),
            old.cues if old else (),
        )
    _atomic_write(library / "manifest.toml", _manifest_toml(books, games).encode("utf-8"))
    return book


def check_replacements(
    library: Path,
    incoming: Iterable[tuple[Path, str, bytes]],
    game: str,
    *,
    replace_existing: bool = False,
) -> list[str]:
    """Refuse to let a new file silently take the place of a different one.

    The library keeps one file per name (``safe_name``), so adding
    ``expansion/rules.md`` after ``core/rules.md`` would replace the core
    book, and adding a file another game holds would move it to ``game``:
    both lose a rulebook without a word, so both are refused unless
    ``replace_existing`` says that is meant. ``incoming`` is (path given, stored name,
    bytes). The same bytes for the same game is no change, and new bytes
    from the place the file was added from are its update. Returns one line
    per file updated or replaced, for the report.
    """
    held = {b.file: b for b in read_manifest(library, "library").rulebooks}
    notes: list[str] = []
    for path, stored, data in incoming:
        old = held.get(stored)
        if old is None:
            continue
        try:
            same = old.path.read_bytes() == data
        except OSError:
            same = False
        if same and old.game == game:
            continue
        if old.game == game and old.source and old.source == source_of(path):
            # the same file, added again from where it was, edited: an update
            notes.append(f"{stored}: changed since it was added, so its rules are read again")
            continue
        if (
            not replace_existing
            and old.game == game
            and old.source
            and _same_place(old.source, source_of(path))
        ):
            # its place is gone and this one sits as it did: moved, or another
            # book laid out alike; the player knows which
            raise InputError(
                f"{path}: the library's {stored} of {game} was added from {old.source}, "
                "which is gone; if this is that file moved and edited, add --replace to "
                "read it in its place; if it is another book, rename it to keep both"
            )
        what = "the same file" if same else f"a different {stored}"
        if not replace_existing:
            if old.game != game:
                raise InputError(
                    f"{path}: the library already holds {what} for game {old.game}; rename "
                    f"this file to keep both, or add --replace to move it to {game}"
                )
            raise InputError(
                f"{path}: the library already holds a different {stored} for {game}; "
                "rename this file to keep both, or add --replace to put it in the old "
                "one's place (the old one's rules go)"
            )
        notes.append(
            f"{stored}: replaces the earlier {stored} of {old.game}"
            if not same
            else f"{stored}: moved from {old.game} to {game}"
        )
    return notes


@contextlib.contextmanager
def restored_on_failure(library: Path, names: Iterable[str]) -> Iterator[None]:
    """Put the library back as it was if the block does not finish.

    An ingest writes the new files and the manifest first, then builds the
    index; a failed build, or a player's Ctrl-C while it embeds, must not
    leave a file in the library that the index never took (the next command
    would index it unasked). Any exception, KeyboardInterrupt included,
    restores the manifest and the named files (their old bytes, or none).
    """
    manifest = library / "manifest.toml"
    saved: dict[Path, bytes | None] = {}
    for path in [manifest, *(library / n for n in names)]:
        saved[path] = path.read_bytes() if path.is_file() else None
    try:
        yield
    except BaseException:
        for path, data in saved.items():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                _atomic_write(path, data)
        raise


def remove_from_library(library: Path, names: Iterable[str]) -> list[str]:
    """Drop ``names`` from the library: one manifest write, then the files go.

    The manifest is what is read, so a crash after it leaves only stray
    files, never a manifest naming files that are gone. Returns the names
    that were in the library.
    """
    gone = set(names)
    catalog = read_manifest(library, "library")
    keep = [b for b in catalog.rulebooks if b.file not in gone]
    removed = [b.file for b in catalog.rulebooks if b.file in gone]
    if removed:
        body = _manifest_toml(keep, catalog.games).encode("utf-8")
        _atomic_write(library / "manifest.toml", body)
        for name in removed:
            (library / name).unlink(missing_ok=True)
    return removed


def _manifest_toml(books: list[Rulebook], games: dict[str, GameInfo]) -> str:
    lines = ["# Rulebooks added with `ruleslawyer ingest PATH --game G` or the page.", ""]
    for slug, info in sorted(games.items()):
        lines += [f"[games.{_toml_str(slug)}]", f"name = {_toml_str(info.name)}"]
        lines += [f"edition = {_toml_str(info.edition)}"]
        if info.aliases:
            lines.append(f"aliases = [{', '.join(_toml_str(a) for a in info.aliases)}]")
        if info.cues:
            lines.append(f"cues = [{', '.join(_toml_str(c) for c in info.cues)}]")
        lines.append("")
    for b in books:
        lines += [
            "[[rulebook]]",
            f"file = {_toml_str(b.file)}",
            f"game = {_toml_str(b.game)}",
            f"edition = {_toml_str(b.edition)}",
            f"title = {_toml_str(b.title)}",
        ]
        if b.format:
            lines.append(f"format = {_toml_str(b.format)}")
        if b.source:
            lines.append(f"source = {_toml_str(b.source)}")
        lines.append("")
    return "\n".join(lines)


def _toml_str(s: str) -> str:
    """A TOML basic string: JSON's escaping is valid TOML, bar DEL, which TOML wants escaped.

    (A display name with a control character must not make the manifest unreadable.)
    """
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError as err:
        raise RulebookError(f"{path}: cannot read ({err.strerror})") from None
    return h.hexdigest()
