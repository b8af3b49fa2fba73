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
   lines, not one. Lines across the page keep margins of their own, apart
   from the left column's. Frames a word processor writes after the page's
   text (captions, text boxes) go before the paragraph at or below where
   they sit (``_place_floats``), and text wrapped beside a frame or an image
   is measured against the margin it wraps at, not the page's
   (``_wrapped_beside_frames``).
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
   measured by its capitals). Heading styles (size, weight,
   capitals) are ranked into levels, bigger and heavier first. A style used
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

Trade-off: typography, not a trained layout model. It needs no model and
works on any PDF with a text layer, but a book that sets headings in the
body font with nothing but spacing to mark them gets plain paragraphs under
the nearest real heading.
"""

from __future__ import annotations

import bisect
import ctypes
import dataclasses
import itertools
import math
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ruleslawyer.errors import RulebookError
from ruleslawyer.ingest.formats import Format, ReadRequest, html
from ruleslawyer.ingest.outline import Block, Outline, build_units, nest_by_number, split_number
from ruleslawyer.ingest.typeset import HEADING_SIZE_RATIO
from ruleslawyer.ingest.units import ParseResult, tidy_title

BOLD_WEIGHT = 600
# A bold line alone at the margin is a heading down to this share of the body
# size. Not lower by size alone: a bold caption or "Example" label is set
# smaller.
BOLD_HEADING_SIZE = 0.95
# ...unless the document sets a smaller bold style as its headings throughout
# (``_small_bold_styles``): down to this share, and only for a style used at
# least this often, each time alone at the margin with body text after it.
SMALL_BOLD_SIZE = 0.8
SMALL_BOLD_REPEATS = 3  # 2 where the book has at most one other heading line
FURNITURE_ZONE = 0.1  # top and bottom share of the page height
EDGE_ZONE = 0.15  # how far in a page's outermost line may still be its header or footer
MARGIN_SHARE = 0.15  # of a column's lines that must start at its margin
CELL_GAP = 0.9  # ems between two characters that set them in different cells
_MAX_CELL_LINES = 8  # a table cell's lines a PDF may write before the next cell of its row
# Set before a digit or a note symbol raised and smaller against the letter
# before it: a note's mark ("hand1"), which ``_cites`` may take for one.
RAISED_MARK = "\u2063"  # INVISIBLE SEPARATOR, never in a rulebook's text
_MARK_SYMBOLS = "*\u2020\u2021\u00a7"
BREAK_GAP = 0.6  # ems: PDFium's line break before a character this close on its baseline is none
_LIST_ITEM = re.compile(r"^(?:\d{1,2}[.)]|\([a-z0-9]{1,3}\)|[a-z][.)]|[\u2022\u25aa\u2013*-])\s")
# a list item's marker alone: a bullet, "2.", "b)", "(iv)", "iii."
_MARKER = re.compile(
    r"[\u2022\u25aa\u25e6\u2023\u2043\u2013\u2014\u00b7*\-]|\(?(?:\d{1,3}|[a-z]|[ivxlc]{1,6})[.)]",
    re.I,
)
_PAGE_NUMBER = re.compile(
    r"^\W*(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:/|of)\s*\d{1,4})?\W*$", re.I
)
# "1/3", "Page 1 of 3" ending a margin line: a browser's page counter
_PAGE_COUNTER = re.compile(r"(?:^|\s)(?:page\s+)?(\d{1,4})\s*(?:/|of)\s*(\d{1,4})$", re.I)
_TOC_LINE = re.compile(r"^(.*?\D.*?)[\s.\u2026\u00b7]+(\d{1,4})$")
_BOLD_NAME = re.compile(r"(?i)bold|black|heavy|semibold|demi")
_FORCE_BOLD = 1 << 18  # PDF font descriptor flag ForceBold
_WORDS = re.compile(r"[^\W\d_]+")
_WORD_TOKEN = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")  # "model's" is one word
_SENTENCE_ON = re.compile(r"[.!?;,]\s+\w")  # a line that goes on past a sentence break
_LEADERS = re.compile(r"(?:\.\s?){3,}|\u2026")
# A drawn line this thick or thinner is a rule (a table's border, an underline)
RULE_THICKNESS = 2.0
_SOFT_BREAKS = ("\u2010", "\u00ad")  # a hyphen set at a break (U+2010), a soft hyphen
# "Shots: 2", "Save: 4+", "Range: 24 inches": a profile's line, its label in
# bold, whose value has a number (see ``_in_profile``)
_STAT_LINE = re.compile(r"^[^:\d]{1,40}:\s+\S*\d")
_NUMBERED_TITLE = re.compile(r"^(\d{1,2})\.\s+[A-Z]")
_DOTTED_HEADING = re.compile(r"^\d{1,3}(?:\.\d{1,3})+\.?\s+[A-Z\[]")
# One character as PDFium gives it: (char, size, weight, left, right, bottom,
# top, baseline); a space is (" ", 0.0, 0, box...).
_Char = tuple[str, float, int, float, float, float, float, float]


@dataclass(eq=False)  # a line is itself: compared and hashed by identity
class _Line:
    text: str
    page: int
    size: float
    bold: bool
    x0: float
    x1: float
    top: float  # distance from the top of the page (grows downwards)
    bottom: float
    hyphen: bool = False  # ends in a hyphen PDFium marked as a line-break hyphen
    wide_gaps: int = 0  # gaps of about an em or more between words: table cells
    zone: str = ""  # "top" | "bottom" | "" (furniture candidates)
    column: int = 0
    cells: tuple[tuple[float, float, str], ...] = ()  # (x0, x1, text) split at wide gaps
    words: tuple[tuple[float, float, str], ...] = ()  # (x0, x1, text) split at spaces
    row: bool = False  # a table row rebuilt by ``_tables``: cells joined by " | "
    whole: _Line | None = None  # the head of a line cut at a drop in size: the line uncut
    linked: bool = False  # every letter and digit lies in a link: a menu, an "[Edit]" link
    carried: bool = False  # a row's end the page before broke off (see ``_table_at``)
    broken: bool = False  # a row the page's foot broke off, its end on the next page
    numbered_title: bool = False  # "1. Introduction" set as a title (``_numbered_titles``)
    # a bordered table's first row at a page's head with its first cell
    # empty: the end of the row the page before broke off, unless empty
    # first cells are the table's own (``_ruled_rows``)
    head_row: bool = False
    edge: bool = False  # in ``zone`` only as its page's outermost line (see ``_mark_zones``)
    wraps_at: float = (
        0.0  # the right margin of text set beside a frame (``_wrapped_beside_frames``)
    )
    # A line of two short runs either side of the middle: the two lines it
    # is if the page is set in columns (see ``_reading_order``)
    halves: tuple[_Line, _Line] | None = None

    @property
    def caps(self) -> bool:
        letters = [c for c in self.text if c.isalpha()]
        return bool(letters) and all(c.isupper() for c in letters)


@dataclass
class _Page:
    number: int
    width: float
    height: float
    lines: list[_Line] = field(default_factory=list)
    # (x0, top, x1, bottom) of each image, then of each frame's text
    # (``_place_floats``): what the running text may wrap beside
    frames: list[tuple[float, float, float, float]] = field(default_factory=list)
    # (x0, top, x1, bottom) of each drawn shape larger than a rule: the box
    # a frame's text may sit in
    shapes: list[tuple[float, float, float, float]] = field(default_factory=list)
    # (x0, top, x1, bottom) of each rule drawn: a line two points thick or
    # less, a table's borders among them (``_ruled_tables``)
    rules: list[tuple[float, float, float, float]] = field(default_factory=list)


def sniff(head: bytes) -> bool:
    """The PDF signature at the start: proof enough to override a file's extension."""
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"%PDF-")


