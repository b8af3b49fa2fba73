"""Rulebook file formats: one reader module (or package) per format, found by name.

Every module or subpackage here defines ``FORMAT = Format(...)``: the format's
name, the file extensions it claims, a ``sniff`` that recognises its content
whatever the file is called, and ``read(data, request) -> ParseResult``.
All readers produce the same rule units (``tests/test_formats_contract.py``
holds every one of them to that), so nothing downstream knows or cares which
format a rule came from. Adding a format is adding a module here (a package
when its reading has stages of its own, as ``pdf`` and ``html`` have);
nothing else changes.

How a file's format is chosen: ``--format`` (or the manifest's ``format``)
wins; otherwise the extension, unless the content says otherwise in a way
that cannot be a coincidence (a PDF signature, a whole HTML document);
otherwise (no known extension) sniffing, and plain text last. Markdown is
never a certainty from a glance: a ``.txt`` rulebook goes to the text
parsers, which hand it to the Markdown reader only when no text layout fits.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ruleslawyer.errors import InputError
from ruleslawyer.ingest.outline import Outline, build_units
from ruleslawyer.ingest.units import ParseResult


@dataclass(frozen=True)
class ReadRequest:
    """What a reader needs besides the bytes."""

    name: str  # the file name: shown in messages, recorded in every unit's source
    game: str
    title: str = ""  # the rulebook's title from the manifest
    title_fixes: dict[str, str] = field(default_factory=dict)
    encoding: str | None = None  # for text formats; None = UTF-8 (BOM allowed)

    def units(self, outline: Outline, parser: str) -> ParseResult:
        """The rule units of a structured reader's ``outline`` of this file."""
        return build_units(
            outline,
            file=self.name,
            game=self.game,
            parser=parser,
            title_fixes=self.title_fixes,
            title=self.title,
        )


@dataclass(frozen=True)
class Format:
    name: str
    extensions: tuple[str, ...]
    read: Callable[[bytes, ReadRequest], ParseResult]
    # True when the content alone proves the format (a PDF signature).
    sniff: Callable[[bytes], bool] = lambda head: False
    # Stored in the library as given (PDF, HTML carry their own encoding), or
    # decoded and stored as UTF-8 text.
    binary: bool = False
    # Sniffing order: the most specific signatures first; plain text last.
    priority: int = 50
    # A content match that overrides a misleading extension (only for
    # signatures that cannot be a coincidence).
    sniff_overrides_extension: bool = False
    # How a player knows the format ("PDF", "Word"); the name when empty.
    label: str = ""


@cache
def formats() -> tuple[Format, ...]:
    """Every format module in this package, in sniffing order."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        fmt = getattr(module, "FORMAT", None)
        if isinstance(fmt, Format):
            found.append(fmt)
    return tuple(sorted(found, key=lambda f: (f.priority, f.name)))


def names() -> list[str]:
    """The formats' names, read from their modules' names (a reader module is
    named as its format) without importing the readers: every command's
    ``--format`` choices need them, and importing every reader to list them
    cost each ``ask`` about 0.1 s."""
    return sorted(info.name for info in pkgutil.iter_modules(__path__))


def extensions() -> list[str]:
    return [e for f in formats() for e in f.extensions]


def by_name(name: str) -> Format:
    for f in formats():
        if f.name == name.strip().lower():
            return f
    raise InputError(f"unknown format {name!r}: use one of {', '.join(names())}")


def detect(file_name: str, data: bytes, override: str | None = None) -> Format:
    """The format to read ``data`` (from a file called ``file_name``) with."""
    if override and override != "auto":
        return by_name(override)
    head = data[:4096]
    ext = Path(file_name).suffix.lower()
    claimed = next((f for f in formats() if ext in f.extensions), None)
    sniffed = next((f for f in formats() if f.sniff(head)), None)
    if claimed is None:
        return sniffed or by_name("text")
    if sniffed is not None and sniffed is not claimed and sniffed.sniff_overrides_extension:
        return sniffed
    return claimed
