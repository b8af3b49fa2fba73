"""Stage 1 of the PDF reader: a page's characters -> lines, and the measures of a line.

``_page_lines`` takes every character PDFium gives (its size, weight, box
and baseline) and cuts lines at PDFium's breaks and wherever the baseline
jumps, keeping a superscript on its word ("2" + "nd") and marking a note's
mark raised against a word (``RAISED_MARK``) so it can cite its note later.
A PDF that writes a table row's cells one after another has them put back
on their line (``_rejoin_rows``); a line tracked wide gets its spaces back
where its words part (``_untracked``), and a word tracked alone is one word
again where the book uses it elsewhere (``_tracked_words``); a drop cap is
glued to its word (``_drop_caps``).

``_Line`` and ``_Page`` are what every later stage reads and annotates (a
line's zone, column, cells, table-row flags, ``numbered_title`` and
``wraps_at``; a page's frames, shapes and drawn rules), and the small
measures several stages share live here too: a line's style, a column's
left and right margins, whether a line stops short of its margin or ends
a sentence, and the patterns of a list item, a dotted heading and a page
number. Everything else in the package imports from this module, and
this module from none of them.

Trade-off: a line is cut from geometry alone, with thresholds in ems of
the line's own size rather than points, so one set of numbers serves a
pocket rulebook and an A4 print; nothing was fitted on questions.
"""

from __future__ import annotations

import ctypes
import dataclasses
import itertools
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ruleslawyer.errors import RulebookError
from ruleslawyer.ingest.typeset import HEADING_SIZE_RATIO

BOLD_WEIGHT = 600
# A run-in label is at most this many words ("Casualty:", "Claim point:")
RUN_IN_LABEL_WORDS = 4


FURNITURE_ZONE = 0.1  # top and bottom share of the page height


MARGIN_SHARE = 0.15  # of a column's lines that must start at its margin
CELL_GAP = 0.9  # ems between two characters that set them in different cells
_MAX_CELL_LINES = 8  # a table cell's lines a PDF may write before the next cell of its row

# Set before a digit or a note symbol raised and smaller against the letter
# before it: a note's mark ("hand1"), which ``_cites`` may take for one.
RAISED_MARK = "\u2063"  # INVISIBLE SEPARATOR, never in a rulebook's text
# A note's mark is set at most this share of its word's size: Word and
# LaTeX set about two thirds, ReportLab's <super> 9 pt against 11 (0.82)
SUPERSCRIPT_SIZE = 0.85

_CLOSING = frozenset(".,;:!?)]\u201d\u2019")  # punctuation closing what it follows
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


_BOLD_NAME = re.compile(r"(?i)bold|black|heavy|semibold|demi")
_FORCE_BOLD = 1 << 18  # PDF font descriptor flag ForceBold
_WORDS = re.compile(r"[^\W\d_]+")
_WORD_TOKEN = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")  # "model's" is one word


# A drawn line this thick or thinner is a rule (a table's border, an underline)
RULE_THICKNESS = 2.0
_SOFT_BREAKS = ("\u2010", "\u00ad")  # a hyphen set at a break (U+2010), a soft hyphen


_DOTTED_HEADING = re.compile(r"^\d{1,3}(?:\.\d{1,3})+\.?\s+[A-Z\[]")

# One character as PDFium gives it: (char, size, weight, left, right, bottom,
# top, baseline, ink); a space is (" ", 0.0, 0, box..., NO_INK). The ink is
# the fill colour packed as 0xRRGGBB.
_Char = tuple[str, float, int, float, float, float, float, float, int]
NO_INK = -1

