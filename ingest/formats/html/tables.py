"""Tables read into rows of cells, as a browser lays them out.

``_table_rows`` gives each row's cells in order, a cell spanning rows
carried down into the rows under it and one spanning columns followed by
an empty cell for each more it spans (``_span``, ``_carry``), so each row's
cells stay under their headers when joined by " | ".

Trade-off: spans are capped (``MAX_SPAN``) so a typo cannot blow a row up;
a span of 0 ("to the end of the section") reads as 1.
"""

from __future__ import annotations

import re
from typing import Any

from ruleslawyer.ingest.formats.html.elements import _text

MAX_SPAN = 1000  # rows or columns one table cell may span


def _span(value: Any) -> int:
    """A rowspan or colspan as a count, read as browsers read it (its leading
    digits: "2px" is 2): 1 when missing, malformed or 0 (HTML's "to the end
    of the section", which no rulebook table seen uses), and capped so a typo
    cannot blow a row up."""
    digits = re.match(r"\s*(\d+)", str(value or ""))
    return min(max(int(digits.group(1)), 1), MAX_SPAN) if digits else 1


def _table_rows(table: Any) -> list[list[str]]:
    """The table's rows as cell texts, a cell that spans rows (``rowspan``) in
    every row it spans.

    A weapon table's category cell ("Rifles") spans the rows of its weapons;
    read only in its first row, the next rows lose their first column and
    every cell after it shifts left, so "Lever rifle | 18" no longer says
    it is a rifle or lines up with the header. A cell spanning columns is
    read once, where it starts, and leaves an empty cell in each other column
    it spans, so the cells after it stay under their headers ("Ember Thrower
    | | 3 | -2" under "Weapon | Range | Attacks | AP"; read once and closed
    up, 3 read as its Range). Empty, not its value repeated: a name spanning
    the Range column is no range, and a row across the whole table (a
    category's name) would read "Rifles | Rifles | Rifles". Those empty
    cells are left off the row's end, where nothing follows to shift. A row
    short of cells gets empty ones up to a cell spanning down into it. A
    span ends with its row group (``<thead>``, ``<tbody>``), as in a
    browser. Rows of a table inside a cell are its own (the cell's text
    holds them too).
    """
    # per row group (a nested table's are its own): column -> (text, rows left, width)
    carried: dict[int, dict[int, tuple[str, int, int]]] = {}
    rows: list[list[str]] = []
    for tr in table.find_all("tr"):
        spans = carried.setdefault(id(tr.parent), {})
        row: list[str] = []
        col = 0
        spanned = 0  # the empty cells at the row's end that a colspan left
        # the row's own cells, also those an old site wraps in a <div>
        for cell in (c for c in tr.find_all(["th", "td"]) if c.find_parent("tr") is tr):
            before = len(row)
            col = _carry(spans, row, col)
            spanned = 0 if len(row) > before else spanned
            text = _text(cell)
            width, height = _span(cell.get("colspan")), _span(cell.get("rowspan"))
            row.append(text)
            row.extend([""] * (width - 1))
            spanned = width - 1
            for inside in range(col + 1, col + width):  # overlapped by this cell: used up here
                if inside in spans:
                    over, left, wide = spans.pop(inside)
                    if left > 1:
                        spans[inside] = (over, left - 1, wide)
            if height > 1:
                spans[col] = (text, height - 1, width)
            col += width
        for start in sorted(spans):  # spans past the row's own cells
            if start >= col:
                row.extend([""] * (start - col))
                col = _carry(spans, row, start)
                spanned = 0
        rows.append(row[: len(row) - spanned])
    return rows


def _carry(spans: dict[int, tuple[str, int, int]], row: list[str], col: int) -> int:
    """Append the cells spanning down into ``col`` and the columns after it; the
    column after them."""
    while col in spans:
        text, left, width = spans.pop(col)
        row.append(text)
        if left > 1:
            spans[col] = (text, left - 1, width)
        col += width
    return col
