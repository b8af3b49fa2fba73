"""Stage 6 of the PDF reader: lines joined into paragraphs and list items.

A line that runs to its column's right margin goes on in the next; one
that stops short ends its block (``_short``), and so does space between
lines half a line more than the book's usual after a sentence's end
(``_leading``, ``_starts_block``), or text back at the margin after a list
item (``_leaves_list``). A list item's hanging indent goes on with it.
Words hyphenated at a line end are joined, also at a browser's printed
soft hyphen (``_join_lines``).

Trade-off: where a book neither indents nor spaces its paragraphs, two
paragraphs whose first ends at the margin read as one.
"""

from __future__ import annotations

import itertools
import re
import statistics

from ruleslawyer.ingest.formats.pdf.lines import (
    _LIST_ITEM,
    _SOFT_BREAKS,
    _ends_sentence,
    _Line,
    _Page,
    _short,
)

# A line opening with a rule number and a capitalised word ("100.2. To play",
# "702.19a Trample"): after a sentence's end, a numbered rule's first line
_NUMBERED_RULE = re.compile(r"^\d{1,3}(?:\.\d{1,3})+[a-z]?\.?\s+[A-Z\"“‘(]")


def _join_lines(lines: list[_Line]) -> str:
    """One paragraph's lines as running text, with line-end hyphenation repaired.

    A break PDFium marks as a hyphenation point joins the word ("mapsheet")
    unless the next part starts with a capital (a real compound:
    "Attribution-NonCommercial"); a hyphen at a line end PDFium does not
    mark (a browser's, say) keeps the hyphen and drops the space
    ("close-quarters"). Over a page break, where PDFium marks nothing, a
    hyphen before a word in lower case is read as one it marks.
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
        elif text.endswith("-") and ln.page != prev.page and ln.text[:1].islower():
            # a word hyphenated over a page break: PDFium marks a hyphenation
            # point only within a page, so it is read as one it marks
            text = text[:-1] + ln.text
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
    past_box: bool = False,
) -> bool:
    """Does ``ln`` start a new paragraph, list item or row after ``prev``?
    ``leading`` is the book's usual gap between lines (``_leading``): a word
    processor sets space between paragraphs, so a gap half a line more than
    that after a sentence's end is a new paragraph even where the line before
    ran to the margin. ``past_box``: a box the text runs around lies between
    the two (``columns._around``), its height no gap between paragraphs."""
    if ln.page != prev.page:
        return False  # decided at the page end: only sentence ends break there
    if ln.row or prev.row:
        return True  # a table row is a block of its own
    if ln.column != prev.column or past_box:
        # like a page end: a paragraph runs on only mid-sentence
        return _ends_sentence(prev.text, marks) or _short(prev, margins, right, ln)
    if _LIST_ITEM.match(ln.text) or ln.wide_gaps >= 2 or prev.wide_gaps >= 2:
        return True  # a list item, or a table row (cells set apart by wide gaps)
    if _NUMBERED_RULE.match(ln.text) and _ends_sentence(prev.text, marks):
        # "100.2. To play, each player...": comprehensive rules number each
        # paragraph, and set them closer than a half line apart (the one
        # before may end in a quotation: '...gets N Drowned counters."')
        return True
    if ln.label and _ends_sentence(prev.text, marks):
        # a glossary's or a stat block's next entry, its term in bold
        # ("Casualty: a model reduced to..."), set no further apart than the
        # lines of one paragraph: read on, it was the last entry's words
        return True
    if (
        prev.bold
        and not ln.bold
        and not prev.text.endswith((",", ";", "-"))
        and ln.size <= prev.size
    ):
        # a title set whole in bold over its text (a box's "Optional Rule:
        # Hidden Loyalties" over "Before setup, deal..."), which no heading
        # rule took for one: a line of its own, not the text's first words
        return True
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
    return _short(prev, margins, right, ln)


def _ends_paragraph(
    para: list[_Line],
    ln: _Line,
    margins: dict[int, float],
    right: dict[int, float],
    leading: float | None,
    marks: frozenset[str],
    past_box: bool = False,
) -> bool:
    """Does the paragraph ``para`` end before ``ln``: a new block starts
    (``_starts_block``), the text goes back to the margin after a list item
    (``_leaves_list``), or a list's next item opens the next column or page
    (``_next_item``)?"""
    return (
        _starts_block(para[-1], ln, margins, right, leading, marks, past_box)
        or _leaves_list(para, ln, margins)
        or _next_item(para, ln, past_box)
    )


def _next_item(para: list[_Line], ln: _Line, past_box: bool = False) -> bool:
    """Does ``ln``, atop the next column or page (or past a box the text runs
    around), open a list's next item after ``para``, an item or the line
    that introduces the list? A paragraph runs on over a column's end
    mid-sentence, and "• Rally one routed unit" was read into an item that
    ended with no stop ("...during the night phase"). Only after an item or
    a list's lead-in: a sentence going on at "6. Each hit" or "a. The result"
    is no list."""
    prev = para[-1]
    return (
        (ln.page != prev.page or ln.column != prev.column or past_box)
        and bool(_LIST_ITEM.match(ln.text))
        and (bool(_LIST_ITEM.match(para[0].text)) or prev.text.endswith(":"))
    )
