"""Hand-made headings: which lines of a word processor's document are headings by type.

A rulebook typed in Word or LibreOffice Writer without heading styles has its
headings made by hand: a short line set in bold or in larger type. The
Word and OpenDocument readers each measure their own markup (runs and their
properties, spans and their styles) and hand the paragraphs here as
``Line``s; this module decides, the same way for both, which are headings,
at what level, and which is the book's title line, so the two formats read
one document alike.

The rule (the PDF reader's, on a page's fonts): a heading is a short line
(at most ``HEADING_WORDS`` words, a letter in it, not ending as a sentence
or a lead-in does) with text after it, not a list item, set larger than the
text (``HEADING_SIZE_RATIO`` x the size most characters have) or all in bold
where bold is not most of the text. Levels rank the headings' looks: larger
first, then bold. The first line, if it is a heading and the only one in the
largest look, is the title: it names the book, and the readers take it out
of the text (as the Word reader does a line in Word's own "Title" style:
left in, it was a rule holding only the book's name). Fewer than two headings is no outline at all (the reader
then gives plain sections with a warning, as for any document without
headings).

Trade-off: a document with heading styles never reaches here, so a bold
warning line in a styled book stays text; a hand-made book's bold one-line
warning ("Do not skip this step") with no full stop becomes a heading.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

HEADING_SIZE_RATIO = 1.15  # a heading set this much larger (the PDF reader's too)
HEADING_WORDS = 12
MAX_LEVEL = 6  # HTML's h1-h6, which both readers convert to


@dataclass(frozen=True)
class Line:
    """One paragraph as it looks: the reader's own element, its text, its largest
    type size, whether all of it is bold, and whether it is a list item."""

    element: Any
    text: str
    size: float
    bold: bool
    listed: bool = False


@dataclass(frozen=True)
class Typeset:
    """The hand-made headings found, each with its level (1-6), and the title line."""

    headings: tuple[tuple[Any, int], ...] = ()
    title: str = ""
    title_line: Any = None  # the reader's element of the title line, to take out


def typeset_headings(lines: Sequence[Line], chars: Counter[float], bold_chars: int) -> Typeset:
    """The headings among ``lines`` (see the module docstring). ``chars`` counts the
    document's characters by type size, ``bold_chars`` those in bold."""
    if not chars or not lines:
        return Typeset()
    body_size = chars.most_common(1)[0][0]
    # in a book set mostly in bold, bold marks nothing
    bold_marks = bold_chars < 0.5 * sum(chars.values())
    heads = [
        line
        for n, line in enumerate(lines)
        if n + 1 < len(lines)  # a heading has text after it
        and 1 <= len(line.text.split()) <= HEADING_WORDS
        and any(c.isalpha() for c in line.text)
        and not line.text.endswith((".", ",", ";", ":"))
        and not line.listed
        and (
            line.size >= body_size * HEADING_SIZE_RATIO
            or (line.bold and bold_marks and line.size >= body_size)
        )
    ]
    title_line = None
    if heads and heads[0] is lines[0]:
        top = max(h.size for h in heads)
        if heads[0].size == top and sum(1 for h in heads if h.size == top) == 1:
            title_line = heads.pop(0)
    if len(heads) < 2:
        return Typeset()
    ranks = sorted({(h.size, h.bold) for h in heads}, key=lambda k: (-k[0], not k[1]))
    level = {look: min(n + 1, MAX_LEVEL) for n, look in enumerate(ranks)}
    return Typeset(
        tuple((h.element, level[(h.size, h.bold)]) for h in heads),
        title_line.text if title_line else "",
        title_line.element if title_line else None,
    )
