"""Stage 7 of the PDF reader: footnotes and endnotes go with the text citing them.

Notes set under a page's text in a smaller size, each opening with its
mark, go after the paragraph that cites them as "[1] text", the mark in
the paragraph written "[1]" as the other readers write it (``_footnotes``,
``_with_notes``); endnotes gathered on a page of their own go after the
first paragraph citing each (``_endnotes``). A mark cites its note set
after a word's closing punctuation, or raised against a word or a number
(``RAISED_MARK``); a raised mark no note claims is read as printed: a
superscript after a number ("10\u00b3"), a plain digit after a letter
("x2", ``_unclaimed_marks``).

Trade-off: a mark must be cited more often than the book's footnotes use
it before a page is taken for endnotes, so a small-print numbered list
stays text.
"""

from __future__ import annotations

import re
from collections import Counter

from ruleslawyer.ingest.formats import html
from ruleslawyer.ingest.formats.pdf.lines import (
    _PAGE_COUNTER,
    _PAGE_NUMBER,
    RAISED_MARK,
    _Line,
    _Page,
)
from ruleslawyer.ingest.outline import Block
from ruleslawyer.ingest.typeset import HEADING_SIZE_RATIO

# a note's mark: a number, a Roman numeral or a symbol, then its text
_NOTE_MARK = re.compile(r"^(\d{1,3}|[ivx]{1,5}|[*\u2020\u2021\u00a7])\.?\s+(?=\S)")

