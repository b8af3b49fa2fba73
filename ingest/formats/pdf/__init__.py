"""PDF rulebooks, read from the text layer with pypdfium2 (PDFium, Apache/BSD).

PDFium gives every character with its font size, weight and box. From those:

1. **Lines**: characters split at PDFium's line breaks and wherever the
   baseline jumps (a hyphenated line end is one char, marked as a hyphen),
   but not at a superscript set against its word ("2" + "nd"). A line
   tracked wide ("M O V E M E N T"), where PDFium puts a space between
   every two letters, gets its spaces where its words part. A drop cap
   (a letter or two at twice the size of the lines beside it, level with
   the first) is glued to its word. A page turned by /Rotate is read in
   its own space.
   A line's size is that of its first run of characters in one size, and a
   short line whose tail drops to a markedly smaller size, after a head set
   larger than the body (or bold, with a tail of a few words), is two lines:
   a printed web page sets "[Edit]" links and anchors after its headings.
2. **Reading order**: a page whose lines sit in two side-by-side columns is
   read left column, then right column; a line across both (a title, a
   full-width table's row) divides the page, the columns above it first, and
   so does a heading after which the page goes back to one column. A page
   mostly in one column can hold a band of two (a word processor's section
   in columns), and two headings side by side atop the columns are two
   lines, not one; a heading on a bar drawn across both divides them too. A
   page of three or more columns is found by its gutters and read column
   by column (unless a table runs across them), and boxes drawn side by
   side (a grid of cards) a box at a time. Lines across the page keep
   margins of their own, apart from the left column's. Frames a word processor writes after the page's
   text (captions, text boxes), and a float a browser writes before it, go
   before the paragraph at or below where they sit (``_place_floats``), and text wrapped beside a frame or an image
   is measured against the margin it wraps at, not the page's
   (``_wrapped_beside_frames``). A box drawn across a page's columns (a
   designer's note, an optional rule at the page's foot) is read whole
   (``_asides``) and goes at the end of the section it falls in, so the
   columns' text reads on unbroken past it; a box whose first line is set
   apart from its text (bold, larger, another colour) is a section of its
   own, titled by that line, beside the one it sits in, unless other boxes
   share that title (a label: "Example"). A box holding a heading above
   the section in progress, or before the first heading (a chapter's
   opening panel), is read where it stands. A page whose right column is
   short (a chapter's last page) is in columns too, where both are set to
   one measure (``_short_right_column``).
3. **Page furniture** is dropped and counted: lines at the top or bottom of
   the page (its outer tenth, or its outermost line a little further in: a
   word processor sets its header inside an inch's margin) that repeat
   (digits aside) on many pages (running headers and
   footers; never lines that also repeat down their own page's body, a long
   table's rows), a browser's printed date, title and address (a page
   counter, "2/3", on every page; even a one-page print), bare page
   numbers, a table-of-contents page (lines ending in increasing page
   numbers), and a short cover page; so are lines whose
   every word lies in one of the page's links, standing as a block of their
   own (a printed web page's menus, link bars and "[Edit]" links, with a
   menu's label set over it: "Contents [hide]"), but not a
   cross-reference that finishes the sentence before it, a sentence made
   one link, a list of links a line of text introduces ("...: "), or text
   inside a link box taller than a line (a card linked as a block).
4. **Tables**: a run of lines set in the same columns (cells set apart by
   gaps of about an em) is rebuilt as one line per row, cells joined by
   " | " as the HTML and Markdown readers write them: a row of short cells
   across the middle of the page stays whole, and a cell that wraps, or is
   centred in a tall row, is joined back into its row (``_tables``). A
   rebuilt row is never a heading. A header row printed again at the top of
   the next page, where a table runs on, is dropped, and the end of a row
   broken over the page goes back on its row. A PDF that writes a row's
   cells one after another (LibreOffice: a cell whole, wrapped lines and
   all, before the next) has them put back on their line first
   (``_rejoin_rows``); a list's bullet set a tab from its text is no table;
   a word too wide for its cell, broken with no hyphen, is one word again
   where the book writes it so elsewhere.
5. **Headings** come from the document's own typography: the body size is
   the most common font size; a short line set larger than the body, or set
   entirely in bold at the body's left margin, or opening with a dotted
   number ("3.2 Movement"), is a heading; so is a smaller bold style that the
   document uses only as lines alone before body text, again and again (a
   browser prints an h5 at 0.83 of the body), or just twice where the
   document has no other heading but its title (a line in small capitals is
   measured by its capitals); and, in a book with no other headings, the
   text's own size and face marked only by colour or capitals used the
   same way. Heading styles (size, weight, capitals, another colour) are
   ranked into levels, bigger and heavier first. A style used
   once, on the first page, in the largest size, is the document's title.
   A heading too long for its column goes on in the same style on the next
   line, which has no number of its own: one heading. A line that is a
   heading only by its dotted number, right after a line that runs to the
   margin mid-sentence ("..., see rule" / "3.2 Charging. It may not..."),
   is that sentence's cross-reference, not a section. A dotted number goes
   under the number it extends when the two come out at one level ("2.2.1"
   under "2.2", set alike).
6. **Paragraphs**: a line that runs to the right margin continues on the
   next line; one that stops short (the end of a paragraph, a list item, a
   table row) ends its block, and so does space between lines half a line
   more than the book's usual after a sentence's end (a word processor's
   paragraph spacing), or text back at the margin after a list item. A list
   item's next line set under its text (a hanging indent) goes on with it. Words hyphenated at a line end are joined
   (also at a browser's printed soft hyphen, U+2010, which PDFium does not
   mark).

7. **Footnotes** (set under the page's text in a smaller size, each opening
   with its mark) go after the paragraph that cites them, as "[1] text",
   the mark in the paragraph written "[1]", as the other readers write them
   (``_footnotes``, ``_with_notes``); so do endnotes gathered on a page of
   their own, each after the first paragraph that cites it (``_endnotes``).

Every unit records the page it starts on. A PDF with no text layer (a scan)
or one that needs a password gets a one-line error saying so.

The stages are modules of this package, each with its own account:
``lines`` (1, and the line measures the others share), ``columns`` (2),
``furniture`` (3), ``tables`` (4), ``headings`` (5), ``paragraphs`` (6) and
``notes`` (7). This module runs them (``outline_of``), not strictly in
that order: notes are taken out before furniture is dropped, a narrow
column's measure is found after the tables, and headings, menus, the
cover and paragraphs are decided in one pass over the lines. It hands the
outline to ``ingest.outline``, which makes the units for every heading
reader alike. Their helpers keep a leading underscore: they are the
reader's own, shared between its stages, and nothing outside the package
uses them.

Trade-off: typography, not a trained layout model. It needs no model and
works on any PDF with a text layer, but a book that sets headings in the
body font with nothing but spacing to mark them gets plain paragraphs under
the nearest real heading.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Collection

from ruleslawyer.errors import RulebookError
from ruleslawyer.ingest.formats import Format, ReadRequest
from ruleslawyer.ingest.formats.pdf.columns import (
    _asides,
    _narrow_measure,
    _place_floats,
    _reading_order,
    _wrapped_beside_frames,
)
from ruleslawyer.ingest.formats.pdf.furniture import (
    _drop_furniture,
    _is_menu,
    _mark_zones,
    _menu_label,
)
from ruleslawyer.ingest.formats.pdf.headings import (
    _box_title,
    _heading_styles,
    _in_profile,
    _is_heading,
    _numbered_titles,
    _opens_paragraph,
    _runs_into,
    _wraps,
)
from ruleslawyer.ingest.formats.pdf.lines import (
    _WORD_TOKEN,
    RAISED_MARK,
    _body_size,
    _drop_caps,
    _ends_sentence,
    _Line,
    _margins,
    _mark_accents,
    _markers_drawn_apart,
    _open,
    _Page,
    _page_lines,
    _rejoin_cuts,
    _right_edges,
    _short,
    _style,
    _tracked_words,
)
from ruleslawyer.ingest.formats.pdf.notes import (
    _endnotes,
    _footnotes,
    _unclaimed_marks,
    _with_notes,
)
from ruleslawyer.ingest.formats.pdf.paragraphs import (
    _ends_paragraph,
    _join_lines,
    _leading,
)
from ruleslawyer.ingest.formats.pdf.tables import (
    _continued_row,
    _empty_first_cells,
    _ruled_tables,
    _tables,
)
from ruleslawyer.ingest.outline import Block, Outline, nest_by_number, split_number
from ruleslawyer.ingest.units import ParseResult, tidy_title


def sniff(head: bytes) -> bool:
    """The PDF signature at the start: proof enough to override a file's extension."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"%PDF-")


