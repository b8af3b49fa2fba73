"""Which rulebooks make up the index: the shipped seeds plus the user's library.

Both are folders with a ``manifest.toml`` of ``[[rulebook]]`` entries
(``file``, ``game``, ``edition``, ``title``, optional ``[rulebook.titles]``
fixes for headings the extraction lost). The seeds folder ships with the
project; the library lives in the data dir and holds validated copies of
files added with ``ruleslawyer ingest PATH --game G`` or the UI upload, so
the index can always be rebuilt from these two folders alone.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ruleslawyer.errors import InputError, RulebookError
from ruleslawyer.records import GAMES


@dataclass(frozen=True)
class Rulebook:
    path: Path
    game: str
    title: str = ""
    edition: str = ""
    title_fixes: dict[str, str] = field(default_factory=dict)
    origin: str = "seeds"  # seeds | library

    @property
    def file(self) -> str:
        return self.path.name


def check_game(game: str) -> str:
    g = game.strip().lower()
    aliases = {
        "wh40k": "40k",
        "40000": "40k",
        "ageofsigmar": "aos",
        "sigmar": "aos",
        "wm": "warmachine",
    }
    g = aliases.get(g.replace(" ", "").replace("-", ""), g)
    if g not in GAMES:
        raise InputError(f"unknown game {game!r}: use one of {', '.join(GAMES)}")
    return g


def read_manifest(folder: Path, origin: str) -> list[Rulebook]:
    path = folder / "manifest.toml"
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: not a valid manifest ({err})") from None
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
                game=check_game(str(entry["game"])),
                title=str(entry.get("title", "")),
                edition=str(entry.get("edition", "")),
                title_fixes={str(k): str(v) for k, v in entry.get("titles", {}).items()},
                origin=origin,
            )
        )
    return books


def safe_name(name: str) -> str:
    """A file name that cannot escape the library folder ('../../etc/passwd' -> 'passwd')."""
    base = Path(name.replace("\\", "/")).name
    base = re.sub(r"[^A-Za-z0-9._ -]", "_", base).strip(" .")
    if not base:
        raise InputError(f"{name!r} is not a usable file name")
    return base if base.lower().endswith(".txt") else base + ".txt"


def add_to_library(library: Path, name: str, text: str, game: str, title: str = "") -> Rulebook:
    """Store validated rulebook text in the library and record it in its manifest.

    Writes go to temp files renamed into place, so a crash leaves the library
    as it was.
    """
    library.mkdir(parents=True, exist_ok=True)
    fname = safe_name(name)
    target = library / fname
    _atomic_write(target, text.encode("utf-8"))
    books = [b for b in read_manifest(library, "library") if b.file != fname]
    books.append(Rulebook(target, check_game(game), title or Path(fname).stem, "", {}, "library"))
    _atomic_write(library / "manifest.toml", _manifest_toml(books).encode("utf-8"))
    return books[-1]


def remove_from_library(library: Path, name: str) -> bool:
    books = read_manifest(library, "library")
    keep = [b for b in books if b.file != name]
    if len(keep) == len(books):
        return False
    _atomic_write(library / "manifest.toml", _manifest_toml(keep).encode("utf-8"))
    (library / name).unlink(missing_ok=True)
    return True


def _manifest_toml(books: list[Rulebook]) -> str:
    lines = ["# Rulebooks added with `ruleslawyer ingest PATH --game G` or the UI.", ""]
    for b in books:
        lines += [
            "[[rulebook]]",
            f"file = {_toml_str(b.file)}",
            f"game = {_toml_str(b.game)}",
            f"edition = {_toml_str(b.edition)}",
            f"title = {_toml_str(b.title)}",
            "",
        ]
    return "\n".join(lines)


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


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
