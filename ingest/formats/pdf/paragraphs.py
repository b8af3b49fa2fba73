"""Stage 6 of the PDF reader: lines joined into paragraphs and list items.

A line that runs to its column's right margin goes on in the next; one
that stops short ends its block (``_short``), and so does space between
lines half a line more than the book's usual after a sentence's end
(``_leading``, ``_starts_block``), or text back at the margin after a list
item (``_leaves_list``). A list item's hanging indent goes on with it.
Words hyphenated at a line end are joined, also at a browser's printed
soft hyphen (``_join_lines``). A printed web page's menu label over its
links is known as one (``_is_menu``).

Trade-off: where a book neither indents nor spaces its paragraphs, two
paragraphs whose first ends at the margin read as one.
"""

from __future__ import annotations

import itertools
import statistics

from ruleslawyer.ingest.formats.pdf.lines import (
    _LIST_ITEM,
    _SENTENCE_ON,
    _SOFT_BREAKS,
    _ends_sentence,
    _Line,
    _Page,
    _short,
    _style,
)
from ruleslawyer.ingest.typeset import HEADING_SIZE_RATIO


def _wraps(head: _Line, ln: _Line, lines: list[_Line]) -> bool:
    """Is ``ln`` the next line of heading ``head``: the same style, right
    under it in the same column, no farther than a line's spacing, after a
    first line that nearly fills the column (it wrapped because it was full;
    "Movement" over "Running" is an empty section and the next one), or
    whose next word would not have fitted on it?"""
    # the measure: the longest line that starts where the heading does (on a
    # page whose columns were not told apart, the page's right edge is too
    # far; on a page of short paragraphs, most lines stop short of it)
    # (not the heading's own style: a centred or indented heading has only
    # itself there, and always looked full)
    edge = max((o.x1 for o in lines if o.column == head.column and abs(o.x0 - head.x0) <= 3
                and _style(o) != _style(head)), default=0.0)  # fmt: skip
    if not edge:
        return False
    width = max(edge - head.x0, 1.0)
    # the next line's first word would not have fitted after the first line
    word = (ln.words[0][1] - ln.words[0][0]) if ln.words else width
    full = head.x1 >= edge - 0.25 * width or head.x1 + 0.25 * head.size + word > edge + 2
    return (
        full
        and ln.page == head.page
        and ln.column == head.column
        and _style(ln) == _style(head)
        # a line's own spacing, top to top (glyph boxes vary with descenders),
        # not a heading's margin
        and 0 < ln.top - head.top <= 1.45 * max(head.size, 1.0)
        and abs(ln.x0 - head.x0) <= 2 * max(head.size, 1.0)
    )


def _runs_into(
    prev: _Line, ln: _Line, body: float, margins: dict[int, float], right: dict[int, float]
) -> bool:
    """Does a line that is a heading only by its dotted number, and goes on as
    a sentence or ends as one ("3.2 Charging. It may not shoot", "5.4 Morale
    Checks and 5.5 Panic."), carry on the sentence of the line before it,
    which runs to the margin without ending ("..., see rule")? A
    cross-reference wrapped to the start of a line, not a section. A bare
    "3.2 Charging" is a heading wherever it stands."""
    by_number_only = ln.size < body * HEADING_SIZE_RATIO and not (ln.bold and not prev.bold)
    return (
        by_number_only
        and bool(_SENTENCE_ON.search(ln.text) or ln.text.endswith((".", ")", ";", ",", ":")))
        and not prev.row
        and prev.page == ln.page
        and prev.column == ln.column
        and _style(prev) == _style(ln)
        # a sentence ends at its stop, also inside a closing quote or bracket
        and not prev.text.rstrip("\u201d\u2019\"')]").endswith((".", ":", "!", "?"))
        and not prev.text.endswith(")")
        and not _short(prev, margins, right)
        and ln.top - prev.bottom <= 0.6 * max(prev.size, 1.0)
    )


def _is_menu(
    ln: _Line,
    before: _Line | None,
    after: _Line | None,
    margins: dict[int, float],
    right: dict[int, float],
) -> bool:
    """A line all in links, as a block of its own, is a menu, a link bar
    ("[Last Section][Home][Next Section]") or a heading's "[Edit]" link, which
    a printed web page keeps: dropped. Not one that runs on from the text
    ``before`` it or into the text ``after`` it: a cross-reference wrapped
    onto a line of its own ("(6.3).") is part of its sentence; nor one that
    ends a sentence (a sentence made one link)."""
    if not ln.linked or ln.row or ln.text.endswith((".", "!", "?")):
        return False
    runs_on = before is not None and not _starts_block(before, ln, margins, right)
    runs_into = (
        after is not None and not after.linked and not _starts_block(ln, after, margins, right)
    )
    return not runs_on and not runs_into


