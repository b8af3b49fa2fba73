"""OpenDocument text (.odt) files built in the tests with odfpy, the library the
reader uses: ``markdown_odt`` sets a Markdown file in Writer's own structure
(headings on the outline, notes in the Quotations style, lists, tables, the
front matter's title the document's Title property), as a writer who moved
their rules to LibreOffice would have them."""

from __future__ import annotations

import io
from typing import Any


def odt(build: Any, *, title: str = "", numbered: bool = False) -> bytes:
    """A document whose body ``build(doc)`` fills; ``numbered`` turns on Writer's
    heading numbering (1, 1.1, 1.1.1) for the first three outline levels."""
    from odf import dc
    from odf.opendocument import OpenDocumentText
    from odf.text import OutlineLevelStyle, OutlineStyle

    doc = OpenDocumentText()
    if title:
        doc.meta.addElement(dc.Title(text=title))
    if numbered:
        outline = OutlineStyle(name="Outline")
        for level in (1, 2, 3):
            outline.addElement(OutlineLevelStyle(level=level, numformat="1", displaylevels=level))
        doc.styles.addElement(outline)
    build(doc)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def table(rows: list[list[str]]) -> Any:
    from odf.table import Table, TableCell, TableColumn, TableRow
    from odf.text import P

    t = Table(name=f"T{id(rows)}")
    t.addElement(TableColumn(numbercolumnsrepeated=max(len(r) for r in rows)))
    for row in rows:
        tr = TableRow()
        for cell in row:
            tc = TableCell()
            tc.addElement(P(text=cell))
            tr.addElement(tc)
        t.addElement(tr)
    return t


def markdown_odt(text: str) -> bytes:
    """A Markdown file set in Writer (see the module)."""
    from docx_build import markdown_blocks
    from odf.text import H, List, ListItem, P

    title, blocks = markdown_blocks(text)

    def build(doc: Any) -> None:
        for kind, payload in blocks:
            if kind == "table":
                doc.text.addElement(table(payload))
            elif kind == "heading":
                doc.text.addElement(H(outlinelevel=payload[0], text=payload[1]))
            elif kind == "item":
                listed, entry = List(), ListItem()
                entry.addElement(P(text=payload))
                listed.addElement(entry)
                doc.text.addElement(listed)
            elif kind == "quote":
                doc.text.addElement(P(stylename="Quotations", text=payload))
            else:
                doc.text.addElement(P(text=payload))

    return odt(build, title=title)
