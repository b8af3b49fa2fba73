"""Undo the typographic damage PDF and wiki extraction leaves in rule text.

Two views of the same text exist on purpose: the original (what we quote, so
a quote is always a verbatim span a player can find in their book) and a
normalised view (what we search and compare). ``normalize`` maps one to the
other; ``normalize_with_offsets`` also says where each normalised character
came from, so a match found in normalised text maps back to an exact span of
the original.
"""

from __future__ import annotations

import re
import unicodedata

# Characters PDFs use for hyphens, quotes and spaces, mapped to plain ASCII.
_CHAR_MAP = {
    "\u2010": "-",  # hyphen
    "\u2011": "-",  # non-breaking hyphen (all over the 40k extract)
    "\u2012": "-",
    "\u2013": "-",  # en dash
    "\u2014": "-",  # em dash
    "\u2212": "-",  # minus
    "\u00ad": "",  # soft hyphen
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u2032": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u2033": '"',
    "\u00a0": " ",
    "\u2009": " ",
    "\u202f": " ",
    "\u2044": "/",  # fraction slash: "1⁄2"
    "\u25aa": "-",  # ▪ bullet
    "\u2022": "-",  # • bullet
    "\u25ba": "",  # ► navigation arrow
}
_TRANSLATE = str.maketrans(_CHAR_MAP)
_SPACE_RE = re.compile(r"\s+")


def normalize_char(ch: str) -> str:
    mapped = ch.translate(_TRANSLATE)
    if mapped and ord(mapped[0]) > 127:
        mapped = unicodedata.normalize("NFKC", mapped)
    return mapped


def normalize(text: str) -> str:
    """Plain-ASCII punctuation, single spaces, stripped: for search and matching."""
    out = unicodedata.normalize("NFKC", text.translate(_TRANSLATE))
    return _SPACE_RE.sub(" ", out).strip()


def normalize_for_match(text: str) -> str:
    """``normalize`` plus lower case: compare quotes regardless of case."""
    return normalize(text).lower()


def normalize_with_offsets(text: str) -> tuple[str, list[int]]:
    """Normalise (case kept) and return, for each output char, its index in ``text``.

    Whitespace runs collapse to one space; leading/trailing space is dropped.
    """
    out: list[str] = []
    offsets: list[int] = []
    pending_space = -1
    for i, ch in enumerate(text):
        mapped = normalize_char(ch)
        for m in mapped:
            if m.isspace():
                if out and pending_space < 0:
                    pending_space = i
                continue
            if pending_space >= 0:
                out.append(" ")
                offsets.append(pending_space)
                pending_space = -1
            out.append(m)
            offsets.append(i)
    return "".join(out), offsets


def find_span(haystack: str, needle: str) -> tuple[int, int] | None:
    """Find ``needle`` in ``haystack`` ignoring case, quote/hyphen style and spacing.

    Returns the (start, end) span in the original ``haystack``, so the caller
    can quote ``haystack[start:end]`` verbatim.
    """
    norm_needle = normalize(needle).lower()
    if not norm_needle:
        return None
    norm_hay, offsets = normalize_with_offsets(haystack)
    pos = norm_hay.lower().find(norm_needle)
    if pos < 0:
        return None
    start = offsets[pos]
    end = offsets[pos + len(norm_needle) - 1] + 1
    return start, end