def _menu_label(label: _Line, link: _Line) -> bool:
    """Is ``label`` the title of the menu ``link`` opens: a line of a few
    words, no link and no sentence, set right above it at the same left
    edge ("Contents [hide]" over a printed wiki's contents box, "Tools" over
    its sidebar links)?"""
    return (
        label.page == link.page
        and label.column == link.column
        and not label.linked
        and not label.row
        and len(label.text.split()) <= 3
        and not label.text.endswith((".", "!", "?", ",", ";"))
        and abs(label.x0 - link.x0) <= label.size
        and 0 <= link.top - label.bottom <= 2 * label.size
    )


def _join_lines(lines: list[_Line]) -> str:
    """One paragraph's lines as running text, with line-end hyphenation repaired.

    A break PDFium marks as a hyphenation point joins the word ("mapsheet")
    unless the next part starts with a capital (a real compound:
    "Attribution-NonCommercial"); a printed hyphen at a line end keeps the
    hyphen and drops the space ("close-quarters").
    """
    text = ""
    for prev, ln in zip([None, *lines], lines, strict=False):
        if prev is None:
            text = ln.text
        elif prev.hyphen:
            text += ln.text if ln.text[:1].islower() else "-" + ln.text
        elif text.endswith(_SOFT_BREAKS):
            # a browser prints a soft hyphen's break as U+2010, which PDFium
            # does not mark: a hyphenation point like its own
            text = text[:-1] + (ln.text if ln.text[:1].islower() else "-" + ln.text)
        elif text.endswith("-") and ln.text[:1].isalpha():
            text += ln.text
        else:
            text += " " + ln.text
    return text + ("-" if lines[-1].hyphen else "")


def _leaves_list(para: list[_Line], ln: _Line, margins: dict[int, float]) -> bool:
    """Does ``ln`` go back to the margin after a list item set in from it
    ("• Cinderhounds never buy gear." / "Unspent Marks are lost.")? The text
    after a list is a paragraph of its own, even where the item's last line
    runs nearly to the right margin."""
    margin = margins.get(ln.column, ln.x0)
    return (
        bool(_LIST_ITEM.match(para[0].text))
        # the item ended ("1. Units in base contact ... for each" with its next
        # line back at the margin is a numbered paragraph's first-line indent)
        and para[-1].text.endswith((".", "!", "?", ":", ";"))
        and ln.page == para[-1].page
        and ln.column == para[-1].column
        and para[-1].x0 > margin + 6
        and ln.x0 <= margin + 6
    )


def _leading(pages: list[_Page]) -> float | None:
    """The document's usual space between two lines of one paragraph: the median
    gap between consecutive lines of one column (gaps under a line's height:
    not those between blocks); None with too few lines to tell. Over the
    whole book: on a page of one-line entries (a glossary) most gaps are
    between paragraphs."""
    gaps = [
        b.top - a.bottom
        for page in pages
        for a, b in itertools.pairwise(page.lines)
        if a.column == b.column and not (a.row or b.row) and 0 <= b.top - a.bottom <= a.size
    ]
    return statistics.median(gaps) if len(gaps) >= 5 else None


def _starts_block(
    prev: _Line,
    ln: _Line,
    margins: dict[int, float],
    right: dict[int, float],
    leading: float | None = None,
    marks: frozenset[str] = frozenset(),
) -> bool:
    """Does ``ln`` start a new paragraph, list item or row after ``prev``?
    ``leading`` is the book's usual gap between lines (``_leading``): a word
    processor sets space between paragraphs, so a gap half a line more than
    that after a sentence's end is a new paragraph even where the line before
    ran to the margin."""
    if ln.page != prev.page:
        return False  # decided at the page end: only sentence ends break there
    if ln.row or prev.row:
        return True  # a table row is a block of its own
    if ln.column != prev.column:  # like a page end: a paragraph runs on only mid-sentence
        return _ends_sentence(prev.text, marks) or _short(prev, margins, right)
    if _LIST_ITEM.match(ln.text) or ln.wide_gaps >= 2 or prev.wide_gaps >= 2:
        return True  # a list item, or a table row (cells set apart by wide gaps)
    margin = margins.get(ln.column, ln.x0)
    hanging = (  # a list item's next line, set under its text, not its marker
        bool(_LIST_ITEM.match(prev.text))
        and len(prev.words) > 1
        and abs(ln.x0 - prev.words[1][0]) <= 3
        and not prev.text.endswith((".", "!", "?", ":"))
    )
    if ln.x0 > margin + 6 and prev.x0 <= margin + 6 and not hanging:
        return True  # an indented first line
    gap = ln.top - prev.bottom
    if gap > max(prev.bottom - prev.top, 1.0) * 1.2:
        return True
    if (
        leading is not None
        and _ends_sentence(prev.text, marks)
        and gap > leading + 0.5 * max(ln.size, prev.size)
    ):
        return True  # (not mid-sentence: a line set lower by an icon in it, a section set wider)
    return _short(prev, margins, right)