# Two inks this far apart (the largest difference of a channel, 0-255) are
# two colours: a heading in dark red or blue against black text is 100 or
# more apart, where a "rich black" or a dark grey body is within 40 of black.
INK_APART = 80


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
    ink: int = NO_INK  # the colour of most of its letters (0xRRGGBB), if one is
    accent: bool = False  # set in another colour than the book's text (``_mark_accents``)
    column: int = 0
    cells: tuple[tuple[float, float, str], ...] = ()  # (x0, x1, text) split at wide gaps
    words: tuple[tuple[float, float, str], ...] = ()  # (x0, x1, text) split at spaces
    row: bool = False  # a table row rebuilt by ``_tables``: cells joined by " | "
    whole: _Line | None = None  # the head of a line cut at a drop in size: the line uncut
    linked: bool = False  # every letter and digit lies in a link: a menu, an "[Edit]" link
    carried: bool = False  # a row's end the page before broke off (see ``_table_at``)
    broken: bool = False  # a row the page's foot broke off, its end on the next page
    numbered_title: bool = False  # "1. Introduction" set as a title (``_numbered_titles``)
    # opens with a few words in bold ending in a colon, then text that is not
    # bold: a run-in label ("Casualty: a model reduced to 0 Wounds")
    label: bool = False
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
    # the box drawn across the page's columns it is set in (a sidebar,
    # ``_asides``), numbered from 1 on its page; 0 for the running text
    aside: int = 0
    # where the PDF draws it among its page's lines (PDFium's order): the
    # order a typesetter's text runs in, where the place alone cannot tell
    drawn: int = 0

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
    # (top, bottom) of each box the columns' text runs around (``_around``):
    # its height is no space between paragraphs
    runs_around: list[tuple[float, float]] = field(default_factory=list)


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
    red, green, blue, alpha = (ctypes.c_uint() for _ in range(4))
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
        if _small_capitals(visible):
            text = text.upper()  # as printed
        bold = sum(1 for c in visible if c[2] >= BOLD_WEIGHT) >= 0.8 * len(visible)
        lead = next((k for k, c in enumerate(visible) if c[2] < BOLD_WEIGHT), len(visible))
        label = (
            0 < lead < len(visible)
            and visible[lead - 1][0] == ":"
            and len(text.split(":")[0].split()) <= RUN_IN_LABEL_WORDS
        )
        size = _leading_size(visible)
        inks = Counter(c[8] for c in visible if c[0].isalnum())
        ink, inked_by = inks.most_common(1)[0] if inks else (NO_INK, 0)
        boxes = tuple(_box(cell) for cell in _cell_runs(seg))
        words: list[list[_Char]] = [[]]
        for c in seg:
            if c[0] == " ":
                words.append([])
            else:
                words[-1].append(c)
        word_boxes = tuple(_box(w) for w in words if w)
        if len(boxes) > 1 and _justified(word_boxes, size):
            boxes = (_box(seg),)
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
            size=size,
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
            ink=ink if inked_by >= 0.8 * sum(inks.values()) else NO_INK,
            label=label,
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
                chars.append((" ", 0.0, 0, *box, NO_INK))
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
            elif gap > (0.3 if ch in _CLOSING else 0.15) * em:
                # (a full stop after a raised mark sits a little off the
                # mark's ink, "away1 .", by its advance and side bearing)
                chars.append((" ", 0.0, 0, prev[4], box[0], *box[2:], NO_INK))
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
            and prev[1] <= SUPERSCRIPT_SIZE * size
            and prev[7] - box[4] >= 0.2 * size
            and ch.isalpha()
        ):
            # A note's own mark raised before its text at the head of the
            # line ("1Range is always measured"): set apart, as a mark on
            # the baseline is, so the note is known by it (``_NOTE_MARK``)
            chars.append((" ", 0.0, 0, prev[4], box[0], *box[2:], NO_INK))
        if (
            prev is not None
            and (prev[0].isalpha() or (prev[0].isdigit() and ch.isdigit()))
            and (ch.isdigit() or ch in _MARK_SYMBOLS)
            and size <= SUPERSCRIPT_SIZE * prev[1]
            and box[4] - prev[7] >= 0.2 * prev[1]
        ):
            # A note's mark raised against the word it follows ("hand1 of
            # five"): marked, so it can cite its note without the closing
            # punctuation a mark in plain text needs (``_cites``). After a
            # number too ("a range of 24 1 inches"): unmarked, it was read
            # into the number ("241 inches").
            chars.append((RAISED_MARK, prev[1], prev[2], *box, prev[8]))  # in its word's size
        raw.FPDFText_GetFillColor(tp.raw, i, red, green, blue, alpha)
        chars.append((ch, size, weight, *box, red.value << 16 | green.value << 8 | blue.value))
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
    for k, ln in enumerate(result.lines):
        for part in (ln, ln.whole, *(ln.halves or ())):
            if part is not None:
                part.drawn = k
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
    # 6" is spaced, not tracked; a stat line "M WS BS S T" has longer words),
    # but for a pair kerned together ("TA", "FA": a browser tracks by adding
    # space after each letter, and kerns the pair after)
    letters = sum(1 for w in words if w.isalpha())
    if len(words) < 4 or not _spaced(words) or letters < 0.6 * len(words):
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
    spaced = [ln for ln in lines if len(ln.text.split()) >= 3 and _spaced(ln.text.split())]
    if not spaced:
        return
    vocab = {w.lower() for ln in lines for w in _WORDS.findall(ln.text) if len(w) > 1}
    for ln in spaced:
        word = "".join(ln.text.split())
        if word.isalpha() and word.lower() in vocab:
            ln.text = word
            ln.words = ((ln.x0, ln.x1, word),)


