"""Stage 2 of the PDF reader: the order a page's lines are read in.

A page in two side-by-side columns is read left column then right; a line
across both divides the page (the columns above it first), and so does a
heading after which the page goes back to one column (``_reading_order``).
A page mostly in one column can hold a band of two (a word processor's
section in columns, ``_column_bands``). Frames written after the page's
text (captions, text boxes) go before the paragraph at or below where they
sit (``_place_floats``); text wrapped beside a frame or an image is
measured against the margin it wraps at (``_wrapped_beside_frames``), and a
column set narrower than the page's measure against its own
(``_narrow_measure``).

A page of three or more columns (a quick-reference card) is found by its
gutters, the bands of the page no column's line crosses, and read column
by column the same way (``_many_columns``). Boxes drawn side by side, each
holding lines of text (a grid of keyword cards, two stat cards abreast),
are read a box at a time (``_boxes_abreast``), where PDFium gives a line
of each box on one baseline as one line.

Trade-off: columns are found from where lines start and end, not from a
trained layout model.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
import re
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from ruleslawyer.ingest.formats.pdf.lines import (
    _PAGE_NUMBER,
    FURNITURE_ZONE,
    _body_size,
    _ends_sentence,
    _Line,
    _Page,
)

_LEADERS = re.compile(r"(?:\.\s?){3,}|\u2026")


def _in_columns(
    lines: list[_Line], left: list[_Line], right: list[_Line], spanning: list[_Line]
) -> bool:
    """Enough of these lines sit in each half, and few across both. Rows of a
    table (three or more cells) do not count against it."""
    table_rows = sum(1 for ln in spanning if ln.wide_gaps >= 2)
    text_lines = len(lines) - table_rows
    return (
        len(left) >= 0.25 * text_lines
        and len(right) >= 0.25 * text_lines
        and len(spanning) - table_rows <= 0.2 * text_lines
    )


def _short_right_column(
    page: _Page, left: list[_Line], right: list[_Line], spanning: list[_Line]
) -> bool:
    """A page in two columns whose right one is short (a chapter's last page,
    the right column a paragraph or two, or a line): too few lines on the
    right for ``_in_columns``, it was read as one column in the PDF's order,
    every left line "short" of a margin the right column set (a paragraph of
    its own), a heading atop the right column no heading (not at the page's
    margin), and a line carried over to it an indented paragraph of its own.

    Columns when the left one is running text (``COLUMN_LINES`` lines or
    more, its typical line a quarter of the page wide or more), both are set
    to one measure (their longest lines within a tenth of each other; a
    single line on the right no wider) and in the text's size, the right
    lines start at one margin right of the middle past the left column's
    end (not cells or notes set right), the PDF draws the right one in one
    piece (a table of two columns without lines, or notes beside the rules
    they explain, are drawn a row at a time, and so read), and nothing but
    titles, headings, table rows and the page's header or footer runs across
    both (a page in one column has its running text across the middle). The
    page's number and its header and footer are told by their place: they
    are not marked yet."""
    size = statistics.median(ln.size for ln in page.lines)

    def furniture(ln: _Line) -> bool:  # (by place: the page's is not marked yet)
        return (
            bool(_PAGE_NUMBER.match(ln.text.strip()))
            or _margin_line(ln, page, size, "top")
            or _margin_line(ln, page, size, "bottom")
        )

    text_left = [ln for ln in left if not furniture(ln)]
    text_right = [ln for ln in right if not furniture(ln)]
    if len(text_left) < COLUMN_LINES or not text_right:
        return False
    # the PDF draws the right column in one piece, before the left one or
    # after it: drawn a piece beside each left one, it is a table's second
    # column, or notes beside the rules they explain, in the PDF's order
    at = {id(ln): k for k, ln in enumerate(page.lines)}
    drawn = sorted(at[id(ln)] for ln in text_right)
    if any(drawn[0] < at[id(ln)] < drawn[-1] for ln in text_left):
        return False
    if statistics.median(ln.x1 - ln.x0 for ln in text_left) < 0.25 * page.width:
        return False
    # both columns set to one measure: the right one's full lines as wide as
    # the left one's
    # (a single line, a paragraph's last carried over, no wider)
    measure = max(ln.x1 - ln.x0 for ln in text_left)
    widest = max(ln.x1 - ln.x0 for ln in text_right)
    if widest > 1.1 * measure or (len(text_right) > 1 and widest < 0.9 * measure):
        return False
    if any(
        statistics.median(ln.size for ln in side) < 0.9 * size for side in (text_left, text_right)
    ):
        return False
    starts = Counter(round(ln.x0 / 2) for ln in text_right)
    margin, used = starts.most_common(1)[0]
    if 2 * used < len(text_right) or 2 * margin < page.width / 2:
        return False
    if max(ln.x1 for ln in text_left) > 2 * margin - 0.5 * size:
        return False
    return not any(
        not furniture(ln)
        and ln.wide_gaps < 2
        and not ln.bold
        and 0.9 * size <= ln.size < 1.2 * size
        and ln.halves is None
        for ln in spanning
    )


# Column numbers (``_Line.column``): 0 the left, 1 the right, ACROSS a line
# across them; a page of three or more columns numbers its third on from 3.
ACROSS = 2
# A gutter is at least this many ems wide, and each of a page's three or more
# columns holds at least this many lines, of at least this many words in
# the median (running text; a table's cells written as lines of their own
# are short), filling most of the column's width.
GUTTER_EMS = 0.8
COLUMN_LINES = 5
COLUMN_WORDS = 5
COLUMN_FILL = 0.6


def _many_columns(page: _Page, lines: list[_Line]) -> tuple[list[list[_Line]], set[int]] | None:
    """The columns of a page set in three or more, left to right, and the
    lines (by id) cut into a line for each column they hold, or None.

    Found by the gutters: the bands, an em or so wide, that hardly any line
    narrower than half the page crosses (a title or a table's row across
    them divides the page, as in two columns; a short title may cross one
    gutter, so a tenth of the lines may). Each column must hold running text
    (``COLUMN_LINES`` lines or more, whose median has ``COLUMN_WORDS``
    words and fills ``COLUMN_FILL`` of its width), so a table whose cells
    PDFium gives as lines of their own is no columns."""
    narrow = [ln for ln in lines if ln.x1 - ln.x0 < 0.45 * page.width]
    if len(narrow) < 3 * COLUMN_LINES:
        return None
    em = statistics.median(ln.size for ln in narrow)
    left = math.floor(min(ln.x0 for ln in narrow))
    cover = [0] * (math.ceil(max(ln.x1 for ln in narrow)) - left + 2)
    for ln in narrow:
        cover[int(ln.x0) - left] += 1
        cover[math.ceil(ln.x1) - left] -= 1
    few = 0.1 * len(narrow)
    gutters: list[tuple[float, float]] = []
    run_start, depth = None, 0
    for x, step in enumerate(cover):
        depth += step
        if depth <= few and run_start is None:
            run_start = x
        elif depth > few and run_start is not None:
            if x - run_start >= GUTTER_EMS * em and run_start > 0:
                gutters.append((left + run_start, left + x))
            run_start = None
    if len(gutters) < 2:
        return None
    # a column's lines start after the gutter before it begins and end
    # before the next column starts; a line reaching into the next column
    # is across them
    starts = [-math.inf, *(g0 for g0, _ in gutters)]
    ends = [*(g1 + 1 for _, g1 in gutters), math.inf]
    columns: list[list[_Line]] = [[] for _ in starts]
    cut: set[int] = set()
    for ln in lines:
        k = bisect.bisect_right(starts, ln.x0) - 1
        if ln.x1 <= ends[k]:
            columns[k].append(ln)
    # A line in cells reaching over a gutter is two columns' lines on one
    # baseline, which PDFium gave as one, where each cell is running text
    # starting at its column's margin: a line for each. Otherwise it is a
    # table across the columns (short cells, or cells set off the columns'
    # margins), and the page is left as read: its cells' lines fall in the
    # columns, and read a column at a time a table's rows were broken up.
    spans = list(zip(starts, ends, strict=True))
    margins = [Counter(round(x.x0) for x in c).most_common(1)[0][0] if c else 0 for c in columns]
    # (among the columns: a footer of two cells under them is no table)
    inside = [x for c in columns for x in c]
    if not inside:
        return None
    top, bottom = min(x.top for x in inside), max(x.bottom for x in inside)
    for ln in lines:
        if not (
            ln.wide_gaps
            and top <= ln.top
            and ln.bottom <= bottom
            and any(ln.x0 < g0 and ln.x1 > g1 for g0, g1 in gutters)
        ):
            continue
        parts = _cut_at(ln, spans)
        if (
            parts is None
            or len(parts) < 2
            or any(abs(p.x0 - margins[k]) > 2 or len(p.words) < 3 for k, p in parts)
        ):
            return None
        for k, part in parts:
            columns[k].append(part)
        cut.add(id(ln))
    for column in columns:
        if len(column) < COLUMN_LINES:
            return None
        width = max(ln.x1 for ln in column) - min(ln.x0 for ln in column)
        if statistics.median(len(ln.words) for ln in column) < COLUMN_WORDS or (
            statistics.median(ln.x1 - ln.x0 for ln in column) < COLUMN_FILL * width
        ):
            return None
    return columns, cut


def _on_a_bar(ln: _Line, page: _Page) -> bool:
    """Is ``ln`` set on a bar drawn across both columns, a line or two high
    (a heading on a coloured band, inset by the band's padding)?"""
    mid = page.width / 2
    return any(
        x0 <= ln.x0
        and ln.x1 <= x1
        and top <= ln.top + 1
        and ln.bottom - 1 <= bottom
        and bottom - top <= 3 * ln.size
        and x0 < mid - 0.02 * page.width
        and x1 > mid + 0.02 * page.width
        for x0, top, x1, bottom in page.shapes
    )


# A box drawn around text (a card) is at least this many of the text's lines
# high, and holds at least BOX_LINES of them
BOX_HEIGHT_LINES = 2.5
BOX_LINES = 2


def _boxes_abreast(page: _Page) -> bool:
    """Read each row of boxes drawn side by side a box at a time, left to
    right, each top to bottom, where the row stands in the page; True if the
    page holds such a row (its other lines keep PDFium's order).

    A card grid's cards share baselines, so PDFium gives "Ambush Bulwark
    Cleave" and then a line of each card's text as one line, its runs set
    wide apart: read as a table, every line mixed three cards. A line whose
    runs lie in two or more of the boxes is cut into a line for each box; a
    row whose boxes do not hold ``BOX_LINES`` lines each, or one whose runs
    straddle two boxes, is left as it is (a table's shaded cells hold a
    line each), and so is one no line of which lies in two boxes."""
    if not page.shapes or not page.lines:
        return False
    size = statistics.median(ln.size for ln in page.lines)
    boxes = sorted(
        {
            (round(x0), round(top), round(x1), round(bottom))
            for x0, top, x1, bottom in page.shapes
            if x1 - x0 <= 0.6 * page.width and bottom - top >= BOX_HEIGHT_LINES * size
        }
    )
    # boxes abreast: apart from each other, each overlapping the first in
    # height by most of the lower one's; a box and its border drawn twice
    # (a fill and a stroke, a point apart) count once
    rows: list[list[tuple[int, int, int, int]]] = []
    for box in sorted(boxes, key=lambda b: (b[1], b[0])):
        for row in rows:
            lead = row[0]
            overlap = min(lead[3], box[3]) - max(lead[1], box[1])
            if overlap >= 0.6 * min(lead[3] - lead[1], box[3] - box[1]):
                if all(box[0] >= r[2] + 1 or box[2] <= r[0] - 1 for r in row):
                    row.append(box)
                break
        else:
            rows.append([box])
    placed: dict[int, list[_Line]] = {}  # the first line of a row read -> the row's lines
    taken: set[int] = set()
    for row in rows:
        if len(row) < 2:
            continue
        row.sort()
        inside: list[list[_Line]] = [[] for _ in row]
        members: list[_Line] = []
        ok, cut = True, False
        # the row's height: its tallest box's (cards of unlike heights)
        top, bottom = min(b[1] for b in row), max(b[3] for b in row)
        spans = [(b[0], b[2]) for b in row]
        for ln in page.lines:
            if id(ln) in taken or not (top <= (ln.top + ln.bottom) / 2 <= bottom):
                continue
            parts = _cut_at(ln, spans)
            if parts is None:
                ok = False
                break
            for k, part in parts:
                inside[k].append(part)
            cut = cut or len(parts) > 1
            members.append(ln)
        if not (ok and cut) or any(len(box) < BOX_LINES for box in inside):
            # (boxes whose lines PDFium gives apart, one in each of two
            # columns, are read as the columns are)
            continue
        taken |= {id(x) for x in members}
        for k, box_lines in enumerate(inside):
            for part in box_lines:
                part.column = ACROSS + 1 + k  # a column of its own: its own margin
        placed[id(members[0])] = [
            x for box_lines in inside for x in sorted(box_lines, key=lambda x: x.top)
        ]
    if not placed:
        return False
    ordered: list[_Line] = []
    for ln in page.lines:
        if id(ln) in placed:
            ordered += placed[id(ln)]
        elif id(ln) not in taken:
            ordered.append(ln)
    page.lines = ordered
    return True


def _cut_at(ln: _Line, spans: Sequence[tuple[float, float]]) -> list[tuple[int, _Line]] | None:
    """``ln`` as a line for each of ``spans`` (a box's or a column's left and
    right edge) its runs lie in, with the span's index; None if a run lies
    in none of them or across two."""
    home: list[int] = []
    for x0, x1, _ in ln.cells:
        k = next((k for k, (a, b) in enumerate(spans) if a - 1 <= x0 and x1 <= b + 1), None)
        if k is None:
            return None
        home.append(k)
    if len(set(home)) == 1:
        return [(home[0], ln)]
    parts: list[tuple[int, _Line]] = []
    for k in sorted(set(home)):
        cells = tuple(c for c, h in zip(ln.cells, home, strict=True) if h == k)
        a0, a1 = cells[0][0], cells[-1][1]
        parts.append(
            (
                k,
                dataclasses.replace(
                    ln,
                    text=" ".join(c[2] for c in cells),
                    x0=a0,
                    x1=a1,
                    cells=cells,
                    words=tuple(w for w in ln.words if a0 - 0.5 <= w[0] and w[1] <= a1 + 0.5),
                    wide_gaps=len(cells) - 1,
                    hyphen=ln.hyphen and k == max(home),
                    halves=None,
                    whole=None,
                ),
            )
        )
    return parts


def _in_order(sides: list[list[_Line]], spanning: list[_Line]) -> list[_Line]:
    """Each line across the page divides it: the columns above it are read
    first, each top to bottom, left to right, then it."""
    ordered: list[_Line] = []
    above = -math.inf
    for divider in [*sorted(spanning, key=lambda ln: ln.top), None]:
        below = divider.top if divider is not None else math.inf
        for side in sides:
            ordered += sorted((ln for ln in side if above <= ln.top < below), key=lambda ln: ln.top)
        if divider is not None:
            ordered.append(divider)
            above = divider.top
    return ordered


def _columns_restart(head: _Line, left: list[_Line], right: list[_Line]) -> bool:
    """Do both columns start again together under ``head`` (their first lines
    below it within a line of each other), as under a heading set across
    them, or is there no right column under it (the page goes on in one)?"""
    below_left = min((x.top for x in left if x.top > head.bottom), default=None)
    below_right = min((x.top for x in right if x.top > head.bottom), default=None)
    return (
        below_right is None
        or below_left is None
        or abs(below_left - below_right) <= head.bottom - head.top
    )


def _gutter_halves(ln: _Line, left: list[_Line], right: list[_Line]) -> tuple[_Line, _Line] | None:
    """``ln`` as two lines when it is two runs of words, each starting at the
    margin where most lines of its half of the page start: a line of each
    column on one baseline. None for anything else (a justified line of one
    column has no gap that wide; a table row has more cells or other edges)."""
    if len(ln.cells) != 2 or len(right) < 3 or len(left) < 3:
        return None

    def margin(side: list[_Line]) -> float:
        return Counter(round(x.x0) for x in side).most_common(1)[0][0]

    (a0, a1, a_text), (b0, b1, b_text) = ln.cells
    # the left run fills its column, as a justified line does (a table's
    # first cell, "Objective terrain", stops well short of it)
    ends = sorted(x.x1 for x in left)
    edge = ends[int(0.9 * (len(ends) - 1))]
    if not (
        abs(a0 - margin(left)) <= 2
        and a1 >= edge - 0.15 * (edge - a0)
        and abs(b0 - margin(right)) <= 2
        and len(a_text.split()) >= 2
        and len(b_text.split()) >= 2
    ):
        return None
    parts = _cut_at(ln, [(a0, a1), (b0, b1)])
    if parts is None or len(parts) != 2:
        return None
    (_, a), (_, b) = parts
    if len(a.words) + len(b.words) != len(ln.words):
        return None
    return a, b


def _column_bands(
    page: _Page,
    left: list[_Line],
    right: list[_Line],
    spanning: list[_Line],
    halves: set[int] | frozenset[int] = frozenset(),
) -> list[tuple[float, float]]:
    """The bands of columns on a page otherwise in one column (``_column_band``),
    the lines starting in its right half taken apart wherever running text
    across the page lies between them (a box set right beside a paragraph,
    then a section in two columns under more text, are two candidates)."""
    size = statistics.median(ln.size for ln in page.lines)

    def running(ln: _Line) -> bool:  # text across the page, not a heading or a row
        return ln.halves is None and ln.wide_gaps < 2 and not (ln.bold or ln.size >= 1.2 * size)

    groups: list[list[_Line]] = []
    for r in sorted(right, key=lambda ln: ln.top):
        if groups and not any(
            groups[-1][-1].bottom <= x.top <= r.top and running(x) for x in spanning
        ):
            groups[-1].append(r)
        else:
            groups.append([r])
    return [
        band for g in groups if (band := _column_band(page, left, g, spanning, halves)) is not None
    ]


def _column_band(
    page: _Page,
    left: list[_Line],
    right: list[_Line],
    spanning: list[_Line],
    halves: set[int] | frozenset[int] = frozenset(),
) -> tuple[float, float] | None:
    """Columns on part of the page: a word processor's section in two columns
    under (or over) text across the page. The band from the first line that
    starts in the right half (the right half of a line of two headings side
    by side too) to the last, if the lines within it are in columns and are
    running text, each side's typical line a quarter of the page wide or
    more (not a table's cells written one by one, nor a note or two set
    right), and:

    - the text across the page bounds it: no line of the left column goes on
      below it but for a heading over that text, nor above it but for a
      paragraph's last line under it (a page whose right column is short, a
      book's last page, is read in the PDF's order, left column then right);
    - the PDF writes the band's left column before its right one (a table
      of two long columns is written row by row, and so read).
    """
    if len(right) < 3:
        return None
    first = min(r.top for r in right)
    starts = [first] + [
        ln.top
        for ln in spanning
        if ln.halves is not None
        and ln.halves[1].x0 > page.width * 0.48
        and 0 <= first - ln.bottom < 2 * (ln.bottom - ln.top)
    ]
    top, bottom = min(starts), max(r.bottom for r in right)

    def within(side: list[_Line]) -> list[_Line]:
        return [ln for ln in side if ln.bottom >= top and ln.top <= bottom]

    band_left, band_right, band_spanning = within(left), within(right), within(spanning)
    if not (
        len(band_left) >= 3
        and all(
            statistics.median(ln.x1 - ln.x0 for ln in side) >= 0.25 * page.width
            for side in (band_left, band_right)
        )
        and _in_columns(
            band_left + band_right + band_spanning, band_left, band_right, band_spanning
        )
    ):
        return None
    # (a line of each column on one baseline, ``halves``, is written as one;
    # a right column's first line on the baseline of a heading atop the left
    # one is written with it, Typst's way, unless most right lines share a
    # baseline with a left one, as a table's rows do)
    order = {id(ln): k for k, ln in enumerate(page.lines) if id(ln) not in halves}
    beside = [r for r in band_right if any(abs(r.bottom - x.bottom) < 1 for x in band_left)]
    firsts = (
        band_right
        if 2 * len(beside) >= len(band_right)
        else [r for r in band_right if r not in beside]
    )
    if max((order.get(id(ln), -1) for ln in band_left), default=-1) > min(
        (order.get(id(ln), math.inf) for ln in firsts), default=math.inf
    ):
        return None
    size = statistics.median(ln.size for ln in page.lines)
    by_top = sorted(page.lines, key=lambda ln: ln.top)
    # The left column may end below the right one (its last paragraph the
    # longer, or the right column set higher, as fpdf2 does): the band goes
    # on to its end, line by line, a heading's space before it allowed where
    # the column goes on under the heading (not the text across the page)
    left_ids = {id(ln) for ln in left}

    def column_goes_on(head: _Line) -> bool:
        under = next((x for x in by_top if x.top > head.bottom - 1 and x is not head), None)
        return under is not None and id(under) in left_ids

    for ln in sorted(left, key=lambda ln: ln.top):
        heading = ln.bold or ln.size > 1.1 * size
        if ln.top <= bottom < ln.bottom or (
            bottom < ln.top < bottom + (2.0 if heading else 1.2) * (ln.bottom - ln.top)
            and ln.size < 1.5 * size
            and (not heading or column_goes_on(ln))
        ):
            bottom = ln.bottom
    for ln in left:
        if (
            ln.size < 0.9 * size
            or top <= ln.top <= bottom
            or _PAGE_NUMBER.match(ln.text)
            or not FURNITURE_ZONE * page.height < ln.top < (1 - FURNITURE_ZONE) * page.height
        ):
            continue  # small print (notes), a page's number or header, or in the band
        if ln.top > bottom and not any(bottom < x.top < ln.top for x in spanning):
            below = [x for x in by_top if x.top >= ln.bottom - 1 and x is not ln]
            nearest = below[0] if below else None
            if not (
                nearest is not None
                and nearest in spanning
                and nearest.top - ln.bottom < 2 * (ln.bottom - ln.top)
            ):
                return None  # the left column goes on below the band (not a heading over text)
        if ln.bottom < top and not any(ln.bottom < x.top < top for x in spanning):
            above = [x for x in by_top if x.bottom <= ln.top + 1 and x is not ln]
            nearest = above[-1] if above else None
            if not (
                nearest is not None
                and nearest in spanning
                and ln.top - nearest.bottom < ln.bottom - ln.top
            ):
                return None  # the left column began above the band
    return top, bottom


def _margin_line(ln: _Line, page: _Page, size: float, edge: Literal["top", "bottom"]) -> bool:
    """Is ``ln`` set smaller than the text (``size``) in the page's ``edge``
    ("top" or "bottom") margin: a running header or footer, by its place?"""
    if ln.size >= 0.9 * size:
        return False
    if edge == "top":
        return ln.bottom <= FURNITURE_ZONE * page.height
    return ln.top >= (1 - FURNITURE_ZONE) * page.height


def _reading_order(page: _Page) -> None:
    """Two side-by-side columns are read left, then right; else PDFium's order.

    A line across both columns (a title, a full-width table's row) divides
    the page: the columns above it are read, then it, then the columns
    below; so does a short heading set across both (the right column empty
    beside it, with text above and below). Rows of a table (three or more
    cells) do not count against the page being set in columns. A page mostly
    in one column may hold bands of columns (``_column_bands``): each is
    read in columns in its place, the lines around it in PDFium's order; and
    two headings that PDFium gives as one line, one atop each column, are
    two.
    """
    lines = page.lines
    if len(lines) < 8:
        return
    if _boxes_abreast(page):
        return
    mid = page.width / 2
    left = [ln for ln in lines if ln.x1 < mid + page.width * 0.02]
    right = [ln for ln in lines if ln.x0 > mid - page.width * 0.02 and ln not in left]
    spanning = [ln for ln in lines if ln not in left and ln not in right]
    # Two lines on one baseline, one atop each column, that PDFium gives as
    # one (WeasyPrint's gutter, about an em, is too narrow for
    # ``_middle_split``): two lines, where the page turns out to be in columns
    split = {id(ln): h for ln in spanning if (h := _gutter_halves(ln, left, right)) is not None}
    as_read = page.lines
    if split:
        left = left + [h[0] for h in split.values()]
        right = right + [h[1] for h in split.values()]
        spanning = [ln for ln in spanning if id(ln) not in split]
        lines = page.lines = [x for ln in lines for x in split.get(id(ln), (ln,))]
    # A page's header set small in its top margin is no column's first line:
    # on a sheet too short for it to repeat, one set right was read into the
    # right column, mid-sentence where the left column's last ran on to it.
    # (above every line of the text: a box's small print atop a column is
    # the column's)
    body_size = _body_size([page])
    text_top = min((ln.top for ln in lines if ln.size >= 0.9 * body_size), default=0.0)
    headers = [
        ln
        for ln in left + right
        if _margin_line(ln, page, body_size, "top") and ln.bottom <= text_top
    ]
    if headers:
        left = [ln for ln in left if ln not in headers]
        right = [ln for ln in right if ln not in headers]
        spanning += headers
    # Lines above, below and between bands of columns on a page otherwise in
    # one column are read as PDFium gives them, as they are on such a page.
    across: list[_Line] = []
    bands: list[tuple[float, float]] = []
    # (three columns first: the middle one's short lines sit in the left half,
    # and the page could pass for two columns, the middle read into the left)
    if found := _many_columns(page, lines):
        many, cut = found
        in_one = {id(ln) for side in many for ln in side}
        spanning = [ln for ln in lines if id(ln) not in in_one and id(ln) not in cut]
        for k, side in enumerate(many[1:], start=1):
            for ln in side:
                ln.column = k if k < ACROSS else k + 1
        for ln in spanning:
            ln.column = ACROSS
        page.lines = _in_order(many, spanning)
        return
    if not (
        _in_columns(lines, left, right, spanning)
        or _short_right_column(page, left, right, spanning)
    ):
        halves = {id(x) for h in split.values() for x in h}
        bands = _column_bands(page, left, right, spanning, halves)
        if not bands:
            page.lines = as_read
            return
        across = [
            ln
            for ln in lines
            if not any(top <= ln.bottom and ln.top <= bottom for top, bottom in bands)
        ]
        left, right, spanning = (
            [ln for ln in side if ln not in across] for side in (left, right, spanning)
        )
    # A heading set across both columns but short ("Shooting", CSS
    # column-span) sits in the left half: it divides the page too when the
    # right column is empty beside it and goes on below it, and it is set
    # larger than the text (or in bold, WeasyPrint's h2 is 1.19 times it, an
    # h4 the text's size, where both columns start again together under it:
    # a bold heading beside a gap in the right column, a figure's, is one
    # inside the left column), at the left margin.
    size = statistics.median(ln.size for ln in lines)
    margin = min(ln.x0 for ln in left)
    # (a page's footer or header, set small in its top or bottom margin, is no
    # right column: on a one-page sheet, where it is not yet known as a
    # repeat, a footer set right made every heading low in the left column
    # look like one across the page, and the column below it was read last)
    column_right = [r for r in right if not _margin_line(r, page, size, "bottom")]
    for ln in list(left):
        under = [x for x in lines if x.top > ln.bottom]
        nearest = min(under, key=lambda x: x.top) if under else None
        if (
            (
                ln.size >= 1.2 * size
                or (ln.bold and ln.size >= 0.95 * size and _columns_restart(ln, left, right))
            )
            and (ln.x0 <= margin + 3 or _on_a_bar(ln, page))
            and not any(r.top <= ln.bottom + 2 and r.bottom >= ln.top - 2 for r in right)
            and any(r.bottom < ln.top for r in column_right)
            and (
                any(r.top > ln.bottom for r in column_right)
                # or the page goes back to one column under it ("4. Victory"
                # after the two columns end, its text across the page; not a
                # footer across it)
                or (
                    nearest is not None
                    and nearest in spanning
                    and nearest.x0 <= margin + 3
                    and nearest.size >= 0.9 * size
                    and len(nearest.words) >= 6
                )
            )
        ):
            left.remove(ln)
            spanning.append(ln)
    # Two headings side by side, one atop each column ("2.1 Move", "2.3
    # Jump"), are one line to PDFium, kept whole as two short cells (a table
    # row's would be): two lines, each read in its column, where each column's
    # text goes on just under its half and nothing spans the page below it.
    for ln in list(spanning):
        if ln.halves is None or f"{ln.halves[0].text} {ln.halves[1].text}" != ln.text:
            continue
        a, b = ln.halves
        beneath = [x for x in lines if x.top > ln.bottom]
        under_a = min((x for x in left if x.top > ln.bottom), key=lambda x: x.top, default=None)
        under_b = min((x for x in right if x.top > ln.bottom), key=lambda x: x.top, default=None)
        if (
            a.x1 < mid + page.width * 0.02 < b.x0 + page.width * 0.04
            and all(h.bold or h.size >= 1.2 * size for h in (a, b))
            and under_a is not None
            and under_b is not None
            and min(beneath, key=lambda x: x.top) in (under_a, under_b)
            and all(x.top - ln.bottom < 3 * size for x in (under_a, under_b))
        ):
            spanning.remove(ln)
            left.append(a)
            right.append(b)
    for ln in right:
        ln.column = 1
    # Lines across the page have margins of their own: counted with the left
    # column's, they made its lines look short, each a paragraph of its own.
    for ln in spanning + across:
        ln.column = ACROSS
    ordered = _in_order([left, right], spanning)
    if bands:
        # each band read in its place among the lines around it
        def band_of(ln: _Line) -> int:
            return next(
                k for k, (top, bottom) in enumerate(bands) if top <= ln.bottom and ln.top <= bottom
            )

        inside = [(band_of(ln), ln) for ln in ordered]
        placed: set[int] = set()
        result: list[_Line] = []
        for ln in lines:
            if ln in across:
                result.append(ln)
            elif (k := band_of(ln)) not in placed:
                placed.add(k)
                result += [x for b, x in inside if b == k]
        ordered = result
    page.lines = ordered


# A frame's lines at most: one written after the page's text, and a float
# written before it (a box holding a rule and its notes)
AFTER_TEXT_LINES = 8
FLOAT_LINES = 12


def _place_floats(page: _Page) -> None:
    """Frames written apart from the page's text go where they sit.

    LibreOffice writes a page's running text first, top to bottom, then its
    frames: an image's caption, a text box ("Quick Reference"), each jumping
    back up the page. Read in that order they landed after the page's last
    line, often mid-sentence where a paragraph runs on over the page.
    WeasyPrint writes a floated box ("Optional Rule", CSS float) before the
    page's text, so it was read first, into the rule before the page's first
    heading. Each such block goes before the first line of running text at
    or below its top that opens a paragraph (set a line's space or more
    below the one before it, so a box beside a paragraph follows that
    paragraph), else after the page's text. The running text is the first
    run of lines read top to bottom, or the second where the page holds two
    and the first is a float's, short and below the second's start; only
    where it reaches the page's foot, and the blocks are short
    (``AFTER_TEXT_LINES`` or fewer, a float ``FLOAT_LINES``; a third of the
    page at most): lines out of order for any other reason (a table written
    cell by cell, columns not found) stay as they are. Pages read in columns
    were ordered by position already.
    """
    if any(ln.column for ln in page.lines):
        return
    body = [ln for ln in page.lines if not ln.zone]
    runs: list[list[_Line]] = [[]]
    for ln in body:
        if runs[-1] and ln.top < runs[-1][-1].top - max(ln.size, runs[-1][-1].size):
            runs.append([])
        runs[-1].append(ln)
    flow, blocks, most = runs[0], runs[1:], AFTER_TEXT_LINES
    if (
        len(runs) == 2
        and len(runs[0]) <= FLOAT_LINES
        and len(runs[1]) >= 3 * len(runs[0])
        and runs[1][0].top < runs[0][0].top
    ):
        # a box written before the page's text, which starts above it
        flow, blocks, most = runs[1], [runs[0]], FLOAT_LINES
    if (
        not blocks
        or len(flow) < 2
        or max(ln.bottom for ln in flow) < max(ln.bottom for ln in body)
        or any(len(block) > most for block in blocks)
        or 3 * sum(len(block) for block in blocks) > len(body)
        # the text in the left half only: a page in columns whose right one
        # is short (a book's last page), not a frame
        or 5 * sum(1 for ln in flow if ln.x1 > page.width * 0.52) < len(flow)
    ):
        return
    for b in blocks:
        # the block's text, or the box drawn around it (its padding keeps
        # the text beside it off a line more)
        x0, top = min(ln.x0 for ln in b), b[0].top
        x1, bottom = max(ln.x1 for ln in b), max(ln.bottom for ln in b)
        around = [
            box
            for box in page.shapes
            if box[0] <= x0 + 3 and box[1] <= top + 3 and box[2] >= x1 - 3 and box[3] >= bottom - 3
        ]
        page.frames.append(
            min(around, key=lambda box: (box[2] - box[0]) * (box[3] - box[1]))
            if around
            else (x0, top, x1, bottom)
        )
    pitch = statistics.median(b.top - a.top for a, b in itertools.pairwise(flow))
    before: dict[int, list[_Line]] = {}
    for block in sorted(blocks, key=lambda block: block[0].top):
        # a paragraph opens: space above it, after a sentence's end; none
        # below the block leaves it where the PDF has it
        at = next(
            (
                k
                for k in range(1, len(flow))
                if flow[k].top >= block[0].top
                and flow[k].top - flow[k - 1].top > 1.3 * pitch
                and _ends_sentence(flow[k - 1].text)
            ),
            None,
        )
        if at is not None:
            before.setdefault(at, []).extend(block)
    placed = {id(ln) for block in before.values() for ln in block}
    ordered: list[_Line] = []
    for ln in page.lines:
        if id(ln) in placed:
            continue
        if ln in flow:
            ordered += before.get(flow.index(ln), [])
        ordered.append(ln)
    page.lines = ordered


def _wrapped_beside_frames(page: _Page) -> None:
    """Text wrapped beside an image or a frame on its right ends its lines
    short of the page's margin: measured against that margin each line was
    a paragraph of its own. Lines beside one (an image and its caption are
    one) overlapping its height give or take a line get the margin they
    share, the end of the longest of them (``wraps_at``): where they are
    running text, two or more of them reaching that margin, which lies past
    two fifths of the page's measure (a list of short items beside a
    picture keeps its lines). Pages in columns are left alone."""
    if any(ln.column for ln in page.lines):
        return
    text = [ln for ln in page.lines if not ln.zone]
    if not text:
        return
    margin = min(ln.x0 for ln in text)
    measure = sorted(ln.x1 for ln in text)[int(len(text) * 0.9)] - margin
    frames: list[list[float]] = []
    for x0, top, x1, bottom in sorted(page.frames, key=lambda f: f[1]):
        last = frames[-1] if frames else None
        if last and x0 < last[2] and last[0] < x1 and top - last[3] < 18:
            last[:] = [min(last[0], x0), last[1], max(last[2], x1), max(last[3], bottom)]
        else:
            frames.append([x0, top, x1, bottom])
    for x0, top, _, bottom in frames:
        if x0 < page.width * 0.4:
            continue
        beside = [
            ln
            for ln in text
            if ln.x1 < x0
            and ln.bottom > top - (ln.bottom - ln.top)
            and ln.top < bottom + (ln.bottom - ln.top)
        ]
        if not beside:
            continue
        edge = max(b.x1 for b in beside)
        reaching = [b for b in beside if b.x1 >= edge - 0.15 * (edge - margin)]
        if len(reaching) >= 2 and edge - margin >= 0.4 * measure:
            for ln in beside:
                ln.wraps_at = max(ln.wraps_at, edge)


# A box drawn across a page's columns is as wide as this share of the
# page's text at least: a sidebar runs the text's width, a card of a grid
# does not
ASIDE_WIDTH = 0.75


def _asides(page: _Page) -> None:
    """Boxes drawn across a page's text, each holding lines of text (a
    designer's note, an optional rule set across the page's foot), where
    the text runs past them: each box's lines are read together, top to
    bottom, before the first line of the text below it, else after the
    page's text (``_Line.aside`` numbers the box), each box a column of its
    own (its own margins).

    Read in place, a box across two columns at the page's foot had its
    title among the left column's paragraphs and its text in the rule at
    the foot of the right column, ending the paragraph that runs on over
    the page; on a page in one column, a box the PDF draws before the text
    was read first, into the rule before the page's first heading. Whom a
    box belongs to is the outline's business (``outline_of`` puts it at
    the end of the section it falls in).

    A box counts when it crosses the page's middle, runs most of the
    text's width (``ASIDE_WIDTH``), is ``BOX_HEIGHT_LINES`` of the text's
    lines high and holds ``BOX_LINES`` lines or more, every line it touches
    wholly inside it, none of them a table's row (a shaded table is the
    text's) or a line of links (a printed web page's footer, dropped as a
    menu), fewer lines than the text outside it, from that text's left
    edge; and the text outside it is in columns (or in the left one: a last
    page, its right column empty), or all above it or all below it where
    the PDF draws the box apart from the text. A box between paragraphs of
    a page in one column, or drawn in its place at the page's foot, stays
    where the text has it (an example, a note in its rule). The largest box
    counts, not a bar drawn inside it for its title. The box's text is
    measured against its padding on the right (``wraps_at``) as on the
    left. The columns around a box across the page's middle are read in
    the order their text runs (``_around``)."""
    if not page.shapes or not page.lines:
        return
    mid = page.width / 2
    text_x0 = min(ln.x0 for ln in page.lines)
    text_x1 = max(ln.x1 for ln in page.lines)
    size = statistics.median(ln.size for ln in page.lines)
    boxes = sorted(
        {
            (x0, top, x1, bottom)
            for x0, top, x1, bottom in page.shapes
            if x0 < mid - 0.02 * page.width
            and x1 > mid + 0.02 * page.width
            and x1 - x0 >= ASIDE_WIDTH * (text_x1 - text_x0)
            and bottom - top >= BOX_HEIGHT_LINES * size
        },
        key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]),
    )
    taken: dict[int, int] = {}  # id of a line -> the box it is in
    read_at = {id(ln): k for k, ln in enumerate(page.lines)}  # the order read so far
    found: list[list[_Line]] = []
    for x0, top, x1, bottom in boxes:
        touching = [
            ln
            for ln in page.lines
            if ln.x0 < x1 and ln.x1 > x0 and ln.top < bottom and ln.bottom > top
        ]
        inside = [
            ln
            for ln in touching
            if x0 - 1 <= ln.x0 and ln.x1 <= x1 + 1 and top - 1 <= ln.top and ln.bottom <= bottom + 1
        ]
        if (
            len(inside) < BOX_LINES
            or len(inside) < len(touching)
            or any(id(ln) in taken for ln in inside)
            or any(ln.wide_gaps >= 2 or ln.row or ln.linked for ln in inside)
        ):
            continue
        outside = [
            ln for ln in page.lines if id(ln) not in taken and ln not in inside and not ln.zone
        ]
        # fewer lines than the text around it, from the text's left edge
        # (a printed web page's article, in a box beside its menu, is the text)
        if len(inside) >= len(outside) or x0 > min(ln.x0 for ln in outside) + size:
            continue
        # the text beside it in columns (a right column's, or a third's), or
        # in one of them (a last page, its right column empty); or, on a
        # page in one column, all of it above or below the box, where the
        # PDF draws the box apart from the text (before it or after it, a
        # frame of its own): one drawn in its place is a note between
        # paragraphs (or one a page break happened to leave at the page's
        # foot), its rule's
        # (in its place: drawn after the text's line nearest above it and
        # before the one nearest below it; a stray line drawn out of order
        # elsewhere, a note at the page's foot drawn first, says nothing)
        inside_at = [read_at[id(ln)] for ln in inside]
        above = [ln for ln in outside if ln.bottom <= top + 1]
        below = [ln for ln in outside if ln.top >= bottom - 1]
        in_place = (
            not above or read_at[id(max(above, key=lambda ln: ln.bottom))] < min(inside_at)
        ) and (not below or max(inside_at) < read_at[id(min(below, key=lambda ln: ln.top))])
        in_columns = any(ln.column == 1 or ln.column > ACROSS for ln in outside)
        if not (
            in_columns
            or (
                len(outside) >= BOX_LINES and all(ln.x1 < mid + 0.02 * page.width for ln in outside)
            )
            or (len(above) + len(below) == len(outside) and not in_place)
        ):
            continue
        if above and below and not in_columns:
            # the text of a page in one column runs on past it (a frame the
            # text wraps above and below)
            page.runs_around.append((min(ln.top for ln in inside), max(ln.bottom for ln in inside)))
        found.append(sorted(inside, key=lambda ln: (ln.top, ln.x0)))
        # its text's right margin mirrors its left one in the box: measured
        # by its own longest line, the first paragraph of a note of two
        # lines ran on into the second
        edge = x1 - max(0.0, min(ln.x0 for ln in inside) - x0)
        for ln in inside:
            taken[id(ln)] = len(found)
            ln.wraps_at = edge
    if not found:
        return
    # each box read before the first line of the text below it (the columns
    # under a box across the page's middle), else after the page's text; not
    # where the PDF draws it (before the columns, or after)
    ordered = [ln for ln in page.lines if id(ln) not in taken]
    # boxes one above another with no text across the page between them are
    # one stack the columns run around (or stop at) together
    across = [ln for ln in ordered if ln.column == ACROSS and not ln.zone]
    stacks: list[list[tuple[float, float]]] = []
    for top, bottom in sorted((min(x.top for x in b), max(x.bottom for x in b)) for b in found):
        if stacks and not any(stacks[-1][-1][1] <= x.top and x.bottom <= top for x in across):
            stacks[-1].append((top, bottom))
        else:
            stacks.append([(top, bottom)])
    for stack in stacks:
        ordered = _around(page, ordered, stack, across)
    for box in sorted(found, key=lambda box: -box[0].top):
        # (the first read of the lines right under it, atop each column: a
        # line drawn first from the page's foot is no text under the box)
        bottom = max(ln.bottom for ln in box)
        under = [k for k, ln in enumerate(ordered) if ln.top >= bottom and not ln.zone]
        first = min((ordered[k].top for k in under), default=0.0)
        at = min((k for k in under if ordered[k].top <= first + 2 * size), default=len(ordered))
        ordered[at:at] = box
    for k, box in enumerate(found, start=1):
        for ln in box:
            ln.aside = k
            ln.column = -k  # its own margins, apart from the columns'
    page.lines = ordered


