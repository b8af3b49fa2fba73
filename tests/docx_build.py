"""Word (.docx) files built in the tests from their XML parts: no Word, no extra
library. ``markdown_docx`` sets a Markdown file in Word's own structure (heading
styles, quote style, tables, footnotes), as a writer who moved their rules to
Word would have them."""

from __future__ import annotations

import io
import zipfile
from typing import Any
from xml.sax.saxutils import escape

_NS = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:v="urn:schemas-microsoft-com:vml"'
)
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"


def para(
    text: str,
    style: str | None = None,
    footnote: int | None = None,
    *,
    bold: bool = False,
    size: float | None = None,
) -> str:
    """A paragraph of one run; ``bold`` and ``size`` (points) set by hand."""
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    look = ("<w:b/>" if bold else "") + (f'<w:sz w:val="{round(size * 2)}"/>' if size else "")
    run_props = f"<w:rPr>{look}</w:rPr>" if look else ""
    runs = f'<w:r>{run_props}<w:t xml:space="preserve">{escape(text)}</w:t></w:r>'
    if footnote is not None:
        runs += (
            '<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr>'
            f'<w:footnoteReference w:id="{footnote}"/></w:r>'
        )
    return f"<w:p>{props}{runs}</w:p>"


def table(rows: list[list[str]]) -> str:
    return (
        "<w:tbl>"
        + "".join(
            "<w:tr>" + "".join(f"<w:tc>{para(cell)}</w:tc>" for cell in row) + "</w:tr>"
            for row in rows
        )
        + "</w:tbl>"
    )


def style(sid: str, name: str, outline: int | None = None, based: str | None = None) -> str:
    """A paragraph style; ``outline`` is Word's outline level (0 = Heading 1)."""
    base = f'<w:basedOn w:val="{based}"/>' if based else ""
    level = f'<w:pPr><w:outlineLvl w:val="{outline}"/></w:pPr>' if outline is not None else ""
    return f'<w:style w:type="paragraph" w:styleId="{sid}"><w:name w:val="{name}"/>{base}{level}</w:style>'


# Word's built-in styles as Word defines them
STYLES = "".join(
    [
        style("Normal", "Normal"),
        style("Title", "Title", based="Normal"),
        style("Quote", "Quote", based="Normal"),
        style("ListParagraph", "List Paragraph", based="Normal"),
        *(style(f"Heading{n}", f"heading {n}", outline=n - 1, based="Normal") for n in range(1, 7)),
    ]
)


def docx(body: str, styles: str = STYLES, footnotes: dict[int, str] | None = None,
         title: str = "", numbering: str = "") -> bytes:  # fmt: skip
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
            'package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.'
            'openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
            '"application/xml"/><Override PartName="/word/document.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        )
        rels = f'<Relationship Id="rId1" Type="{_REL}/officeDocument" Target="word/document.xml"/>'
        if title:
            rels += (
                '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/'
                'relationships/metadata/core-properties" Target="docProps/core.xml"/>'
            )
            z.writestr(
                "docProps/core.xml",
                '<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/'
                'package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">'
                f"<dc:title>{escape(title)}</dc:title></cp:coreProperties>",
            )
        z.writestr(
            "_rels/.rels",
            f'<?xml version="1.0"?><Relationships xmlns="{_PKG_REL}">{rels}</Relationships>',
        )
        doc_rels = f'<Relationship Id="rId2" Type="{_REL}/styles" Target="styles.xml"/>'
        if footnotes:
            doc_rels += f'<Relationship Id="rId3" Type="{_REL}/footnotes" Target="footnotes.xml"/>'
            notes = "".join(
                f'<w:footnote w:id="{i}">{para(text)}</w:footnote>' for i, text in footnotes.items()
            )
            z.writestr(
                "word/footnotes.xml",
                f'<?xml version="1.0"?><w:footnotes {_NS}>{notes}</w:footnotes>',
            )
        if numbering:
            doc_rels += f'<Relationship Id="rId4" Type="{_REL}/numbering" Target="numbering.xml"/>'
            z.writestr(
                "word/numbering.xml",
                f'<?xml version="1.0"?><w:numbering {_NS}>{numbering}</w:numbering>',
            )
        z.writestr(
            "word/_rels/document.xml.rels",
            f'<?xml version="1.0"?><Relationships xmlns="{_PKG_REL}">{doc_rels}</Relationships>',
        )
        z.writestr("word/styles.xml", f'<?xml version="1.0"?><w:styles {_NS}>{styles}</w:styles>')
        z.writestr(
            "word/document.xml",
            f'<?xml version="1.0"?><w:document {_NS}><w:body>{body}</w:body></w:document>',
        )
    return out.getvalue()