_RAISED_AFTER_DIGIT = re.compile(rf"(?<=\d){RAISED_MARK}(\d+)")
_SUPERSCRIPT = str.maketrans(
    "0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)


def _unclaimed_marks(text: str) -> str:
    """``text`` with the raised marks no note claimed read as printed: after a
    letter as a plain digit ("x2 + 3"), after a number as a superscript
    ("3\u00b2 squares"), which does not run it into the number ("32")."""
    text = _RAISED_AFTER_DIGIT.sub(lambda m: m.group(1).translate(_SUPERSCRIPT), text)
    return text.replace(RAISED_MARK, "")


def _cites(mark: str, *, after_number: bool = True) -> re.Pattern[str]:
    """A footnote's mark as text cites it: set after a word's closing
    punctuation ("used.1", "victory,ii"), or raised against a word of two
    letters or more (``RAISED_MARK``: "hand1 of"; after one letter it is an
    exponent, "x2 + 3"), not inside a number or a word ("D6", "x1", "2.1").
    With ``after_number``, raised against a number too ("a range of 24 1
    inches"), which may be an exponent ("10 2 squares"): the weaker reading,
    tried after the others."""
    mark = re.escape(mark)
    raised = r"(?:(?<=[^\W\d_]{2})|(?<=\d))" if after_number else r"(?<=[^\W\d_]{2})"
    return re.compile(
        rf"(?<=[^\d\s][.,;:!?)\"'\u2019\u201d]){mark}(?=[\s)]|$)"
        rf"|{raised}{RAISED_MARK}{mark}(?!\d)"
    )


def _small_print(ln: _Line, body: float) -> bool:
    """Set in a note's size: at most 0.85 of the body's (Typst's notes are
    exactly that, 8.925 against 10.5, which a float can put a hair over)."""
    return ln.size <= 0.85 * body + 0.01


def _footnotes(page: _Page, body: float, before: str = "") -> list[tuple[str, str]]:
    """Take the page's footnotes out of its lines: (mark, text) of each. A
    footnote is set below the page's text in a smaller size, each opening
    with its mark ("1", "ii", "*"; a mark set apart on its own baseline is
    put back before its text), lines under one with no mark going on with it,
    until a gap or the page's number. Left in, they were read as a table's
    rows after whatever text ended the page, mid-sentence where a paragraph
    ran on to the next page, and a mark alone was dropped as a page number;
    ``_with_notes`` puts each after the paragraph that cites it, as the other
    readers do."""

    def furniture(ln: _Line) -> bool:
        return bool(_PAGE_NUMBER.match(ln.text) or _PAGE_COUNTER.search(ln.text))

    text = [ln for ln in page.lines if not _small_print(ln, body) and not furniture(ln)]
    if not text:
        return []
    floor = max(ln.bottom for ln in text)
    margin = min(ln.x0 for ln in text)
    below = sorted(
        (ln for ln in page.lines if _small_print(ln, body) and ln.top > floor),
        key=lambda ln: (round(ln.top), ln.x0),
    )
    # a line per baseline, a mark set apart joined to its text
    rows: list[list[_Line]] = []
    for ln in below:
        if rows and abs(ln.top - rows[-1][-1].top) < 0.5 * ln.size and ln.x0 > rows[-1][-1].x1:
            rows[-1].append(ln)
        else:
            rows.append([ln])
    notes: list[list[str]] = []
    taken: list[_Line] = []
    dotted: list[str] = []  # marks written "1." (WeasyPrint's), as a numbered list's are
    below_ids = {id(ln) for row in rows for ln in row}
    cited_text = " ".join(ln.text for ln in page.lines if id(ln) not in below_ids) + " " + before
    # A small-print numbered list first ("1. Place the template", "2. Roll
    # the scatter die"): marks written "1." as WeasyPrint writes a note's,
    # but not each of them cited, so a list, and the notes (if any) under it
    numbers: list[str] = []
    listed_rows = 0
    for row_no, row in enumerate(rows):
        line = " ".join(ln.text for ln in row)
        m = _NOTE_MARK.match(line)
        if m and line[len(m.group(1)) : len(m.group(1)) + 1] == ".":
            numbers.append(m.group(1))
        elif m or not numbers:
            break
        listed_rows = row_no + 1
    if all(_cites(n).search(cited_text) for n in numbers):
        listed_rows = 0
    left = 0.0
    for row in rows[listed_rows:]:
        line = " ".join(ln.text for ln in row)
        m = _NOTE_MARK.match(line)
        if m and (notes or not taken):
            notes.append([m.group(1), line[m.end() :]])
            if line[len(m.group(1)) : len(m.group(1)) + 1] == ".":
                dotted.append(m.group(1))
            # its next lines from under the mark, or out to the text's margin
            # where the mark is indented as a paragraph (Typst, LaTeX)
            left = min(row[0].x0, margin)
        elif (
            notes
            and not furniture(row[0])
            and row[0].x0 >= left - 1
            and row[0].top - taken[-1].bottom <= 1.5 * row[0].size
        ):
            notes[-1][1] += " " + line
        else:
            break
        taken += row
    # notes are cited from the page's text (or the end of the page before,
    # where a paragraph began): small print under the text that nothing cites
    # (a results table, "1 The unit flees", "2-3 ...") is no footnote
    gone = {id(ln) for ln in taken}
    cited_from = " ".join(ln.text for ln in page.lines if id(ln) not in gone) + " " + before
    if not notes or not any(_cites(mark).search(cited_from) for mark, _ in notes):
        return []
    # a small-print numbered list ("1. Place the template") is no notes
    # unless the text cites each of its numbers
    if not all(_cites(mark).search(cited_from) for mark in dotted):
        return []
    page.lines = [ln for ln in page.lines if id(ln) not in gone]
    return [(mark, " ".join(note.split())) for mark, note in notes]


def _next_mark(mark: str) -> str:
    """The mark after ``mark`` in its series ("3" -> "4", "xvi" -> "xvii"); ""
    for a symbol."""
    if mark.isdigit():
        return str(int(mark) + 1)
    for n in range(1, 400):
        if html.list_number(n, "i") == mark:
            return html.list_number(n + 1, "i")
    return ""


def _endnotes(
    page: _Page, body: float, earlier: list[_Page], footnote_marks: Counter[str]
) -> list[tuple[str, str]]:
    """Take a page of endnotes out of its lines: (mark, text) of each. A word
    processor gathers them at the book's end on a page of their own, in the
    small size of a footnote, each opening with its mark ("i", "1"), under
    at most a heading; every mark must be cited on an earlier page ("the
    end of the round.i") more often than the book's footnotes use it (a
    small-print appendix of numbered lines is no endnotes because footnotes
    cited "1" and "2"). Left in, they were table rows of the last rule."""
    if any(body * 0.85 < ln.size < body * HEADING_SIZE_RATIO for ln in page.lines if not ln.zone):
        return []  # running text (a running header aside): not a page of notes alone
    small = [ln for ln in page.lines if _small_print(ln, body)]
    if not small or not _NOTE_MARK.match(small[0].text):
        return []
    notes: list[list[str]] = []
    for ln in small:
        m = _NOTE_MARK.match(ln.text)
        following = _next_mark(notes[-1][0]) if notes else ""
        if m:
            notes.append([m.group(1), ln.text[m.end() :]])
        elif following and re.match(rf"{re.escape(following)}(?![a-z])", ln.text):
            # the next mark set tight against its note ("xviiNote 17."), or
            # one past the marks the pattern knows ("xl")
            notes.append([following, ln.text[len(following) :].strip()])
        elif notes and not _PAGE_NUMBER.match(ln.text) and not _PAGE_COUNTER.search(ln.text):
            notes[-1][1] += " " + ln.text
    cited_from = " ".join(ln.text for p in earlier for ln in p.lines)
    if not all(len(_cites(mark).findall(cited_from)) > footnote_marks[mark] for mark, _ in notes):
        return []  # uncited, or each citation is a footnote's
    gone = {id(ln) for ln in small if not _PAGE_NUMBER.match(ln.text)}
    page.lines = [ln for ln in page.lines if id(ln) not in gone]
    return [(mark, " ".join(note.split())) for mark, note in notes]


def _with_notes(
    blocks: list[Block],
    notes: dict[int, list[tuple[str, str]]],
    endnote_pages: set[int] | frozenset[int] = frozenset(),
) -> list[Block]:
    """``blocks`` with each page's footnotes as "[1] text" after the paragraph
    that cites it: the first on that page (or the page before, where the
    paragraph began) with the mark set against a word ("used.1" becomes
    "used.[1]"); a note no paragraph cites goes after that page's last one.
    An endnote (its page in ``endnote_pages``) goes after the first paragraph
    before its page that cites it, on that paragraph's page."""
    out = list(blocks)
    for page, found in notes.items():
        # on the note's page first, then a paragraph begun on the page before;
        # an endnote's on any page before its own
        where = [tuple(range(1, page))] if page in endnote_pages else [(page,), (page - 1,)]
        for mark, text in found:
            # a mark raised against a number only where no word's mark cites
            # it, and only one such number could ("10 2 squares" and a table's
            # "150 2" on one page: an exponent or the note's, none is claimed)
            strong, weak = _cites(mark, after_number=False), _cites(mark)
            cited, at = next(
                (
                    (strong, i)
                    for pages_ in where
                    for i, b in enumerate(out)
                    if not b.level and b.page in pages_ and strong.search(b.text)
                ),
                (strong, None),
            )
            if at is None:
                candidates = [
                    i
                    for pages_ in where[:1]
                    for i, b in enumerate(out)
                    if not b.level and b.page in pages_
                    for _ in weak.finditer(b.text)
                ]
                if len(candidates) == 1:
                    cited, at = weak, candidates[0]
            if at is not None:
                b = out[at]
                out[at] = Block(cited.sub(f"[{mark}]", b.text, count=1), 0, b.page)
            else:
                on_page = [i for i, b in enumerate(out) if b.page is not None and b.page <= page]
                if not on_page:
                    continue
                at = on_page[-1]
            note = Block(f"[{mark}] {text}", 0, out[at].page if page in endnote_pages else page)
            # after the paragraph and any notes already placed after it
            while at + 1 < len(out) and out[at + 1].text.startswith("[") and not out[at + 1].level:
                at += 1
            out.insert(at + 1, note)
    return out