def outline_of(data: bytes, name: str) -> Outline:
    pdf = _open(data, name)
    outline = Outline()
    try:
        pages = [_page_lines(pdf[i], i + 1) for i in range(len(pdf))]
        title = (pdf.get_metadata_dict().get("Title") or "").strip()
    finally:
        pdf.close()
    outline.pages = len(pages)
    if not any(page.lines for page in pages):
        raise RulebookError(
            f"{name}: the PDF has no text layer (a scanned book?); "
            "run OCR on it first (e.g. ocrmypdf) and ingest the result"
        )
    blank = sum(1 for page in pages if not page.lines)
    if blank > max(1, len(pages) // 10):
        outline.warnings.append(f"{name}: {blank} of {len(pages)} pages have no text (scans?)")
    # The body size decides which cuts stand; the cuts hardly move it, and the
    # headings' measure (``_heading_styles``) is taken again after the tables.
    cut_body = _body_size(pages)
    _tracked_words(pages)
    for page in pages:
        _rejoin_cuts(page, cut_body)
        _drop_caps(page)
        _markers_drawn_apart(page)
        _reading_order(page)
        _mark_zones(page)
        _place_floats(page)
        _wrapped_beside_frames(page)
        _asides(page)
    notes: dict[int, list[tuple[str, str]]] = {}
    endnote_pages: set[int] = set()
    for n, page in enumerate(pages):
        tail = " ".join(ln.text for ln in pages[n - 1].lines[-8:]) if n else ""
        notes[page.number] = _footnotes(page, cut_body, tail)
        if notes[page.number] or not n:
            continue
        taken = Counter(mark for found in notes.values() for mark, _ in found)
        if found := _endnotes(page, cut_body, pages[:n], taken):
            notes[page.number] = found
            endnote_pages.add(page.number)
    _drop_furniture(pages, outline)
    # the document's words, for a word a narrow table cell broke without a hyphen
    vocabulary = Counter(
        w.lower() for page in pages for ln in page.lines for w in _WORD_TOKEN.findall(ln.text)
    )
    for page in pages:
        _ruled_tables(page)
        _tables(page, vocabulary)
        _narrow_measure(page)
    _mark_accents(pages)
    _numbered_titles(pages)
    body, levels, cover_styles, small_bold = _heading_styles(pages)
    # The document title: the largest line in a cover style, else the metadata's.
    on_cover = [ln for ln in pages[0].lines if _style(ln) in cover_styles]
    if on_cover:
        title_line = max(on_cover, key=lambda ln: ln.size).text
        outline.title = tidy_title(title_line.replace(RAISED_MARK, ""))
    outline.title = outline.title or title

    blocks: list[Block] = []
    para: list[_Line] = []

    def flush() -> None:
        nonlocal para
        if para:
            blocks.append(Block(_join_lines(para), 0, para[0].page))
        para = []

    leading = _leading(pages)
    # Boxes across the columns (``_asides``) read so far, each as its title
    # (or None) and its paragraphs; each goes at the end of the section it
    # falls in, so the text running past it reads on unbroken.
    boxes: list[tuple[Block | None, list[Block]]] = []
    flowing: set[int] = set()  # the lines of boxes read where they stand
    section = 0  # the level of the last heading read
    runs = _box_runs(pages)
    # A title boxes share ("Example", "Note") is a label, not a rule's name:
    # such a box is the text of the section it falls in.
    shared = Counter(_title_key(run[0]) for run in runs.values() if _box_title(run))
    labels = {title for title, n in shared.items() if n > 1}

    def place_boxes(level: int) -> None:
        for title, text in boxes:
            if title is not None:
                # a section beside the one it sits in, under the same parent
                blocks.append(dataclasses.replace(title, level=section or level))
            blocks.extend(text)
        boxes.clear()

    # the book's footnote and endnote marks: a line ending in one after a
    # sentence's end ends that sentence ("...face up.3"; not "see p.12")
    marks = frozenset(mark for found in notes.values() for mark, _ in found)
    first_heading_page = 0
    cover: list[_Line] = []
    kept: _Line | None = None  # the last line kept as text (since the last heading)
    table_head: _Line | None = None  # the first row of the table ``kept`` is in
    listed = False  # ``kept`` is a linked line kept as a list its text introduced
    head: _Line | None = None  # the heading line just read, if the last line was one
    for page in pages:
        margins = _margins(page)
        right = _right_edges(page)
        menu = False  # the line before was dropped as a menu
        for i, ln in enumerate(page.lines):
            if (run := runs.get(id(ln))) is not None:
                # A box holding one of the book's headings above the section
                # in progress (a chapter's opening panel: its title, an
                # introduction), or before the first heading (a cover's
                # panel), is the book's structure: read where it stands.
                if not section or any(
                    _is_heading(x, body, margins, small_bold)
                    and _style(x) in levels
                    and levels[_style(x)] < section
                    for x in run
                ):
                    flowing.update(id(x) for x in run)
                else:
                    boxes.append(_box_blocks(run, margins, right, leading, marks, labels))
            if ln.aside and id(ln) not in flowing:
                continue  # (read with its box)
            is_head = _is_heading(ln, body, margins, small_bold)
            if is_head and para and _runs_into(para[-1], ln, body, margins, right):
                is_head = False  # "..., see rule" / "3.2 Charging. It may not...": a sentence
            if is_head and _opens_paragraph(ln, body, margins, right):
                is_head = False  # "6.11 Each unit has a Movement Allowance (MA)" runs on
            if is_head and _in_profile(page.lines, i, body):
                is_head = False  # "Shots: 2" among "Range: 24 inches", "Damage: 1"
            if _style(ln) in cover_styles and is_head:
                outline.dropped["cover lines"] += 1
                continue
            if is_head and _style(ln) in levels:
                number, rest = split_number(ln.text)
                if head is not None and not number and _wraps(head, ln, page.lines):
                    # the second line of a heading too long for its column
                    last = blocks[-1]
                    blocks[-1] = Block(f"{last.text} {tidy_title(ln.text)}", last.level, last.page)
                    head = ln
                    continue
                flush()
                place_boxes(levels[_style(ln)])
                first_heading_page = first_heading_page or ln.page
                heading = f"{number} {tidy_title(rest)}" if number else tidy_title(ln.text)
                blocks.append(Block(heading, levels[_style(ln)], ln.page))
                section = levels[_style(ln)]
                kept = None
                head = ln
                continue
            head = None
            after = page.lines[i + 1] if i + 1 < len(page.lines) else None
            if after is not None and _is_heading(after, body, margins, small_bold):
                after = None  # a heading is a block of its own: nothing runs into it
            # The text a line may run on from: the paragraph it would join, or
            # the title block it would (no paragraph is open over a page break
            # unless mid-sentence).
            before = para[-1] if para else cover[-1] if cover and not first_heading_page else None
            # Links a line of text introduces ("has these special rules:")
            # are its list, and so is each linked line after them.
            listed = kept is not None and (kept.text.endswith(":") or (listed and kept.linked))
            menu = not listed and _is_menu(ln, None if menu else before, after, margins, right)
            if menu:
                outline.dropped["navigation links"] += 1
                if para and _menu_label(para[-1], ln):
                    para.pop()  # its label ("Contents [hide]", "Tools") goes with it
                    outline.dropped["navigation links"] += 1
                continue
            if not first_heading_page and ln.page == 1 and len(pages) > 3:
                cover.append(ln)
                kept = ln
                continue
            if ln.row and kept is not None and kept.row:
                # A table carried over a page break: a browser or a long-table
                # package prints its header row again at the top of the page.
                if table_head and ln.page != kept.page and ln.text == table_head.text:
                    outline.dropped["repeated table headers"] += 1
                    continue
                # and a row broken off at the foot of the page goes on under it
                if (
                    (ln.carried or kept.broken or (ln.head_row and not _empty_first_cells(blocks)))
                    and ln.page != kept.page
                    and blocks
                    and not para
                ):
                    joined = _continued_row(kept, ln)
                    if joined is not None and blocks[-1].text.endswith(kept.text):
                        last = blocks[-1]
                        text = last.text[: len(last.text) - len(kept.text)] + joined.text
                        blocks[-1] = Block(text, last.level, last.page)
                        kept = joined
                        continue
            else:
                table_head = ln if ln.row else None
            # a column's text run on around a box, the box between its lines
            past_box = bool(para) and any(
                para[-1].page == ln.page
                and para[-1].column == ln.column
                and para[-1].bottom <= top
                and bottom <= ln.top
                for top, bottom in page.runs_around
            )
            if para and _ends_paragraph(para, ln, margins, right, leading, marks, past_box):
                flush()
            para.append(ln)
            kept = ln
        # A paragraph continues over a page break only mid-sentence, from a
        # line that runs to the margin (not a caption or a table's last row).
        if para and (
            para[-1].row or _ends_sentence(para[-1].text, marks) or _short(para[-1], margins, right)
        ):
            flush()
    flush()
    place_boxes(1)
    # What comes before the first heading on page 1: a cover page, or a title
    # block above the first section (a web page's title and tagline). Kept
    # when it is long, or when the first section starts on page 1 too and the
    # text ends a sentence: a page's introduction, not a tagline or a credit.
    if cover:
        intro = first_heading_page == 1 and cover[-1].text.endswith((".", "!", "?"))
        if sum(len(ln.text.split()) for ln in cover) >= 40 or intro:
            blocks[:0] = [Block(" ".join(ln.text for ln in cover), 0, 1)]
        else:
            outline.dropped["cover lines"] += len(cover)
    outline.blocks = nest_by_number(
        [
            dataclasses.replace(b, text=_unclaimed_marks(b.text))
            for b in _with_notes(blocks, notes, endnote_pages)
        ]
    )
    return outline


def _box_runs(pages: list[_Page]) -> dict[int, list[_Line]]:
    """Each box's lines (``_asides``), by the id of its first line."""
    runs: dict[int, list[_Line]] = {}
    for page in pages:
        for aside, group in itertools.groupby(page.lines, key=lambda ln: ln.aside):
            if aside:
                lines = list(group)
                runs[id(lines[0])] = lines
    return runs


def _box_name(line: _Line) -> str:
    """A box's title line as its title: "Optional Rule" of "Optional Rule:"."""
    return line.text.replace(RAISED_MARK, "").rstrip(":")


def _title_key(line: _Line) -> str:
    """A box's title as boxes share it, case and spacing aside."""
    return " ".join(_box_name(line).lower().split())


def _box_blocks(
    box: list[_Line],
    margins: dict[int, float],
    right: dict[int, float],
    leading: float | None,
    marks: frozenset[str],
    labels: Collection[str] = (),
) -> tuple[Block | None, list[Block]]:
    """A box's title (a heading block, its level set where it is placed), if
    its first line is one (``_box_title``) and not one of the ``labels``
    several boxes share, and its paragraphs."""
    title = None
    if _box_title(box) and _title_key(box[0]) not in labels:
        title = Block(tidy_title(_box_name(box[0])), 1, box[0].page)
        box = box[1:]
    paragraphs: list[list[_Line]] = []
    for ln in box:
        if paragraphs and not _ends_paragraph(paragraphs[-1], ln, margins, right, leading, marks):
            paragraphs[-1].append(ln)
        else:
            paragraphs.append([ln])
    return title, [Block(_join_lines(p), 0, p[0].page) for p in paragraphs]


def read(data: bytes, request: ReadRequest) -> ParseResult:
    outline = outline_of(data, request.name)
    return request.units(outline, "pdf")


FORMAT = Format(
    name="pdf",
    extensions=(".pdf",),
    read=read,
    sniff=sniff,
    binary=True,
    priority=10,
    sniff_overrides_extension=True,
    label="PDF",
)
