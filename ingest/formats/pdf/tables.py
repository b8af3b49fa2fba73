"""Stage 4 of the PDF reader: tables rebuilt as one "cell | cell" line per row.

Two readings, tried in this order:

- a table drawn with its cells' borders (``_ruled_tables``): a grid of two
  or more rows by two or more columns, each word in the cell its middle
  lies in; a cell spanning columns is followed by an empty cell for each
  more it spans;
- otherwise a run of lines set in the same columns, cells apart by gaps of
  about an em (``_tables``): a row of short cells across the middle of the
  page stays whole, and a wrapped or vertically centred cell is joined back
  into its row.

Across a page break, whichever reading found the table, ``outline_of``
drops a header row printed again and puts a broken row back together
(``_continued_row``, ``_empty_first_cells``).

The rows are written as the HTML and Markdown readers write theirs, so a
table reads the same whatever format the book came in, and the evidence
picker can quote a whole table. A rebuilt row is never a heading.

Trade-off: a borderless table whose cells wrap and are centred in a
browser's print, and a cell spanning rows (read in the row its middle
falls in), are still read approximately.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import math
from collections import Counter
from dataclasses import dataclass

from ruleslawyer.ingest.formats.pdf.lines import (
    _DOTTED_HEADING,
    _LIST_ITEM,
    _MARKER,
    _SOFT_BREAKS,
    _WORD_TOKEN,
    RULE_THICKNESS,
    _Line,
    _Page,
)
from ruleslawyer.ingest.outline import Block

_Rule = tuple[float, float, float, float]  # a drawn rule's box: x0, top, x1, bottom


def _ruled_tables(page: _Page) -> None:
    """Rebuild each table drawn with its cells' borders as one line per row,
    its cells joined by " | ", from the borders themselves.

    A browser prints a table's rows with their short cells centred in a row
    as tall as its longest cell, and writes that cell's lines after them,
    starting higher up; where several cells of a row wrap, no reading of the
    text's gaps puts every line back in its cell (``_tables`` reads tables
    drawn with no borders). The borders say it: a grid of horizontal and
    vertical rules, two or more rows by two or more columns, each cell the
    space between them. Each word goes to the cell its middle lies in; a
    cell spanning columns is followed by an empty cell for each extra column
    it spans, so the cells after it stay under their headers (as the HTML
    reader reads a colspan), and empty cells at a row's end are left off. A
    grid whose cells hold no text, or with text across its borders (a box
    drawn around a paragraph, a ruled form), is left to the other readings.
    """
    if len(page.rules) < 7:
        return
    tol = RULE_THICKNESS
    flat = [r for r in page.rules if r[3] - r[1] <= tol]
    upright = [r for r in page.rules if r[2] - r[0] <= tol and r not in flat]
    # rules that touch are one table's (``found[:len(flat)]`` the flat ones)
    found = flat + upright
    group = list(range(len(found)))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for i, j in itertools.combinations(range(len(found)), 2):
        a, b = found[i], found[j]
        if a[0] - tol <= b[2] and b[0] - tol <= a[2] and a[1] - tol <= b[3] and b[1] - tol <= a[3]:
            group[root(i)] = root(j)
    tables: dict[int, tuple[list[_Rule], list[_Rule]]] = {}
    for i, r in enumerate(found):
        tables.setdefault(root(i), ([], []))[i >= len(flat)].append(r)
    for table_flat, table_upright in tables.values():
        rows = _ruled_rows(page, table_flat, table_upright)
        if rows:
            first = min(page.lines.index(ln) for _, parts in rows for ln in parts)
            gone = {id(ln) for _, parts in rows for ln in parts}
            kept = [ln for ln in page.lines[:first] if id(ln) not in gone]
            rest = [ln for ln in page.lines[first:] if id(ln) not in gone]
            page.lines = [*kept, *(row for row, _ in rows), *rest]


def _ruled_rows(
    page: _Page, flat: list[_Rule], upright: list[_Rule]
) -> list[tuple[_Line, list[_Line]]]:
    """The rows of one grid of rules, its horizontal and its vertical ones (see
    ``_ruled_tables``): each row's line and the lines it was made of; none
    when the rules are no table of text."""
    tol = RULE_THICKNESS

    def levels(values: list[float]) -> list[float]:
        # rules within 3 points are one edge: a browser's separate borders
        # draw the table's and each cell's a border-spacing apart
        out: list[float] = []
        for v in sorted(values):
            if not out or v - out[-1] > 3.0:
                out.append(v)
        return out

    ruled = levels([(r[1] + r[3]) / 2 for r in flat])
    if not upright or len(ruled) < 2:
        return []
    # A row broken over a page has no border on the broken side: its cells'
    # sides run on to the page's foot (or from its head) past the last rule.
    ys = levels([*ruled, min(r[1] for r in upright), max(r[3] for r in upright)])
    xs = levels([(r[0] + r[2]) / 2 for r in upright])
    if len(ys) < 3 or len(xs) < 3:
        return []
    left, right, top, bottom = xs[0], xs[-1], ys[0], ys[-1]
    inside = [
        ln
        for ln in page.lines
        if left <= (ln.x0 + ln.x1) / 2 <= right and top <= (ln.top + ln.bottom) / 2 <= bottom
    ]
    if not inside or any(ln.x0 < left - 2 or ln.x1 > right + 2 or ln.row for ln in inside):
        return []
    # each row: the columns' edges that rules cross at its middle
    bands: list[tuple[float, float, list[float]]] = []
    for y0, y1 in itertools.pairwise(ys):
        mid = (y0 + y1) / 2
        edges = levels([(r[0] + r[2]) / 2 for r in upright if r[1] - tol <= mid <= r[3] + tol])
        if len(edges) >= 2:
            bands.append((y0, y1, edges))
    if len(bands) < 2:
        return []
    words: dict[tuple[int, int], list[str]] = {}
    parts: dict[int, list[_Line]] = {}
    opened: Counter[int] = Counter()  # a band's lines with words in its first and another cell
    hyphenated: set[tuple[int, int]] = set()  # cells whose last line broke at a hyphen
    titles: dict[int, list[_Line]] = {}  # a band's lines that stay lines
    for ln in sorted(inside, key=lambda ln: (ln.top, ln.x0)):
        mid = (ln.top + ln.bottom) / 2
        k = next((n for n, (y0, y1, _) in enumerate(bands) if y0 <= mid <= y1), None)
        if k is None:
            return []
        edges = bands[k][2]
        if len(edges) == 2 and ln.bold and len(xs) > 2:
            # a bold cell across the whole table: a card's name ("Ogre
            # Bruiser" over its stats), a line of its own as the reading by
            # gaps has it (a heading, where it is set as one), not a row
            titles.setdefault(k, []).append(ln)
            continue
        at = {bisect.bisect(edges, (w[0] + w[1]) / 2) - 1 for w in ln.words}
        if 0 in at and len(at) >= 2:
            opened[k] += 1
            if opened[k] >= 2:
                # two rows in one band: rules only around the table, or under
                # its header (LaTeX's), not between its rows; read by its gaps
                return []
        for x0, x1, text in ln.words:
            c = bisect.bisect(edges, (x0 + x1) / 2) - 1
            if not 0 <= c < len(edges) - 1 or x0 < edges[c] - 2 or x1 > edges[c + 1] + 2:
                return []  # a word across a border: no table of cells
            cell = words.setdefault((k, c), [])
            if (k, c) in hyphenated and cell:
                # a word broken at a hyphen at the cell's edge: joined, keeping
                # a printed compound's hyphen ("Two-" + "Handed"), as in text
                cell[-1] += text if text[:1].islower() else "-" + text
                hyphenated.discard((k, c))
            elif cell and cell[-1].endswith(_SOFT_BREAKS) and text[:1].islower():
                cell[-1] = cell[-1][:-1] + text
            else:
                cell.append(text)
        if ln.hyphen and ln.words:
            x0, x1, _ = ln.words[-1]
            hyphenated.add((k, bisect.bisect(edges, (x0 + x1) / 2) - 1))
        parts.setdefault(k, []).append(ln)
    if len(parts) < 2 or not any(
        sum(1 for c in range(len(xs)) if words.get((k, c))) >= 2 for k in parts
    ):
        return []  # no two rows, or no row of two cells: a box or a form, not a table
    at_head = not any(ln.bottom < top for ln in page.lines if ln not in inside)

    def band_words(k: int) -> list[str]:
        return [w for c in range(len(xs)) for w in words.get((k, c), [])]

    body = [k for k in range(len(bands)) if k in parts]
    out: list[tuple[_Line, list[_Line]]] = []
    for k, (y0, y1, edges) in enumerate(bands):
        for title in titles.get(k, []):
            # a card's name stands over the stats' header printed again (or
            # atop the table); a category row ("Pistols") is a row of it
            after = next((j for j in body if j > k), None)
            if k == 0 or (after is not None and band_words(after) == band_words(body[0])):
                out.append((title, [title]))
            else:
                across = (left, right, title.text)
                out.append(
                    (
                        dataclasses.replace(
                            title, row=True, cells=(across,), wide_gaps=0, halves=None, whole=None
                        ),
                        [title],
                    )
                )
        if k not in parts:
            continue
        cells: list[tuple[float, float, str]] = []
        for c, (x0, x1) in enumerate(itertools.pairwise(edges)):
            cells.append((x0, x1, " ".join(words.get((k, c), []))))
            # a cell spanning columns: an empty cell for each more it spans
            spans = sum(1 for x in xs if x0 + 1.5 < x < x1 - 1.5)
            cells += [(x1, x1, "")] * spans
        shown = [c[2] for c in cells]
        while len(shown) > 1 and not shown[-1]:
            shown.pop()  # (the cells stay, so a broken row's halves line up)
        lines = parts[k]
        out.append(
            (
                dataclasses.replace(
                    lines[0],
                    text=" | ".join(shown),
                    bold=all(m.bold for m in lines),
                    x0=min(m.x0 for m in lines),
                    x1=max(m.x1 for m in lines),
                    top=min(m.top for m in lines),
                    bottom=max(m.bottom for m in lines),
                    wide_gaps=len(cells) - 1,
                    cells=tuple(cells),
                    words=tuple(w for m in lines for w in m.words),
                    hyphen=False,
                    row=True,
                    halves=None,
                    whole=None,
                    # the rest of a row broken at the foot of the page before,
                    # which ``outline_of`` puts back on it: no rule above it;
                    # or (a word processor closes both halves) perhaps, the
                    # table's first row at the head of the page, under a
                    # header row printed again or none, its first cell empty
                    # (where the table leaves no other first cell empty: an
                    # empty category cell over "Rings item 4" is a row's);
                    # and a row so broken (no rule under it)
                    carried=y0 < ruled[0] - 1.5,
                    head_row=at_head and not cells[0][2] and all(r.bold for r, _ in out),
                    broken=y1 > ruled[-1] + 1.5,
                ),
                lines,
            )
        )
    return out


def _tables(page: _Page, vocabulary: Counter[str] | None = None) -> None:
    """Rebuild each table on the page as one line per row, its cells joined by " | ".

    PDFium gives a table as lines of text, and four things go wrong with
    them: a row wider than half the page is cut in two where it crosses the
    middle (``close_line`` splits lines that run across both columns, unless
    both sides are short cells); a cell that wraps puts its next line under
    the row, where it reads as a paragraph of its own ("Longbow 24\" 2 5
    Cannot be used after a", then "Move action in the same"); a browser
    centres a cell of two lines in its row, half above the row's line and
    half below; and two close columns ("Melee 2") run together. So:

    - a table starts at a line of three or more cells (set apart by gaps of
      about an em), its *columns*, and a plain line just above it with a
      word over every column and none across one is its header; or at two
      or more lines of two cells each, set in the same two columns (a row
      whose widest first cell leaves only a space before the second column
      is one of them: ``_tight_pair``);
    - it runs on while lines stay in the same page column and size, with no
      blank line's worth of space, and ends at a bold line under plain
      rows, a list item, a numbered heading, running text across the
      columns, or a line of cells in fewer than half the columns that
      continues no cell (a note, a category row);
    - the columns are split where the fewest cells, then words, cross,
      between the first row's cells, and at any wider gap no cell below
      crosses; each word goes to the column its middle lies in;
    - in each column, a line continues the cell above when it sits tight
      under it and the cell above ran so far right that the line's first
      word could not have followed it; cells whose heights overlap are one
      row.

    Fewer than two rows of two or more cells is no table, nor are rows that
    would hold two full lines of cells (the rows ran together), and the
    lines stay as they were.
    """
    lines = page.lines
    out: list[_Line] = []
    i = 0
    while i < len(lines):
        rows: list[_Line] = []  # none: running text, or too few rows, not a table
        if lines[i].row:  # a row of a table read from its borders
            out.append(lines[i])
            i += 1
            continue
        if lines[i].wide_gaps >= 2:
            first, end, rows = _table_at(lines, i, vocabulary=vocabulary)
            if sum(1 for r in rows if sum(1 for c in r.cells if c[2]) >= 2) < 2:
                rows = []
        elif (
            lines[i].wide_gaps == 1
            and not _marker_cell(lines[i])
            and (run := _aligned_pairs(lines, i)) >= i + 2
        ):
            first, end, rows = _table_at(lines[:run], i, header=False, vocabulary=vocabulary)
        if not rows:
            out.append(lines[i])
            i += 1
            continue
        del out[len(out) - (i - first) :]  # the header line above, now a row
        out.extend(rows)
        i = end
    page.lines = out


def _aligned_pairs(lines: list[_Line], start: int) -> int:
    """The end of a run of two-cell lines set as a table from ``lines[start]``:
    each line's cells start where the first line's do, or (numbers set
    flush right) end where they do. One gap alone could be chance; the same
    two columns on every line are not."""
    head = lines[start]
    (h0, _, _), (k0, k1, _) = head.cells
    right = k1
    end = start
    paired = start  # the end of the run's last two-cell line
    for ln in lines[start:]:
        if ln.page != head.page or ln.column != head.column:
            break
        if end > start and ln.top - lines[end - 1].bottom > 2.5 * head.size:
            break
        if ln.wide_gaps == 1:
            (a0, _, _), (b0, b1, _) = ln.cells
            if abs(a0 - h0) > head.size or min(abs(b0 - k0), abs(b1 - k1)) > head.size:
                break
            if _marker_cell(ln):
                break
        elif end > start and ln.wide_gaps == 0 and _wrapped_first_cell(ln, lines[end - 1], h0, k0):
            end += 1  # a row's first cell run on to the next line: the table goes on
            continue
        elif not (end > start and ln.wide_gaps == 0 and _tight_pair(ln, h0, k0, right)):
            break
        right = max(right, ln.x1)
        end += 1
        paired = end
    # (a first cell run on under the last row is not taken: it cannot be told
    # from a note set right under the table)
    return paired


def _broken_word(before: str, after: str, vocabulary: Counter[str] | None) -> bool:
    """Are ``before`` and ``after``, the end of one line of a cell and the start
    of the next, one word broken with no hyphen (see ``_table_at``)? The
    document's ``vocabulary`` counts its words as printed, so a part that is
    no word of it is there once: its own line's."""
    if not vocabulary or not before[-1:].isalpha() or not after[:1].islower():
        return False
    tail = _WORD_TOKEN.findall(before)
    head = _WORD_TOKEN.findall(after)
    if not tail or not head:
        return False
    a, b = tail[-1].lower(), head[0].lower()
    return vocabulary[a + b] > 0 and min(vocabulary[a], vocabulary[b]) <= 1


def _marker_cell(ln: _Line) -> bool:
    """Is the line's first cell only a list item's bullet or number ("•", "2.",
    "b)")? A word processor sets a list's text a tab after its marker, as far
    as a table's next cell: that is a list, not a table of two columns."""
    return bool(ln.cells) and bool(_MARKER.fullmatch(ln.cells[0][2]))


def _wrapped_first_cell(ln: _Line, above: _Line, h0: float, k0: float) -> bool:
    """Is ``ln`` the first cell of the row above run on to a line of its own (a
    two-column table whose first column wraps: "Each shard carried by one of
    your" / "models")? It starts where the first column does, ends before the
    second, sits tight under the line above, and that line's first cell ran
    so far right that ``ln``'s first word would not have fitted after it."""
    size = ln.size
    if not above.cells or not ln.words:
        return False
    first_right = above.cells[0][1] if above.wide_gaps else above.x1
    word = ln.words[0][1] - ln.words[0][0]
    return (
        abs(ln.x0 - h0) <= 0.25 * size
        and ln.x1 < k0 - 0.5 * size
        and ln.top - above.bottom < 0.5 * size
        and first_right + 0.3 * size + word > k0 - size
    )


def _tight_pair(ln: _Line, h0: float, k0: float, right: float) -> bool:
    """Is ``ln``, a line with no wide gap, a row of a two-column table whose
    columns start at ``h0`` and ``k0``? A browser sets a column just wide
    enough for its widest cell, so that cell's row has only the cell padding
    between its two cells, less than a wide gap. Such a row starts where the
    first column does, has a word that starts where the second column does
    (to a tenth of an em: a browser lines its columns up exactly, a line of
    prose has a word there only by chance), ends within the table's width
    and ends no sentence."""
    size = ln.size
    return (
        abs(ln.x0 - h0) <= 0.25 * size
        and any(abs(w[0] - k0) <= 0.1 * size for w in ln.words[1:])
        and ln.x1 <= right + size
        and not ln.text.endswith((".", ":", ";", ",", "!", "?"))
    )


@dataclass(eq=False)
class _Cell:
    """One table cell as found: a column's words over one or more lines."""

    top: float
    bottom: float
    right: float  # where its last line ends
    words: list[str]
    lines: list[_Line]
    hyphen: bool = False  # its last line ends at a line-break hyphen
    last_words: int = 0  # words on its last line


def _table_at(
    lines: list[_Line],
    start: int,
    *,
    header: bool = True,
    vocabulary: Counter[str] | None = None,
) -> tuple[int, int, list[_Line]]:
    """The table whose first row of cells is ``lines[start]``: its first line
    (the header above, if ``header`` and there is one), the line after it,
    and its rows (none if the lines are not a table after all).

    A word too wide for its column is broken where the cell ends, with no
    hyphen ("Cinderho" / "und"): the two parts are one word again when the
    document writes them as one elsewhere ("Cinderhound", in ``vocabulary``)
    and one part is no word of it ("und"); "Improve" / "guard" stay two."""
    head = lines[start]
    size = head.size
    bands, end = _bands(lines, start)
    splits = _column_splits(head, bands)
    # Justified running text in a narrow column has wide gaps too, but they do
    # not line up from one line to the next: its words cross the "columns".
    crossed = sum(
        1 for band in bands if any(w[0] < x < w[1] for ln in band for w in ln.words for x in splits)
    )
    if crossed * 3 > len(bands):
        return start, start + 1, []

    def column_of(x0: float, x1: float) -> int:
        return bisect.bisect(splits, (x0 + x1) / 2)

    ncols = len(splits) + 1
    # A header set with plain spaces just above: the same size, not a sentence,
    # a word over every column and none across a split.
    first = start
    above = lines[start - 1] if start else None
    if (
        header
        and above is not None
        and not above.row  # a row of a table read from its borders
        and above.page == head.page
        and above.column == head.column
        and abs(above.size - size) <= 0.1 * size
        and 0 <= head.top - above.bottom <= 2.5 * size
        and not above.text.endswith((".", ":", ";", ","))
        and {column_of(w[0], w[1]) for w in above.words} == set(range(ncols))
        and not any(w[0] < x < w[1] for w in above.words for x in splits)
    ):
        bands.insert(0, [above])
        first = start - 1
    # Where each column's text may run to: the next split, or for the last
    # column the widest line in it.
    words = [w for band in bands for ln in band for w in ln.words]
    last_words = [w[1] for w in words if column_of(w[0], w[1]) == ncols - 1]
    limit = [*splits, max(last_words, default=head.x1)]
    full = max(2, (ncols + 1) // 2)  # cells in this many columns make a full row

    # Cells: in each column, a line's words, joined with the lines under them
    # that continue them. A line continues the cell above if it sits tight
    # under it, the cell above ran so far right that the line's first word
    # could not have followed it there, and either the line is no full row
    # of its own (a dense table's next row is tight too) or the cell above
    # stands alone so far (the top of a cell centred in a tall row, whose
    # middle line shares the row's line).
    columns: dict[int, list[_Cell]] = {}
    band_of: dict[_Line, int] = {}  # line -> its band's number, for the check below
    full_bands: set[int] = set()

    def alone(cell: _Cell, k: int) -> bool:
        return not any(
            min(cell.bottom, c.bottom) - max(cell.top, c.top) > 0.2 * size
            for j, col in columns.items()
            if j != k
            for c in col
        )

    def continues(k: int, ws: list[tuple[float, float, str]], top: float) -> bool:
        # sits tight under the column's last cell, which ran so far right
        # that this line's first word could not have followed it there
        col = columns.get(k)
        last = col[-1] if col else None
        return (
            last is not None
            and top - last.bottom <= 0.6 * size
            and last.right + 0.25 * size + (min(ws)[1] - min(ws)[0]) > limit[k] - size
        )

    for n, band in enumerate(sorted(bands, key=lambda b: min(ln.top for ln in b))):
        by_col: dict[int, list[tuple[float, float, str]]] = {}
        for ln in band:
            band_of[ln] = n
            for w in ln.words:
                by_col.setdefault(column_of(w[0], w[1]), []).append(w)
        if len(by_col) >= full and 0 in by_col:  # (without a first cell: a row's cells wrapping)
            full_bands.add(n)
        top, bottom = min(ln.top for ln in band), max(ln.bottom for ln in band)

        # A line that leaves the first column empty and continues every cell it
        # has: two cells of a row wrapping at once. (One that starts a cell
        # anywhere is a row of its own with an empty first cell.)
        wrapping = 0 not in by_col and all(continues(k, ws, top) for k, ws in by_col.items())
        for k, ws in by_col.items():
            ws.sort(key=lambda w: w[0])
            col = columns.setdefault(k, [])
            last = col[-1] if col else None
            if (
                last is not None
                # a line of fewer cells than a row has, or a row's cells
                # wrapping at once, or the top of a cell centred in a tall row
                and (len(by_col) < full or wrapping or alone(last, k))
                and continues(k, ws, top)
            ):
                last.bottom = max(last.bottom, bottom)
                last.right = max(w[1] for w in ws)
                texts = [w[2] for w in ws]
                if last.hyphen and last.words:
                    # a word broken at a hyphen: joined, keeping a printed
                    # compound's hyphen ("Two-" + "Handed"), as in running text
                    part = texts.pop(0)
                    last.words[-1] += part if part[:1].islower() else "-" + part
                elif last.last_words == 1 and _broken_word(last.words[-1], texts[0], vocabulary):
                    # a word alone on its line, too wide for the cell: broken
                    last.words[-1] += texts.pop(0)
                last.words.extend(texts)
                last.lines.extend(band)
                last.hyphen = any(ln.hyphen and ln.x1 <= limit[k] for ln in band)
                last.last_words = len(ws)
            else:
                col.append(
                    _Cell(
                        top,
                        bottom,
                        max(w[1] for w in ws),
                        [w[2] for w in ws],
                        list(band),
                        # the line breaks at a hyphen in this column
                        any(ln.hyphen and ln.x1 <= limit[k] for ln in band),
                        len(ws),
                    )
                )
    # Rows: cells whose heights overlap, so a cell set higher or lower than
    # the rest of its row (centred in a tall row) still joins it.
    found = [(k, c) for k, col in columns.items() for c in col]
    groups = _overlapping([(c.top, c.bottom) for _, c in found], 0.2 * size)
    ordered = sorted(
        ([found[i] for i in g] for g in groups), key=lambda r: min(c.top for _, c in r)
    )
    rows: list[tuple[list[list[str]], list[_Line]]] = []  # (words by column, lines)
    used = len(ordered)
    carried = -1
    for n, row in enumerate(ordered):
        if n and len({k for k, _ in row}) < full:
            if (
                n == 1
                and first == 0
                and len(ordered) > 2
                and len({k for k, _ in ordered[2]}) >= full
                and all(k for k, _ in row)
            ):
                # Under a header row that opens the page, between it and a
                # full row, with its first cell empty (text there is a category
                # row): the end of a row the page before broke off (a word
                # processor lets a row break across pages), which
                # ``outline_of`` puts back on that row.
                carried = n
            else:
                # Text in fewer than half the columns that continues no cell: a
                # note, a heading, a category row or running text ends the table.
                used = n
                break
        by_column: list[list[str]] = [[] for _ in range(ncols)]
        parts: list[_Line] = []
        for k, c in sorted(row, key=lambda kc: kc[1].top):
            by_column[k].extend(c.words)
            parts.extend(m for m in c.lines if m not in parts)
        if len({band_of[m] for m in parts} & full_bands) > 1:
            # Two full lines of cells in one row: the cells ran together and
            # the rows cannot be told apart; better the lines as they were.
            return start, start + 1, []
        rows.append((by_column, parts))
    if used < len(ordered):
        # The table ends before the first line it did not take; a row holding
        # a line from after that point is given back with it.
        where = {ln: i for i, ln in enumerate(lines[first:end], start=first)}
        end = min(where[m] for row in ordered[used:] for _, c in row for m in c.lines)
        while rows and any(where[m] >= end for m in rows[-1][1]):
            rows.pop()
    out = [_row_line(head, by_column, parts, splits) for by_column, parts in rows]
    if 0 < carried < len(out):
        out[carried].carried = True
    return first, end, out


def _bands(lines: list[_Line], start: int) -> tuple[list[list[_Line]], int]:
    """The lines of the table starting at ``lines[start]``, grouped into bands
    of one height (a row cut at the middle of the page is two lines at the
    same height), and the index after the last.

    It ends at a page or column break, a blank line's worth of space, a line
    in another size, a bold line of one cell under plain rows (a heading),
    and a line of one cell that is running text across the columns, a list
    item or a numbered heading.
    """
    head = lines[start]
    size = head.size
    bands: list[list[_Line]] = []
    end = start
    for ln in lines[start:]:
        if ln.page != head.page or ln.column != head.column:
            break
        if abs(ln.size - size) > 0.1 * size:
            break
        same = next((b for b in bands[-3:] if abs(ln.top - b[0].top) <= 0.4 * size), None)
        if same is not None:
            same.append(ln)
        else:
            if bands and ln.top - max(m.bottom for m in bands[-1]) > 2.5 * size:
                # unless lines the PDF writes next fill the gap: a browser
                # centres a row's short cells in a tall row and writes a tall
                # cell's lines after them, starting higher up
                below = max(m.bottom for m in bands[-1])
                ahead = lines[end + 1 : end + 12]
                if not any(
                    m.page == head.page
                    and m.column == head.column
                    and abs(m.size - size) <= 0.1 * size
                    and below - 0.5 * size <= m.top < ln.top
                    for m in ahead
                ):
                    break
            one_cell = len(ln.cells) == 1
            if (
                one_cell
                and ln.bold
                and bands[1:]
                and not all(m.bold for band in bands[1:] for m in band)
            ):
                break
            spans = sum(1 for x0, x1, _ in head.cells if ln.x0 < x1 and ln.x1 > x0)
            # A two-cell table's lines were all checked by ``_aligned_pairs``:
            # one of them across both columns is a tight row (``_tight_pair``).
            across = spans >= 2 and len(head.cells) != 2
            if one_cell and (across or _LIST_ITEM.match(ln.text) or _DOTTED_HEADING.match(ln.text)):
                break
            bands.append([ln])
        end += 1
    return bands, end


def _column_splits(head: _Line, bands: list[list[_Line]]) -> list[float]:
    """Where the table's columns divide, as x positions.

    Between each pair of the first row's cells, the x that the fewest cells
    and then words cross (the river of white space between columns), and of
    those the rightmost: a wrapped cell's text runs past its header, while
    the next column's text starts where its header does. A cell set apart by
    wide gaps is kept whole where it can be ("1X, (max AP/2)" centred under
    its header), split by words where it cannot ("Melee 2": two close
    columns). And where a header cell lies over two columns ("Range Dice"
    set one space apart), a gap of half an em or more that no cell below the
    first row crosses, with no split in it yet, divides them too.
    """
    cells = [c for band in bands for ln in band for c in ln.cells]
    words = [w for band in bands for ln in band for w in ln.words]

    def crossing(x: float) -> tuple[int, int, float]:
        return (
            sum(1 for c in cells if c[0] < x < c[1]),
            sum(1 for w in words if w[0] < x < w[1]),
            -x,
        )

    splits = []
    for (_, left_end, _), (right_start, _, _) in itertools.pairwise(head.cells):
        xs = [left_end + (right_start - left_end) * t / 16 for t in range(1, 16)]
        if len(head.cells) == 2:
            # Just left of where the second column starts: a row whose widest
            # first cell leaves only a space before it (``_tight_pair``) has
            # its one gap there, narrower than the samples' spacing.
            xs.append(right_start - 0.25)
        # And every gap between two words of a row under this stretch, at its
        # middle and just after its left word: a browser's table sets its
        # cells a few points apart, a gap the samples step over ("Light
        # machine gun 36\"" was split "Light machine | gun 36\"" at the one
        # word gap a sample hit), and a gap may end past the next header's
        # start (a wide cell under a centred header, then a number set right
        # in the next column), where only its left end is in reach. (Not its
        # right end: a header wider than its column's cells starts there too,
        # and a split at it would cross the header.)
        xs += [
            x
            for band in bands
            for ln in band
            for a, b in itertools.pairwise(sorted(ln.words))
            for x in (a[1] + 0.1, (a[1] + b[0]) / 2)
            if left_end < x < right_start and a[1] + 0.1 < b[0]
        ]
        # A cell below starting between the two header cells starts the next
        # column: a word processor centres its header cells (Writer's "Table
        # Heading"), so the next column's text begins left of its header.
        starts = [
            c[0]
            for band in bands[1:]
            for ln in band
            for c in ln.cells
            if left_end < c[0] < right_start
        ]
        if starts:
            xs = [x for x in xs if x < min(starts)] or xs
        splits.append(min(xs, key=crossing))
    below = sorted((c[0], c[1]) for band in bands[1:] for ln in band for c in ln.cells)
    reach = -math.inf
    for x0, x1 in below:
        if (
            reach > -math.inf
            and x0 - reach >= 0.5 * head.size
            and not any(reach <= x <= x0 for x in splits)
        ):
            splits.append((reach + x0) / 2)
        reach = max(reach, x1)
    return sorted(splits)


def _overlapping(spans: list[tuple[float, float]], least: float) -> list[list[int]]:
    """Groups of the spans' indexes, joined where two overlap by more than
    ``least`` (and through each other: union-find)."""
    group = list(range(len(spans)))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for i, j in itertools.combinations(range(len(spans)), 2):
        (a0, a1), (b0, b1) = spans[i], spans[j]
        if min(a1, b1) - max(a0, b0) > least:
            group[root(i)] = root(j)
    out: dict[int, list[int]] = {}
    for i in range(len(spans)):
        out.setdefault(root(i), []).append(i)
    return list(out.values())


def _row_line(
    head: _Line, by_column: list[list[str]], parts: list[_Line], splits: list[float]
) -> _Line:
    """One rebuilt row: its cells' words joined, cells joined by " | "."""
    bounds = [-math.inf, *splits, math.inf]
    left, right = min(m.x0 for m in parts), max(m.x1 for m in parts)
    cells = tuple(
        (max(bounds[k], left), min(bounds[k + 1], right), " ".join(ws))
        for k, ws in enumerate(by_column)
    )
    return _Line(
        text=" | ".join(c[2] for c in cells),
        page=head.page,
        size=parts[0].size,
        bold=all(m.bold for m in parts),
        x0=left,
        x1=right,
        top=min(m.top for m in parts),
        bottom=max(m.bottom for m in parts),
        wide_gaps=len(cells) - 1,
        zone=parts[0].zone,
        column=head.column,
        cells=cells,
        row=True,
        drawn=min(m.drawn for m in parts),
    )


def _empty_first_cells(blocks: list[Block]) -> bool:
    """Does the table ending the last block leave a row's first cell empty
    (" | Rings item 2 | 10 gc" under its category's first row)?"""
    rows: list[str] = []
    for block in reversed(blocks):  # the table's rows, in one block or several
        lines = [ln for ln in block.text.split("\n") if " | " in ln]
        if not lines or block.level:
            break
        rows = lines + rows
    return any(ln.startswith(("| ", " | ")) for ln in rows[1:])


def _continued_row(row: _Line, rest: _Line) -> _Line | None:
    """``row`` with ``rest``, the end of it carried over to the next page, put
    back cell by cell ("Reduce the Heat track by 1, to a minimum of" + "1.");
    None when the two are not cut from one table (their columns differ)."""
    if len(row.cells) != len(rest.cells):
        return None
    cells = tuple(
        (a[0], a[1], f"{a[2]} {b[2]}".strip()) for a, b in zip(row.cells, rest.cells, strict=True)
    )
    return dataclasses.replace(
        row, cells=cells, text=" | ".join(c[2] for c in cells).rstrip(" |"), broken=False
    )