def _around(
    page: _Page, lines: list[_Line], boxes: list[tuple[float, float]], across: list[_Line]
) -> list[_Line]:
    """``lines`` (a page in columns, read so far) with its columns read
    around ``boxes`` ((top, bottom) of each, one above another, top first)
    in the order its text runs: around them (the left column down past
    every box, then the next column: a typesetter's text wrap, InDesign's;
    the boxes go to ``page.runs_around``), or stopping at each box and
    starting again under it (each band between the boxes read left to
    right: CSS ``column-span``, a word processor's section break). The two
    look the same on the page, and neither the box's lines (in one half of
    the page, or across it) nor the place of anything else tells them
    apart. The text's joins tell where they can (a line going on in lower
    case after a sentence's end, a heading after a line ending
    mid-sentence, is the wrong order); elsewhere the PDF's order does, as
    it draws the text in the order it runs: each of the parts in one piece
    (the page's header, footer and number, drawn with the page's master
    wherever, left out), and the last columns may end above a box (a
    chapter's last page). Where neither tells, it is read as it was.
    Read the wrong way, a paragraph running on past a box was cut in two,
    its end read into another rule. ``across``: the page's text across it
    (``_asides`` found it to stack the boxes), whose lines nearest above and
    below the boxes bound the columns that run around them."""
    upper = max((ln.bottom for ln in across if ln.bottom <= boxes[0][0]), default=-math.inf)
    lower = min((ln.top for ln in across if ln.top >= boxes[-1][1]), default=math.inf)
    columns = sorted({ln.column for ln in lines if ln.column != ACROSS})
    if not {0, 1} <= set(columns):
        # not a page read in columns (boxes set abreast, cards, number
        # their own; a page in one column has only 0)
        return lines
    # the bands above, between and below the boxes; each column's lines in each
    bands = list(
        zip(
            [upper] + [bottom for _, bottom in boxes],
            [top for top, _ in boxes] + [lower],
            strict=True,
        )
    )
    parts = [
        [
            sorted(
                (
                    ln
                    for ln in lines
                    if ln.column == column and start <= ln.top and ln.bottom <= end
                ),
                key=lambda ln: ln.top,
            )
            for start, end in bands
        ]
        for column in columns
    ]
    wrap = [part for column in parts for part in column]
    span = [column[k] for k in range(len(bands)) for column in parts]

    def drawn_so(order: list[list[_Line]]) -> bool:
        text = [[ln for ln in part if not ln.zone] for part in order]
        return all(
            max(ln.drawn for ln in a) < min(ln.drawn for ln in b)
            for a, b in itertools.pairwise(part for part in text if part)
        )

    def misjoined(order: list[list[_Line]]) -> int:
        """Joins the text says no to: a line going on in lower case after a
        sentence's end, or a heading (a bold line after one that is not)
        right after a line ending mid-sentence. (A column's first and last
        lines count: only marked as maybe a header or a footer, they are
        mostly the text's.)"""
        order = [part for part in order if part]
        return sum(
            b[0].text[:1].islower() if _ends_sentence(a[-1].text) else b[0].bold and not a[-1].bold
            for a, b in itertools.pairwise(order)
        )

    if not (parts[0][0] and parts[0][1] and parts[1][0]):
        return lines
    # the text's joins where they tell the two apart, else the order drawn
    wrapped, spanned = misjoined(wrap), misjoined(span)
    if wrapped != spanned:
        order = wrap if wrapped < spanned else span
    elif drawn_so(wrap):
        order = wrap
    elif drawn_so(span):
        order = span
    else:
        return lines
    if order is wrap:
        page.runs_around += boxes
    # the columns' lines read in their order where the first of them stood
    # (every line before it is one not moved, so it stands as many lines
    # into the rest)
    moved = {id(ln) for part in wrap for ln in part}
    first = next(k for k, ln in enumerate(lines) if id(ln) in moved)
    rest = [ln for ln in lines if id(ln) not in moved]
    return rest[:first] + [ln for part in order for ln in part] + rest[first:]