def _open(data: bytes, name: str) -> Any:
    import pypdfium2 as pdfium

    # The PDF spec lets a header sit anywhere in the first KB (readers allow it).
    if b"%PDF-" not in data[:1024]:
        raise RulebookError(f"{name}: not a PDF (it does not start with %PDF-)")
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as err:
        if getattr(err, "err_code", None) == 4 or "password" in str(err).lower():
            raise RulebookError(
                f"{name}: the PDF is encrypted with a password; "
                "save an unprotected copy and ingest that"
            ) from None
        raise RulebookError(
            f"{name}: not a readable PDF ({str(err).split('(')[-1].rstrip(').') or err}); "
            "is the file complete?"
        ) from None


def _page_lines(page: Any, number: int) -> _Page:
    import pypdfium2.raw as raw

    if page.get_rotation():
        # Read as set, not as shown: a page turned by /Rotate (a landscape
        # sheet, a page turned in a viewer) gives its size turned but its
        # characters in its own space, and at 180 degrees in reverse order.
        page.set_rotation(0)
    width, height = page.get_size()
    result = _Page(number, float(width), float(height))
    tp = page.get_textpage()
    n = tp.count_chars()
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    origin_x, origin_y = ctypes.c_double(), ctypes.c_double()
    chars: list[_Char] = []
    links = _link_rects(page)

    def close_line(hyphen: bool = False) -> None:
        nonlocal chars
        segments = _middle_split(chars, width)
        # Only where both sides are text: a contents entry's page number or a
        # table's last cell sits across the middle too, and stays on its line;
        # so does a table row wider than half the page (cells on both sides).
        # Short cells either side may also be two headings side by side in two
        # columns: the line keeps its ``halves`` for ``_reading_order``.
        if len(segments) > 1 and (_one_sided(segments) or all(_short_cells(g) for g in segments)):
            segments = [chars]
        for k, seg in enumerate(segments):
            if any(not c[0].isspace() for c in seg):
                pending.append((seg, hyphen and k == len(segments) - 1))
        chars = []

    pending: list[tuple[list[_Char], bool]] = []  # lines as read, before ``_rejoin_rows``

    def _add_line(seg: list[_Char], hyphen: bool) -> None:
        if not any(not c[0].isspace() for c in seg):
            return
        seg = _untracked(seg)
        if cut := _size_drop(seg):
            # A short line in one size with a smaller tail: perhaps a heading
            # and the page's link or note after it ("7 Spirits" + "[Edit |
            # History]"). Two lines; the head keeps the line uncut, which
            # ``_rejoin_cuts`` puts back once the body size shows the head is
            # no heading ("Example" + a smaller example; "10" + a small "pts").
            head = _make_line(seg[:cut], False)
            head.whole = _make_line(seg, hyphen)
            result.lines += [head, _make_line(seg[cut:], hyphen)]
            return
        line = _make_line(seg, hyphen)
        halves = _middle_split(seg, width)
        if len(halves) == 2 and not _one_sided(halves):
            line.halves = (_make_line(halves[0], False), _make_line(halves[1], hyphen))
        result.lines.append(line)

    def _make_line(seg: list[_Char], hyphen: bool) -> _Line:
        visible = [c for c in seg if not c[0].isspace()]
        text = " ".join("".join(c[0] for c in seg).split())
        bold = sum(1 for c in visible if c[2] >= BOLD_WEIGHT) >= 0.8 * len(visible)
        boxes = tuple(_box(cell) for cell in _cell_runs(seg))
        words: list[list[_Char]] = [[]]
        for c in seg:
            if c[0] == " ":
                words.append([])
            else:
                words[-1].append(c)
        word_boxes = tuple(_box(w) for w in words if w)
        # By each word's middle: a list's number ("1" in "1Introduction") is
        # set beside its link, and brackets and bars between links. Only a
        # link about a line high counts: a box around whole paragraphs (a
        # page made one link, a card a web page links as a block) is no menu.
        inked = [w for w in words if any(c[0].isalnum() for c in w)]
        line_high = 2.5 * max((c[1] for c in visible), default=0.0)
        boxes_here = [r for r in links if r[3] - r[1] <= line_high]
        linked = bool(inked and boxes_here) and all(
            any(
                x0 <= (w[0][3] + w[-1][4]) / 2 <= x1
                and y0 <= (min(c[5] for c in w) + max(c[6] for c in w)) / 2 <= y1
                for x0, y0, x1, y1 in boxes_here
            )
            for w in inked
        )
        return _Line(
            text=text,
            page=number,
            size=_leading_size(visible),
            bold=bold,
            x0=min(c[3] for c in visible),
            x1=max(c[4] for c in visible),
            top=min(height - c[6] for c in visible),
            bottom=max(height - c[5] for c in visible),
            hyphen=hyphen,
            wide_gaps=len(boxes) - 1,
            cells=boxes,
            words=word_boxes,
            linked=linked,
        )

    name_buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    weights_by_font: dict[tuple[bytes, int], int] = {}

    def weight_of(i: int) -> int:
        """PDFium's font weight, unless the font's name says bold: a font that
        declares no weight (a standard Helvetica-Bold is not embedded) and the
        subset fonts a browser embeds ("LiberationSerif-Bold" declared 415,
        its regular 340) are named for their weight. The bold flag decides
        for a font that declares none and whose name says nothing."""
        weight = int(raw.FPDFText_GetFontWeight(tp.raw, i))
        size = raw.FPDFText_GetFontInfo(tp.raw, i, name_buf, len(name_buf), ctypes.byref(flags))
        name = name_buf.raw[: max(0, size - 1)]
        key = (name, weight)
        if key not in weights_by_font:
            if _BOLD_NAME.search(name.decode("latin-1")):
                weights_by_font[key] = max(weight, 700)
            elif weight > 0:
                weights_by_font[key] = weight
            else:
                weights_by_font[key] = 700 if flags.value & _FORCE_BOLD else 400
        return weights_by_font[key]

    # PDFium's line breaks are its guess, and now and then it breaks between
    # every two letters of a line (a browser's page header on one page of
    # three: "f", "i", "l", "e"...). So a break is decided at the character
    # after it: one that goes on along the same baseline, no farther than a
    # wide space, continues the line (with a space where the gap is one).
    broken = False
    for i in range(n):
        code = raw.FPDFText_GetUnicode(tp.raw, i)
        ch = chr(code) if code else ""
        if raw.FPDFText_IsHyphen(tp.raw, i):
            broken = False
            close_line(hyphen=True)
            continue
        if ch in ("\r", "\n"):
            broken = True
            continue
        if not ch or code == 0xFFFE:
            continue
        raw.FPDFText_GetCharBox(tp.raw, i, left, right, bottom, top)
        raw.FPDFText_GetCharOrigin(tp.raw, i, origin_x, origin_y)
        box = (left.value, right.value, bottom.value, top.value, origin_y.value)
        if ch.isspace():
            if not broken:
                chars.append((" ", 0.0, 0, *box))
            continue
        size = float(raw.FPDFText_GetFontSize(tp.raw, i))
        weight = weight_of(i)
        prev = next((c for c in reversed(chars) if c[0] != " "), None)
        if broken:
            broken = False
            em = max(size, prev[1]) if prev is not None else size
            gap = box[0] - prev[4] if prev is not None else 0.0
            # A superscript (or the text after one) sits off the baseline
            # but right against its neighbour, in a smaller size: "2" + "nd",
            # "3 VP." + "1". Word sets every ordinal so. The text after a
            # footnote's mark goes on a space after it ("turn.3 Gold is").
            raised = (
                0.5 * em <= min(size, prev[1]) <= 0.9 * em  # not a drop cap
                # raised up to 0.6 em (Typst sets a footnote's mark so); a
                # new line is at least a line's spacing, about 1.2 em, away
                and abs(box[4] - prev[7]) <= 0.6 * em
                and -0.3 * em <= gap <= (BREAK_GAP if prev[1] < size else 0.3) * em
                if prev is not None
                else False
            )
            if (
                prev is None
                or (abs(box[4] - prev[7]) > 0.2 * em and not raised)
                or not -0.3 * em <= gap <= BREAK_GAP * em
            ):
                close_line()
                prev = None
            elif gap > 0.15 * em:
                chars.append((" ", 0.0, 0, prev[4], box[0], *box[2:]))
        # A new baseline without a line break from PDFium: a new line. (Glyph
        # boxes would not do: a quote mark's box sits well above the baseline.)
        # A smaller jump is one too when the text also runs back to the left:
        # a table cell's second line drawn after the rest of its row.
        if prev is not None and (
            abs(box[4] - prev[7]) > max(size, prev[1]) * 0.6
            or (abs(box[4] - prev[7]) > max(size, prev[1]) * 0.2 and box[0] < prev[3] - size)
        ):
            close_line()
        if (
            prev is not None
            and all(c[0] == " " or c is prev for c in chars)
            and (prev[0].isdigit() or prev[0] in _MARK_SYMBOLS)
            and prev[1] <= 0.8 * size
            and prev[7] - box[4] >= 0.2 * size
            and ch.isalpha()
        ):
            # A note's own mark raised before its text at the head of the
            # line ("1Range is always measured"): set apart, as a mark on
            # the baseline is, so the note is known by it (``_NOTE_MARK``)
            chars.append((" ", 0.0, 0, prev[4], box[0], *box[2:]))
        if (
            prev is not None
            and (prev[0].isalpha() or (prev[0].isdigit() and ch.isdigit()))
            and (ch.isdigit() or ch in _MARK_SYMBOLS)
            and size <= 0.8 * prev[1]
            and box[4] - prev[7] >= 0.2 * prev[1]
        ):
            # A note's mark raised against the word it follows ("hand1 of
            # five"): marked, so it can cite its note without the closing
            # punctuation a mark in plain text needs (``_cites``). After a
            # number too ("a range of 24 1 inches"): unmarked, it was read
            # into the number ("241 inches").
            chars.append((RAISED_MARK, prev[1], prev[2], *box))  # in its word's size
        chars.append((ch, size, weight, *box))
    close_line()
    tp.close()
    for image in page.get_objects(filter=(raw.FPDF_PAGEOBJ_IMAGE,)):
        x0, y0, x1, y1 = image.get_bounds()
        result.frames.append((x0, height - y1, x1, height - y0))
    for shape in page.get_objects(filter=(raw.FPDF_PAGEOBJ_PATH,)):
        x0, y0, x1, y1 = shape.get_bounds()
        if x1 - x0 > 20 and y1 - y0 > 10:
            result.shapes.append((x0, height - y1, x1, height - y0))
        elif min(x1 - x0, y1 - y0) <= RULE_THICKNESS and max(x1 - x0, y1 - y0) >= 4:
            result.rules.append((x0, height - y1, x1, height - y0))
    for seg, hyphen in _rejoin_rows(pending, width):
        _add_line(seg, hyphen)
    return result