def markdown_blocks(text: str) -> tuple[str, list[tuple[str, Any]]]:
    """A Markdown file as a word processor would hold it: its front matter's
    title, and its blocks in order: ("heading", (level, words)), ("quote",
    words), ("item", words), ("paragraph", words) or ("table", rows)."""
    import re

    from markdown_it import MarkdownIt

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

    blocks: list[tuple[str, Any]] = []
    level = 0
    quote = 0
    item = 0
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
            blocks.append(("table", rows))
            rows = None
        elif t == "inline":
            words = inline(tok)
            if rows is not None:
                rows[-1].append(words)
            elif level:
                blocks.append(("heading", (level, words)))
            elif words:
                blocks.append(("quote" if quote else "item" if item else "paragraph", words))
    return title, blocks


def markdown_docx(text: str) -> bytes:
    """A Markdown file set in Word: headings in Heading styles, notes in Quote,
    list items in List Paragraph, tables as tables; its front matter's title
    the document's Title property."""
    title, blocks = markdown_blocks(text)
    styles = {"quote": "Quote", "item": "ListParagraph", "paragraph": None}
    body: list[str] = []
    for kind, payload in blocks:
        if kind == "table":
            body.append(table(payload))
        elif kind == "heading":
            body.append(para(payload[1], f"Heading{payload[0]}"))
        else:
            body.append(para(payload, styles[kind]))
    return docx("".join(body), title=title)


def numbered_style(sid: str, name: str, outline: int, num_id: int, level: int) -> str:
    """A heading style tied to level ``level`` of list ``num_id``, as Word ties
    Heading 1-9 to a multilevel list."""
    return (
        f'<w:style w:type="paragraph" w:styleId="{sid}"><w:name w:val="{name}"/>'
        f'<w:pPr><w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>'
        f'<w:outlineLvl w:val="{outline}"/></w:pPr></w:style>'
    )


def multilevel_list(num_id: int, levels: list[tuple[str, str]]) -> str:
    """numbering.xml's parts for list ``num_id``: per level (format, level text)."""
    lvls = "".join(
        f'<w:lvl w:ilvl="{n}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/>'
        f'<w:lvlText w:val="{text}"/></w:lvl>'
        for n, (fmt, text) in enumerate(levels)
    )
    return (
        f'<w:abstractNum w:abstractNumId="{num_id}">{lvls}</w:abstractNum>'
        f'<w:num w:numId="{num_id}"><w:abstractNumId w:val="{num_id}"/></w:num>'
    )


# Word's styles for a table of contents, as Word defines them: the title's
# "TOC Heading" is based on Heading 1 but kept out of the outline (level 9).
TOC_STYLES = (
    '<w:style w:type="paragraph" w:styleId="TOCHeading"><w:name w:val="TOC Heading"/>'
    '<w:basedOn w:val="Heading1"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>'
    + style("TOC1", "toc 1", based="Normal")
    + style("TOC2", "toc 2", based="Normal")
)


