"""OpenDocument text (.odt) files built in the tests with odfpy, the library the
reader uses: ``markdown_odt`` sets a Markdown file in Writer's own structure
(headings on the outline, notes in the Quotations style, lists, tables, the
front matter's title the document's Title property), as a writer who moved
their rules to LibreOffice would have them."""

from __future__ import annotations

import io
import re
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
    from markdown_it import MarkdownIt
    from odf.text import H, List, ListItem, P

    title = ""
    front = re.match(r"\A---\n(.*?)\n---\n", text, re.S)
    if front:
        found = re.search(r"^title:\s*(.+)$", front.group(1), re.M)
        title = found.group(1).strip() if found else ""
        text = text[front.end() :]

    def inline(tok: object) -> str:
        children = getattr(tok, "children", None) or []
        return "".join(
            " " if c.type in ("softbreak", "hardbreak") else c.content
            for c in children
            if c.type in ("text", "code_inline", "softbreak", "hardbreak")
        ).strip()

    def build(doc: Any) -> None:
        level = quote = item = 0
        rows: list[list[str]] | None = None
        for tok in MarkdownIt("commonmark").enable("table").parse(text):
            t = tok.type
            if t == "heading_open":
                level = int(tok.tag[1])
            elif t == "heading_close":
                level = 0
            elif t == "blockquote_open":
                quote += 1
            elif t == "blockquote_close":
                quote -= 1
            elif t == "list_item_open":
                item += 1
            elif t == "list_item_close":
                item -= 1
            elif t == "table_open":
                rows = []
            elif t == "tr_open" and rows is not None:
                rows.append([])
            elif t == "table_close" and rows is not None:
                doc.text.addElement(table(rows))
                rows = None
            elif t == "inline":
                words = inline(tok)
                if rows is not None:
                    rows[-1].append(words)
                elif level:
                    doc.text.addElement(H(outlinelevel=level, text=words))
                elif words and item:
                    listed, entry = List(), ListItem()
                    entry.addElement(P(text=words))
                    listed.addElement(entry)
                    doc.text.addElement(listed)
                elif words:
                    doc.text.addElement(
                        P(stylename="Quotations", text=words) if quote else P(text=words)
                    )

    return odt(build, title=title)