def _rejoin_rows(
    segments: list[tuple[list[_Char], bool]], width: float
) -> list[tuple[list[_Char], bool]]:
    """Put a table row's cells back on one line where the PDF writes it cell by
    cell. LibreOffice writes each cell whole before the next, so a row whose
    first cell wraps comes out as "Each shard carried by one of your", "models",
    then "3": the "3" starts a line of its own after the wrapped cell, though it
    sits on the first line's baseline. A line is joined to an earlier one when
    it is on that line's baseline and to the right of it, and the few lines between them (at
    most ``_MAX_CELL_LINES``) are that cell's own: below it, within its left
    edge and the joined line's, each under the one before. A page set in two
    columns rarely qualifies: between a left column's line and the right
    column's line beside it come the rest of the left column or lines above;
    but where a column holds only a few lines, or the page is written row by
    row, they pass for a cell's, so on a page most of whose lines of running
    text sit in one half or the other (as ``_reading_order`` tells a page set
    in columns) nothing is joined across the middle, nor ever two lines of
    running text, nor a line that starts where running text ends (a note in
    the margin beside a paragraph).
    """
    out = list(segments)
    mid = width / 2
    inks = [[c for c in seg if c[0] != " "] for seg, _ in out]
    # lines of running text (six words or more): a table's cells are fewer
    prose = [
        (ink[0][3], max(c[4] for c in ink))
        for (seg, _), ink in zip(out, inks, strict=True)
        if len("".join(c[0] for c in seg).split()) >= 6
    ]
    # where running text ends: a line starting past it is in the margin (a note)
    text_right = sorted(x1 for _, x1 in prose)[(3 * len(prose)) // 4] if prose else width
    left = sum(1 for _, x1 in prose if x1 < mid + width * 0.02)
    right = sum(1 for x0, _ in prose if x0 > mid - width * 0.02)
    columns = (
        left >= 0.25 * len(prose)
        and right >= 0.25 * len(prose)
        and len(prose) - left - right <= 0.2 * len(prose)
    )
    i = 1
    while i < len(out):
        seg, hyphen = out[i]
        ink = inks[i]
        joined = False
        for j in range(i - 1, max(-1, i - 2 - _MAX_CELL_LINES), -1):
            earlier, earlier_hyphen = out[j]
            mark = inks[j]
            em = max(ink[0][1], mark[-1][1], 1.0)
            if abs(ink[0][7] - mark[-1][7]) > 0.2 * em:
                continue  # not on its baseline: look further back
            between = [c for k in range(j + 1, i) for c in inks[k]]
            # A cell's gap; a space's where the lines between are set in from
            # the earlier line's start, so that it holds the row's first cells
            # and the cell that wrapped (a word filling its cell leaves less
            # than a cell's gap before the next column).
            inset = bool(between) and min(c[3] for c in between) > mark[0][3] + em
            # the cell's own lines, if any: below it (PDF y grows upwards),
            # within its left edge and the joined line's, each right under
            # the one before
            baselines = [mark[-1][7], *(inks[k][-1][7] for k in range(j + 1, i))]
            if (
                ink[0][3] - mark[-1][4] > (0.3 if inset else CELL_GAP) * em
                and not earlier_hyphen
                and not (columns and mark[-1][4] <= mid <= ink[0][3])
                # two lines of running text side by side are two columns
                and not (_prose(earlier, mark, width) and _prose(seg, ink, width))
                and ink[0][3] < text_right - 0.5 * em
                and all(0 < a - b <= 2 * em for a, b in itertools.pairwise(baselines))
                and all(
                    mark[-1][7] - c[7] > 0.5 * em and c[3] >= mark[0][3] - em and c[4] < ink[0][3]
                    for c in between
                )
            ):
                gap = (" ", 0.0, 0, mark[-1][4], ink[0][3], *ink[0][5:])
                out[j] = ([*earlier, gap, *seg], hyphen)
                inks[j] = [*mark, *ink]
                del out[i], inks[i]
                joined = True
            break
        if not joined:
            i += 1
    return out


def _prose(seg: list[_Char], ink: list[_Char], width: float) -> bool:
    """A line of running text: six words or more over a quarter of the page."""
    return len("".join(c[0] for c in seg).split()) >= 6 and ink[-1][4] - ink[0][3] > width / 4


def _untracked(seg: list[_Char]) -> list[_Char]:
    """A letter-spaced line ("M O V E M E N T  P H A S E": a display heading
    tracked wide, where PDFium puts a space between every two letters) with
    its spaces where its words part: gaps wider than the letters' own by a
    space's width. Any other line is returned as it is."""
    visible = [c for c in seg if c[0] != " "]
    words = "".join(c[0] for c in seg).split()
    # every "word" one character, most of them letters (a dice row "1 2 3 4 5
    # 6" is spaced, not tracked; a stat line "M WS BS S T" has longer words)
    letters = sum(1 for w in words if w.isalpha())
    if len(words) < 4 or not all(len(w) == 1 for w in words) or letters < 0.6 * len(words):
        return seg
    gaps = [b[3] - a[4] for a, b in itertools.pairwise(visible)]
    letter = statistics.median(gaps)
    if letter > 0.6 * statistics.median(c[1] for c in visible):
        return seg  # letters an em or so apart: a table's one-letter cells
    breaks = [
        gap > letter + 0.2 * max(c[1], p[1], 1.0)
        for (p, c), gap in zip(itertools.pairwise(visible), gaps, strict=True)
    ]
    if not any(breaks):
        # no gap wider than the rest: letters spaced one space apart ("a b c
        # d", a list of options), or one tracked word ("C O M B A T"): left
        # as set here, and joined by ``_tracked_words`` if the book uses the word
        return seg
    out: list[_Char] = [visible[0]]
    for (prev, c), wide in zip(itertools.pairwise(visible), breaks, strict=True):
        if wide:
            out.append((" ", 0.0, 0, prev[4], c[3], *c[5:]))
        out.append(c)
    return out


def _tracked_words(pages: list[_Page]) -> None:
    """A line of single letters with no wider gap between them is one tracked
    word ("C O M B A T") when the book uses that word elsewhere ("combat"), and
    letters spaced as letters ("a b c d") otherwise."""
    lines = [ln for page in pages for ln in page.lines]
    spaced = [ln for ln in lines if len(ln.text) >= 7 and all(len(w) == 1 for w in ln.text.split())]
    if not spaced:
        return
    vocab = {w.lower() for ln in lines for w in _WORDS.findall(ln.text) if len(w) > 1}
    for ln in spaced:
        word = "".join(ln.text.split())
        if word.isalpha() and word.lower() in vocab:
            ln.text = word


def _drop_caps(page: _Page) -> None:
    """Glue each drop cap to the line it opens: a letter or two set at least
    twice the size of the line beside it, whose first line starts just right
    of it, level with its top ("T" + "he game is played..."). It was a heading
    of its own (the largest type in the book), or its word lost a letter.
    A glossary's letter dividers have their entries below them, not beside."""
    caps = [
        ln
        for ln in page.lines
        if 1 <= len(ln.text.strip("\"'\u201c\u2018")) <= 2 and any(c.isalpha() for c in ln.text)
    ]
    for cap in caps:
        beside = [
            ln
            for ln in page.lines
            if ln is not cap
            and cap.size >= 2 * ln.size
            and cap.x1 - 1 <= ln.x0 <= cap.x1 + 2 * ln.size
            and cap.top - ln.size <= ln.top <= cap.bottom
            and ln.text[:1].isalpha()
        ]
        if beside:
            first = min(beside, key=lambda ln: ln.top)
            word = (first.text.split() or [""])[0]
            # "A" + "player who..." is two words: a letter that is a word
            # alone is kept apart where the page uses the rest as a word
            # and never the two glued ("Actions" is one: "A" + "ctions").
            vocab = {
                w.lower() for ln in page.lines if ln is not cap for w in _WORDS.findall(ln.text)
            }
            apart = (
                # a capital word after it is a word of its own: a setup key's
                # "B" beside "Shuffle the deck", an icon beside its power
                (word[:1].isupper() and not word.isupper())
                or (
                    cap.text.strip().upper() in ("A", "I", "O")
                    and word.lower() in vocab
                    and (cap.text.strip() + word).lower() not in vocab
                )
            )
            first.text = cap.text.strip() + (" " if apart else "") + first.text
            page.lines.remove(cap)


def _link_rects(page: Any) -> list[tuple[float, float, float, float]]:
    """The boxes (left, bottom, right, top) of the page's link annotations."""
    import pypdfium2.raw as raw

    rects = []
    pos, link, rect = ctypes.c_int(0), raw.FPDF_LINK(), raw.FS_RECTF()
    while raw.FPDFLink_Enumerate(page.raw, ctypes.byref(pos), ctypes.byref(link)):
        if raw.FPDFLink_GetAnnotRect(link, ctypes.byref(rect)):
            x0, x1 = sorted((rect.left, rect.right))
            y0, y1 = sorted((rect.bottom, rect.top))
            rects.append((x0, y0, x1, y1))
    return rects


def _leading_size(ink: list[_Char]) -> float:
    """The size a line is set in: that of its first run of three characters in
    one size, since a heading starts its line ("7 Spirits" before a smaller
    "[Edit]" link, "Charge" before a small "p. 12"); a drop cap is one
    character. The median when no run is that long. A line in small capitals
    (each word's capital in the text's size, its other letters as smaller
    capitals, 0.6-0.9 of it) is set in its capitals' size: its run of three
    is the small letters' ("Actions" read as a 10 pt line beside 14.7 pt text,
    and the heading was missed)."""
    sizes = {round(c[1], 1) for c in ink if c[0].isalpha()}
    if len(sizes) == 2:  # (cheap first: most lines are in one size)
        initial = {
            id(b)
            for a, b in zip([None, *ink], ink, strict=False)
            if b[0].isalpha() and (a is None or not a[0].isalpha())
        }
        big = {round(c[1], 1) for c in ink if id(c) in initial}
        small = {round(c[1], 1) for c in ink if c[0].isalpha() and id(c) not in initial}
        capitals = all(c[0].isupper() for c in ink if id(c) in initial)
        if capitals and len(big) == 1 and len(small) == 1 and 0.6 <= min(small) / max(big) <= 0.9:
            return max(big)
    run = 0
    for a, b in itertools.pairwise(ink):
        run = run + 1 if abs(a[1] - b[1]) < 0.25 else 0
        if run >= 2:
            return a[1]
    return statistics.median(c[1] for c in ink)


def _size_drop(seg: list[_Char]) -> int:
    """Where a line set in one size drops to a smaller one for good: the index
    of the tail's first character, or 0. Only for a short head (at most 12
    words, all in its size) and a tail of three or more characters at most
    1/1.15 of it (a footnote mark is no tail)."""
    ink = [i for i, c in enumerate(seg) if c[0] != " "]
    if len(ink) < 6:
        return 0
    lead = _leading_size([seg[i] for i in ink])
    k = len(ink)
    while k > 0 and seg[ink[k - 1]][1] * HEADING_SIZE_RATIO <= lead:
        k -= 1
    if len(ink) - k < 3 or k < 3:
        return 0
    head = [seg[i] for i in ink[:k]]
    if any(abs(c[1] - lead) >= 0.25 for c in head):
        return 0
    first, before = seg[ink[k]], seg[ink[k - 1]]
    if seg[ink[k] - 1][0] != " " and first[3] - before[4] < 0.15 * lead:
        return 0  # inside a word: small capitals ("E" + "NGAGED"), not a tail
    if len("".join(c[0] for c in seg[: ink[k]]).split()) > 12:
        return 0
    return ink[k]


def _markers_drawn_apart(page: _Page) -> None:
    """A list's markers that the PDF writes apart from their items go back
    before them. WeasyPrint draws a page's bullets and "a)" labels after all
    its text, so each came out as a line of its own after the list ("•",
    "•"), or run together ("a) b) c)") ahead of items merged into one. A
    line that is only a marker joins the line to its right whose height it
    sits in (a gap of up to three of its ems), as the marker's own cell, the
    way a word processor sets one a tab before its text."""
    markers = [ln for ln in page.lines if _MARKER.fullmatch(ln.text)]
    if not markers:
        return
    gone: set[int] = set()
    for mark in markers:
        middle = (mark.top + mark.bottom) / 2
        items = [
            ln
            for ln in page.lines
            if id(ln) not in gone
            and ln is not mark
            and not _MARKER.fullmatch(ln.text)
            and not _LIST_ITEM.match(ln.text)
            and ln.top <= middle <= ln.bottom
            and mark.x1 < ln.x0 <= mark.x1 + 3 * max(mark.size, ln.size)
        ]
        if len(items) != 1:
            continue
        item = items[0]

        # a marker centred on an item of several lines (a table cell's or a
        # flex box's default) sits beside a line under another of its item's:
        # an item's first line has above it text set elsewhere (a lead-in at
        # the margin), the last line of the item before (a sentence's end, or
        # short of the measure), or an item with its own marker
        def opens_item(line: _Line) -> bool:
            above = next(
                (
                    ln
                    for ln in page.lines
                    if abs(ln.x0 - line.x0) <= 2 and 0 <= line.top - ln.bottom < 0.5 * line.size
                ),
                None,
            )
            return (
                above is None
                # the end of the item before: a sentence's end, or short of the measure
                or above.text.endswith((".", ":", ";", "!", "?"))
                or above.x1 < max(above.x1, line.x1) - 0.15 * (max(above.x1, line.x1) - line.x0)
                or any(
                    m.x1 < above.x0 and above.top <= (m.top + m.bottom) / 2 <= above.bottom
                    for m in markers
                )
            )

        if not opens_item(item):
            continue
        k = page.lines.index(item)
        page.lines[k] = dataclasses.replace(
            item,
            text=f"{mark.text} {item.text}",
            x0=mark.x0,
            cells=((mark.x0, mark.x1, mark.text), *item.cells),
            words=(*mark.words, *item.words),
            wide_gaps=item.wide_gaps + 1,
        )
        gone.add(id(mark))
    page.lines = [ln for ln in page.lines if id(ln) not in gone]


def _rejoin_cuts(page: _Page, body: float) -> None:
    """Undo a cut at a drop in size unless the head looks like a heading: set
    larger than the body, or in bold with a tail of a few words after it
    ("7 Spirits" or a bold "Fallen Lanterns", then "[Edit | History]"). A
    body-size label with a smaller sentence after it ("Example" + the
    example), or "10" and a small "pts", is one line of text."""
    out: list[_Line] = []
    for ln in page.lines:
        whole = out[-1].whole if out else None
        if whole is not None:  # ``ln`` is the tail: it always follows its head
            head = out[-1]
            head.whole = None
            if head.size < body * HEADING_SIZE_RATIO and not (head.bold and len(ln.words) <= 4):
                out[-1] = whole
                continue
        out.append(ln)
    page.lines = out


def _cell_runs(chars: list[_Char]) -> list[list[_Char]]:
    """The characters in cells: runs set apart by a gap of about an em or more
    (``CELL_GAP``); a space stays with the run it follows, and a run of
    spaces alone is no cell."""
    runs: list[list[_Char]] = [[]]
    prev = None
    for c in chars:
        if c[0] != " ":
            if prev is not None and c[3] - prev[4] > CELL_GAP * max(c[1], prev[1], 1.0):
                runs.append([])
            prev = c
        runs[-1].append(c)
    return [run for run in runs if any(c[0] != " " for c in run)]


def _middle_split(chars: list[_Char], width: float) -> list[list[_Char]]:
    """A row written across both columns at once is two lines: the characters
    split where a gap much wider than a space crosses the middle of the page."""
    mid = width / 2
    segments: list[list[_Char]] = [[]]
    last = None
    for c in chars:
        if c[0] != " " and last is not None:
            gap = c[3] - last[4]
            if gap > 2.5 * max(c[1], last[1], 1.0) and last[4] <= mid <= c[3]:
                segments.append([])
        segments[-1].append(c)
        if c[0] != " ":
            last = c
    return segments


def _one_sided(segments: list[list[_Char]]) -> bool:
    """A side of a split line too short to be text of its own (a page number)."""
    return any(
        len("".join(c[0] for c in g).split()) < 2 or sum(c[0] != " " for c in g) < 6
        for g in segments
    )


def _short_cells(chars: list[_Char]) -> bool:
    """Cells of a table row: two or more runs set an em or so apart, none longer
    than four words (a justified line of running text can have one wide gap,
    but then long runs of words either side of it)."""
    runs = [[c for c in run if c[0] != " "] for run in _cell_runs(chars)]
    if len(runs) < 2:
        return False
    words = [
        sum(1 for a, b in itertools.pairwise(run) if b[3] - a[4] > 0.15 * max(a[1], 1.0)) + 1
        for run in runs
    ]
    return max(words) <= 4


def _box(
    chars: list[_Char],
) -> tuple[float, float, str]:
    """(x0, x1, text) of a run of characters, spaces aside."""
    ink = [c for c in chars if c[0] != " "]
    return (
        min(c[3] for c in ink),
        max(c[4] for c in ink),
        " ".join("".join(c[0] for c in chars).split()),
    )


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
    a_words = tuple(w for w in ln.words if w[1] <= a1 + 0.5)
    b_words = tuple(w for w in ln.words if w[0] >= b0 - 0.5)
    if len(a_words) + len(b_words) != len(ln.words):
        return None
    a = dataclasses.replace(
        ln,
        text=a_text,
        x0=a0,
        x1=a1,
        cells=(ln.cells[0],),
        words=a_words,
        wide_gaps=0,
        hyphen=False,
        halves=None,
    )
    b = dataclasses.replace(
        ln,
        text=b_text,
        x0=b0,
        x1=b1,
        cells=(ln.cells[1],),
        words=b_words,
        wide_gaps=0,
        halves=None,
    )
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
    # Lines above, below and between bands of columns on a page otherwise in
    # one column are read as PDFium gives them, as they are on such a page.
    across: list[_Line] = []
    bands: list[tuple[float, float]] = []
    if not _in_columns(lines, left, right, spanning):
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
    for ln in list(left):
        under = [x for x in lines if x.top > ln.bottom]
        nearest = min(under, key=lambda x: x.top) if under else None
        if (
            (
                ln.size >= 1.2 * size
                or (ln.bold and ln.size >= 0.95 * size and _columns_restart(ln, left, right))
            )
            and ln.x0 <= margin + 3
            and not any(r.top <= ln.bottom + 2 and r.bottom >= ln.top - 2 for r in right)
            and any(r.bottom < ln.top for r in right)
            and (
                any(r.top > ln.bottom for r in right)
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
        ln.column = 2
    ordered: list[_Line] = []
    above = -math.inf
    for divider in [*sorted(spanning, key=lambda ln: ln.top), None]:
        below = divider.top if divider is not None else math.inf
        for side in (left, right):
            ordered += sorted((ln for ln in side if above <= ln.top < below), key=lambda ln: ln.top)
        if divider is not None:
            ordered.append(divider)
            above = divider.top
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


def _place_floats(page: _Page) -> None:
    """Frames a word processor writes after the page's text go where they sit.

    LibreOffice writes a page's running text first, top to bottom, then its
    frames: an image's caption, a text box ("Quick Reference"), each jumping
    back up the page. Read in that order they landed after the page's last
    line, often mid-sentence where a paragraph runs on over the page. Each
    such block goes before the first line of running text at or below its
    top that opens a paragraph (set a line's space or more below the one
    before it, so a box beside a paragraph follows that paragraph), else
    after the page's text. Only where the text before the first jump reaches
    the page's foot, and the blocks are short (eight lines or fewer, a third
    of the page at most): lines out of order for any other reason (a table
    written cell by cell, columns not found) stay as they are. Pages read in
    columns were ordered by position already.
    """
    if any(ln.column for ln in page.lines):
        return
    body = [ln for ln in page.lines if not ln.zone]
    runs: list[list[_Line]] = [[]]
    for ln in body:
        if runs[-1] and ln.top < runs[-1][-1].top - max(ln.size, runs[-1][-1].size):
            runs.append([])
        runs[-1].append(ln)
    flow, blocks = runs[0], runs[1:]
    if (
        not blocks
        or len(flow) < 2
        or max(ln.bottom for ln in flow) < max(ln.bottom for ln in body)
        or any(len(block) > 8 for block in blocks)
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


def _numbered_titles(pages: list[_Page]) -> None:
    """Mark the lines set whole in bold and numbered "1. Introduction" that
    stand as titles (``_Line.numbered_title``), as groff and word processors
    number chapters, apart from a bold numbered list. An item of such a list
    ("...any of these objectives:" over "1. Hold the bridge", "2. Kill the
    enemy warlord") follows its lead-in or the item before, within a line's
    space, or has the next item under it; so does every item after one that
    followed a lead-in, close under it. Made titles, each item but the last was an empty
    section and vanished. Anything else may be a title: after a paragraph
    or a list ending the section before, with a subheading under it, or at
    the head of a column or a page."""

    def listed(ln: _Line, other: _Line | None) -> bool:
        return (
            other is not None
            and other.bold
            and bool(_NUMBERED_TITLE.match(other.text))
            and other.page == ln.page
            and abs(other.top - ln.top) < 2.5 * ln.size
        )

    # the last bold numbered line: its number, an item?, the line, the space over it
    last: tuple[int, bool, _Line | None, float] = (0, False, None, 0.0)
    for page in pages:
        lines = page.lines
        for i, ln in enumerate(lines):
            m = _NUMBERED_TITLE.match(ln.text)
            if not (m and ln.bold and not ln.row):
                continue
            number = int(m.group(1))
            before = lines[i - 1] if i else None
            after = lines[i + 1] if i + 1 < len(lines) else None
            space = (
                ln.top - before.bottom
                if before is not None and before.page == ln.page
                else math.inf
            )
            # the next item of a list: close under the last, with no more
            # space over it than the last had ("3. Movement" after a list of
            # two objectives opens a chapter, set apart)
            near = (
                last[2] is not None
                and last[2].page == ln.page
                and 0 <= ln.top - last[2].bottom <= 8 * ln.size
                and space <= last[3] + 0.5 * ln.size
            )
            item = (
                (last[:2] == (number - 1, True) and near)
                or listed(ln, before)
                or listed(ln, after)
                # after its lead-in ("...any of these objectives:")
                or (
                    before is not None
                    and before.text.endswith(":")
                    and before.page == ln.page
                    and 0 <= ln.top - before.bottom <= 2.5 * ln.size
                )
                # its text running on in bold on the next line (an item, not a
                # title over a numbered subheading)
                or (
                    after is not None
                    and after.bold
                    and after.page == ln.page
                    and 0 <= after.top - ln.bottom <= 0.8 * ln.size
                    and not re.match(r"\d", after.text)
                )
            )
            ln.numbered_title = after is not None and not item
            last = (number, item, ln, space)


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
    # rules that touch are one table's
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
    tables: dict[int, list[tuple[float, float, float, float]]] = {}
    for i, r in enumerate(found):
        tables.setdefault(root(i), []).append(r)
    for rules in tables.values():
        rows = _ruled_rows(page, rules)
        if rows:
            first = min(page.lines.index(ln) for _, parts in rows for ln in parts)
            gone = {id(ln) for _, parts in rows for ln in parts}
            kept = [ln for ln in page.lines[:first] if id(ln) not in gone]
            rest = [ln for ln in page.lines[first:] if id(ln) not in gone]
            page.lines = [*kept, *(row for row, _ in rows), *rest]


def _ruled_rows(
    page: _Page, rules: list[tuple[float, float, float, float]]
) -> list[tuple[_Line, list[_Line]]]:
    """The rows of one grid of rules (see ``_ruled_tables``): each row's line
    and the lines it was made of; none when the rules are no table of text."""
    tol = RULE_THICKNESS

    def levels(values: list[float]) -> list[float]:
        # rules within 3 points are one edge: a browser's separate borders
        # draw the table's and each cell's a border-spacing apart
        out: list[float] = []
        for v in sorted(values):
            if not out or v - out[-1] > 3.0:
                out.append(v)
        return out

    flat = [r for r in rules if r[3] - r[1] <= tol]
    upright = [r for r in rules if r[2] - r[0] <= tol and r not in flat]
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
    )


def _mark_zones(page: _Page) -> None:
    """Mark the lines that may be page furniture: those in the top or bottom
    tenth of the page, and the outermost line (with any beside it) at each
    edge when it lies within ``EDGE_ZONE`` of it. A word processor sets its
    header and footer inside the page's margins, which at an inch on a
    Letter page reach past the tenth (LibreOffice: a header at 75-85 pt of
    792). Being marked only makes a line a candidate: it goes only if it
    repeats from page to page or is a bare page number, and one marked only
    as the outermost line (``edge``) must repeat word for word, digits too
    ("Scenario 1", "Scenario 2" opening their pages are headings), and its
    page number must count the pages ("4" on page 4, or on page 6 of a book
    whose numbers start later), so a table's total row is not a footer."""
    for ln in page.lines:
        if ln.bottom <= page.height * FURNITURE_ZONE:
            ln.zone = "top"
        elif ln.top >= page.height * (1 - FURNITURE_ZONE):
            ln.zone = "bottom"
    if not page.lines:
        return
    first = min(page.lines, key=lambda ln: ln.top)
    last = max(page.lines, key=lambda ln: ln.bottom)
    for ln in page.lines:
        if ln.zone:
            continue
        if first.bottom <= page.height * EDGE_ZONE and abs(ln.top - first.top) < 0.5 * first.size:
            ln.zone, ln.edge = "top", True
        elif (
            last.top >= page.height * (1 - EDGE_ZONE)
            and abs(ln.bottom - last.bottom) < 0.5 * last.size
        ):
            ln.zone, ln.edge = "bottom", True


def _words(text: str) -> tuple[str, ...]:
    """``text``'s words, lower case, digits and marks left out: "2. The Turn"
    is ("the", "turn")."""
    return tuple(re.findall(r"[^\W\d_]+", text.lower()))


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower())


def _slots(ln: _Line) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Where and how a margin line is set: its height on the page, its style, and
    its left or its right edge (a running header is set flush left or right)."""
    at = (ln.zone, round(ln.top / 2), round(ln.size * 2), ln.bold)
    return (*at, "left", round(ln.x0 / 3)), (*at, "right", round(ln.x1 / 3))


def _browser_margins(pages: list[_Page], body: float) -> set[int]:
    """The lines (by ``id``) of a browser's printed header and footer.

    A browser prints the page's date and title above the text and its address
    and a page counter ("1/3") below it (or the other way round), in one size
    smaller than the text. A document whose every page has, outermost at the
    same edge and in the same small size, a line ending in a counter giving
    that page's number of the document's pages ("2/3", "Page 2 of 3") was
    printed so. That needs no repetition, so a one-page print is read too,
    and a fraction ("Speed x 1/2") on one page is no counter. What goes: the
    counter's line on each page (and whatever shares its baseline in that
    size), and the outermost line at the other edge when it is in that size
    and says the same on every page (or there is one page): a table's first
    row at the head of a page is not the date and title.
    """
    counters: list[_Line] = []
    for page in pages:
        found = None
        for ln in page.lines:
            m = _PAGE_COUNTER.search(ln.text) if ln.zone else None
            if (
                m
                and (int(m.group(1)), int(m.group(2))) == (page.number, len(pages))
                and ln.size < body - 0.5
                and not any(_beyond(other, ln) for other in page.lines)
            ):
                found = ln
                break
        if found is None:
            return set()
        counters.append(found)
    size, zone = counters[0].size, counters[0].zone
    if any(abs(c.size - size) >= 0.3 or c.zone != zone for c in counters):
        return set()
    drop: set[int] = set()
    far = (lambda ln: ln.top) if zone == "bottom" else (lambda ln: -ln.bottom)
    bands: list[list[_Line]] = []
    for page, counter in zip(pages, counters, strict=True):
        same_size = [ln for ln in page.lines if abs(ln.size - size) < 0.3]
        drop.update(id(ln) for ln in same_size if abs(ln.top - counter.top) < 0.5 * size)
        # the other edge: the outermost band of lines, if all in the zone and size
        rest = [ln for ln in page.lines if id(ln) not in drop]
        edge = min(rest, key=far, default=None)
        band = [ln for ln in rest if edge is not None and abs(far(ln) - far(edge)) < 0.5 * size]
        if band and all(b.zone and abs(b.size - size) < 0.3 for b in band):
            bands.append(sorted(band, key=lambda b: b.x0))
    # The same there on every page (digits aside: the time), or the only page.
    keys = {_furniture_key(" ".join(b.text for b in band)) for band in bands}
    if len(bands) == len(pages) and len(keys) == 1:
        drop.update(id(b) for band in bands for b in band)
    return drop


def _beyond(other: _Line, ln: _Line) -> bool:
    """Does ``other`` lie farther towards the page edge of ``ln``'s zone than it
    (not merely beside it on its baseline)?"""
    if ln.zone == "bottom":
        return other.top > ln.bottom - 0.2 * ln.size
    return other.bottom < ln.top + 0.2 * ln.size


def _drop_furniture(pages: list[_Page], outline: Outline) -> None:
    """Running headers/footers, page numbers, a table of contents, a cover page.

    A running header or footer repeats its text (digits aside) from page to
    page. A running header that names the chapter ("Chapter 5 · Combat")
    repeats its place and size instead: a short line at the top of the page,
    set in another size than the body, at the same height and edge on many
    pages. Only at the top: the foot of a page also holds small lines at a
    fixed height that are rules (a footnote, an example on a baseline grid).
    A heading or a body-size line is never dropped by its place. Nor is a
    line whose text (digits aside) also repeats down the body of its own
    page: that is content set in a pattern, the rows of a table ("Weapon 34
    5 AP Range 44 dots"), and a long table's rows at the foot and head of
    each page would otherwise repeat from page to page like a footer.

    In a book of two pages a line must be on both, in another size than the
    text and no heading, to be taken for a running header or footer. A
    browser's printed margins go too, even on one or two pages, where
    nothing repeats often enough: see ``_browser_margins``.
    """

    def key_of(ln: _Line) -> str:
        return "=" + ln.text.lower() if ln.edge else _furniture_key(ln.text)

    seen: Counter[str] = Counter()
    slots: Counter[tuple[Any, ...]] = Counter()
    # a page's outermost line that is a bare number counts the pages: the same
    # offset from the page's place in the file on most pages that have one
    offsets = {
        id(ln): int(m.group()) - page.number
        for page in pages
        for ln in page.lines
        if ln.edge and _PAGE_NUMBER.match(ln.text) and (m := re.search(r"\d+", ln.text))
    }
    common = Counter(offsets.values()).most_common(1)
    # In a book of one or two pages the number must be each page's own
    # place: nothing else repeats to tell it from a last line of text.
    counts = bool(common) and (
        common[0][1] >= max(3, 0.5 * len(offsets))
        or (len(pages) < 3 and common[0] == (0, len(pages)))
    )
    counting = {i for i, offset in offsets.items() if counts and offset == common[0][0]}

    def parts_of(ln: _Line) -> set[tuple[str, int]]:
        # a page's top line in parts: "Ashfall Skirmish Rules" flush left
        # on every page, the chapter it is in flush right (no table's row);
        # a part must repeat as it is, digits and all (not "Rule 1.0: ...")
        if not (ln.zone == "top" and len(ln.cells) <= 3):
            return set()
        return {(c[2].lower(), round(c[0] / 3)) for c in ln.cells if not c[2].strip().isdigit()}

    parts: Counter[tuple[str, int]] = Counter()
    for page in pages:
        seen.update({key_of(ln) for ln in page.lines if ln.zone})
        slots.update({slot for ln in page.lines if ln.zone == "top" for slot in _slots(ln)})
        parts.update({part for ln in page.lines for part in parts_of(ln)})
    body = _body_size(pages)
    repeat = max(3, int(0.3 * len(pages)))
    browser = _browser_margins(pages, body)

    # the book's headings, as a running header names them ("2 The Turn" for
    # "2. The Turn", "CLOSE COMBAT - 3" for "Close Combat"; letters alone)
    # ("Chapter 2: Shooting" names "Shooting": a name may be its last or
    # first words; "Turns: 6" does not name "Turn")
    titles = {
        words
        for page in pages
        for ln in page.lines
        if (ln.bold or ln.size >= 1.15 * body)
        and not any(parts[part] >= repeat for part in parts_of(ln))
        and (words := _words(ln.text))
    }

    def names_chapter(ln: _Line) -> bool:
        # every part that changes from page to page is a heading's name or
        # a page number (a scenario's "Turns: 6", an example's first words
        # at the head of each page are the book's text)
        return all(
            not (words := _words(c[2]))
            or any(words[-len(t) :] == t or words[: len(t)] == t for t in titles)
            for c in ln.cells
            if parts[(c[2].lower(), round(c[0] / 3))] < repeat
        )

    def named_header(ln: _Line, margins: dict[int, float]) -> bool:
        """A running header that names the chapter in the text's size (groff,
        fpdf2): a line at the top of the page, a part of it the same, in the
        same place, on many pages, the rest the name of a heading; or that
        name alone, on the baseline of such a part given as a line apart."""
        if _is_heading(ln, body, margins) or not parts_of(ln) or not names_chapter(ln):
            return False
        if any(parts[part] >= repeat for part in parts_of(ln)):
            return True
        page_lines = pages[ln.page - 1].lines if 0 < ln.page <= len(pages) else []
        return any(
            x is not ln
            and abs(x.bottom - ln.bottom) < 1
            and any(parts[part] >= repeat for part in parts_of(x))
            for x in page_lines
        )

    def placed_like_furniture(ln: _Line, margins: dict[int, float]) -> bool:
        return (
            ln.zone == "top"
            and abs(ln.size - body) > 0.5
            and len(ln.text.split()) <= 12
            and not _is_heading(ln, body, margins)
            and any(slots[slot] >= repeat for slot in _slots(ln))
        )

    for page in pages:
        kept = []
        margins = _margins(page)
        in_body = Counter(_furniture_key(ln.text) for ln in page.lines if not ln.zone)
        for ln in page.lines:
            key = key_of(ln)
            if ln.zone and _PAGE_NUMBER.match(ln.text) and (not ln.edge or id(ln) in counting):
                outline.dropped["page numbers"] += 1
            elif (
                id(ln) in browser
                or (
                    ln.zone
                    and len(pages) >= 3
                    and in_body[key] < 2
                    and (
                        seen[key] >= repeat
                        or placed_like_furniture(ln, margins)
                        or named_header(ln, margins)
                    )
                )
                or (
                    # two pages (an errata sheet, a quick reference): on both,
                    # in another size than the text, and no heading
                    ln.zone
                    and len(pages) == 2
                    and in_body[key] < 2
                    and seen[key] == 2
                    and abs(ln.size - body) > 0.5
                    and len(ln.text.split()) <= 12
                    and not _is_heading(ln, body, margins)
                )
            ):
                outline.dropped["running headers and footers"] += 1
            else:
                kept.append(ln)
        page.lines = kept
    # A table of contents: most lines end in page numbers that never decrease.
    for page in pages[: max(3, len(pages) // 5)]:
        numbers = [int(m.group(2)) for m in (_TOC_LINE.match(ln.text) for ln in page.lines) if m]
        if (
            len(numbers) >= 4
            and len(numbers) >= 0.6 * len(page.lines)
            and numbers == sorted(numbers)
            and numbers[-1] <= len(pages) + 10
        ):
            outline.dropped["table of contents lines"] += len(page.lines)
            page.lines = []


_Style = tuple[float, bool, bool]


def _body_size(pages: list[_Page]) -> float:
    """The body font size: the size most of the text is set in."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for ln in page.lines:
            sizes[round(ln.size * 2) / 2] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _heading_styles(
    pages: list[_Page],
) -> tuple[float, dict[_Style, int], set[_Style], frozenset[_Style]]:
    """The body font size, each heading style's level (1 = top), the cover's
    styles, and the small bold styles the document sets its headings in
    (``_small_bold_styles``), which ``_is_heading`` needs to be told.

    A style used on the first page and nowhere else but the last page of a
    longer document is the covers' (title, publisher), not a heading level,
    unless it numbers a heading ("1.1 Deployment"): a cover numbers nothing,
    and a short book may use a level only on those pages. (A short book's
    title line is read as a heading over the rest, as a web page's h1 is: a
    PDF does not say which it was.)
    """
    body = _body_size(pages)
    covers = {1, len(pages)}
    for repeats in (SMALL_BOLD_REPEATS, 2):
        # Twice, the second time only when the first finds at most one
        # heading line (none, or a page's title over all of it): the text
        # would be one unit or plain sections, so a small bold style used just
        # twice, each time as a heading is (a printed web page with two h5
        # sections), is better evidence than none.
        small_bold = _small_bold_styles(pages, body, repeats)
        used_on: dict[_Style, set[int]] = {}
        lines_in: Counter[_Style] = Counter()
        numbered: set[_Style] = set()  # styles of headings with a dotted number: no cover's
        for page in pages:
            margins = _margins(page)
            for ln in page.lines:
                if _is_heading(ln, body, margins, small_bold):
                    used_on.setdefault(_style(ln), set()).add(page.number)
                    lines_in[_style(ln)] += 1
                    if _DOTTED_HEADING.match(ln.text) and not ln.linked:  # (a contents entry)
                        numbered.add(_style(ln))
        cover = {
            s
            for s, on in used_on.items()
            if 1 in on and on <= covers and len(pages) > 3 and s not in numbered
        }
        ranked = sorted(set(used_on) - cover, key=lambda s: (-s[0], not s[1], not s[2]))
        if sum(lines_in[s] for s in ranked) > 1:
            break
    return body, {s: i + 1 for i, s in enumerate(ranked)}, cover, small_bold


def _small_bold_styles(
    pages: list[_Page], body: float, repeats: int = SMALL_BOLD_REPEATS
) -> frozenset[_Style]:
    """Bold styles set smaller than ``BOLD_HEADING_SIZE`` that this document
    uses as headings: a browser prints an h5 at 0.83 of the body.

    Learned from the document, not from sizes alone: a style qualifies only if
    it recurs (``repeats`` lines, each saying something else: headings name
    different sections, a label says the same again) and every line in it is
    a short line alone at the margin, with a line of regular body text after
    it. A bold caption or label used once, a label used again and again
    ("Example", "Designer's Note"), or a small bold style that also sets
    table cells, run-in labels or whole paragraphs, stays text.
    """
    uses: dict[_Style, set[str]] = {}
    spoilt: set[_Style] = set()
    for page in pages:
        margins = _margins(page)
        right = _right_edges(page)
        for i, ln in enumerate(page.lines):
            if not ln.bold or not body * SMALL_BOLD_SIZE <= ln.size < body * BOLD_HEADING_SIZE:
                continue
            after = page.lines[i + 1] if i + 1 < len(page.lines) else None
            alone = (
                not ln.row
                and ln.wide_gaps == 0
                and _at_margin(ln, margins)
                and _short(ln, margins, right)
                and 1 <= len(ln.words) <= 8
                and not ln.text.endswith((".", ",", ";", ":"))
            )
            followed = after is None or (abs(after.size - body) <= 0.5 and not after.bold)
            if alone and followed:
                uses.setdefault(_style(ln), set()).add(ln.text.casefold())
            else:
                spoilt.add(_style(ln))
    return frozenset(s for s, texts in uses.items() if len(texts) >= repeats and s not in spoilt)


def _style(ln: _Line) -> _Style:
    return (round(ln.size * 2) / 2, ln.bold, ln.caps)


def _margins(page: _Page) -> dict[int, float]:
    """Each column's left margin: the leftmost line start (to 2 pt) that a fair
    share of the column's lines use.

    Not simply the commonest start: on a glossary page each bold term at the
    margin is followed by a longer indented definition, so the indent is the
    commonest start. Indents, list text and table cells sit right of the
    margin; a line hung left of it (a pull quote) is rare. Per page, so a book
    whose margins alternate between odd and even pages is read right.
    """
    starts: dict[int, Counter[float]] = {}
    for ln in page.lines:
        starts.setdefault(ln.column, Counter())[round(ln.x0 / 2) * 2] += 1
    margins = {}
    for col, c in starts.items():
        enough = max(2, MARGIN_SHARE * sum(c.values()))
        used = [x for x, n in c.items() if n >= enough]
        margins[col] = min(used) if used else c.most_common(1)[0][0]
    return margins


def _at_margin(ln: _Line, margins: dict[int, float]) -> bool:
    return abs(ln.x0 - margins.get(ln.column, ln.x0)) <= 3


def _is_heading(
    ln: _Line,
    body: float,
    margins: dict[int, float],
    small_bold: frozenset[_Style] = frozenset(),
) -> bool:
    if ln.row:
        return False  # a table's header row is bold and short, but no section
    text = ln.text
    words = text.split()
    if not 1 <= len(words) <= 12 or len(text) > 90 or not any(c.isalpha() for c in text):
        return False
    if text.endswith((".", ",", ";", ":")) and not _DOTTED_HEADING.match(text):
        return False
    if ln.size >= body * HEADING_SIZE_RATIO:
        # set larger than the text: a heading even when it reads like a list
        # item ("4. Flight", "5. Breath Weapons"); a list item is text-sized
        return True
    at_margin = _at_margin(ln, margins)
    if ln.bold and at_margin and ln.size >= body * BOLD_HEADING_SIZE and ln.numbered_title:
        # a whole line in bold at the margin, "1. Introduction": groff's and
        # a word processor's numbered headings; a list item's bold is its
        # lead-in, with the item's text after it on the line
        return True
    if _LIST_ITEM.match(text) and not _DOTTED_HEADING.match(text):
        return False
    if ln.bold and at_margin and (ln.size >= body * BOLD_HEADING_SIZE or _style(ln) in small_bold):
        return True
    return at_margin and bool(_DOTTED_HEADING.match(text)) and len(words) <= 8


def _in_profile(lines: list[_Line], i: int, body: float) -> bool:
    """Is ``lines[i]`` a line of a profile: "Shots: 2" in bold in the text's
    size, with a line like it ("Range: 24 inches", "Damage: 1") right before
    or after it? Each is a line of its rule, not a heading (one was lost as an
    empty heading, another took the next rule's text). Alone, "Variant: 2
    Players" in a book's bold heading style is a heading."""

    def stat(ln: _Line) -> bool:
        return ln.size < body * HEADING_SIZE_RATIO and bool(_STAT_LINE.match(ln.text))

    return stat(lines[i]) and any(
        0 <= j < len(lines) and lines[j].page == lines[i].page and stat(lines[j])
        for j in (i - 1, i + 1)
    )


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
            is_head = _is_heading(ln, body, margins, small_bold)
            if is_head and para and _runs_into(para[-1], ln, body, margins, right):
                is_head = False  # "..., see rule" / "3.2 Charging. It may not...": a sentence
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
                first_heading_page = first_heading_page or ln.page
                heading = f"{number} {tidy_title(rest)}" if number else tidy_title(ln.text)
                blocks.append(Block(heading, levels[_style(ln)], ln.page))
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
            if para and (
                _starts_block(para[-1], ln, margins, right, leading, marks)
                or _leaves_list(para, ln, margins)
            ):
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


# a note's mark: a number, a Roman numeral or a symbol, then its text
_NOTE_MARK = re.compile(r"^(\d{1,3}|[ivx]{1,5}|[*\u2020\u2021\u00a7])\.?\s+(?=\S)")


_MARK_AFTER_SENTENCE = re.compile(r"(?<=[^\d\s])[.:!?][\"'\u2019\u201d)]*(\S{1,7})$")


def _ends_sentence(text: str, marks: frozenset[str] = frozenset()) -> bool:
    """Does a line end a sentence: its last character, or one of the book's
    note marks (``marks``) after it ("...face up.17", "...coins.xxxviii";
    not "see p.12", "Fig.3", "rules v.2", a mark no note has)?"""
    if text.endswith((".", ":", "!", "?")):
        return True
    m = _MARK_AFTER_SENTENCE.search(text)
    return bool(m and m.group(1) in marks)


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


def _right_edges(page: _Page) -> dict[int, float]:
    """Each column's right margin: where most full lines end."""
    ends: dict[int, list[float]] = {}
    for ln in page.lines:
        ends.setdefault(ln.column, []).append(ln.x1)
    return {col: sorted(xs)[int(len(xs) * 0.9)] if xs else 0.0 for col, xs in ends.items()}


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


def _short(ln: _Line, margins: dict[int, float], right: dict[int, float]) -> bool:
    """A line that stops well short of the right margin ends its block."""
    edge = ln.wraps_at or right.get(ln.column, ln.x1)
    width = max(edge - margins.get(ln.column, 0.0), 1.0)
    return ln.x1 < edge - 0.15 * width and not ln.hyphen


def read(data: bytes, request: ReadRequest) -> ParseResult:
    outline = outline_of(data, request.name)
    return build_units(
        outline,
        file=request.name,
        game=request.game,
        parser="pdf",
        title_fixes=request.title_fixes,
        title=request.title,
    )


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