def bookmarked_heading(text: str, level: int, bookmark: str) -> str:
    """A heading paragraph with the bookmark Word puts in it for its contents entry."""
    return (
        f'<w:p><w:pPr><w:pStyle w:val="Heading{level}"/></w:pPr>'
        f'<w:bookmarkStart w:id="0" w:name="{bookmark}"/><w:r><w:t>{escape(text)}</w:t></w:r>'
        '<w:bookmarkEnd w:id="0"/></w:p>'
    )


def contents_field(
    entries: list[tuple[str, str, int, str]], *, links: bool = True, control: bool = True,
    after_end: str = "",
) -> str:  # fmt: skip
    """A table of contents as Word writes it: a TOC field over one paragraph per
    entry (text, page, level, bookmark), each with a PAGEREF field for its page
    number; ``links`` as with its \\h switch (each entry a hyperlink to its
    heading's bookmark); ``control`` inside Word's "Table of Contents" content
    control with a "Contents" title; ``after_end`` text in the last entry's
    paragraph after the field ends."""

    def run(inner: str) -> str:
        return f"<w:r>{inner}</w:r>"

    def field(code: str) -> str:
        return (
            run('<w:fldChar w:fldCharType="begin"/>')
            + run(f'<w:instrText xml:space="preserve"> {code} </w:instrText>')
            + run('<w:fldChar w:fldCharType="separate"/>')
        )

    end = run('<w:fldChar w:fldCharType="end"/>')
    paragraphs = []
    for n, (text, page, level, bookmark) in enumerate(entries):
        entry = (
            run(f"<w:t>{escape(text)}</w:t>")
            + run("<w:tab/>")
            + field(f"PAGEREF {bookmark} \\h")
            + run(f"<w:t>{page}</w:t>")
            + end
        )
        if links:
            entry = f'<w:hyperlink w:anchor="{bookmark}" w:history="1">{entry}</w:hyperlink>'
        start = field('TOC \\o "1-3" \\h \\z \\u') if n == 0 else ""
        last = n == len(entries) - 1
        close = end + (run(f'<w:t xml:space="preserve">{escape(after_end)}</w:t>') if last else "")
        paragraphs.append(
            f'<w:p><w:pPr><w:pStyle w:val="TOC{level}"/></w:pPr>{start}{entry}'
            f"{close if last else ''}</w:p>"
        )
    body = "".join(paragraphs)
    if control:
        body = (
            '<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents"/>'
            "<w:docPartUnique/></w:docPartObj></w:sdtPr><w:sdtContent>"
            + para("Contents", "TOCHeading")
            + body
            + "</w:sdtContent></w:sdt>"
        )
    return body


def list_item(text: str, num_id: int, level: int = 0) -> str:
    """A paragraph on level ``level`` of list ``num_id``, as Word numbers one."""
    return (
        f'<w:p><w:pPr><w:pStyle w:val="ListParagraph"/><w:numPr><w:ilvl w:val="{level}"/>'
        f'<w:numId w:val="{num_id}"/></w:numPr></w:pPr>'
        f'<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r></w:p>'
    )


def broken_para(lines: list[str], style: str | None = None) -> str:
    """One paragraph whose lines are split by line breaks (Shift+Enter, ``w:br``)."""
    props = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
    runs = "<w:r><w:br/></w:r>".join(
        f'<w:r><w:t xml:space="preserve">{escape(line)}</w:t></w:r>' for line in lines
    )
    return f"<w:p>{props}{runs}</w:p>"


def text_box(paragraphs: str) -> str:
    """A run holding a text box as Word saves one: the newer drawing
    (``mc:Choice``) and the older VML shape (``mc:Fallback``), each with the
    same paragraphs."""
    content = f"<w:txbxContent>{paragraphs}</w:txbxContent>"
    return (
        '<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor>'
        '<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/'
        f'wordprocessingShape"><wps:wsp><wps:txbx>{content}</wps:txbx></wps:wsp>'
        "</a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback>"
        f'<w:pict><v:shape type="#_x0000_t202"><v:textbox>{content}</v:textbox></v:shape>'
        "</w:pict></mc:Fallback></mc:AlternateContent></w:r>"
    )