def _spaced(words: list[str]) -> bool:
    """Letters set apart one by one: every "word" one character, but for a few
    pairs kerned together ("S U R FA C I N G")."""
    return all(len(w) <= 2 for w in words) and sum(len(w) == 1 for w in words) >= 0.8 * len(words)


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


def _small_capitals(ink: list[_Char]) -> bool:
    """A line set in small capitals as a browser sets them (CSS ``font-variant:
    small-caps``): its capitals in the text's size, its lower-case letters
    written as they are but smaller (0.6-0.9 of the capitals' size), so it
    reads "Goal of the Game" where the page shows GOAL OF THE GAME."""
    upper = [c[1] for c in ink if c[0].isupper()]
    lower = [c[1] for c in ink if c[0].islower()]
    return (
        # two capitals or more, or a short line: a first line whose one
        # capital is set larger (CSS ::first-letter) is no small capitals
        (len(upper) >= 2 or len(upper) + len(lower) <= 12)
        and bool(upper and lower)
        and max(lower) - min(lower) < 0.25
        and 0.6 * min(upper) <= max(lower) <= 0.9 * min(upper)
    )


def _leading_size(ink: list[_Char]) -> float:
    """The size a line is set in: that of its first run of three characters in
    one size, since a heading starts its line ("7 Spirits" before a smaller
    "[Edit]" link, "Charge" before a small "p. 12"); a drop cap is one
    character. The median when no run is that long. A line in small capitals
    (each word's capital in the text's size, its other letters as smaller
    capitals, 0.6-0.9 of it) is set in its capitals' size: its run of three
    is the small letters' ("Actions" read as a 10 pt line beside 14.7 pt text,
    and the heading was missed), as is one in a browser's small capitals
    (``_small_capitals``)."""
    if _small_capitals(ink):
        return max(c[1] for c in ink if c[0].isupper())
    sizes = {round(c[1], 1) for c in ink if c[0].isalpha()}
    if len(sizes) == 2:  # (cheap first: most lines are in one size)
        # a word's first letter: after a letter's gap of a space or more, as
        # the spaces are not among these characters ("PLACING WORKERS")
        initial = {
            id(b)
            for a, b in zip([None, *ink], ink, strict=False)
            if b[0].isalpha()
            and (a is None or not a[0].isalpha() or b[3] - a[4] > 0.15 * max(a[1], b[1]))
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


def _justified(words: tuple[tuple[float, float, str], ...], size: float) -> bool:
    """A line of prose spread to its measure: three or more words, mostly in
    lower-case letters, every space between them stretched alike, to no more
    than a couple of ems. In a narrow justified column the spaces grow to an
    em, as wide as a table's gap between cells ("When | the | market |
    closes, | every"); a table row's gaps are as unlike as its cells'
    widths, and cards set abreast are far apart ("Ambush Bulwark Cleave")."""
    gaps = [b[0] - a[1] for a, b in itertools.pairwise(words)]
    prose = sum(1 for w in words if w[2][:1].isalpha() and any(c.islower() for c in w[2]))
    return (
        len(gaps) >= 2
        and prose >= 0.7 * len(words)
        and max(gaps) - min(gaps) <= max(1.5, 0.15 * statistics.median(gaps))
        and max(gaps) <= 2.5 * size
    )


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


# (size to half a point, bold, in capitals, in another colour than the text)
_Style = tuple[float, bool, bool, bool]


def _body_size(pages: list[_Page]) -> float:
    """The body font size: the size most of the text is set in."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for ln in page.lines:
            sizes[round(ln.size * 2) / 2] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _style(ln: _Line) -> _Style:
    return (round(ln.size * 2) / 2, ln.bold, ln.caps, ln.accent)


def _mark_accents(pages: list[_Page]) -> None:
    """Mark the lines set in another colour than the book's text: the colour
    most of its letters are in. A book that sets its headings in the text's
    size and face tells them by colour alone (``headings._own_styles``)."""
    inks: Counter[int] = Counter()
    for page in pages:
        for ln in page.lines:
            if ln.ink != NO_INK:
                inks[ln.ink] += len(ln.text)
    if not inks:
        return
    text = inks.most_common(1)[0][0]
    for page in pages:
        for ln in page.lines:
            ln.accent = ln.ink != NO_INK and _inks_apart(ln.ink, text)


def _inks_apart(a: int, b: int) -> bool:
    return any(abs((a >> shift & 0xFF) - (b >> shift & 0xFF)) > INK_APART for shift in (0, 8, 16))


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


_MARK_AFTER_SENTENCE = re.compile(r"(?<=[^\d\s])[.:!?][\"'\u2019\u201d)]*(\S{1,7})$")

_SENTENCE_ON = re.compile(r"[.!?;,]\s+\w")  # a line that goes on past a sentence break


# What may close a sentence after its stop: '...its rules.)', '...apart."'
_CLOSERS = "\"”’')]"


def _ends_sentence(text: str, marks: frozenset[str] = frozenset()) -> bool:
    """Does a line end a sentence: its last character, inside its bracket or
    quote too ("...in the open field.)", '...loses."'), or one of the book's
    note marks (``marks``) after it ("...face up.17", "...coins.xxxviii";
    not "see p.12", "Fig.3", "rules v.2", a mark no note has)?"""
    if text.rstrip(_CLOSERS).endswith((".", ":", "!", "?")):
        return True
    m = _MARK_AFTER_SENTENCE.search(text)
    return bool(m and m.group(1) in marks)


# A line starting this far right of its column's text is set apart from it.
BODY_INDENT = 72.0


def _right_edges(page: _Page) -> dict[int, float]:
    """Each column's right margin: where most full lines end. Not counting a
    box of notes set smaller than the column's text and beside it, in the
    page's margin: it ends further right, and counted, it put the margin
    there, so every line of the page's text stopped "short" of it, a
    paragraph of its own (a quote ended mid-sentence)."""
    sizes: dict[int, Counter[float]] = {}
    for ln in page.lines:
        sizes.setdefault(ln.column, Counter())[_style(ln)[0]] += len(ln.text)
    body = {col: c.most_common(1)[0][0] for col, c in sizes.items()}
    starts = {
        col: statistics.median(
            ln.x0 for ln in page.lines if ln.column == col and _style(ln)[0] == size
        )
        for col, size in body.items()
    }
    ends: dict[int, list[float]] = {}
    for ln in page.lines:
        aside = ln.size < 0.9 * body[ln.column] and ln.x0 > starts[ln.column] + BODY_INDENT
        if not aside:
            ends.setdefault(ln.column, []).append(ln.x1)
    return {col: sorted(xs)[int(len(xs) * 0.9)] if xs else 0.0 for col, xs in ends.items()}


def _short(
    ln: _Line, margins: dict[int, float], right: dict[int, float], after: _Line | None = None
) -> bool:
    """A line that stops well short of the right margin ends its block, unless
    the line ``after`` it opens in lower case with a word too long for the
    room left (with a space before it), where text set ragged-right goes on
    mid-sentence ("...during your" then "opponent's turn" in a narrow column).
    A capitalised word does not run on, even after a run-in label: "Casualty:
    a model reduced to 0" then "Wounds" stays two lines, since "Weapons: long
    rifle, knife, Sniper 2" then "Concealed models can only..." is a stat
    line and the next rule (a review found the two read as one).
    A list of short items, each a line, keeps its lines."""
    edge = ln.wraps_at or right.get(ln.column, ln.x1)
    width = max(edge - margins.get(ln.column, 0.0), 1.0)
    if not ln.x1 < edge - 0.15 * width or ln.hyphen:
        return False
    if after is None or not after.words or _ends_sentence(ln.text):
        return True
    if not after.text[:1].islower():
        return True  # (a line opening in capitals may open an item of its own)
    x0, x1, _ = after.words[0]
    word = (x1 - x0) * ln.size / max(after.size, 1.0)
    return word + 0.25 * ln.size < edge - ln.x1