def _narrow_measure(page: _Page) -> None:
    """Running text set narrower than the page with nothing beside it ends
    its lines at its own margin: measured against the page's, each line was
    a paragraph of its own (and, short and with no sentence's end, read as a
    table's row when quoted). A section in columns whose text fits its left
    column (Typst and LaTeX leave the right one empty on the page where it
    ends) is the case. A run of plain lines from one left edge, each under a
    line's space below the last and short of the page's measure, gets the
    margin they share (``wraps_at``): where three or more of them, and half
    of the run, end within two points of the run's longest (justified text;
    a list's short items or a ragged column do not line up so), that margin
    lies past a third of the measure, and nothing is set beside the run.
    Pages in columns, or wrapped beside a frame, are left alone."""
    text = [ln for ln in page.lines if not ln.zone]
    if len(text) < 3 or any(ln.column or ln.wraps_at for ln in text):
        return
    size = statistics.median(ln.size for ln in text)
    margin = min(ln.x0 for ln in text)
    measure = sorted(ln.x1 for ln in text)[int(len(text) * 0.9)] - margin
    runs: list[list[_Line]] = []
    for ln in text:
        # running text: words enough on the line, no leader dots to a tab
        # stop (a price list's entries end at one edge too)
        plain = not (ln.row or ln.bold or ln.size > 1.1 * size) and (
            len(ln.words) >= 4 and not _LEADERS.search(ln.text)
        )
        short = ln.x1 < margin + 0.85 * measure
        last = runs[-1][-1] if runs and runs[-1] else None
        if (
            plain
            and short
            and last is not None
            and abs(ln.x0 - last.x0) <= 12
            and 0 <= ln.top - last.bottom <= ln.bottom - ln.top
        ):
            runs[-1].append(ln)
        else:
            runs.append([ln] if plain and short else [])
    for run in runs:
        if len(run) < 3:
            continue
        edge = max(ln.x1 for ln in run)
        reaching = sum(1 for ln in run if ln.x1 >= edge - 2)
        top, bottom = run[0].top, run[-1].bottom
        if (
            reaching >= max(3, len(run) / 2)
            and edge - margin >= measure / 3
            and not any(x.x0 > edge and x.top < bottom and x.bottom > top for x in text)
        ):
            for ln in run:
                ln.wraps_at = edge
