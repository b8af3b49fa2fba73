"""Read a rulebook file, refusing what is not a usable rulebook.

Every refusal is a ``RulebookError`` whose message names the file and says
what is wrong in one line; nothing here touches the index, so a bad file can
never damage what was ingested before.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path

from ruleslawyer.errors import RulebookError

# Share of control characters above which "text" is really binary.
_MAX_CONTROL_SHARE = 0.01
_ALLOWED_CONTROLS = {"\n", "\r", "\t", "\f"}


def check_path(path: Path) -> Path:
    """Resolve ``path`` to a regular file or raise a one-line RulebookError."""
    try:
        resolved = path.resolve(strict=True)
    except FileNotFoundError:
        raise RulebookError(f"{path}: no such file") from None
    except RuntimeError:  # symlink loop on older Pythons
        raise RulebookError(f"{path}: symlink loop") from None
    except OSError as err:
        if err.errno == 40:  # ELOOP
            raise RulebookError(f"{path}: symlink loop") from None
        raise RulebookError(f"{path}: cannot open ({err.strerror})") from None
    if resolved.is_dir():
        raise RulebookError(f"{path}: is a directory, not a rulebook text file")
    if not resolved.is_file():
        raise RulebookError(f"{path}: not a regular file")
    return resolved


def decode_rulebook(data: bytes, name: str, encoding: str | None = None) -> str:
    """Decode bytes as rulebook text, or say exactly why they are not."""
    if not data.strip():
        raise RulebookError(f"{name}: file is empty")
    if data.lstrip()[:5] == b"{\\rtf":
        # RTF is plain ASCII, so it would pass for text and be indexed as markup
        raise RulebookError(
            f"{name}: an RTF document, which ruleslawyer does not read; save it as Word "
            "(.docx), OpenDocument (.odt), PDF or plain text and add that"
        )
    wide = encoding and encoding.lower().replace("-", "").startswith(("utf16", "utf32"))
    if b"\x00" in data[:65536] and not wide:
        raise RulebookError(f"{name}: looks like a binary file, not text (it contains NUL bytes)")
    if encoding:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise RulebookError(f"{name}: unknown encoding {encoding!r}") from None
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as err:
            raise RulebookError(
                f"{name}: not valid {encoding} text (byte {err.start}); check --encoding"
            ) from None
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise RulebookError(
                f"{name}: not UTF-8 text (invalid byte at offset {err.start}); "
                "convert it to UTF-8 or pass --encoding (e.g. --encoding cp1252)"
            ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in _ALLOWED_CONTROLS)
    if controls > _MAX_CONTROL_SHARE * len(text):
        raise RulebookError(
            f"{name}: looks like a binary file, not text ({controls} control characters)"
        )
    if not any(ch.isalpha() for ch in text):
        raise RulebookError(f"{name}: holds no words to ingest")
    return text


def read_bytes(path: Path, *, max_bytes: int) -> bytes:
    """The bytes of one rulebook file, refusing a missing, odd or oversized one."""
    resolved = check_path(path)
    size = os.path.getsize(resolved)
    if size > max_bytes:
        raise RulebookError(
            f"{path}: {size:,} bytes is over the {max_bytes:,}-byte limit for one rulebook "
            "(split it, or raise RULESLAWYER_MAX_RULEBOOK_MB)"
        )
    try:
        data = resolved.read_bytes()
    except OSError as err:
        raise RulebookError(f"{path}: cannot read ({err.strerror})") from None
    if not data.strip():
        raise RulebookError(f"{path}: file is empty")
    return data


def read_rulebook(path: Path, *, max_bytes: int, encoding: str | None = None) -> str:
    """Read and decode one text rulebook file; see ``decode_rulebook`` for refusals."""
    return decode_rulebook(read_bytes(path, max_bytes=max_bytes), str(path), encoding)
