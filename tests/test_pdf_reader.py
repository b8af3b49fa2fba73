"""The PDF reader (``ingest.formats.pdf``) on PDFs drawn here with reportlab.

Every PDF is built line by line on a reportlab canvas (Helvetica 10 body,
Helvetica 16 chapters, Helvetica-Bold 10 sections), so each test knows
exactly which line sits where: the running header, the page numbers, the
word hyphenated at a line end, the two columns. ``Book`` asserts its own
premises (a line really ends in "move-", a column really fits its half of
the page), so no test here can pass because the PDF did not hold what the
test is about.
"""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path
from typing import Literal

import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from ruleslawyer.ingest.formats import ReadRequest, detect
from ruleslawyer.ingest.formats.html import list_number
from ruleslawyer.ingest.pipeline import parse_file
from ruleslawyer.ingest.units import ParseResult
from ruleslawyer.records import RuleUnit
from ruleslawyer.settings import PROJECT_ROOT

PAGE_W, PAGE_H = letter  # 612 x 792 pt
MARGIN = 72.0
TEXT_W = PAGE_W - 2 * MARGIN
BODY_FONT, BODY_SIZE, LEADING = "Helvetica", 10, 12
HEADER = "Brass & Bayonet Rules"
# Two columns: the left one ends, and the right one starts, well clear of the middle.
LEFT_X, RIGHT_X, COLUMN_W = MARGIN, 330.0, 210.0

SKIRMISHERS = PROJECT_ROOT.parent / "shared" / "corpora" / "skirmishers"


def wrap(text: str, width: float, font: str = BODY_FONT, size: float = BODY_SIZE) -> list[str]:
    """Greedy line breaking, the way a typesetter without hyphenation would."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if line and stringWidth(candidate, font, size) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


class Book:
    """A PDF drawn line by line; ``drawn`` keeps (page, text) of every line."""

    def __init__(self, *, header: str = HEADER, page_numbers: bool = True, title: str = ""):
        self.buf = io.BytesIO()
        self.canvas = canvas.Canvas(self.buf, pagesize=letter, invariant=1)
        if title:
            self.canvas.setTitle(title)
        self.header = header
        self.page_numbers = page_numbers
        self.page = 0
        self.y = 0.0
        self.drawn: list[tuple[int, str]] = []
        self.column_lines: tuple[int, int] = (0, 0)  # of the last two_columns()

    # --- pages -------------------------------------------------------------------
    def new_page(self) -> None:
        if self.page:
            self.canvas.showPage()
        self.page += 1
        c = self.canvas
        c.setFont(BODY_FONT, 9)
        if self.header:
            c.drawCentredString(PAGE_W / 2, PAGE_H - 40, self.header)
            self.drawn.append((self.page, self.header))
        if self.page_numbers:
            c.drawCentredString(PAGE_W / 2, 36, str(self.page))
            self.drawn.append((self.page, str(self.page)))
        self.y = PAGE_H - 90

    def _line(self, x: float, text: str, font: str, size: float) -> None:
        assert self.y > 100, "a line ran into the footer zone: the test PDF is too full"
        self.canvas.setFont(font, size)
        self.canvas.drawString(x, self.y, text)
        self.drawn.append((self.page, text))

    # --- content -----------------------------------------------------------------
    def heading(self, text: str, *, size: float = BODY_SIZE, bold: bool = True) -> None:
        self.y -= 8
        self._line(MARGIN, text, "Helvetica-Bold" if bold else BODY_FONT, size)
        self.y -= size + 6

    def para(self, text: str) -> list[str]:
        lines = wrap(text, TEXT_W)
        self.lines(lines)
        return lines

    def lines(self, lines: list[str]) -> None:
        """Body lines as given; all but the last must run (nearly) to the right margin."""
        for n, line in enumerate(lines):
            if n < len(lines) - 1:
                assert stringWidth(line, BODY_FONT, BODY_SIZE) > 0.9 * TEXT_W, line
            self._line(MARGIN, line, BODY_FONT, BODY_SIZE)
            self.y -= LEADING
        self.y -= 6

    def toc(self, entries: list[tuple[str, int]]) -> None:
        for title, page in entries:
            dots = "." * int((TEXT_W - stringWidth(title, BODY_FONT, BODY_SIZE) - 30) / 2.78)
            self._line(MARGIN, f"{title} {dots} {page}", BODY_FONT, BODY_SIZE)
            self.y -= LEADING + 2

    def two_columns(self, left: str, right: str, *, row_order: bool = False) -> None:
        """Two columns of body text side by side, starting at the current height.

        ``row_order`` writes the content stream row by row (left line 1, right
        line 1, left line 2, ...), as some generators do; otherwise the whole
        left column comes first.
        """
        left_lines, right_lines = wrap(left, COLUMN_W), wrap(right, COLUMN_W)
        for line in left_lines:
            assert LEFT_X + stringWidth(line, BODY_FONT, BODY_SIZE) < PAGE_W / 2 - 10, line
        self.column_lines = (len(left_lines), len(right_lines))
        top = self.y
        placed = [(LEFT_X, i, line) for i, line in enumerate(left_lines)]
        placed += [(RIGHT_X, i, line) for i, line in enumerate(right_lines)]
        if row_order:
            placed.sort(key=lambda p: (p[1], p[0]))
        for x, i, line in placed:
            self.y = top - i * LEADING
            self._line(x, line, BODY_FONT, BODY_SIZE)
        self.y = top - max(len(left_lines), len(right_lines)) * LEADING - 6

    def row(self, cells: list[tuple[float, str]], *, right: bool = False) -> None:
        """One line of table cells, each drawn at its x (its right edge if ``right``,
        for the cells after the first: numbers set flush right)."""
        assert self.y > 100, "a row ran into the footer zone: the test PDF is too full"
        self.canvas.setFont(BODY_FONT, BODY_SIZE)
        for n, (x, text) in enumerate(cells):
            if right and n:
                self.canvas.drawRightString(x, self.y, text)
            else:
                self.canvas.drawString(x, self.y, text)
        self.drawn.append((self.page, " ".join(t for _, t in cells)))
        self.y -= LEADING

    def drawn_on(self, start: str) -> int:
        """The page of the first line drawn that starts with ``start``."""
        return next(page for page, text in self.drawn if text.startswith(start))

    def pdf(self) -> bytes:
        self.canvas.showPage()
        self.canvas.save()
        return self.buf.getvalue()


# --- the main test book: a contents page, then three chapters ---------------------------------
HYPHENATED = [
    "A model that moves must stay wholly within the table edge at all times, and the whole "
    "distance of its move-",
    "ment is measured along its path, never in a straight line from its start point.",
]
BOOK_TOC = [("Basics", 2), ("Movement", 3), ("Charging", 3), ("Shooting", 4), ("Close Combat", 5)]
# (rule_id, title, parent, page): chapters (16 pt) by size, sections by their dotted numbers
BOOK_UNITS = [
    ("basics", "Basics", "", 2),
    ("1.1", "Dice", "Basics", 2),
    ("1.2", "Measuring", "Basics", 2),
    ("movement", "Movement", "", 3),
    ("2.1", "Moving", "Movement", 3),
    ("2.2", "Running", "Movement", 3),
    ("2.3", "Charging", "Movement", 3),  # the heading is at the foot of page 3, its text on 4
    ("shooting", "Shooting", "", 4),
    ("3.1", "Choosing a Target", "Shooting", 4),
    ("3.2", "Range", "Shooting", 4),
    ("close-combat", "Close Combat", "", 5),
    ("4.1", "Fighting", "Close Combat", 5),
]
FILLER = (
    "Every rule in this chapter applies to all units unless a unit's profile says otherwise, "
    "and a later rule always overrides an earlier one when the two disagree. "
)


def book_pdf() -> tuple[bytes, Book]:
    """Five pages: contents; Basics; Movement; Shooting; Close Combat.

    Chapter headings are Helvetica 16; sections 1.x, 2.x and 4.x are
    Helvetica-Bold 10; sections 3.x are Helvetica 10 (numbering alone marks
    them). Every page has the running header and a bare page number.
    """
    b = Book(title="Brass & Bayonet")
    b.new_page()
    b.heading("Contents", size=16)
    b.toc(BOOK_TOC)

    b.new_page()
    b.heading("1 Basics", size=16)
    b.para("This chapter covers the ideas every other rule relies on. " + FILLER)
    b.heading("1.1 Dice")
    b.para("All rolls use six-sided dice, written D6. A roll of 2D6 means two dice added together.")
    b.heading("1.2 Measuring")
    b.para("Distances are measured in inches between the closest points of two models' bases.")

    b.new_page()
    b.heading("2 Movement", size=16)
    b.para("Every unit may move once in each of its activations. " + FILLER)
    b.heading("2.1 Moving")
    b.lines(HYPHENATED)
    b.heading("2.2 Running")
    b.para("A unit that runs moves twice its Move stat but may not shoot in the same activation.")
    b.y = 140  # the next heading sits at the foot of the page ...
    b.heading("2.3 Charging")
    b.new_page()  # ... and its text starts the next page
    b.para("A charging unit moves straight at its target and fights first in the next combat.")
    b.heading("3 Shooting", size=16)
    b.para("A unit that takes a Shoot action fires every weapon it carries. " + FILLER)
    b.heading("3.1 Choosing a Target", bold=False)
    b.para("Pick an enemy unit that at least one of your models can see and that is in range.")
    b.heading("3.2 Range", bold=False)
    b.para("A target is in range if it is no further away than the weapon's range in inches.")

    b.new_page()
    b.heading("4 Close Combat", size=16)
    b.para("Units in base contact with an enemy fight instead of shooting. " + FILLER)
    b.heading("4.1 Fighting")
    b.para("Each model in base contact rolls one die and scores a hit on a roll of 4 or more.")
    return b.pdf(), b


def read_pdf(data: bytes, name: str = "book.pdf", game: str = "brass") -> ParseResult:
    fmt = detect(name, data)
    assert fmt.name == "pdf"
    return fmt.read(data, ReadRequest(name, game))


@pytest.fixture(scope="module")
def book() -> tuple[ParseResult, Book]:
    data, b = book_pdf()
    return read_pdf(data), b


def unit(result: ParseResult, rule_id: str) -> RuleUnit:
    found = [u for u in result.units if u.rule_id == rule_id]
    assert len(found) == 1, (rule_id, [u.rule_id for u in result.units])
    return found[0]


# --- headings, parents and pages ----------------------------------------------------------------
def test_headings_from_size_and_numbering(book: tuple[ParseResult, Book]) -> None:
    result, _ = book
    got = [(u.rule_id, u.title, u.parent, u.source.page) for u in result.units]
    assert got == BOOK_UNITS
    assert result.pages == 5
    assert result.parser == "pdf"
    assert all(u.title_source == "heading" and u.kind == "rule" for u in result.units)
    assert unit(result, "1.1").text == (
        "All rolls use six-sided dice, written D6. A roll of 2D6 means two dice added together."
    )
    # a chapter's number is taken off its title and is no ID
    assert not any(u.title[:1].isdigit() for u in result.units)


def test_unit_page_is_the_page_of_its_heading(book: tuple[ParseResult, Book]) -> None:
    result, b = book
    assert (3, "2.3 Charging") in b.drawn
    assert [text for page, text in b.drawn if page == 4][2].startswith("A charging unit")
    charging = unit(result, "2.3")
    assert charging.source.page == 3
    assert charging.text == (
        "A charging unit moves straight at its target and fights first in the next combat."
    )
    # ...and a quote of it is cited on the page its text is printed on (a
    # player turning to p. 3 found only the heading)
    assert charging.page_of("fights first in the next combat") == 4
    # and a unit that starts on a page after a page break carries that page
    assert unit(result, "shooting").source.page == 4
    assert unit(result, "4.1").source.page == 5


def test_a_quote_is_cited_with_the_page_it_is_printed_on() -> None:
    """A rule running over two pages: a quote from the second is cited with the
    second page, not the page its heading is on (Skirmishers' "decelerating to a
    full stop costs 2 AP" is on p. 21, its "Movement" heading on p. 20)."""
    from ruleslawyer.cli import citation_heading
    from ruleslawyer.records import Citation, RuleUnit

    b = Book()
    b.new_page()
    b.heading("1 Vehicles", size=16)
    b.para("Vehicles move in straight lines. " + FILLER)
    b.heading("1.1 Movement")
    b.para("Accelerating from a full stop costs 1 AP. " + FILLER)
    b.new_page()
    b.para("Decelerating to a full stop costs 2 AP. " + FILLER)
    b.heading("1.2 Ramming")
    b.para("A vehicle may ram a trooper in its path.")
    result = read_pdf(b.pdf())
    move = unit(result, "1.1")
    assert (move.source.page, move.page_of("Decelerating to a full stop costs 2 AP")) == (1, 2)
    assert move.page_of("Accelerating from a full stop costs 1 AP") == 1
    assert move.page_of() == 1 and move.source.where == "book.pdf pp. 1-2"
    assert unit(result, "1.2").source.where == "book.pdf p. 2"
    # kept in the index, and shown with the answer
    again = RuleUnit.from_dict(move.to_record())
    assert again.source == move.source
    cited = Citation(move, "Decelerating to a full stop costs 2 AP.").to_dict()
    assert cited["page"] == 2 and citation_heading(cited).endswith("(book.pdf p. 2)")


def test_running_header_and_page_numbers_are_dropped_and_reported(
    book: tuple[ParseResult, Book],
) -> None:
    result, b = book
    assert sum(1 for _, text in b.drawn if text == HEADER) == 5
    assert result.dropped == {
        "running headers and footers": 5,
        "page numbers": 5,
        "table of contents lines": 1 + len(BOOK_TOC),  # "Contents" and its entries
    }
    assert result.units
    for u in result.units:
        assert "Brass & Bayonet" not in u.text, u.rule_id
        for line in u.text.splitlines():
            assert not line.strip().isdigit(), (u.rule_id, line)


def test_word_hyphenated_at_a_line_end_is_rejoined(book: tuple[ParseResult, Book]) -> None:
    result, b = book
    assert any(text.endswith(" move-") for _, text in b.drawn)
    moving = unit(result, "2.1")
    assert moving.text == (
        "A model that moves must stay wholly within the table edge at all times, and the whole "
        "distance of its movement is measured along its path, never in a straight line from its "
        "start point."
    )
    assert "move-" not in moving.search_text and "movement" in moving.search_text


def test_table_of_contents_page_is_dropped(book: tuple[ParseResult, Book]) -> None:
    result, b = book
    toc_lines = [text for page, text in b.drawn if page == 1 and "...." in text]
    assert len(toc_lines) == len(BOOK_TOC)
    assert result.dropped["table of contents lines"] == 1 + len(BOOK_TOC)
    assert "contents" not in {u.rule_id for u in result.units}
    for u in result.units:
        assert "...." not in u.text and u.source.page != 1, u.rule_id
        assert "Contents" not in u.text and "Contents" not in u.parent


def test_reading_is_deterministic(book: tuple[ParseResult, Book]) -> None:
    result, _ = book
    again, _ = book_pdf()
    assert read_pdf(again).units == result.units


# --- two columns --------------------------------------------------------------------------------
ALPHA = [
    "Alpha models fight in base contact only and never at a distance.",
    "Alpha fighters roll one die for each model in the unit that is in contact.",
    "Alpha blows strike in the order the players choose at the start.",
    "Alpha units that lose the fight must test their nerve at once.",
]
BRAVO = [
    "Bravo units that win the fight may pursue the loser at once.",
    "Bravo pursuit moves are made straight ahead and never turn.",
    "Bravo cavalry may pursue twice as far as any foot unit can.",
    "Bravo units that pursue may not shoot in their next turn.",
]


def two_column_pdf(*, row_order: bool = False) -> tuple[bytes, Book]:
    """Three pages; page 2 holds section 2.1 in two columns (left: Alpha, right: Bravo)."""
    b = Book()
    b.new_page()
    b.heading("1 Basics", size=16)
    b.para("This chapter covers the ideas every other rule relies on. " + FILLER)
    b.new_page()
    b.heading("2 Close Combat", size=16)
    b.heading("2.1 Fighting")
    b.two_columns(" ".join(ALPHA), " ".join(BRAVO), row_order=row_order)
    b.new_page()
    b.heading("3 Morale", size=16)
    b.para("A unit that loses half its models must take a Nerve test at the end of the turn.")
    return b.pdf(), b


def check_two_columns(data: bytes, b: Book) -> RuleUnit:
    assert min(b.column_lines) >= 5  # each column holds several lines
    result = read_pdf(data)
    assert [(u.rule_id, u.parent, u.source.page) for u in result.units] == [
        ("basics", "", 1),
        ("2.1", "Close Combat", 2),
        ("morale", "", 3),
    ]
    fighting = unit(result, "2.1")
    # every sentence comes out whole (a line mixing both columns would cut them up) ...
    for sentence in ALPHA + BRAVO:
        assert sentence in fighting.text, sentence
    # ... the left column first, then the right column
    assert fighting.text.index(ALPHA[-1]) < fighting.text.index(BRAVO[0])
    return fighting


def test_two_columns_are_read_left_then_right() -> None:
    data, b = two_column_pdf()
    fighting = check_two_columns(data, b)
    assert fighting.text.startswith(ALPHA[0])
    assert fighting.text.endswith(BRAVO[-1])


def test_two_columns_written_row_by_row_are_read_left_then_right() -> None:
    data, b = two_column_pdf(row_order=True)
    check_two_columns(data, b)


def test_no_line_of_unit_text_mixes_the_two_columns() -> None:
    data, _ = two_column_pdf()
    fighting = unit(read_pdf(data), "2.1")
    assert fighting.text.splitlines() == [" ".join(ALPHA), " ".join(BRAVO)]


def _columns_under_text(intro_lines: int) -> tuple[bytes, list[str], list[str]]:
    """A chapter's text across the page, then two sections side by side in
    two columns, their bold headings on one baseline (a word processor's
    section in two columns under one-column text)."""
    b = Book()
    b.new_page()
    b.heading("2 Actions", size=16)
    b.para(" ".join([FILLER] * intro_lines))
    b.y -= 8
    # One run of text, as LibreOffice writes it: each number a tab from its
    # title, the second heading spaced out to the right column (two strings
    # drawn apart are two lines to PDFium already).
    b.canvas.setFont("Helvetica-Bold", BODY_SIZE)
    space = stringWidth(" ", "Helvetica-Bold", BODY_SIZE)
    left_heading = "2.1" + " " * 6 + "Move"
    gap = round((RIGHT_X - LEFT_X - stringWidth(left_heading, "Helvetica-Bold", BODY_SIZE)) / space)
    b.canvas.drawString(LEFT_X, b.y, left_heading + " " * gap + "2.2" + " " * 6 + "Jump")
    b.y -= BODY_SIZE + 6
    b.two_columns(" ".join(ALPHA), " ".join(BRAVO))
    left, right = wrap(" ".join(ALPHA), COLUMN_W), wrap(" ".join(BRAVO), COLUMN_W)
    return b.pdf(), left, right


@pytest.mark.parametrize("intro_lines", [1, 3])
def test_two_headings_side_by_side_each_head_their_column(intro_lines: int) -> None:
    """PDFium gives two headings on one baseline, one atop each column, as one
    line ("2.1 Move 2.2 Jump"), kept whole because two short runs either side
    of the middle are also a table's row: they were one section holding both
    columns. With one line of text above the columns the page is in columns;
    with three, the columns are only the lower part of it."""
    data, left, right = _columns_under_text(intro_lines)
    units = {u.rule_id: u for u in read_pdf(data).units}
    assert (units["2.1"].title, units["2.2"].title) == ("Move", "Jump")
    assert units["2.1"].text == " ".join(left)
    assert units["2.2"].text == " ".join(right)


def test_short_lines_set_right_beside_a_list_are_no_column() -> None:
    """Columns on part of a page are columns of running text: three short
    lines set at the right beside a list, under a paragraph across the page,
    stay in the order they are set (item, value, item, value)."""
    b = Book()
    b.new_page()
    b.heading("Armoury")
    b.para(" ".join([FILLER] * 3))
    b.canvas.setFont(BODY_FONT, BODY_SIZE)
    for name, cost in (("Rifle", "12 points"), ("Pistol", "8 points"), ("Knife", "3 points")):
        b.canvas.drawString(MARGIN, b.y, name)
        b.canvas.drawRightString(PAGE_W - MARGIN, b.y - 8, cost)
        b.y -= 2 * LEADING
    text = unit(read_pdf(b.pdf()), "armoury").text
    order = ["Rifle", "12 points", "Pistol", "8 points", "Knife", "3 points"]
    assert [text.index(word) for word in order] == sorted(text.index(word) for word in order)


def test_page_number_on_a_two_column_page_is_counted_once() -> None:
    data, _ = two_column_pdf()
    assert read_pdf(data).dropped["page numbers"] == 3


# --- typography the reader misses ---------------------------------------------------------------
def test_bold_body_size_headings_are_headings() -> None:
    b = Book()
    for n, chapter in enumerate(("Basics", "Movement", "Shooting"), start=1):
        b.new_page()
        b.heading(f"{n} {chapter}", size=16)
        b.para(f"This chapter covers {chapter.lower()}. " + FILLER)
        b.heading(f"{n}.1 Moving")
        b.para("A model moves up to its Move stat in inches, measured along its path.")
        b.heading(f"{n}.1.1 Pivoting", bold=False)
        b.para("Pivoting on the spot costs no distance at the start or end of a move.")
        b.heading("Difficult Ground")
        b.para("Difficult ground halves the distance a unit may move through it.")
    result = read_pdf(b.pdf())
    got = [(u.rule_id, u.title, u.parent) for u in result.units if u.source.page == 2]
    assert got == [
        ("movement", "Movement", ""),
        ("2.1", "Moving", "Movement"),
        ("2.1.1", "Pivoting", "Movement > Moving"),
        ("movement/difficult-ground", "Difficult Ground", "Movement"),
    ]


def test_a_large_heading_numbered_like_a_list_item_is_a_heading() -> None:
    """ "5. Breath Weapons" set large reads like a list item "1. Roll a die"; it was
    text, so its rules were cited under the section before it (a Chromium print)."""
    b = Book()
    b.new_page()
    for n, chapter, body in (
        (4, "Flight", "A dragon may fly up to 10 squares."),
        (5, "Breath Weapons", "Once per game, a dragon may breathe fire."),
        (6, "Knights", "Knights move 4 squares."),
    ):
        b.heading(f"{n}. {chapter}", size=16)
        b.para(body + " " + FILLER)
    b.para("1. Roll a die for each knight in the cone.")
    result = read_pdf(b.pdf())
    # (one page: its running header is not yet furniture, and opens the book)
    assert [u.title for u in result.units][-3:] == ["Flight", "Breath Weapons", "Knights"]
    assert len(result.units) == 4 and "dragon" not in result.units[0].text
    knights = result.units[-1]
    assert "1. Roll a die" in knights.text and "breathe fire" not in knights.text


def test_small_bold_lines_and_smaller_tails_are_no_headings() -> None:
    """A bold caption or "Example" label set smaller than the body is text of
    its rule, and so is a body-size bold label with a smaller sentence after it
    on its line; small capitals drawn in two sizes ("E" + "NGAGED") stay one
    word."""
    b = Book(header="", page_numbers=False)
    b.new_page()
    b.heading("Morale")
    b.para("A unit that loses half its models takes a morale test at the end of the turn.")
    b.heading("Figure 3: the unit at half strength", size=BODY_SIZE * 0.85)
    b.canvas.setFont("Helvetica-Bold", BODY_SIZE)
    b.canvas.drawString(MARGIN, b.y, "Example")
    b.canvas.setFont(BODY_FONT, 8)
    example = "a unit of ten that loses five models tests."
    b.canvas.drawString(MARGIN + stringWidth("Example ", "Helvetica-Bold", BODY_SIZE), b.y, example)
    b.y -= LEADING + 6
    b.canvas.setFont(BODY_FONT, BODY_SIZE)
    b.canvas.drawString(MARGIN, b.y, "A unit that fails is E")
    b.canvas.setFont(BODY_FONT, 7)
    b.canvas.drawString(
        MARGIN + stringWidth("A unit that fails is E", BODY_FONT, BODY_SIZE), b.y, "NGAGED"
    )
    b.y -= LEADING
    result = read_pdf(b.pdf())
    assert [u.rule_id for u in result.units] == ["morale"]
    text = unit(result, "morale").text
    assert "Figure 3: the unit at half strength" in text
    assert f"Example {example}" in text
    assert "A unit that fails is ENGAGED" in text


def test_a_smaller_bold_style_used_as_the_headings_throughout_is_headings() -> None:
    """A browser prints an h5 in bold at 0.83 of the body. Used again and
    again, alone at the margin before body text, that style is the book's
    headings; the same size used once (a caption) stays text, and so does a
    recurring small bold style that also sets run-in labels."""
    size = BODY_SIZE * 0.83

    def three_sections() -> Book:
        b = Book(header="", page_numbers=False)
        b.new_page()
        for name in ("Movement", "Shooting", "Morale"):
            b.heading(name, size=size)
            b.para(f"The {name.lower()} phase comes after the last one and each unit acts once.")
        return b

    result = read_pdf(three_sections().pdf())
    assert [u.rule_id for u in result.units] == ["movement", "shooting", "morale"]
    assert unit(result, "shooting").text.startswith("The shooting phase comes after")

    b = three_sections()
    b.heading("Note: run-in labels share the style.", size=size)
    b.para("So this small bold style is not the book's headings and stays text.")
    result = read_pdf(b.pdf())
    assert "movement" not in {u.rule_id for u in result.units}
    assert any("Shooting\n\nThe shooting phase" in u.text for u in result.units)


def test_two_small_bold_headings_under_a_page_title_are_headings() -> None:
    """A printed web page with a title and only two h5 sections: without
    them the page would be one unit, so the small bold style used twice, each
    time as a heading, is taken. A book with headings of its own does not
    need it, and its small bold style used twice stays text."""
    size = BODY_SIZE * 0.83

    def page(*, chapters: bool) -> Book:
        b = Book(header="", page_numbers=False)
        b.new_page()
        b.heading("2 System", size=BODY_SIZE * 1.6)
        b.para("This section covers the map and the basic game loop of every game.")
        for name in ("Map", "Game Loop"):
            if chapters:
                b.heading(f"Part {name}")
            b.heading(name, size=size)
            b.para(f"The {name.lower()} is described here and each player follows it in turn.")
        return b

    result = read_pdf(page(chapters=False).pdf())
    assert [u.rule_id for u in result.units] == ["system", "system/map", "system/game-loop"]
    assert unit(result, "system/map").text.startswith("The map is described here")

    result = read_pdf(page(chapters=True).pdf())
    assert [u.rule_id for u in result.units] == [
        "system",
        "system/part-map",
        "system/part-game-loop",
    ]
    assert unit(result, "system/part-map").text.startswith("Map\nThe map is described")


def test_a_small_bold_label_used_again_is_no_heading() -> None:
    """Headings name different sections; a label says the same again. Two
    small bold "Example" lines on a page with only its title as a heading stay
    text of their rules, and so do three."""
    for uses in (2, 3):
        b = Book(header="", page_numbers=False)
        b.new_page()
        b.heading("Quick Reference", size=BODY_SIZE * 1.6)
        for rule in ("Shooting", "Charging", "Morale")[:uses]:
            b.para(f"{rule}: every unit may do this once in each of its turns, as below.")
            b.heading("Example", size=BODY_SIZE * 0.83)
            b.para(f"A unit of ten riflemen does this in its turn: {rule.lower()} as shown.")
        result = read_pdf(b.pdf())
        assert [u.rule_id for u in result.units] == ["quick-reference"], uses
        assert unit(result, "quick-reference").text.count("Example") == uses


SECTIONS = ("Setup", "Placing Workers", "Gathering", "Feeding")


def _marked_heading(b: Book, text: str, mark: str) -> None:
    """A heading in the body's size and regular face, marked only by ``mark``:
    "colour" (dark red), "small caps" (its capitals in the body size, its
    other letters as capitals at 0.8 of it), "browser small caps" (its other
    letters left in lower case, at 0.7 of it, as Chromium writes CSS
    small-caps), "tracked" (capitals letter-spaced wide), "tracked by hand"
    (each capital placed apart, as a browser tracks, an "A" kerned against
    the letter before it) or "capitals"."""
    b.y -= 8
    c = b.canvas
    c.setFont(BODY_FONT, BODY_SIZE)
    if mark == "colour":
        c.setFillColorRGB(0.6, 0.1, 0.1)
        c.drawString(MARGIN, b.y, text)
        c.setFillColorRGB(0, 0, 0)
    elif mark == "small caps":
        x = MARGIN
        for word in text.split():
            for size, part in ((BODY_SIZE, word[0]), (BODY_SIZE * 0.8, word[1:].upper())):
                c.setFont(BODY_FONT, size)
                c.drawString(x, b.y, part)
                x += stringWidth(part, BODY_FONT, size)
            x += stringWidth(" ", BODY_FONT, BODY_SIZE)
    elif mark == "browser small caps":
        x = MARGIN
        for ch in text:
            size = BODY_SIZE if ch.isupper() or ch == " " else BODY_SIZE * 0.7
            c.setFont(BODY_FONT, size)
            c.drawString(x, b.y, ch)
            x += stringWidth(ch, BODY_FONT, size)
    elif mark == "tracked by hand":
        x = MARGIN
        for ch in text.upper():
            if ch == "A":
                x -= 2.0  # kerned against the letter before
            c.drawString(x, b.y, ch)
            x += stringWidth(ch, BODY_FONT, BODY_SIZE) + 2.0  # the space's too
    elif mark == "tracked":
        t = c.beginText(MARGIN, b.y)
        t.setFont(BODY_FONT, BODY_SIZE)
        t.setCharSpace(2.4)
        t.textOut(text.upper())
        c.drawText(t)
    else:
        c.drawString(MARGIN, b.y, text.upper())
    b.drawn.append((b.page, text))
    b.y -= BODY_SIZE + 6


def _marked_book(mark: str, *, spoilt_by: str = "") -> bytes:
    b = Book(header="", page_numbers=False)
    b.new_page()
    b.heading("Hearthstead", size=BODY_SIZE * 2)
    for name in SECTIONS:
        _marked_heading(b, name, mark)
        b.para(
            f"During {name.lower()} every player acts once in turn order, starting with the "
            "first player and going clockwise around the table until all have acted."
        )
        if spoilt_by and name == "Gathering":
            _marked_heading(b, spoilt_by, mark)
            b.para("The first player token then passes to the left and the round goes on.")
    return b.pdf()


@pytest.mark.parametrize(
    "mark", ["colour", "small caps", "browser small caps", "tracked", "tracked by hand", "capitals"]
)
def test_headings_marked_only_by_colour_or_capitals_are_headings(mark: str) -> None:
    """A designer may set headings in the text's own size and face, told
    apart only by colour, small caps or letter-spaced capitals. A style the
    book uses again and again, each time for a short line alone at the margin
    with body text under it, is its headings (the whole book had been one
    unit, every rule cited by the book's title)."""
    result = read_pdf(_marked_book(mark))
    assert [u.title for u in result.units] == ["Setup", "Placing Workers", "Gathering", "Feeding"]
    assert all(u.parent == "Hearthstead" for u in result.units)
    assert unit(result, "hearthstead/feeding").text.startswith("During feeding every player")


@pytest.mark.parametrize("mark", ["colour", "capitals"])
def test_a_marked_style_that_also_sets_text_is_no_heading_style(mark: str) -> None:
    """The same style set once as a sentence ("Do not shuffle the deck.": a
    caution in capitals, a link in colour) is text, and so is every line in
    it: the book stays one unit with its lines, rather than made sections
    of some of them."""
    result = read_pdf(_marked_book(mark, spoilt_by="Do not shuffle the deck."))
    assert [u.rule_id for u in result.units] == ["hearthstead"]
    assert unit(result, "hearthstead").text.count("every player acts once") == len(SECTIONS)


def test_a_label_in_colour_used_again_is_no_heading() -> None:
    """Headings name different sections; a coloured "Example" before each
    worked example says the same again, and stays in its rule."""
    b = Book(header="", page_numbers=False)
    b.new_page()
    for name in SECTIONS[:3]:
        b.heading(name, size=BODY_SIZE * 1.5)
        b.para(f"During {name.lower()} every player acts once, as shown below in the example.")
        _marked_heading(b, "Example", "colour")
        b.para(f"Anna and Ben both act during {name.lower()}, Anna first as she holds the token.")
    result = read_pdf(b.pdf())
    assert [u.title for u in result.units] == list(SECTIONS[:3])
    assert unit(result, "gathering").text.startswith("During gathering every player acts once")
    assert "Example\nAnna and Ben" in unit(result, "gathering").text


def test_justified_lines_of_a_narrow_column_are_no_table_rows() -> None:
    """A narrow column set justified stretches its spaces to an em or more,
    as wide as a table's gap between cells: "When the market closes, every"
    was read as five cells, and the paragraph quoted as "When | the |
    market | closes, | every". Spaces stretched alike on a line of prose
    are a line's."""
    from reportlab.lib.enums import TA_JUSTIFY
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=10.5, leading=13.5,
                          alignment=TA_JUSTIFY, spaceAfter=6)  # fmt: skip
    head = ParagraphStyle("h", fontName="Times-Bold", fontSize=14, leading=17, spaceAfter=4)
    text = (
        "When the market closes, every rumour is revealed. Each spice named on a rumour "
        "rises by one step on the price track, and every unsold crate of it is lost. The "
        "first merchant with twelve coins at the end of a day wins the game at once."
    )
    buf = io.BytesIO()
    doc = BaseDocTemplate(buf, pagesize=letter, invariant=1)
    frames = [Frame(72 + k * 180, 72, 105, PAGE_H - 144) for k in range(2)]
    doc.addPageTemplates([PageTemplate("p", frames)])
    story = []
    for name in ("Buying", "Selling", "End of the Day"):
        story += [Paragraph(name, head), Paragraph(text, body), Paragraph(text, body)]
    doc.build(story)
    result = read_pdf(buf.getvalue())
    assert [u.title for u in result.units] == ["Buying", "Selling", "End of the Day"]
    for u in result.units:
        assert " | " not in u.text
        assert u.text.replace("\n", " ") == f"{text} {text}"


def test_a_sheet_in_three_columns_is_read_column_by_column() -> None:
    """A quick-reference card in three columns, its headings in bold at the
    text's size: each column read top to bottom in turn, a heading in any of
    them heads its rule, and a paragraph's lines are one paragraph (two
    columns were found and read; with three, the middle one crosses the
    page's middle, and the page was read as one column: only the first
    column's headings were found, and every line of the others stayed a
    line of its own)."""
    width, height = 792.0, 612.0
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(width, height), invariant=1)
    c.setFont("Helvetica-Bold", 22)
    c.drawString(42, height - 50, "Skyforge Reference Card")
    col_w = (width - 2 * 42 - 2 * 24) / 3
    names = ["Orders", "Wind", "Manoeuvre", "Altitude", "Broadside", "Boarding"]
    for k in range(3):
        x, y = 42 + k * (col_w + 24), height - 90
        for name in names[2 * k : 2 * k + 2]:
            c.setFont("Helvetica-Bold", BODY_SIZE)
            c.drawString(x, y, name)
            y -= LEADING + 2
            text = (
                f"In the {name.lower()} step each ship acts once in the order of its "
                "initiative, and a ship that cannot act loses its turn for this round."
            )
            lines = wrap(text, col_w)
            assert len(lines) >= 3
            c.setFont(BODY_FONT, BODY_SIZE)
            for line in lines:
                c.drawString(x, y, line)
                y -= LEADING
            y -= 10
    c.showPage()
    c.save()
    result = read_pdf(buf.getvalue())
    assert [u.title for u in result.units] == names
    for name in names:
        u = unit(result, f"skyforge-reference-card/{name.lower()}")
        assert u.text == (
            f"In the {name.lower()} step each ship acts once in the order of its "
            "initiative, and a ship that cannot act loses its turn for this round."
        )


def test_a_bold_total_row_stays_in_its_table() -> None:
    b = Book(header="", page_numbers=False)
    b.new_page()
    b.heading("Army Lists")
    x = (MARGIN, 200.0)
    for row in (["Unit", "Points"], ["Riflemen", "50"], ["Scouts", "40"]):
        b.row(list(zip(x, row, strict=True)))
    b.canvas.setFont("Helvetica-Bold", BODY_SIZE)
    for x0, cell in zip(x, ["Total", "90"], strict=True):
        b.canvas.drawString(x0, b.y, cell)
    b.y -= LEADING + 6
    b.lines(["An army may not spend more than 100 points."])
    result = read_pdf(b.pdf())
    assert [u.rule_id for u in result.units] == ["army-lists"]
    assert unit(result, "army-lists").text == (
        "Unit | Points\nRiflemen | 50\nScouts | 40\nTotal | 90\n"
        "An army may not spend more than 100 points."
    )


EMBER_PRINT = PROJECT_ROOT / "evals" / "corpora" / "ember" / "ember-print.pdf"


def test_a_web_page_printed_by_a_browser() -> None:
    """The Ember wiki page saved as PDF by Chromium: its subset fonts declare
    weights of 340 and 415, so bold comes from the font's name
    ("LiberationSerif-Bold"); its headings carry smaller "[Edit | History]"
    links; the browser's own header and footer repeat on every page."""
    result = parse_file(EMBER_PRINT.name, EMBER_PRINT.read_bytes(), game="ember")
    ids = {u.rule_id for u in result.units}
    assert {"1.1", "2.3.1", "5.4", "7.3", "glossary/doused"} <= ids
    assert unit(result, "5.4").title == "Weapon Table"
    assert unit(result, "glossary/doused").text.startswith("A lantern deliberately put out")
    # Its weapon table centres each cell in the row's height.
    rows = unit(result, "5.4").text.split("\n")
    assert "Name | Range | Dice | Cost | Special" in rows
    assert "Hand Weapon | Melee | 2 | 0 | –" in rows
    assert (
        'Longbow | 24" | 2 | 5 | Cannot be used after a Move action in the same activation' in rows
    )
    assert result.dropped["running headers and footers"] > 0
    assert not any(
        "file://" in u.text or "Ember Lanterns – Core Rules" in u.text for u in result.units
    )
    # Its links: each heading's "[Edit | History]" and the sidebar's menu are
    # dropped; a cross-reference that wraps onto a line of its own is kept.
    assert result.dropped["navigation links"] > 0
    assert not any("Edit | History" in u.text or "Random page" in u.text for u in result.units)
    assert unit(result, "1.1").text.startswith("Each player needs a warband")
    assert "Refuel: Lantern Bearers only; add oil to a lantern (6.3)." in unit(result, "3.3").text


def linked_line(b: Book, words: list[str], *, y: float | None = None, gap: float = 12) -> None:
    """One line of words, each a link: a web page's menu, set ``gap`` apart."""
    y = b.y if y is None else y
    b.canvas.setFont(BODY_FONT, BODY_SIZE)
    x = MARGIN
    for word in words:
        width = stringWidth(word, BODY_FONT, BODY_SIZE)
        b.canvas.drawString(x, y, word)
        b.canvas.linkURL(f"https://example.org/{word}", (x, y - 2, x + width, y + 8), relative=0)
        x += width + gap
    b.drawn.append((b.page, " ".join(words)))


def test_a_printed_web_pages_menus_are_dropped_and_its_introduction_kept() -> None:
    """A web page printed to PDF keeps its menus as lines of links: above the
    title, and a link bar at the foot of every page. They are dropped and
    counted. A line of links that finishes a sentence (a cross-reference
    wrapped onto its own line) is text; so is the page's introduction between
    its title and its first section."""
    b = Book(header="", page_numbers=False)
    # Two lines that run to the margin, mid-sentence, then the link that ends it.
    ref = wrap(f"Whenever a unit moves it must keep in formation. {FILLER} {FILLER}", TEXT_W)[:2]
    for n, chapter in enumerate(("Moving", "Running", "Charging", "Falling Back"), start=1):
        b.new_page()
        if n == 1:
            linked_line(b, ["Home", "Rules", "Armies", "Downloads"])
            b.y -= LEADING * 2
            b.heading("Movement", size=BODY_SIZE * 1.8)
            b.para("This page covers how units move, run, charge and fall back in a turn.")
        b.heading(chapter)
        b.para(f"{chapter} is one of the four moves. {FILLER}")
        if n == 2:
            for line in ref:
                b._line(MARGIN, line, BODY_FONT, BODY_SIZE)
                b.y -= LEADING
            linked_line(
                b, ["(see", "Falling", "Back)."], gap=stringWidth(" ", BODY_FONT, BODY_SIZE)
            )
            b.y -= LEADING + 6
        b.para(f"A unit that ends its {chapter.lower()} in cover counts as in cover.")
        linked_line(b, ["[Previous]", "[Home]", "[Next]"], y=120)
    result = read_pdf(b.pdf())
    ids = [u.rule_id for u in result.units]
    assert ids[1:] == ["moving", "running", "charging", "falling-back"]
    intro = result.units[0]
    assert intro.text == "This page covers how units move, run, charge and fall back in a turn."
    assert intro.source.page == 1
    assert result.dropped["navigation links"] == 5  # the menu and four link bars
    text = "\n".join(u.text for u in result.units)
    assert "Downloads" not in text and "[Home]" not in text
    assert f"{ref[-1]} (see Falling Back)." in unit(result, "running").text


def test_links_that_are_the_rules_own_text_are_kept() -> None:
    """Not every line of links is navigation: a list the text introduces
    ("has these special rules:"), a sentence made one link, and a page a
    link box covers whole (a card a web page links as a block) are the
    rules' text; and a page's introduction that ends in a wrapped
    cross-reference keeps it, and so stays an introduction."""
    b = Book(header="", page_numbers=False)
    for n, chapter in enumerate(("Harpy", "Marsh Hound", "Drowned Spirit", "Warden"), start=1):
        b.new_page()
        if n == 1:
            b.heading("Monsters", size=BODY_SIZE * 1.8)
            b._line(
                MARGIN,
                "Monsters join a warband as described in the chapter on warbands",
                BODY_FONT,
                BODY_SIZE,
            )
            b.y -= LEADING
            linked_line(b, ["(see", "Mustering)."], gap=stringWidth(" ", BODY_FONT, BODY_SIZE))
            b.y -= LEADING + 6
        b.heading(chapter)
        b.lines([f"A {chapter} has these special rules:"])
        linked_line(b, ["Flying"])
        b.y -= LEADING
        linked_line(b, ["Terror"])
        b.y -= LEADING + 6
        linked_line(
            b,
            ["It", "never", "carries", "a", "lantern."],
            gap=stringWidth(" ", BODY_FONT, BODY_SIZE),
        )
        b.y -= LEADING + 6
        if n == 4:  # the whole page inside one link
            b.canvas.linkURL("https://example.org/warden", (0, 0, PAGE_W, PAGE_H), relative=0)
            b.para(f"A Warden guards the lantern. {FILLER}")
    result = read_pdf(b.pdf())
    assert "navigation links" not in result.dropped
    intro = result.units[0]
    assert intro.text.endswith("chapter on warbands (see Mustering).")
    for rule_id in ("harpy", "marsh-hound", "drowned-spirit", "warden"):
        text = " ".join(unit(result, rule_id).text.split())
        assert "special rules: Flying Terror It never carries a lantern." in text
    assert "A Warden guards the lantern." in unit(result, "warden").text


def test_plain_sections_of_a_pdf_with_no_headings_carry_their_pages() -> None:
    b = Book(header="", page_numbers=False)
    for n in range(1, 4):
        b.new_page()
        for k in range(3):
            b.para(f"Rule {n}.{k}: {FILLER * 2}")
    result = read_pdf(b.pdf())
    assert result.parser == "plain"
    pages = [u.source.page for u in result.units]
    assert len(pages) >= 3 and pages[0] == 1 and pages[-1] == 3
    assert pages == sorted(pages)
    for u in result.units:  # each section's first rule is printed on its page
        first = u.text.split(":")[0]
        assert b.drawn_on(first) == u.source.page, first


def test_heading_style_used_only_on_the_last_page_is_a_heading() -> None:
    b = Book()
    for n, chapter in enumerate(("Basics", "Movement", "Shooting", "Morale", "Terrain"), start=1):
        b.new_page()
        b.heading(f"{n} {chapter}", size=16)
        b.para(f"This chapter covers {chapter.lower()}. " + FILLER)
    b.heading("Quick Reference", size=12)
    b.para("Move 6 inches. Shoot at up to 24 inches. Charge 3 inches further than a move.")
    result = read_pdf(b.pdf())
    assert "cover lines" not in result.dropped
    assert unit(result, "terrain").text == "This chapter covers terrain. " + FILLER.strip()
    ref = unit(result, "terrain/quick-reference")
    assert (ref.title, ref.parent, ref.source.page) == ("Quick Reference", "Terrain", 5)


CHAPTERS = ("Basics", "Movement", "Shooting", "Morale")


def test_a_running_header_that_names_the_chapter_is_dropped() -> None:
    """A header like "Chapter 3 · Shooting" changes from chapter to chapter: its words do not
    repeat; its place and style (8 pt italic, flush right, same height) do."""
    b = Book()
    for n, chapter in enumerate(CHAPTERS, start=1):
        b.new_page()
        running = f"Chapter {n} \u00b7 {chapter}"
        b.canvas.setFont("Helvetica-Oblique", 8)
        b.canvas.drawRightString(PAGE_W - MARGIN, PAGE_H - 40, running)
        b.drawn.append((b.page, running))
        b.heading(f"{n} {chapter}", size=16)
        b.para(f"This chapter covers {chapter.lower()}. " + FILLER)
    result = read_pdf(b.pdf())
    assert [u.title for u in result.units] == list(CHAPTERS)
    assert not any("Chapter" in u.text for u in result.units)
    # the centred header (repeated words) and the chapter line (repeated place), 4 pages each
    assert result.dropped["running headers and footers"] == 8


def test_a_glossary_page_of_bold_terms_and_indented_definitions() -> None:
    """On the glossary page the indented definitions outnumber the terms at the
    margin; the book's margin, not the page's commonest start, makes them headings."""
    b = Book()
    for n, chapter in enumerate(CHAPTERS[:3], start=1):
        b.new_page()
        b.heading(f"{n} {chapter}", size=16)
        b.para(f"This chapter covers {chapter.lower()}. " + FILLER)
    b.new_page()
    b.heading("Glossary", size=16)
    terms = {
        "Base contact": "Two bases that touch, or a base touching a piece of terrain that "
        "blocks movement, count as in base contact for every rule.",
        "Darkness": "Any point of the battlefield outside every light radius, whether or not "
        "a model stands there at the start of the round.",
        "Held token": "An initiative token set aside to be spent after a later activation "
        "of the same player, but never in the End Phase.",
    }
    for term, definition in terms.items():
        b.heading(term)
        for line in wrap(definition, TEXT_W - 12):
            b._line(MARGIN + 12, line, BODY_FONT, BODY_SIZE)
            b.y -= LEADING
    result = read_pdf(b.pdf())
    got = {u.rule_id: u.text for u in result.units if u.source.page == 4}
    assert got == {
        f"glossary/{term.lower().replace(' ', '-')}": definition
        for term, definition in terms.items()
    }


def test_margins_that_alternate_between_odd_and_even_pages() -> None:
    """A printed book shifts its text block between odd and even pages; with every
    paragraph's first line indented, the indent of an odd page sits where an even
    page's margin is, and neither may be taken for the other."""
    b = Book()
    for n, chapter in enumerate(CHAPTERS, start=1):
        b.new_page()
        margin = MARGIN if n % 2 else MARGIN - 18
        b.y -= 8
        b._line(margin, f"{chapter} Rules", "Helvetica-Bold", BODY_SIZE)
        b.y -= BODY_SIZE + 6
        for _ in range(3):
            lines = wrap(FILLER * 2, TEXT_W - 18)
            b._line(margin + 18, lines[0], BODY_FONT, BODY_SIZE)
            for line in lines[1:]:
                b.y -= LEADING
                b._line(margin, line, BODY_FONT, BODY_SIZE)
            b.y -= LEADING + 6
    result = read_pdf(b.pdf())
    assert [(u.title, u.source.page) for u in result.units] == [
        (f"{chapter} Rules", n) for n, chapter in enumerate(CHAPTERS, start=1)
    ]


def test_small_lines_at_the_foot_of_every_page_are_kept() -> None:
    """An example set small at a fixed height near the foot of each page is rules
    text, not a running footer: only the top of the page is searched by place."""
    b = Book(page_numbers=False)
    examples = {}
    for n, chapter in enumerate(CHAPTERS, start=1):
        b.new_page()
        b.heading(f"{n} {chapter}", size=16)
        b.para(f"This chapter covers {chapter.lower()}. " + FILLER)
        examples[chapter] = f"Example: the {chapter.lower()} rules at work on turn {n}."
        b.canvas.setFont(BODY_FONT, 8)
        b.canvas.drawString(MARGIN, 60, examples[chapter])
    result = read_pdf(b.pdf())
    for u, chapter in zip(result.units, CHAPTERS, strict=True):
        assert u.text.endswith(examples[chapter]), u.text
    assert "running headers and footers" in result.dropped  # the centred header still goes


def test_numbered_table_of_contents_is_dropped() -> None:
    b = Book()
    b.new_page()
    b.heading("Contents", size=16)
    b.toc([("1 Basics", 2), ("1.1 Dice", 2), ("1.2 Measuring", 2), ("2 Movement", 3)])
    b.toc([("2.1 Moving", 3), ("3 Shooting", 4), ("3.1 Range", 4)])
    chapters = {"Basics": ["1.1 Dice", "1.2 Measuring"], "Movement": ["2.1 Moving"]}
    chapters["Shooting"] = ["3.1 Range"]
    for n, (chapter, sections) in enumerate(chapters.items(), start=1):
        b.new_page()
        b.heading(f"{n} {chapter}", size=16)
        b.para(f"This chapter covers {chapter.lower()}. " + FILLER)
        for section in sections:
            b.heading(section)
            b.para(f"The rules of {section[4:].lower()} are given here in one sentence.")
    result = read_pdf(b.pdf())
    assert result.dropped["table of contents lines"] == 8
    assert [u.rule_id for u in result.units] == [
        "basics",
        "1.1",
        "1.2",
        "movement",
        "2.1",
        "shooting",
        "3.1",
    ]
    assert unit(result, "2.1").title == "Moving"


def test_a_heading_followed_by_smaller_text_on_its_line_is_still_a_heading() -> None:
    """A web page printed to PDF sets "[Edit]" links, anchors or page references
    after a heading in a smaller size. The line's size is that of its start,
    and the smaller tail becomes body text of the section (nothing is lost);
    a footnote mark at the end of a body line is no tail."""
    b = Book(header="", page_numbers=False)
    b.new_page()
    for title in ("Spirits", "Lanterns"):
        b.y -= 8
        b.canvas.setFont(BODY_FONT, 16)
        b.canvas.drawString(MARGIN, b.y, title)
        b.canvas.setFont(BODY_FONT, 8)
        b.canvas.drawString(
            MARGIN + stringWidth(title + " ", BODY_FONT, 16), b.y, "[Edit | History]"
        )
        b.y -= 22
        b.lines([f"{title} follow the rules of this chapter, whatever the scenario says.2"])
    b.canvas.setFont(BODY_FONT, 6)  # the footnote mark, raised and small, ends its line
    b.canvas.drawString(MARGIN + stringWidth(b.drawn[-1][1], BODY_FONT, BODY_SIZE), b.y + 22, "3")
    result = read_pdf(b.pdf())
    assert [(u.rule_id, u.title) for u in result.units] == [
        ("spirits", "Spirits"),
        ("lanterns", "Lanterns"),
    ]
    assert unit(result, "spirits").text == (
        "[Edit | History]\nSpirits follow the rules of this chapter, whatever the scenario says.2"
    )
    # the raised mark (no note claims it) stays raised, not run into the "2"
    assert unit(result, "lanterns").text.endswith(
        "\nLanterns follow the rules of this chapter, whatever the scenario says.2\u00b3"
    )


# --- tables ---------------------------------------------------------------------------------------
WEAPON_COLUMNS = (MARGIN, 200.0, 260.0, 320.0, 380.0)


def test_a_table_is_one_line_per_row_with_its_cells_joined() -> None:
    """A row that crosses the middle of the page (where a line of two-column text
    that PDFium joined is cut; cells on both sides keep it whole), and a cell
    that wraps onto a line of its own under the row, are each one row;
    running text under the table ends it."""
    b = Book()
    b.new_page()
    b.heading("Weapons")
    b.lines(["Troopers can carry these weapons:"])
    x = WEAPON_COLUMNS
    b.row(list(zip(x, ["Weapon", "Damage", "Range", "Cost", "Notes"], strict=True)))
    b.row(list(zip(x, ["Rifle", "4X", "24", "10", "none at all"], strict=True)))
    b.row(list(zip(x, ["Long Rifle", "5X", "36", "15", "Cannot move and"], strict=True)))
    b.row([(x[4], "shoot in one turn")])
    b.row(list(zip(x, ["Pistol", "2X", "8", "5", "one hand only"], strict=True)))
    b.lines(["A trooper can carry only one weapon of each kind into a game."])
    data = b.pdf()
    # The premise: the rows cross the middle of the page.
    assert x[2] + stringWidth("24", BODY_FONT, BODY_SIZE) < PAGE_W / 2 - 10 < x[3]
    assert unit(read_pdf(data), "weapons").text == (
        "Troopers can carry these weapons:\n"
        "Weapon | Damage | Range | Cost | Notes\n"
        "Rifle | 4X | 24 | 10 | none at all\n"
        "Long Rifle | 5X | 36 | 15 | Cannot move and shoot in one turn\n"
        "Pistol | 2X | 8 | 5 | one hand only\n"
        "A trooper can carry only one weapon of each kind into a game."
    )


def test_a_header_row_repeated_over_a_page_break_is_dropped() -> None:
    """A browser (and LaTeX's longtable) prints a table's header row again at
    the top of each page the table runs onto: the rows read as one table with
    one header. A table of its own under a new heading keeps its header, even
    when it is the same as the table before it."""
    b = Book(header="", page_numbers=False)  # two pages: too few to learn furniture
    x = WEAPON_COLUMNS
    header = list(zip(x[:3], ["Weapon", "Damage", "Range"], strict=True))
    b.new_page()
    b.heading("Weapons")
    b.lines(["Troopers can carry these weapons:"])
    b.row(header)
    b.row(list(zip(x[:3], ["Rifle", "4X", "24"], strict=True)))
    b.row(list(zip(x[:3], ["Pistol", "2X", "8"], strict=True)))
    b.new_page()
    b.row(header)
    b.row(list(zip(x[:3], ["Sword", "3X", "1"], strict=True)))
    b.row(list(zip(x[:3], ["Knife", "1X", "1"], strict=True)))
    b.heading("Vehicle Weapons")
    b.row(header)
    b.row(list(zip(x[:3], ["Cannon", "8X", "48"], strict=True)))
    b.row(list(zip(x[:3], ["Flamer", "5X", "6"], strict=True)))
    result = read_pdf(b.pdf())
    assert unit(result, "weapons").text == (
        "Troopers can carry these weapons:\n"
        "Weapon | Damage | Range\n"
        "Rifle | 4X | 24\n"
        "Pistol | 2X | 8\n"
        "Sword | 3X | 1\n"
        "Knife | 1X | 1"
    )
    assert unit(result, "vehicle-weapons").text.split("\n")[0] == "Weapon | Damage | Range"
    assert result.dropped["repeated table headers"] == 1


def test_what_follows_a_table_is_not_glued_into_its_last_row() -> None:
    """A heading, a list or a justified line just under a table, with no more
    space than between its rows, is not a wrapped cell of the last row."""
    b = Book()
    b.new_page()
    b.heading("Weapons")
    x = WEAPON_COLUMNS
    b.row(list(zip(x, ["Weapon", "Damage", "Range", "Cost", "Notes"], strict=True)))
    b.row(list(zip(x, ["Rifle", "4X", "24", "10", "none at all"], strict=True)))
    b.row(list(zip(x, ["Pistol", "2X", "8", "5", "one hand only"], strict=True)))
    b.y += 8  # the heading as tight under the table as its rows are
    b.heading("Armour")
    b.row(list(zip(x[:3], ["Armour", "Save", "Cost"], strict=True)))
    b.row(list(zip(x[:3], ["Light", "6+", "5"], strict=True)))
    b.row(list(zip(x[:3], ["Heavy", "4+", "15"], strict=True)))
    b.row([(MARGIN, "- Heavy armour slows its wearer.")])
    b.row([(MARGIN, "Troopers in heavy armour"), (x[2], "cannot run.")])
    result = read_pdf(b.pdf())
    assert unit(result, "weapons").text == (
        "Weapon | Damage | Range | Cost | Notes\n"
        "Rifle | 4X | 24 | 10 | none at all\n"
        "Pistol | 2X | 8 | 5 | one hand only"
    )
    armour = unit(result, "armour").text.split("\n")
    assert armour[:3] == ["Armour | Save | Cost", "Light | 6+ | 5", "Heavy | 4+ | 15"]
    assert " | " not in " ".join(armour[3:])
    assert "- Heavy armour slows its wearer." in armour[3:]


def test_a_heading_just_above_a_table_stays_a_heading() -> None:
    b = Book()
    b.new_page()
    b.heading("Armour")
    b.para("Armour protects a trooper from the first hits of a fight, then it is spent.")
    b.heading("Body Armour Table")
    b.y += 6
    # The heading reaches over the first two columns, as a header row would.
    assert MARGIN + stringWidth("Body Armour Table", "Helvetica-Bold", BODY_SIZE) > 145
    for row in (["Armor Type", "Coverage", "AP Cost"], ["Basic", "2", "1"], ["Heavy", "6", "3"]):
        b.row(list(zip((MARGIN, 140.0, 220.0), row, strict=True)))
    result = read_pdf(b.pdf())
    assert unit(result, "body-armour-table").text == (
        "Armor Type | Coverage | AP Cost\nBasic | 2 | 1\nHeavy | 6 | 3"
    )


def test_a_cell_centred_in_a_tall_row_joins_its_row() -> None:
    """A browser centres a row's cells in its height: a cell of two lines sits
    half above and half below the line of the row's other cells. (The first
    column is too narrow for "Hand Weapon" on one line, so it wraps.)"""
    b = Book()
    b.new_page()
    b.heading("Weapons")
    x = (MARGIN, 112.0, 160.0, 200.0, 240.0)
    assert MARGIN + stringWidth("Hand Weapon", BODY_FONT, BODY_SIZE) > x[1] - 4
    b.row(list(zip(x, ["Name", "Range", "Dice", "Cost", "Special"], strict=True)))
    b.y -= 14  # cell padding: a row's text keeps most of an em from the next row's
    for first, second, rest in (
        ("Hand", "Weapon", ["Melee", "2", "0", "none"]),
        ("Chill", "Touch", ["Melee", "2", "-", "spirits only"]),
    ):
        b.row(list(zip(x[1:], rest, strict=True)))
        b.canvas.setFont(BODY_FONT, BODY_SIZE)
        b.canvas.drawString(MARGIN, b.y + LEADING + 6, first)
        b.canvas.drawString(MARGIN, b.y + LEADING - 6, second)
        b.y -= 20
    text = unit(read_pdf(b.pdf()), "weapons").text
    assert text == (
        "Name | Range | Dice | Cost | Special\n"
        "Hand Weapon | Melee | 2 | 0 | none\n"
        "Chill Touch | Melee | 2 | - | spirits only"
    )


def test_a_full_width_table_under_two_columns_written_row_by_row() -> None:
    """The table's rows cross the middle of the page; they divide it instead of
    stopping its two columns being read left, then right."""
    b = Book()
    b.new_page()
    b.heading("Shooting")
    left = (
        "A model may shoot once in each of its activations at any enemy it can see, provided "
        "it did not run this turn and is not in base contact with an enemy model. Roll to hit "
        "and then roll to wound for each hit scored against"
    )
    right = (
        "the target, using the weapon's damage from the table below. A model that is hit "
        "but not wounded is pinned until the end of the turn."
    )
    b.two_columns(left, right, row_order=True)
    b.y -= 12
    for row in (
        ["Weapon", "Damage", "Range", "Cost", "Notes"],
        ["Rifle", "4X", "24", "10", "none at all"],
        ["Pistol", "2X", "8", "5", "one hand only"],
        ["Carbine", "3X", "18", "8", "light"],
        ["Sling", "1X", "12", "1", "cheap"],
    ):
        b.row(list(zip((MARGIN, 200.0, 280.0, 360.0, 430.0), row, strict=True)))
    text = " ".join(unit(read_pdf(b.pdf()), "shooting").text.split())
    assert text.startswith(" ".join(f"{left} {right}".split()))
    assert text.endswith("Carbine | 3X | 18 | 8 | light Sling | 1X | 12 | 1 | cheap")


def test_a_header_set_with_plain_spaces_is_the_tables_first_row() -> None:
    """The header's words sit over the columns, but one space apart (no wide gap):
    the line just above the first row of cells is its header."""
    b = Book()
    b.new_page()
    b.heading("Creatures")
    header = "Name Cost Move"
    starts = [MARGIN]
    for word in header.split()[:-1]:
        starts.append(starts[-1] + stringWidth(word + " ", BODY_FONT, BODY_SIZE))
    b.row([(MARGIN, header)])
    for row in (["Elf", "8", "5"], ["Orc", "9", "4"], ["Imp", "3", "6"]):
        b.row(list(zip(starts, row, strict=True)))
    text = unit(read_pdf(b.pdf()), "creatures").text
    assert text == "Name | Cost | Move\nElf | 8 | 5\nOrc | 9 | 4\nImp | 3 | 6"


def test_two_columns_of_cells_set_flush_right_are_a_table() -> None:
    b = Book()
    b.new_page()
    b.heading("Modifiers")
    for row in (["Condition", "Modifier"], ["Short Range", "+0"], ["Long Range", "+2"]):
        b.row([(MARGIN, row[0]), (300.0, row[1])], right=True)
    text = unit(read_pdf(b.pdf()), "modifiers").text
    assert text == "Condition | Modifier\nShort Range | +0\nLong Range | +2"


def test_a_two_column_table_whose_widest_cell_leaves_no_wide_gap() -> None:
    """A browser sets a column just wide enough for its widest cell, so that
    cell's row has only the cell padding (a space's width) before the next
    column: no wide gap. It is still a row, since its second cell starts where
    the column does. A sentence under the table is not a row, even where one
    of its words happens to start at the second column."""
    b = Book()
    b.new_page()
    b.heading("Vehicle Costs")
    space = stringWidth(" ", BODY_FONT, BODY_SIZE)
    widest = "Remove or equip jet pack"
    column = MARGIN + stringWidth(widest, BODY_FONT, BODY_SIZE) + 1.5 * space
    for row in (["Action", "AP Cost"], ["Mount", "2"], [widest, "5"], ["Turn on", "1"]):
        b.row([(MARGIN, row[0]), (column, row[1])])
    words = [
        "A",
        "trooper",
        "who",
        "leaves",
        "the",
        "vehicle",
        "in",
        "the",
        "same",
        "turn",
        "pays",
        "the",
    ]
    line, x = [], MARGIN
    for word in words:  # a sentence, one of its words set at the column's start
        line.append((x, word))
        x += stringWidth(word + " ", BODY_FONT, BODY_SIZE)
        if x > column - space and len(line) < len(words) - 2:
            x = column
    b.row(line)
    b.lines(["cost again."])
    # The premise: the widest cell's row has no gap an em wide; the sentence
    # has a word at the column's start.
    assert column - MARGIN - stringWidth(widest, BODY_FONT, BODY_SIZE) < 0.9 * BODY_SIZE
    assert any(abs(x - column) < 0.1 for x, _ in line[1:])
    text = unit(read_pdf(b.pdf()), "vehicle-costs").text
    assert text.split("\n")[:4] == [
        "Action | AP Cost",
        "Mount | 2",
        "Remove or equip jet pack | 5",
        "Turn on | 1",
    ]
    assert " | " not in " ".join(text.split("\n")[4:])


def test_running_text_with_wide_word_gaps_is_not_a_table() -> None:
    """Justified lines in a narrow column leave gaps an em wide between words, but
    they do not line up from line to line, so no cells are made of them."""
    b = Book()
    b.new_page()
    b.heading("Disengaging")
    for cells in (  # the cells PDFium's gaps gave two justified lines of a real book
        ["A model that leaves combat", "ends", "its", "activation: its", "next", "Move"],
        ["action is", "used", "up and the", "model stays", "where it", "is now."],
    ):
        x, placed = MARGIN, []
        for text in cells:
            placed.append((x, text))
            x += stringWidth(text, BODY_FONT, BODY_SIZE) + 10
        b.row(placed)
    text = unit(read_pdf(b.pdf()), "disengaging").text
    assert text == (  # the lines as they were, no cells
        "A model that leaves combat ends its activation: its next Move\n"
        "action is used up and the model stays where it is now."
    )


def test_a_long_tables_rows_at_the_edges_of_its_pages_are_not_furniture() -> None:
    """A table three pages long has rows at the head and foot of every page,
    and rows that differ only in their numbers repeat there, digits aside,
    like a running footer. They also repeat down the body of each page, which
    a running header never does: every row is kept, and the real running
    header and the page numbers still go."""
    c_buf = io.BytesIO()
    c = canvas.Canvas(c_buf, pagesize=letter, invariant=1)
    n, drawn_in_zone = 0, 0
    for page in range(1, 4):
        c.setFont(BODY_FONT, 9)
        c.drawCentredString(PAGE_W / 2, PAGE_H - 20, HEADER)
        c.drawCentredString(PAGE_W / 2, 16, str(page))
        y = PAGE_H - 40.0
        if page == 1:
            c.setFont("Helvetica-Bold", BODY_SIZE)
            c.drawString(MARGIN, y, "Weapon Table")
            y -= 2 * LEADING
        while y > 30:
            n += 1
            c.setFont(BODY_FONT, BODY_SIZE)
            for x, cell in (
                (MARGIN, f"Weapon {n}"),
                (200, f"{n % 7 + 1} AP"),
                (300, f"Range {n + 10} dots"),
            ):
                c.drawString(x, y, cell)
            drawn_in_zone += not 0.1 * PAGE_H < y < 0.9 * PAGE_H
            y -= LEADING
        c.showPage()
    c.save()
    assert drawn_in_zone >= 6 * 3  # the premise: rows in the top and bottom tenth of each page
    result = read_pdf(c_buf.getvalue())
    text = unit(result, "weapon-table").text
    assert [int(x) for x in re.findall(r"Weapon (\d+)", text)] == list(range(1, n + 1))
    assert HEADER not in "\n".join(u.text for u in result.units)
    assert result.dropped["running headers and footers"] == 3
    assert result.dropped["page numbers"] == 3


def test_a_browsers_printed_header_and_footer_go_even_on_a_page_of_its_own() -> None:
    """A browser prints the date, the page's title, its address and a page
    counter ("1/1") above and below the text, smaller than it. One page shows
    no repetition, but the counter giving this page of this many pages marks
    the browser's size; a footnote in that size inside the text stays."""
    c_buf = io.BytesIO()
    c = canvas.Canvas(c_buf, pagesize=letter, invariant=1)
    c.setFont(BODY_FONT, 8)
    c.drawString(20, PAGE_H - 14, "12/5/26, 11:15 AM Armoury")
    c.drawString(20, 10, "file:///home/player/armoury.html")
    c.drawRightString(PAGE_W - 20, 10, "1/1")
    c.setFont("Helvetica-Bold", 16)
    c.drawString(MARGIN, PAGE_H - 40, "Armoury")
    c.setFont(BODY_FONT, BODY_SIZE)
    c.drawString(MARGIN, PAGE_H - 60, "A trooper reloads for 2 AP before firing again.")
    c.setFont(BODY_FONT, 8)
    c.drawString(MARGIN, PAGE_H - 74, "* A pistol reloads for 1/2 of that, rounded up.")
    c.setFont("Helvetica-Bold", 16)
    c.drawString(MARGIN, PAGE_H - 100, "Grenades")
    c.setFont(BODY_FONT, BODY_SIZE)
    c.drawString(MARGIN, PAGE_H - 120, "A grenade costs 3 AP to throw.")
    for k, line in enumerate(wrap(FILLER * 4, TEXT_W)):  # the page's text, in the body size
        c.drawString(MARGIN, PAGE_H - 134 - k * LEADING, line)
    c.showPage()
    c.save()
    result = read_pdf(c_buf.getvalue())
    text = "\n".join(u.text for u in result.units)
    assert "file:" not in text and "11:15" not in text
    assert "* A pistol reloads for 1/2 of that, rounded up." in text
    assert unit(result, "grenades").text.startswith("A grenade costs 3 AP to throw.\nEvery rule")
    assert result.dropped["running headers and footers"] == 2  # the date line and the address


def draw_section(c: canvas.Canvas, title: str, y: float, lines: list[str]) -> float:
    """A chapter heading (Helvetica 16) at ``y`` and body lines under it, drawn
    straight on the canvas (``Book`` keeps out of the margin zones, which these
    tests need to reach); the height under the last line."""
    c.setFont("Helvetica", 16)
    c.drawString(MARGIN, y, title)
    y -= 24
    c.setFont(BODY_FONT, BODY_SIZE)
    for line in lines:
        c.drawString(MARGIN, y, line)
        y -= LEADING
    return y


def test_small_print_beside_a_page_counter_stays() -> None:
    """Only a browser's margins go by a page counter: a counter on every page,
    outermost at one edge, and at the other edge only a line that says the
    same on every page. So a book's small table running over a page break
    and a footnote, both in its "Page n of 3" footer's size, stay; and a
    chart row ending in a fraction ("Speed x 1/2") on page 1 of a two-page
    sheet is no counter."""
    weapons = ["Pistol", "Rifle", "Carbine", "Shotgun", "Musket", "Lance", "Sabre", "Pike"]
    weapons += ["Halberd", "Crossbow", "Longbow", "Sling", "Javelin", "Grenade", "Mortar"]
    c_buf = io.BytesIO()
    c = canvas.Canvas(c_buf, pagesize=letter, invariant=1)
    left = list(weapons)
    for page in range(1, 4):
        c.setFont(BODY_FONT, 8)
        c.drawRightString(PAGE_W - MARGIN, 30, f"Page {page} of 3")
        y = PAGE_H - 60.0
        if page == 1:
            y = draw_section(c, "Weapons", y, wrap(FILLER * 14, TEXT_W))
        while left and (page == 2 or y > 45):  # the table: the foot of page 1, the head of 2
            c.setFont(BODY_FONT, 8)
            name = left.pop(0)
            for x, cell in ((MARGIN, name), (MARGIN + 110, f"{len(name) % 5 + 1} AP")):
                c.drawString(x, y, cell)
            y -= 10
        if page == 3:
            draw_section(c, "Morale", y, wrap(FILLER * 4, TEXT_W))
            c.setFont(BODY_FONT, 8)
            c.drawString(MARGIN, 50, "* A unit at half strength tests on two dice.")
        c.showPage()
    c.save()
    result = read_pdf(c_buf.getvalue())
    text = "\n".join(u.text for u in result.units)
    assert [w for w in weapons if w not in text] == []
    assert "* A unit at half strength tests on two dice." in text
    assert "Page 1 of 3" not in text

    c_buf = io.BytesIO()
    c = canvas.Canvas(c_buf, pagesize=letter, invariant=1)
    for title in ("Movement", "Shooting"):
        draw_section(c, title, PAGE_H - 72, wrap(FILLER * 8, TEXT_W))
        if title == "Movement":  # a small chart at the foot of page 1 of 2
            c.setFont(BODY_FONT, 8)
            for k, (ground, speed) in enumerate((("Road", "Speed +2"), ("Woods", "Speed x 1/2"))):
                c.drawString(MARGIN, 50 - 10 * k, ground)
                c.drawString(MARGIN + 120, 50 - 10 * k, speed)
        c.showPage()
    c.save()
    assert "Speed x 1/2" in unit(read_pdf(c_buf.getvalue()), "movement").text


def test_a_footer_the_body_of_one_page_repeats_still_goes_on_the_others() -> None:
    """A line repeating down the body of a page is content only on that page:
    a version history listing "Brass & Bayonet Version 2.0", "... 1.5"
    does not keep the "Brass & Bayonet Version 2.1" footer on every page."""
    footer = "Brass & Bayonet Version 2.1"
    c_buf = io.BytesIO()
    c = canvas.Canvas(c_buf, pagesize=letter, invariant=1)
    for page, title in enumerate(("Versions", "Movement", "Shooting", "Morale"), start=1):
        c.setFont(BODY_FONT, 8)
        c.drawCentredString(PAGE_W / 2, 30, footer)
        lines = wrap(FILLER * 6, TEXT_W)
        if page == 1:
            lines = [f"Brass & Bayonet Version {v}" for v in ("2.0", "1.5", "1.0")]
        draw_section(c, title, PAGE_H - 72, lines)
        c.showPage()
    c.save()
    result = read_pdf(c_buf.getvalue())
    for rule_id in ("movement", "shooting", "morale"):
        assert footer not in unit(result, rule_id).text
    assert "Brass & Bayonet Version 1.5" in unit(result, "versions").text


PRINTED = PROJECT_ROOT / "tests" / "fixtures" / "printed"


def test_pdfiums_line_breaks_between_letters_are_not_lines() -> None:
    """``tests/fixtures/printed/armoury.pdf`` is ``armoury.html`` printed by
    headless Chromium: two pages, the second half of a 60-row table on the
    second. PDFium puts a line break between most letters of its printed
    footers; a break before a letter that goes on along the same baseline
    is none, so the footer is one line again and goes as furniture with the
    header, instead of "t", "m", "p" lines left in the last rule."""
    import pypdfium2

    data = (PRINTED / "armoury.pdf").read_bytes()
    pdf = pypdfium2.PdfDocument(data)
    try:
        raw_lines = pdf[1].get_textpage().get_text_range().splitlines()
    finally:
        pdf.close()
    assert sum(len(x.strip()) == 1 for x in raw_lines) >= 10  # the premise: letters alone
    result = read_pdf(data, "armoury.pdf")
    text = "\n".join(u.text for u in result.units)
    assert "file:" not in text and "PM" not in text
    assert [int(x) for x in re.findall(r"Weapon (\d+)", text)] == list(range(1, 61))
    assert unit(result, "armoury/reloading").text == "A trooper reloads for 2 AP."
    assert result.dropped["running headers and footers"] == 6


def test_a_browsers_table_keeps_a_cell_of_several_words_whole() -> None:
    """``tests/fixtures/printed/weapons.pdf`` is ``weapons.html`` printed by
    headless Chromium, whose tables set cells a few points apart. The column
    split was sampled at 15 points between the header's cells and missed
    the narrow gap after "gun", so it fell at the word gap before it: "Light
    machine | gun 36\"". And under a centred header, the gap after a wide
    cell ("...a Move action", then "12" set right) ends past the next
    header's start, out of reach: the split fell inside the cell ("a Move |
    action"). Every gap between two words of a row is a candidate, at its
    middle and just after its left word."""
    result = read_pdf((PRINTED / "weapons.pdf").read_bytes(), "weapons.pdf")
    assert unit(result, "weapons").text.split("\n")[1:] == [
        "Weapon | Range | Shots",
        'Rifle | 24" | 1',
        'Light machine gun | 36" | 4',
        'Pistol | 12" | 2',
    ]
    assert unit(result, "weapons/arsenal").text.split("\n") == [
        "Weapon | Notes | Cost",
        "Bolt rifle | Cannot be used after a Move action | 12",
        "Flamer | Ignores cover | 8",
        "Heavy bolter | Must be braced first | 20",
    ]


# --- a real rulebook ------------------------------------------------------------------------------
@pytest.mark.skipif(
    not (SKIRMISHERS / "skirmishers.pdf").is_file(), reason="../shared/corpora is not here"
)
def test_skirmishers_rulebook() -> None:
    import pypdfium2 as pdfium

    path: Path = SKIRMISHERS / "skirmishers.pdf"
    data = path.read_bytes()
    doc = pdfium.PdfDocument(data)
    try:
        raw_pages = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    finally:
        doc.close()
    assert sum("GM 1-1" in text for text in raw_pages) == len(raw_pages) == 30

    result = parse_file(path.name, data, game="skirmishers")
    assert result.format == "pdf" and result.pages == 30
    assert len(result.units) >= 40
    los = unit(result, "infantry/combat/line-of-sight")
    assert (los.title, los.parent, los.source.page) == ("Line of Sight", "Infantry > Combat", 9)
    assert los.text.startswith("If a trooper can only attack a target if they have a valid line")
    assert "block line of sight" in los.text
    assert result.dropped["running headers and footers"] > 0
    for u in result.units:
        assert "GM 1-1" not in u.text, u.rule_id
        assert u.source.file == "skirmishers.pdf"
        assert isinstance(u.source.page, int) and 1 <= u.source.page <= 30


# Layouts a review helper printed with Chromium (``tests/fixtures/printed/layouts``:
# each HTML and its PDF), as rulebooks set them: (rule ID, title, text) expected.
LAYOUTS = PRINTED / "layouts"
LAYOUT_CASES = {
    # a heading wrapped onto a second line kept its number and all its words
    "wrapped_heading": [
        ("5.1", "Shooting", "Units shoot in the shooting phase at targets they can see."),
        (
            "5.2",
            "Shooting Into and Out Of Close Combat With Pistols",
            "A unit engaged in close combat may fire pistols at the unit it is engaged with.",
        ),
        ("5.3", "Cover", "A model in cover adds one to its save."),
    ],
    # headings in small capitals (each word's capital in the text's size)
    "small_caps": [
        ("playing-the-game", "Playing the Game", "The game lasts five rounds."),
        ("playing-the-game/actions", "Actions", "On your turn you may move"),
        ("playing-the-game/passing", "Passing", "A player who passes"),
    ],
    # numbered headings in the text's size, after a line that runs to the margin
    # without a full stop: headings still (only a line going on as a sentence is not)
    "numbered_body_headings": [
        ("3.1", "Moving", "A unit moves up to its Move value in inches"),
        ("3.2", "Charging", "Declare a charge against an enemy unit"),
        ("3.3", "Fleeing", "A unit that flees moves directly away"),
        ("3.4", "Rallying", "A fleeing unit rallies on a roll of 4+"),
        ("3.5", "Morale", "Morale is tested at the end of each turn."),
    ],
    # an empty section's heading right over the next one is not one wrapped heading
    "empty_headings": [
        ("basic-rules", "Basic Rules", "These are the basic rules"),
        ("basic-rules/running", "Running", "A unit that runs moves double"),
        ("basic-rules/climbing", "Climbing", "Climbing costs double movement."),
        ("basic-rules/weather", "Weather", "Roll for weather"),
        ("basic-rules/weather/snow", "Snow", "Both halve visibility."),
        ("campaigns", "Campaigns", "Campaigns link games together."),
    ],
    # a cross-reference that ends its sentence at the start of a line, and one
    # that starts a line mid-sentence ("rules / 5.4 Morale Checks and 5.5 Panic.")
    "crossref_ends_sentence": [
        ("3.1", "Moving", "A unit moves up to its Move value in inches."),
        ("3.2", "Charging", "Declare a charge against an enemy unit"),
        ("3.3", "Fleeing", "A unit that flees moves directly away"),
        ("3.4", "Rallying", "Rallying is done at the end of the turn."),
    ],
    # a heading wrapped early by a long next word
    "short_wrapped_headings": [
        ("movement", "Movement", "Units move in the movement phase."),
        (
            "close-assault-against-fortifications",
            "Close Assault Against Fortifications",
            "Attacking a fortified position",
        ),
        (
            "shooting-into-overwhelmingly-dense-woods",
            "Shooting Into Overwhelmingly Dense Woods",
            "A unit in woods is hard to see",
        ),
        (
            "morale-tests-for-characters-and-monsters",
            "Morale Tests for Characters and Monsters",
            "Characters and monsters test morale",
        ),
        (
            "special-rules-for-flying-monstrosities",
            "Special Rules for Flying Monstrosities",
            "Flyers ignore terrain",
        ),
        ("ending-the-game", "Ending the Game", "The game ends after six turns."),
    ],
    # a chapter title set across both columns in mid-page divides them
    "span_heading": [
        ("3.1", "Moving", "A unit moves up to its Move value in inches."),
        ("3.2", "Charging", "Declare a charge against an enemy within twelve inches"),
        ("4.1", "Targets", "Pick a visible enemy unit within range of the weapon."),
        ("4.2", "Attacks", "Roll one die per attack"),
    ],
    # a cross-reference wrapped to the start of a line is the sentence's, no section
    "crossref_wrap": [
        (
            "3.1",
            "Moving",
            "A unit moves up to its Move value in inches. A unit that ends its move within one "
            "inch of the enemy must then charge, see rule 3.2 Charging. It may not shoot afterwards.",
        ),
        (
            "3.2",
            "Charging",
            "Declare a charge against an enemy unit within twelve inches, then roll two dice "
            "for the charge distance.",
        ),
        (
            "3.3",
            "Fleeing",
            "A unit that flees moves directly away from the enemy. For how far, see the table in "
            "section 5.4 Morale Checks and the notes on it.",
        ),
    ],
    # a drop cap, floated or set with initial-letter, is its word's first letter
    "dropcap": [
        ("the-turn", "The Turn", "The game is played in turns."),
        ("1.1", "Initiative", "At the start of the game"),
        ("actions", "Actions", "Actions are what units do when they activate."),
        ("2.1", "Move", "A unit moves up to its Speed in inches."),
    ],
    "initial_letter": [
        ("the-turn", "The Turn", "The game is played in turns."),
        ("1.1", "Initiative", "At the start of the game"),
        ("actions", "Actions", "Actions are what units do when they activate."),
        ("2.1", "Move", "A unit moves up to its Speed in inches."),
    ],
    # a superscript stays on its line
    "superscript": [
        (
            "4.1",
            "Reinforcements",
            "From the 2nd turn onwards, reinforcements arrive on a roll of 4+.",
        ),
        ("4.2", "Scoring", "Each objective held scores 3 VP.1 Contested objectives score nothing."),
    ],
    # a browser prints a soft hyphen's break as U+2010
    "soft_hyphen": [
        (
            "2.1",
            "Activation",
            "Each player activates units in turn; nobody forgets which units have already acted "
            "this turn, because activated units get a token.",
        )
    ],
    # headings tracked wide, where PDFium puts a space between every two letters
    "tracked_heading": [
        ("movement-phase", "Movement Phase", "Units move in the movement phase"),
        ("movement-phase/difficult-terrain", "Difficult Terrain", "Difficult terrain halves"),
        ("movement-phase/flying-units", "Flying Units", "Units that fly ignore terrain"),
        (
            "shooting-phase",
            "Shooting Phase",
            "Units shoot in the shooting phase, one after another.",
        ),
    ],
}


@pytest.mark.parametrize("name", sorted(LAYOUT_CASES))
def test_printed_layouts_read_as_their_rules(name: str) -> None:
    """Each of these lost a rule, its number or its words before (a wrapped
    heading's first line, a drop cap's letter, a tracked heading's section)."""
    units = parse_file(f"{name}.pdf", (LAYOUTS / f"{name}.pdf").read_bytes(), game="x").units
    got = [(u.rule_id, u.title) for u in units]
    assert got == [(rule_id, title) for rule_id, title, _ in LAYOUT_CASES[name]]
    if name == "span_heading":
        assert [u.parent for u in units] == ["Movement", "Movement", "Shooting", "Shooting"]
    for u, (_, _, text) in zip(units, LAYOUT_CASES[name], strict=True):
        assert u.text.startswith(text) or u.text == text, (u.rule_id, u.text)


@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_a_rotated_page_reads_as_it_did_upright(degrees: int) -> None:
    """A page turned with /Rotate (a landscape sheet, a page turned in a viewer):
    its size came turned and its characters' boxes in the page's own space, and
    at 180 degrees in reverse: a third of a book's text went as headers and
    footers, or its sections were read backwards."""
    from pypdf import PdfReader, PdfWriter

    for name in ("dropcap", "span_heading", "two_pages"):
        upright = (LAYOUTS / f"{name}.pdf").read_bytes()
        writer = PdfWriter()
        for page in PdfReader(io.BytesIO(upright)).pages:
            writer.add_page(page.rotate(degrees))
        out = io.BytesIO()
        writer.write(out)
        turned = parse_file("turned.pdf", out.getvalue(), game="x")
        expected = parse_file("turned.pdf", upright, game="x")
        assert [(u.rule_id, u.title, u.text) for u in turned.units] == [
            (u.rule_id, u.title, u.text) for u in expected.units
        ], name
        assert turned.dropped == expected.dropped, name


def test_letters_spaced_as_words_keep_their_spaces() -> None:
    """Only a line tracked wide (every letter apart, words apart further) is
    re-spaced; a stat line, a list of options, letters one space apart keep
    theirs ("Profile: M WS BS S T W I A Ld" read "Profile: MWS BSSTWIALd")."""
    units = parse_file("s.pdf", (LAYOUTS / "letters_spaced.pdf").read_bytes(), game="x").units
    text = "\n".join(u.text for u in units)
    for line in ("Profile: M WS BS S T W I A Ld", "Options A B C D", "a b c d e f g h"):
        assert line in text.split("\n"), line


def test_a_big_letter_key_is_not_glued_to_a_capital_word() -> None:
    """A setup key's big "B" beside "Shuffle the event deck" is a word of its
    own ("BShuffle"); a drop cap goes onto a lower-case rest of its word."""
    units = parse_file("k.pdf", (LAYOUTS / "letter_keys.pdf").read_bytes(), game="x").units
    setup = next(u for u in units if u.rule_id == "4.1").text.split("\n")
    assert setup[1:] == [
        "A Place the board in the middle of the table.",
        "B Shuffle the event deck and place it beside the board.",
        "C Each player takes a player board and the matching units.",
        "D Deal five cards to each player.",
    ]


def test_a_two_page_sheets_running_header_is_dropped() -> None:
    """An errata sheet or a quick reference of two pages, with a running header
    on both: it was kept, as a rule of its own and at the top of page 2's rule."""
    data = (LAYOUTS / "two_pages.pdf").read_bytes()
    result = parse_file("two_pages.pdf", data, game="x")
    assert [u.rule_id for u in result.units] == [f"7.{n}" for n in range(1, 10)]
    assert not any("Chapter 7" in u.text for u in result.units)
    assert result.dropped["running headers and footers"] == 2


def test_tracked_headings_with_digits_and_signs_read_as_words() -> None:
    """A tracked heading may hold a digit or a sign ("P H A S E 1", "S E T U P & P L A Y",
    "C H A P T E R 3 : M O V E M E N T"); one tracked word with no wider gap is a
    word where the book uses it, letters spaced as letters elsewhere."""
    units = parse_file("t.pdf", (LAYOUTS / "tracked_digits.pdf").read_bytes(), game="x").units
    titles = [u.title for u in units]
    assert titles[:3] == ["Movement", "Phase 1", "Setup & Play"]
    assert "Roll dice" in units[-1].text and "DICE" in units[-1].text.split()


def test_a_numbered_rule_after_a_quote_or_bracket_ending_a_sentence_stays_a_rule() -> None:
    """'...is called the "attacker."' ends its sentence inside the quote: the
    '2.3 Draw a card.' under it is a rule, not a cross-reference run on from it
    (reportlab, justified Times, made by a review helper)."""
    data = (LAYOUTS / "quote_then_number.pdf").read_bytes()
    units = parse_file("q.pdf", data, game="x").units
    assert [u.rule_id for u in units] == ["2.1", "2.3", "2.4"]


def test_centred_headings_over_an_empty_section_stay_apart() -> None:
    """A centred heading has only itself for a measure: it always looked full,
    and "Movement" (a section with no text) was joined to "Running" under it."""
    data = (LAYOUTS / "centred_headings.pdf").read_bytes()
    units = parse_file("c.pdf", data, game="x").units
    assert [u.title for u in units] == ["Morale", "Running", "Shooting"]


CINDER = PROJECT_ROOT / "evals" / "corpora" / "cinder-reach"


def _as_read(unit: RuleUnit) -> tuple[str, str, list[str]]:
    """A unit's heading path and lines, bullets and curly quotes aside (the
    Markdown reader writes "- " and straight quotes, a word processor "• " and
    curly ones)."""
    text = unit.text.translate({0x201C: '"', 0x201D: '"', 0x2019: "'", 0x2018: "'"})
    lines = [re.sub(r"^[-\u2022] ", "* ", " ".join(ln.split())) for ln in text.split("\n")]
    title = unit.title.translate({0x2019: "'"})
    return unit.parent, title, [ln for ln in lines if ln]


@pytest.mark.parametrize("name", ["cinder-reach.pdf", "cinder-reach.odt", "cinder-reach.docx"])
def test_a_word_processors_rulebook_reads_as_its_markdown(name: str) -> None:
    """One book typed once, saved by pandoc as Markdown, LibreOffice (ODT),
    Word (DOCX), and the ODT exported to PDF by LibreOffice: a running header
    and page number inside an inch's margin, tables written cell by cell with
    cells that wrap, a table broken over a page (its header repeated, a row
    split), lists, paragraphs set apart by space rather than indents, and
    third-level headings set like second-level ones. Every format gives the
    Markdown's units, heading paths and text (the PDF's had the header in
    mid-sentence and table headers for rules). A word processor's file also
    keeps the title block under its title line (pandoc's subtitle, author and
    date) as text before the first heading, which the Markdown holds as front
    matter and the PDF as a cover: the Word reader keeps what a title line
    does not say."""
    source = CINDER / "cinder-reach.md"
    markdown = parse_file(source.name, source.read_bytes(), game="x").units
    units = parse_file(name, (CINDER / name).read_bytes(), game="x").units
    if not name.endswith(".pdf"):
        front = units.pop(0)
        assert (front.rule_id, front.title) == ("cinder-reach", "Cinder Reach")
        assert front.text.endswith("Core Rulebook, Edition 1.2")
    assert [u.rule_id for u in units] == [u.rule_id for u in markdown]
    for unit, expected in zip(units, markdown, strict=True):
        assert _as_read(unit) == _as_read(expected), unit.rule_id


def test_a_word_processors_pdf_keeps_its_pages_and_tables() -> None:
    """The header and page number of each of the 30 pages are dropped, so a
    rule that ends on its page is cited with that page alone; a table row
    whose first cell wraps is one row; a row broken over a page is put back
    together; a word too wide for its cell is one word again."""
    result = parse_file("cinder-reach.pdf", (CINDER / "cinder-reach.pdf").read_bytes(), game="x")
    assert result.dropped["running headers and footers"] == 30
    assert result.dropped["page numbers"] == 30
    units = {u.rule_id: u for u in result.units}
    note = units["warbands/designer-s-note"]
    assert (note.source.page, note.source.page_breaks) == (6, ())
    assert units["2.2.1"].parent == "Warbands > Building a Warband"
    assert "Each Cinder Shard carried by one of your models | 3" in units["8.5"].text
    assert "Quench | 9 | Self | Reduce the Heat track by 1, to a minimum of 1." in units["7.4"].text
    assert "Cinderhound | 9 | 7" in units["2.3"].text and "| Keywords" in units["2.3"].text
    assert "Not with a Two-Handed weapon" in units["2.4"].text


def test_a_printed_menus_label_goes_with_its_links() -> None:
    """A printed wiki's contents box: "Contents [hide]" (no link) over its
    entries (links, dropped as a menu) was read into the rule beside it."""
    data = (PROJECT_ROOT / "evals" / "corpora" / "ember" / "ember-print.pdf").read_bytes()
    result = parse_file("ember-print.pdf", data, game="x")
    measuring = next(u for u in result.units if u.rule_id == "1.3")
    assert measuring.text.startswith(("Players may measure", "Tools\nPlayers may measure"))
    assert not any("Contents [hide]" in u.text for u in result.units)


EDGES = PROJECT_ROOT / "tests" / "fixtures" / "pdf-edges"


def _edge_lines(name: str) -> list[str]:
    data = (EDGES / f"{name}.pdf").read_bytes()
    return [
        line for u in parse_file(f"{name}.pdf", data, game="x").units for line in u.text.split("\n")
    ]


def _edge_units(name: str) -> dict[str, str]:
    """Each unit's text, its lines run together (what is read, not how it
    is broken into paragraphs)."""
    data = (EDGES / f"{name}.pdf").read_bytes()
    return {
        u.rule_id: " ".join(u.text.split()) for u in parse_file(f"{name}.pdf", data, game="x").units
    }


def _edge_rule_lines(name: str) -> dict[str, list[str]]:
    """Each unit's lines (its paragraphs, rows and notes)."""
    data = (EDGES / f"{name}.pdf").read_bytes()
    return {u.rule_id: u.text.split("\n") for u in parse_file(f"{name}.pdf", data, game="x").units}


@pytest.mark.parametrize(
    ("name", "line"),
    [
        # a category row under a table's repeated header is no row carried over
        ("category-row", "Ranged weapons"),
        # "set" / "up" wrapped in a cell are two words, though the book has "Setup"
        (
            "cell-wraps",
            "Reserve | Two | Arrives from turn two; a reserve unit may set up within "
            "six inches of any edge.",
        ),
        # a row whose first cell is empty is a row of its own
        ("empty-first-cell", ' | 12" | Overcharge: hits on 3+'),
        # a note right under a table is not its last row's first cell
        ("note-under-table", "Ties are broken by the number of units left."),
        # a total row at a page's foot, on every page, is no running footer
        ("total-rows", "Total | 390"),
        # two short columns under full-width text are not table rows (each
        # column's lines one paragraph, the columns read as such under the text)
        (
            "short-columns",
            "Steady units ignore the first failed test in a game and stay where they are "
            "standing now, whatever happens to the units around them.",
        ),
        # a note in the margin beside a paragraph is not joined into its sentence
        ("margin-note", "Errata 2024"),
    ],
)
def test_table_and_margin_rules_leave_look_alikes_alone(name: str, line: str) -> None:
    """A review of the word-processor table rules found inputs they misread
    (each a PDF in ``tests/fixtures/pdf-edges/``); each line comes out whole."""
    assert line in _edge_lines(name)


@pytest.mark.parametrize(
    ("name", "sentence"),
    [
        # a numbered paragraph's first line indented, the rest at the margin
        ("indented-numbered", "Each model rolls one die for each of its attacks and hits"),
        # a line set lower by an inline icon (reportlab, then LibreOffice)
        ("inline-icon", "of its models. For each model that can see the target"),
        ("libreoffice-icon", "of its models. For each model that can see the target"),
        # a section at 1.5 line spacing in a single-spaced LibreOffice document
        ("libreoffice-spacing", "gives up its shooting for the turn and faces one volley"),
    ],
)
def test_paragraph_rules_do_not_break_a_sentence(name: str, sentence: str) -> None:
    assert any(sentence in line for line in _edge_lines(name))


def test_a_headings_own_subheadings_go_down_with_it_and_scenarios_stay_headings() -> None:
    """ "2.2.1" set like "2.2" goes under it, and the smaller "Example" under
    2.2.1 stays 2.2.1's; "Scenario 1" opening its page is a heading over its
    scenario, not a running header (it differs from page to page)."""
    data = (EDGES / "nested-examples.pdf").read_bytes()
    units = {u.rule_id: u for u in parse_file("n.pdf", data, game="x").units}
    assert units["warbands/building-a-warband/the-leader/example"].parent == (
        "Warbands > Building a Warband > The Leader"
    )
    data = (EDGES / "scenario-headings.pdf").read_bytes()
    result = parse_file("s.pdf", data, game="x")
    assert [u.parent for u in result.units] == ["Scenario 1", "Scenario 2", "Scenario 3"]
    assert not result.dropped.get("running headers and footers")


def test_a_short_books_headings_on_its_first_and_last_pages_are_no_cover() -> None:
    """LibreOffice's export of a four-page book whose second-level headings
    fall only on pages 1 and 4 ("1.1", "4.1"...): a cover numbers nothing, so
    they are headings, not cover lines dropped with their rules' titles; and a
    profile's "Damage: 1" in bold is a line of its rule, not a heading (it
    was lost as an empty one). The PDF gives the document's units."""
    odt = parse_file("l.odt", (EDGES / "libreoffice-landscape.odt").read_bytes(), game="x")
    pdf = parse_file("l.pdf", (EDGES / "libreoffice-landscape.pdf").read_bytes(), game="x")
    assert [u.rule_id for u in pdf.units] == [u.rule_id for u in odt.units]
    assert "cover lines" not in pdf.dropped
    for a, b in zip(pdf.units, odt.units, strict=True):
        assert _as_read(a)[0] == _as_read(b)[0], a.rule_id
    assert "Damage: 1" in {u.rule_id: u for u in pdf.units}["2.2"].text.split("\n")
    profiles = parse_file("p.pdf", (EDGES / "libreoffice-profiles.pdf").read_bytes(), game="x")
    assert [u.rule_id for u in profiles.units][:5] == ["wargear", "5.1", "5.2", "5.3", "5.4"]
    assert profiles.units[1].text.split("\n")[:3] == ["Range: 24 inches", "Shots: 2", "Damage: 1"]


@pytest.mark.parametrize(
    ("name", "rule", "note"),
    [
        ("libreoffice-footnotes", "1.1", "[1] Official replacement parts can be ordered"),
        ("libreoffice-footnotes", "4.1", "[6] Tied customs and smuggler players are rare"),
        # a mark set apart from its note's text, on the page's last lines
        ("libreoffice-mixed", "1.2", "[2] In a five-player game the last player also takes"),
        ("libreoffice-mixed", "salvage-values", "[4] Insurance was added after playtesters"),
    ],
)
def test_a_footnote_goes_after_the_paragraph_that_cites_it(name: str, rule: str, note: str) -> None:
    """LibreOffice sets footnotes under the page's text in a smaller size: they
    were read as a table's rows wherever the page's text ended (mid-sentence
    where a paragraph ran on), and a mark on its own baseline was dropped as
    a page number. Each now follows the paragraph citing it, as "[1] text",
    its mark in the paragraph written "[1]", as the Markdown and HTML readers
    write them."""
    data = (EDGES / f"{name}.pdf").read_bytes()
    result = parse_file(f"{name}.pdf", data, game="x")
    lines = {u.rule_id: u.text.split("\n") for u in result.units}[rule]
    at = next(i for i, line in enumerate(lines) if line.startswith(note))
    assert lines[at - 1].endswith(f"[{note[1]}]")
    assert not any(re.match(r"^\d \| ", line) for u in result.units for line in u.text.split("\n"))


def test_a_two_column_section_under_one_column_text_reads_as_its_document() -> None:
    """LibreOffice's export (from Word format) of a page in one column above a
    section in two columns whose first headings share a baseline: "2.1 Move
    2.3 Jump" was one section, and the page, mostly in one column, was not
    read in columns at all (each left column line a paragraph, the right
    column's text in "2.2 Salvage"). The two-column sections now read as the
    document gives them."""
    docx = parse_file("m.docx", (EDGES / "libreoffice-mixed.docx").read_bytes(), game="x")
    pdf = parse_file("m.pdf", (EDGES / "libreoffice-mixed.pdf").read_bytes(), game="x")
    assert [(u.rule_id, u.title) for u in pdf.units] == [(u.rule_id, u.title) for u in docx.units]
    section = {u.rule_id: _as_read(u) for u in docx.units}
    for u in pdf.units:
        if u.rule_id.startswith("2."):
            assert _as_read(u) == section[u.rule_id], u.rule_id


def test_frames_written_after_the_page_text_go_where_they_sit() -> None:
    """LibreOffice writes a page's frames (an image's caption, a text box)
    after all of its running text. Read in that order, a caption went to the
    last section on its page and a box and a caption landed mid-sentence in
    "3. Morale" ("falls back 6 inches / Figure 2: ... / Quick Reference ... /
    towards its own table edge"). Each goes where it sits on the page, in the
    section the document has it in. The paragraphs wrapped beside the box and
    beside an image, their lines ending short of the page's margin, were a
    paragraph a line; they are whole."""
    odt = parse_file("f.odt", (EDGES / "libreoffice-frames.odt").read_bytes(), game="x")
    pdf = parse_file("f.pdf", (EDGES / "libreoffice-frames.pdf").read_bytes(), game="x")
    assert [(u.rule_id, u.title) for u in pdf.units] == [(u.rule_id, u.title) for u in odt.units]
    texts = {u.rule_id: u.text for u in pdf.units}
    assert "falls back 6 inches towards its own table edge." in texts["morale"]
    for rule, frame in [
        ("line-of-sight", "Figure 1: A scout on the ridge"),
        ("shooting", "Quick Reference"),
        ("2.2", "Figure 2: Armour and cover saves"),
    ]:
        assert [r for r, text in texts.items() if frame in text] == [rule]

    def paragraphs(lines: list[str]) -> list[str]:
        # the running text's paragraphs; a frame's lines are a dozen words or
        # fewer, but for a caption of two lines (one in the document)
        return [" ".join(ln.split()) for ln in lines if len(ln.split()) > 12 and "Figure" not in ln]

    read = {u.rule_id: paragraphs(_as_read(u)[2]) for u in odt.units}
    for rule, text in texts.items():
        assert paragraphs(text.split("\n")) == read[rule], rule


def test_the_text_after_a_footnote_mark_goes_on_in_its_paragraph() -> None:
    """A footnote's mark mid-paragraph ("...the end of their turn.3 Gold is
    public information."): PDFium breaks the line after the raised mark, and
    the rest of the line, a space after it, began a paragraph of its own, so
    the note went between two halves of one paragraph."""
    lines = _edge_rule_lines("libreoffice-footnotes")["1.3"]
    assert lines[0].endswith("end of their turn.[3] Gold is public information.")
    assert lines[1].startswith("[3] This limit exists")


def test_endnotes_on_a_page_of_their_own_go_after_the_paragraphs_citing_them() -> None:
    """LibreOffice gathers endnotes ("i", "ii") on a page of their own at the
    book's end, in a footnote's small size: they were table rows of the last
    rule ("i | The currents were added..."). Each goes after the paragraph
    whose mark cites it, its mark written "[i]" in both."""
    units = {
        u.rule_id: u
        for u in parse_file(
            "n.pdf", (EDGES / "libreoffice-footnotes.pdf").read_bytes(), game="x"
        ).units
    }
    for rule, mark, note in [
        ("2.1", "i", "The currents were added in the second edition."),
        ("3.2", "ii", "Designer's note: the 6-token limit"),
    ]:
        lines = units[rule].text.split("\n")
        at = next(k for k, line in enumerate(lines) if line.startswith(f"[{mark}] {note}"))
        assert lines[at - 1].endswith(f".[{mark}]")
        assert units[rule].source.page < 4  # the rule's page, not the notes'
    assert "|" not in units["4.2"].text


def test_endnotes_are_matched_past_their_footnotes_and_their_marks() -> None:
    """A second review's endnote pages. Arabic endnotes beside arabic
    footnotes: "1" cited twice, once by a footnote, is the endnote's where it
    is cited the second time. Forty endnotes: from "xvii" on LibreOffice sets
    the mark tight against the note ("xviiNote 17."), and "xl" is past the
    marks a footnote pattern knows; each goes after its own paragraph."""
    units = _edge_units("endnotes-and-footnotes")
    assert "face up.[1] [1] Coins count as cards for this limit." in units["trading"]
    assert "coins.[1] [1] Trading rules changed in the second edition." in units["trading"]
    text = " ".join(_edge_units("forty-endnotes").values())
    for n in range(1, 41):
        mark = list_number(n, "i")
        assert f"[{mark}] [{mark}] Note {n}. " in text, mark


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        ("case-fig-3", "Fig.3 the reserve track"),
        ("case-see-p-12", "p.12 for the list of tokens"),
        ("case-token-no-5", "No.5 is always placed"),
        ("case-rules-v-2", "v.2 and later printings"),
        ("case-steps1", "Steps:1 to 3 of the turn"),
        ("case-knight-vs-ii", "vs.ii of the Tower table"),
    ],
)
def test_a_reference_ending_a_column_does_not_end_its_sentence(rule: str, text: str) -> None:
    """A line ending in a note's mark after a sentence's end ends the
    sentence, but only a mark the book's notes use: a third review found
    "Fig.3", "p.12", "rules v.2" at a column's foot splitting their sentence
    in two paragraphs (a book with no notes)."""
    lines = _edge_rule_lines("column-ends-with-reference")[rule]
    assert any(text in line for line in lines)


def test_a_mark_raised_against_its_word_cites_its_note() -> None:
    """A footnote anchored after a word, with no punctuation before its mark
    ("a hand1 of five cards"): nothing cited the note, so it went after the
    next paragraph that cited a "1" (an endnote's), and the page of endnotes
    stayed table rows. The raised mark cites it now, and the endnotes page is
    read as one."""
    lines = _edge_rule_lines("footnote-after-a-word")["trading"]
    at = next(k for k, line in enumerate(lines) if "a hand[1] of five cards" in line)
    assert lines[at + 1] == "[1] A hand is the cards you hold."
    assert lines[at + 2].endswith("any number of cards or coins.[1]")
    assert lines[at + 3] == "[1] Trading rules changed in the second edition."
    assert not any(
        "|" in line for rule in _edge_rule_lines("footnote-after-a-word").values() for line in rule
    )


def test_a_raised_digit_after_a_letter_is_no_note_where_one_cites_it_after_punctuation() -> None:
    """An exponent ("x2 + 3") is raised against its letter as a mark is: the
    note "2" goes where a mark after a sentence's end cites it, and the
    exponent reads as printed."""
    lines = _edge_rule_lines("superscripts")["scoring"]
    assert any("blast is x2 + 3" in line for line in lines)
    # the reader's own marker for a raised mark is in no rule's text or title
    for name in ("superscripts", "footnote-after-a-word"):
        units = parse_file("s.pdf", (EDGES / f"{name}.pdf").read_bytes(), game="x").units
        assert not any("\u2063" in u.text + u.title for u in units)
    at = lines.index("[2] This is the passing rule.")
    assert lines[at - 1].endswith("as a matter of fact.[2]")


def test_a_small_print_appendix_numbered_like_the_footnotes_is_kept() -> None:
    """A last page of small numbered lines ("1 Draw two cards...") under a
    heading, in a book whose footnotes cited "1" to "3": taken for endnotes,
    its notes were then dropped with nothing left to cite them, heading and
    all."""
    assert (
        "1 Draw two cards from the deck"
        in _edge_units("small-print-appendix")["appendix-turn-summary"]
    )


def test_a_box_beside_a_paragraph_over_a_band_of_columns_stays_out_of_it() -> None:
    """A box set right beside a paragraph, text across the page, then a
    section in two columns: the box's lines started the band of columns and
    were read in between the paragraph's lines, mid-sentence. The band is the
    two-column section alone (its paragraphs whole), the paragraph whole."""
    lines = _edge_rule_lines("sidebar-over-columns")["markets"]
    assert not any(ln.startswith(("Sidebar", "Wood", "Stone", "Gold")) for ln in lines)
    assert (
        "When the deck runs out, shuffle the discard pile to form a new deck. If the discard "
        "pile is empty as well, the game ends immediately and players count their victory "
        "points as described in the scoring chapter at the end of this book."
    ) in lines


def test_small_print_on_a_last_page_that_nothing_cites_is_no_endnotes() -> None:
    """A page of small numbered lines at the end (a results table) is text of
    its rule when no earlier text cites its numbers as marks."""
    b = Book()
    b.new_page()
    b.heading("Rout")
    b.para("A unit that flees rolls on the rout table at the end of the book.")
    b.new_page()
    b.heading("Rout Table", size=16)
    b.canvas.setFont(BODY_FONT, 8)
    for line in ("1 The unit flees the table.", "2 The unit falls back a full move."):
        b.canvas.drawString(MARGIN, b.y, line)
        b.drawn.append((b.page, line))
        b.y -= 10
    assert "The unit flees the table." in unit(read_pdf(b.pdf()), "rout-table").text


def test_a_book_in_columns_reads_in_order_to_its_last_page() -> None:
    """A review of the column band and frame rules found the last page of a
    book in two columns (Writer's page columns, the right one short) read
    out of order: the right column's section before the left column's end,
    two paragraphs of "Bridges" filed under "Harbours". Every section holds
    the document's words in the document's order."""
    odt = parse_file("c.odt", (EDGES / "columns-last-page.odt").read_bytes(), game="x")
    assert _edge_units("columns-last-page") == {
        u.rule_id: " ".join(u.text.split()) for u in odt.units
    }


@pytest.mark.parametrize(
    ("name", "rule", "text"),
    [
        # a short right column on a book's last page is no frame: its two
        # lines stay with the sentence they end
        ("short-last-column", "roads", "excess cards are discarded face up."),
        # a two-column table of long cells, written row by row, is no band
        # of columns: each attacker's cell is followed by the defender's
        (
            "two-column-table",
            "1.1",
            "naming every target unit it intends to reach. The defender may react by holding",
        ),
    ],
)
def test_column_and_frame_rules_keep_text_in_order(name: str, rule: str, text: str) -> None:
    assert text in _edge_units(name)[rule]


def test_a_paragraph_wrapped_beside_a_box_and_on_below_it_is_one() -> None:
    """The box drawn around a frame's text reaches a line below it: the line
    wrapped beside the box's padding was read as a paragraph's end."""
    data = (EDGES / "paragraph-beside-box.pdf").read_bytes()
    units = {u.rule_id: u.text for u in parse_file("b.pdf", data, game="x").units}
    assert "Rain halves all movement, rounded down; snow" in units["shooting"]


def test_a_list_beside_a_picture_keeps_its_items() -> None:
    """Short items beside an image are a list, not running text wrapped at
    the longest of them ("1 first player marker 2 six-sided dice")."""
    lines = _edge_lines("list-beside-image")
    assert "1 first player marker" in lines and "2 six-sided dice" in lines


def test_a_box_at_the_page_foot_is_not_read_into_the_sentence_it_interrupts() -> None:
    """A box at the foot of a page whose paragraph runs on to the next, with
    no paragraph opening below it: it stays where the PDF writes it (after
    the page's text), never in mid-sentence ("drawn from Scout Tips")."""
    assert "from Scout Tips" not in _edge_units("box-at-page-foot")["1.2"]


def test_a_two_column_section_between_one_column_text_reads_as_its_document() -> None:
    """LibreOffice's export of a page with a one-column introduction, a
    section in two columns and a heading with one-column text under them:
    "4. Victory" was read before the right column (whose text went under it)
    and the left column's lines were each a paragraph, measured against the
    full-width lines' margin. The PDF gives the document's units."""
    odt = parse_file("c.odt", (EDGES / "libreoffice-columns.odt").read_bytes(), game="x")
    pdf = parse_file("c.pdf", (EDGES / "libreoffice-columns.pdf").read_bytes(), game="x")
    assert [u.rule_id for u in pdf.units] == [u.rule_id for u in odt.units]
    for a, b in zip(pdf.units, odt.units, strict=True):
        assert _as_read(a) == _as_read(b), a.rule_id


def test_a_list_items_next_line_under_its_text_goes_on_with_it() -> None:
    """A bullet's next line set under its text (a hanging indent) continues the
    item; on a page of lists it was taken for an indented first line."""
    data = (EDGES / "libreoffice-lists.pdf").read_bytes()
    units = {u.rule_id: u for u in parse_file("l.pdf", data, game="x").units}
    lines = next(u for k, u in units.items() if k.endswith("1.1") or k == "1.1").text.split("\n")
    assert any(
        line.startswith("\u2022 Strength is used") and line.endswith("with equipment.")
        for line in lines
    )


@pytest.mark.parametrize(
    ("name", "line"),
    [
        # a small-print results table at a page's foot that nothing cites is no footnote
        ("small-print-table", "1 | The unit flees and is removed from the table."),
        # "section 2.1" and "x1" do not cite note 1; "rules.1" does
        ("footnote-citations", "[1] Blast templates are described in the appendix."),
        # a note set under a list item's text after the item has ended is its own
        (
            "note-under-item",
            "Note: units with the Scout rule may instead deploy anywhere on "
            "the table that is more than twelve inches from an enemy.",
        ),
    ],
)
def test_footnote_and_list_rules_leave_look_alikes_alone(name: str, line: str) -> None:
    """A second review of the footnote and list rules: each PDF in
    ``tests/fixtures/pdf-edges/`` keeps the line whole and where it was."""
    lines = _edge_lines(name)
    assert line in lines
    assert not any("2.[1]" in x or "x[1]" in x or "D[6]" in x for x in lines)


def test_bold_headings_with_a_number_and_a_heading_at_a_columns_foot_stay_headings() -> None:
    """ "Variant: 2 Players" in a book's bold heading style is a heading (only a
    run of such lines is a profile); a heading at the foot of the left column,
    its text atop the right one, stays over its text (a footer across the page
    under it is no return to one column)."""
    data = (EDGES / "colon-headings.pdf").read_bytes()
    ids = [u.rule_id for u in parse_file("c.pdf", data, game="x").units]
    assert "game-variants/variant-2-players" in ids and "scenarios/scenario-12-towers" in ids
    data = (EDGES / "heading-at-column-foot.pdf").read_bytes()
    units = {u.rule_id: u for u in parse_file("h.pdf", data, game="x").units}
    assert units["chapter-3/rallying"].text.startswith("A fleeing unit rallies")


def test_a_word_processors_centred_table_headers_keep_their_columns() -> None:
    """Writer centres a table's header cells ("Table Heading"), so a column's
    text starts left of its header: an empty column appeared and values sat
    under the wrong headers ("Position |  | Hit modifier"). Every table but
    the one with merged cells gives the document's rows."""
    odt = parse_file("t.odt", (EDGES / "libreoffice-tables.odt").read_bytes(), game="x")
    pdf = parse_file("t.pdf", (EDGES / "libreoffice-tables.pdf").read_bytes(), game="x")
    assert [u.rule_id for u in pdf.units] == [u.rule_id for u in odt.units]
    for a, b in zip(pdf.units, odt.units, strict=True):
        if a.rule_id != "terrain":  # merged cells: not read as the document has them
            assert _as_read(a) == _as_read(b), a.rule_id
    assert "Position | Hit modifier | Sees over" in {u.rule_id: u for u in pdf.units}["1.1"].text


def test_a_note_mark_raised_against_a_number_is_not_read_into_it() -> None:
    """A footnote anchored after a number ("a range of 24 inches", the mark
    raised after "24"): the mark was read into the number ("241 inches", a
    wrong range), and the notes were left as table rows at the end of the
    last rule. A raised digit after a number no note claims is an exponent,
    kept raised ("10³", not "103")."""
    lines = _edge_rule_lines("number-marks")
    assert lines["shooting"][:2] == [
        "A rifle has a range of 24[1] inches and fires two shots each turn. A pistol has a "
        "range of 8 inches and fires once.",
        "[1] Long rifles add 6 inches to this range.",
    ]
    assert lines["blasts"][0].startswith(
        "A blast template covers an area of 10\u00b3 square inches"
    )
    assert lines["blasts"][0].endswith("so a model within 2[2] squares of that point is hit.")
    assert lines["blasts"][1] == "[2] Count squares diagonally as one."
    # an exponent is read as one where a note of its number is cited after a word
    assert any("A board of 10\u00b2 squares" in line for line in _edge_lines("superscripts"))


@pytest.mark.parametrize("name", ["number-marks", "superscripts", "two-column-table"])
def test_a_short_books_page_numbers_are_dropped(name: str) -> None:
    """A book of one or two pages has too few pages for its page numbers to
    repeat, so each was left at the end of its page's last rule ("... on
    2D6." then "1"). A bare number at the page's edge that is each page's
    own place is its number."""
    data = (EDGES / f"{name}.pdf").read_bytes()
    result = parse_file(f"{name}.pdf", data, game="x")
    assert not any(line.strip().isdigit() for u in result.units for line in u.text.split("\n"))
    assert result.dropped["page numbers"] >= 1


@pytest.mark.parametrize(
    ("name", "section"), [("typst-footnotes", "1.1"), ("weasyprint-footnotes", "4.2")]
)
def test_footnotes_as_typst_and_weasyprint_set_them_go_with_their_rule(
    name: str, section: str
) -> None:
    """Typst sets a note's mark raised against its text ("1Range is...") and
    its notes at exactly 0.85 of the body's size (a float a hair over the
    small-print line), with the mark indented and the next line at the
    margin; WeasyPrint sets the mark as "1." ("1. Range is"). Neither was
    read as a note, so both notes went to the last rule on the page. Typst
    also raises the mark in the text higher than the reader allowed, so the
    line broke there ("range.1" / "Roll a number")."""
    lines = {
        rule: [line.replace("\u2019", "'") for line in text]
        for rule, text in _edge_rule_lines(name).items()
    }
    assert lines["shooting"] == [
        "To shoot, choose one ranged weapon carried by the model and one visible enemy model "
        "within that weapon's range.[1] Roll a number of D6 equal to the weapon's Attacks "
        "value. Every die that equals or exceeds the weapon's Hit value scores a hit.",
        "[1] Range is always measured from the closest point of the shooter's base to the "
        "closest point of the target's base, never from the weapon itself.",
    ]
    assert lines[section][-1] == "[2] A roll of 6 always hits."
    assert lines["close-combat"] == [
        "Models in base contact with an enemy are engaged. An engaged model cannot perform a "
        "Shoot action, and it can only leave combat by retreating."
    ]


def test_a_bold_numbered_line_at_the_margin_is_a_heading_not_a_list_item() -> None:
    """groff's numbered headings ("1. Introduction", bold, in the text's
    size, alone on their line) read as list items, so each chapter's text went
    into the rule before it; a list's items, in plain type, stay items."""
    data = (EDGES / "groff-headings.pdf").read_bytes()
    units = parse_file("groff-headings.pdf", data, game="x").units
    assert [u.title for u in units] == ["Introduction", "The Turn", "Initiative", "Movement"]
    assert units[-1].text.split("\n") == [
        "A model may move up to its Move value in inches.",
        "1. Measure from the front of the base.",
        "2. Never move through another model.",
    ]


@pytest.mark.parametrize("name", ["weasyprint-columns", "weasyprint-column-band"])
def test_a_section_in_columns_whose_left_column_runs_longer_is_read_in_columns(
    name: str,
) -> None:
    """A section set in two columns (CSS columns) between text across the
    page, its left column a line longer than its right, then a bold heading
    ("Example of Play", 1.19 times the text) and text across the page. On a
    page mostly in columns the heading was read inside the left column, so
    the right column's text went under it; on a page mostly across, the left
    column's last line ended the band early, so no band was found and each
    left-column line was a paragraph, its hyphens ("ac-" / "tion") left in."""
    units = _edge_units(name)
    assert units["5.1"] == (
        "Roll a number of D6 equal to the weapon's Attacks value; each roll of 4+ is a hit. "
        "The defender then rolls one D6 for each hit, and every 5+ cancels one hit. Each "
        "remaining hit inflicts the weapon's Damage. A model that charged this round adds 1 to "
        "each of its attack rolls."
    )
    assert units["close-combat"].startswith("Models in base contact with an enemy are engaged.")
    assert "cannot perform a Shoot action, and" in units["close-combat"]
    assert units["close-combat/example-of-play"].startswith("Mara's scout is 9 inches away")
    assert len(_edge_rule_lines(name)["close-combat"]) == 1  # one paragraph


@pytest.mark.parametrize(
    "name",
    ["typst-columns-over-pages", "weasyprint-columns-over-pages", "fpdf2-columns-set-high"],
)
def test_a_section_in_columns_over_a_page_break_is_read_in_order(name: str) -> None:
    """A chapter in two columns that starts low on one page and ends on the
    next. Typst sets the right column's first line on the baseline of the
    chapter's heading atop the left one and writes it with the heading, so
    the page looked written row by row and was read in the PDF's order
    ("retreating. When a model performs a Models in base contact..."); on
    the next page the text fits the left column, and each of its lines was a
    paragraph. WeasyPrint's gutter is about an em, so a line of each column
    on one baseline was one line ("Damage. A model that charged every enemy
    engaged with it"), and rule 5.2's words went into 5.1. fpdf2's
    ``text_columns`` sets the right column's first line above the heading
    atop the left one, and the left column runs on well below the right
    one: no band was found, and 5.2's words went to the rule before the
    chapter."""
    units = {
        k: v.replace("\u2019", "'").replace("\u2010 ", "") for k, v in _edge_units(name).items()
    }
    assert units["close-combat"] == (
        "Models in base contact with an enemy are engaged. An engaged model cannot perform a "
        "Shoot action, and it can only leave combat by retreating. When a model performs a "
        "Fight action, it attacks one engaged enemy with its hand weapon or another melee weapon."
    )
    assert units["5.1"].endswith(
        "Each remaining hit inflicts the weapon's Damage. A model that charged this round adds 1 "
        "to each of its attack rolls."
    )
    assert units["5.2"] == (
        "An engaged model may retreat as a Move action. Before it moves, every enemy engaged "
        "with it makes one free attack against it. The retreating model then moves up to 3 "
        "inches away from all enemies and becomes Shaken."
    )
    lines = _edge_rule_lines(name)
    assert [len(lines[rule]) for rule in ("close-combat", "5.1", "5.2")] == [1, 1, 1]


def test_list_markers_drawn_after_the_pages_text_go_before_their_items() -> None:
    """WeasyPrint draws a page's bullets and "a)" labels after all its text:
    the bullets came out as lines of their own after the list, and the
    labels ahead of the items, two of them run into one ("...towards the
    target; place a Shaken token...")."""
    lines = _edge_rule_lines("weasyprint-lists")
    assert lines["the-turn"][1:] == [
        "\u2022 Move: the model moves up to its Move characteristic.",
        "\u2022 Shoot: the model makes a shooting attack with one ranged weapon.",
        "\u2022 Rally: the model removes one Shaken token from itself or a friend within 3 inches.",
    ]
    assert lines["2.1"][1:] == [
        "a) move the charging model 3 inches directly towards the target;",
        "b) place a Shaken token next to the charging model;",
        "c) the charging model may not perform any further actions this round.",
    ]


@pytest.mark.parametrize("name", ["groff-chapter-headers", "fpdf2-columns-set-high"])
def test_a_running_header_naming_the_chapter_in_the_texts_size_is_dropped(name: str) -> None:
    """groff and fpdf2 set a running header in the text's size: the book's
    title flush left, the chapter flush right ("Ashfall Skirmish Rules   3
    Movement"). Its text changes with the chapter and its size is the text's,
    so it stayed in the rules, mid-list, and between a long table's rows,
    where it also kept the table's header row, printed again on the next
    page, in."""
    data = (EDGES / f"{name}.pdf").read_bytes()
    result = parse_file(f"{name}.pdf", data, game="x")
    text = "\n".join(u.text for u in result.units)
    assert "Ashfall Skirmish Rules" not in text
    assert text.count("Weapon | Range | Attacks | Hit | Damage") == 1
    assert result.dropped["running headers and footers"] >= 5


def test_a_tables_short_cells_centred_in_tall_rows_stay_in_their_rows() -> None:
    """A browser's table (WeasyPrint, three pages of Cinder Reach set from its
    Markdown): each row's short cells are centred in a row as tall as its
    long "Effect" cell, and the long cell's lines are written after them,
    starting higher up. The gap from the header to the first row's short
    cells ended the table there, so its rows were read as loose lines."""
    lines = _edge_rule_lines("weasyprint-tall-rows")["6.4"]
    at = lines.index("D6 | Result | Effect")
    assert lines[at + 1 : at + 5] == [
        "1 or less | Taken Out | Remove the model from the battlefield. It counts as Taken Out "
        "for Victory Points (8.5) and for Nerve tests (6.6).",
        "2\u20133 | Down | Lay the model on its side. It is Down (6.4.1) and drops any Cinder "
        "Shard it carries.",
        "4\u20135 | Dazed | The model stays on its feet with 1 wound and becomes Shaken (6.6).",
        "6 or more | Grit Teeth | The model stays on its feet with 1 wound.",
    ]


def test_a_table_drawn_with_borders_is_read_from_them_over_a_page_break() -> None:
    """A browser's bordered table over two pages (WeasyPrint, four pages of
    Cinder Reach set from its Markdown): a row's short cells centred in a
    tall row, a row broken at the page's foot (its cost, range and dice on
    one page, its name and traits on the next, under the header printed
    again), and "Two-" / "Handed" broken at a cell's edge. Read by the text's
    gaps, the rows ran into one another ("Weapon Hand Free | Melee") or into
    the header row; the borders say where each cell is."""
    lines = _edge_rule_lines("weasyprint-table-over-pages")["5.5"]
    at = lines.index("Weapon | Cost | Range | Dice | Pierce | Traits")
    assert lines[at + 1 : at + 4] == [
        "Hand Weapon | Free | Melee | +0 | 0 | None",
        "Great Weapon | 4 | Melee | +1 | 1 | Two-Handed; Heavy models and Leaders only",
        "Spear | 2 | Melee | +0 | 0 | Reach",
    ]
    assert "Longrifle | 8 | 30\u201d | 1 | 2 | Unwieldy, Two-Handed" in lines
    assert lines.count("Weapon | Cost | Range | Dice | Pierce | Traits") == 1


def test_a_bordered_tables_merged_cells_keep_the_cells_after_them_in_their_columns() -> None:
    """LibreOffice's table with a header cell spanning two columns and a cell
    spanning two: read by the text's gaps, the spanned header was loose lines
    and a value landed under the wrong header ("Marsh | 3, and the unit must |
    stop | None"). Read from the borders, a cell spanning columns is followed
    by an empty cell for each more it spans, as the HTML reader reads one."""
    lines = _edge_rule_lines("libreoffice-tables")["terrain"]
    assert lines[1:3] == ["Terrain | Movement cost |  | Cover", " | Infantry | Vehicles"]
    assert "Marsh | 3, and the unit must stop |  | None" in lines


def test_a_browsers_table_with_separate_borders_has_no_empty_columns() -> None:
    """Chromium draws a table's border and each cell's a border-spacing apart:
    the two rules are one edge, not an empty column between them."""
    data = (PROJECT_ROOT / "tests" / "fixtures" / "printed" / "weapons.pdf").read_bytes()
    units = {u.rule_id: u.text.split("\n") for u in parse_file("w.pdf", data, game="x").units}
    assert units["weapons/cover"][1:] == ["Cover | Modifier", "Light | -1", "Heavy | -2"]


def test_a_bold_numbered_list_stays_a_list() -> None:
    """Review of the numbered-title change: a list of bold items after its
    lead-in ("...any of these objectives:" over "1. Hold the bridge at the
    end of turn 4", "2. Kill the enemy warlord", ...) was read as titles, and
    each but the last, an empty section, vanished."""
    lines = _edge_rule_lines("bold-numbered-list")["victory"]
    at = lines.index("A player wins at once if they achieve any of these objectives:")
    assert lines[at + 1 : at + 4] == [
        "1. Hold the bridge at the end of turn 4",
        "2. Kill the enemy warlord",
        "3. Escort the wagon off the far edge",
    ]


def test_a_two_column_table_is_no_pair_of_text_columns() -> None:
    """Review of the gutter split: a table of keywords and their effects has
    a run of words each side of a gap on every row, each at its side's
    margin, and was split as two columns of text: every keyword, then every
    effect. A line of a column of text fills it; a keyword cell does not."""
    lines = _edge_lines("two-column-keyword-table")
    assert "Keyword | Effect" in lines
    assert "Objective terrain | Range objective token leader charge." in lines


@pytest.mark.parametrize(
    ("name", "rule", "lines"),
    [
        # list markers a browser centres on items of three lines stay apart
        # from them: joined, each marker opened its item's middle line
        ("review-m2-table-markers", "sequence", ["1.", "2.", "3."]),
        # a small-print numbered list under the text, with a raised "2" in it,
        # is a list, not footnotes the exponent cites
        (
            "review-c3-lo-small-steps-with-exponent",
            "blast-weapons",
            [
                "1. Place the template with its centre over the target model.",
                "2. Roll the scatter die and move the template that many inches.",
            ],
        ),
        # a row at the head of each page ("Mission | Night Raid | Turns: 6")
        # repeats a part in place, but names no heading: no running header
        ("review-h1-scenario-top-row", "victory", ["Mission Night Raid Turns: 6"]),
        # a price list's entries end at one tab stop: no narrow running text
        ("review-n-narrow", "points", ["Rifle squad.....................................50 pts"]),
        # superscripts after numbers in two cells keep the table's row whole
        ("review-x4-lo-exponent-last-row", "templates", ["Scout | 3\u00b2 | 12\u00b3"]),
    ],
)
def test_what_a_review_of_the_day_found_reads_as_before(
    name: str, rule: str, lines: list[str]
) -> None:
    """Probe files of a review of the day's PDF changes (`/work/review8`),
    each where a change misfired; each read so before the changes too."""
    got = _edge_rule_lines(name)[rule]
    assert all(line in got for line in lines), got


def test_a_bold_heading_in_the_texts_size_beside_a_figure_stays_in_its_column() -> None:
    """Review of the day's changes: a bold h4 in the text's size in the left
    column, an empty box beside it in the right one, was taken for a heading
    across the page: the right column's text went under the rule before it,
    and Falling was read before Climbing."""
    units = [
        u.rule_id
        for u in parse_file(
            "k.pdf", (EDGES / "review-k2-cols-bold-h4-figure.pdf").read_bytes(), game="x"
        ).units
    ]
    assert units.index("movement/climbing") < units.index("movement/jumping")
    assert units.index("movement/jumping") < units.index("movement/falling")


@pytest.mark.parametrize(
    ("name", "titles"),
    [
        # groff: a chapter's title with a numbered subheading right under it
        ("review2-g1", ["Introduction", "Normal Moves", "Charging", "Shooting", "Close Combat"]),
        # LibreOffice: the section before ends in a bulleted list
        ("review2-n3_numbered_list", ["Setup", "Movement", "Shooting", "Close combat", "Morale"]),
        # two columns: a title at the head of the right column
        ("review2-c4_numbered_cols", ["Setup", "Movement", "Shooting", "Morale"]),
    ],
)
def test_a_bold_numbered_title_missed_misses_no_title_after_it(
    name: str, titles: list[str]
) -> None:
    """Second review of the day's changes: a bold numbered title counted only
    if the one before it did, and one was missed under a subheading, after a
    list, or at a column's head; every chapter after it was a line of the
    rule before, citations pointing at the wrong rule."""
    data = (EDGES / f"{name}.pdf").read_bytes()
    got = [u.title for u in parse_file(f"{name}.pdf", data, game="x").units]
    assert all(title in got for title in titles), got


def test_a_running_header_naming_its_chapter_by_a_longer_name_is_dropped() -> None:
    """fpdf2, the header in the text's size: "Ashfall Rules   Chapter 2:
    Shooting" over the heading "Shooting". Its changing part was required
    to be a heading's name, whole, and it stayed in the rules."""
    data = (EDGES / "review2-f1_headers_a.pdf").read_bytes()
    result = parse_file("f.pdf", data, game="x")
    assert not any("Ashfall Rules" in u.text for u in result.units)
    assert result.dropped["running headers and footers"] >= 4


def test_a_row_under_an_empty_category_cell_at_a_pages_head_is_its_own_row() -> None:
    """A bordered table with its category cell left empty after the first
    row of each category, over a page break: the row at the head of the page
    was taken for the end of the row the page before broke off, and the two
    ran together (" | Rings item 3 Rings item 4 | 15 gc 20 gc")."""
    lines = _edge_lines("review2-t3_category_thead")
    assert " | Rings item 3 | 15 gc" in lines
    assert " | Rings item 4 | 20 gc" in lines


def test_a_stat_cards_bold_name_across_it_stays_its_heading() -> None:
    """Bordered stat cards, each a bold name across the card over its stats:
    read from the borders, each name was a row of one table, and the cards
    lost their own rules."""
    data = (EDGES / "review2-t8_cards.pdf").read_bytes()
    ids = [u.rule_id for u in parse_file("c.pdf", data, game="x").units]
    assert {"bestiary/ogre-bruiser", "bestiary/cave-troll", "bestiary/giant-rat"} <= set(ids)


def test_a_bold_heading_across_weasyprint_columns_in_the_texts_size_divides_them() -> None:
    """WeasyPrint, a bold h4 in the text's size set across both columns:
    read inside the left one, the paragraphs above it in the right column
    went into its section."""
    data = (EDGES / "review2-w2_h4.pdf").read_bytes()
    units = {u.rule_id: u.text for u in parse_file("w.pdf", data, game="x").units}
    before, after = units["movement"], units["movement/charging"]
    assert "Paragraph 3" in before and "Paragraph 4" in before
    assert not any(p in after for p in ("Paragraph 3", "Paragraph 4"))


SKYREACH = [
    "Overview", "The Round", "Activation", "Movement", "Climbing and Falling", "Shooting",
    "Cover", "Melee", "Wounds and Casualties", "Morale", "Objectives", "Ending the Game",
]  # fmt: skip


def test_a_browsers_three_css_columns_are_read_column_by_column() -> None:
    """Chromium, a quick-reference sheet in three CSS columns
    (``chromium-three-columns.html``): a browser drops the space over a
    heading atop a column, so the second and third columns start higher
    than the first, and their lines start a point either side of the
    column's edge. Read as one column before; then, with columns found,
    lines a hair left of a column's edge were taken for lines across the page."""
    data = (EDGES / "chromium-three-columns.pdf").read_bytes()
    units = parse_file("q.pdf", data, game="x").units
    assert [u.title for u in units] == SKYREACH
    text = {u.title: u.text for u in units}
    assert text["Cover"].startswith(
        "A target that is partly hidden by a railing, a mast or a stack of crates is in cover."
    )
    assert "may spend them in any order. A model that has already activated" in (text["Activation"])


def test_a_heading_on_a_bar_across_two_columns_divides_them() -> None:
    """WeasyPrint, an h2 set across two CSS columns (``column-span: all``) on
    a dark bar, inset by the bar's padding (``weasyprint-heading-on-a-bar.html``):
    it divides the page as a heading across the columns at their margin
    does. Read inside the left column before, the left column under it was
    read before the right column over it, and "Activation" ended
    mid-sentence."""
    data = (EDGES / "weasyprint-heading-on-a-bar.pdf").read_bytes()
    units = parse_file("s.pdf", data, game="x").units
    assert [u.title for u in units] == SKYREACH
    parts = {u.title: u.parent for u in units}
    assert parts["Climbing and Falling"] == "Skyreach > Part One: The Basics"
    assert parts["Shooting"] == "Skyreach > Part Two: Fighting"
    activation = next(u.text for u in units if u.title == "Activation")
    assert "may spend them in any order. A model that has already activated" in activation


def test_a_grid_of_cards_is_read_a_card_at_a_time() -> None:
    """WeasyPrint, a card game's keyword reference as a CSS grid of cards,
    three abreast, each a drawn box with a bold keyword over its rule
    (``weasyprint-card-grid.html``): PDFium gives a line of each card on one
    baseline as one line, read as a table's row, so every line mixed three
    keywords and none was a rule of its own. Each card is now read whole, and
    its keyword heads it."""
    data = (EDGES / "weasyprint-card-grid.pdf").read_bytes()
    units = {u.title: u for u in parse_file("k.pdf", data, game="x").units}
    assert len(units) == 19
    assert units["Ambush"].text == (
        "This creature can block in the same turn it is played. "
        "It cannot block a creature with Flying."
    )
    assert units["Cleave"].text == (
        "When this creature attacks, it also deals half its power, rounded down, "
        "to a creature next to its target."
    )
    assert units["Tunnel"].parent == "Emberfall Keywords > Movement Keywords"


def test_a_box_floated_beside_the_text_is_read_where_it_sits() -> None:
    """WeasyPrint, a shaded box floated right beside a section's text (CSS
    float, ``weasyprint-float-box.html``): WeasyPrint writes it before the
    page's text, so it was read first, into the rule before the page's first
    heading, its bold title run into its first sentence. It now follows the
    paragraph it stands beside, its title a line of its own."""
    data = (EDGES / "weasyprint-float-box.pdf").read_bytes()
    units = {u.title: u.text for u in parse_file("f.pdf", data, game="x").units}
    assert "Hidden Loyalties" not in units["Components"]
    setup = units["Setup"]
    assert setup.startswith("Give each player a screen")
    assert "still empty.\nOptional Rule: Hidden Loyalties\nBefore setup, deal each player" in setup
    assert setup.index("Hidden Loyalties") < setup.index("Three players: remove")


def test_review_three_columns_over_a_table_keep_its_rows() -> None:
    """Chromium, three columns of text over a table across them whose cells
    wrap (``chromium-three-columns-with-a-table.html``, a reviewer's probe):
    the cells' lines fell in the columns and were read a column at a time,
    every row broken up. A page with such a table is read as before."""
    data = (EDGES / "chromium-three-columns-with-a-table.pdf").read_bytes()
    units = {u.title: u.text for u in parse_file("t.pdf", data, game="x").units}
    lines = units["Shooting"].splitlines()
    assert "Condition | Effect on the model | How it ends" in lines
    assert (
        "Stunned: the model was hit by a | It loses one action point at its | "
        "At the end of the model's next"
    ) in lines


def test_review_cards_of_unlike_heights_are_read_whole() -> None:
    """Chromium, a grid of cards of unlike heights (``chromium-card-grid-
    uneven.html``): the row's lines were taken from its first card's
    height, and the tallest card lost its last lines to the next one."""
    data = (EDGES / "chromium-card-grid-uneven.pdf").read_bytes()
    units = {u.title: u.text for u in parse_file("c.pdf", data, game="x").units}
    assert units["Evasive"] == (
        "Subtract one from hit rolls made against this unit by shooting attacks at a "
        "range of more than 12 inches, and from charge rolls against it."
    )
    assert units["Fearless"] == "This unit never takes morale tests."


def test_review_a_larger_first_letter_is_no_small_capitals() -> None:
    """Chromium, a paragraph's first letter set at 1.5 em (CSS
    ::first-letter, ``chromium-raised-initial.html``): its one capital larger
    than the line's lower-case letters read as small capitals, and the
    line was quoted in capitals."""
    data = (EDGES / "chromium-raised-initial.pdf").read_bytes()
    units = {u.title: u.text for u in parse_file("r.pdf", data, game="x").units}
    assert units["Introduction"].startswith("The game is played over six rounds and in each")


def test_review_labels_and_captions_in_colour_stay_text_in_a_book_with_headings() -> None:
    """A book with headings of its own, whose labels ("Example", "Designer's
    Note", "Clarification") or figure captions are set in colour in the
    text's size: each a different line alone before text, they passed for a
    heading style, and took the rest of each rule for their own. A style
    marked only by colour or capitals is learned only in a book with no
    other headings."""
    b = Book(header="", page_numbers=False)
    b.new_page()
    b.heading("Skirmish Rules", size=BODY_SIZE * 2)
    for name, label in (
        ("Movement", "Example"),
        ("Shooting", "Designer's Note"),
        ("Charging", "Clarification"),
        ("Morale", "Figure 2 - A unit falling back"),
    ):
        b.heading(name, size=BODY_SIZE * 1.4)
        b.para(f"During {name.lower()} every unit acts once, in the order its player chooses.")
        _marked_heading(b, label, "colour")
        b.para("A unit of ten riflemen does so first, then the unit of five scouts after it.")
        b.para(f"After {name.lower()}, play passes to the other player, who does the same.")
    result = read_pdf(b.pdf())
    assert [u.title for u in result.units] == ["Movement", "Shooting", "Charging", "Morale"]
    assert unit(result, "skirmish-rules/charging").text.endswith(
        "After charging, play passes to the other player, who does the same."
    )


def test_a_footnote_under_a_small_print_numbered_list_is_still_a_footnote() -> None:
    """A small-print numbered list ("1. Place the template") above a real
    footnote on the page: the list was taken for notes, or, once it no
    longer was, the note under it was left a loose line."""
    lines = _edge_rule_lines("review-c4-small-steps-with-footnote")["blast-weapons"]
    assert lines[0].endswith("on a 3 or more.[1] Saves are taken as normal.")
    assert lines[1] == "[1] Or a 2 against vehicles."
    assert "1. Place the template with its centre over the target model." in lines


def test_a_bordered_row_broken_between_sentences_over_a_page_is_one_row() -> None:
    """Third review of the day's changes: a bordered row broken over a page
    between two sentences ("... may not shoot. Roll again." / "It regroups
    ..."): taken back only where it went on mid-sentence, it was two rows,
    the second with no roll. A table that leaves no other first cell empty
    has no row of its own with an empty first cell."""
    lines = _edge_rule_lines("review3-row-break-capital")["panic"]
    row = next(line for line in lines if line.startswith("4 | "))
    assert row.endswith("It regroups at the start of its next turn.")
    assert not any(line.startswith(" | ") for line in lines)


def test_a_bold_category_row_across_a_bordered_table_stays_in_the_table() -> None:
    """Third review: a weapons table with bold category rows across it
    ("Pistols", "Rifles") had each made a heading, and the rows under it lost
    the table's header, so "-1" under AP said nothing. A stat card's name
    stands over the stats' header printed again; a category does not."""
    lines = _edge_rule_lines("review3-category-rows")["weapons"]
    assert lines[1:5] == [
        "Weapon | Range | Strength | AP",
        "Pistols",
        'Laspistol | 12" | 3 | -',
        'Bolt pistol | 12" | 4 | -1',
    ]
    assert 'Lascannon | 48" | 9 | -3' in lines


def test_a_scenario_row_naming_a_heading_and_a_turn_count_is_no_running_header() -> None:
    """Third review: "Mission | Ambush | Turns: 6" atop each page, "Ambush"
    a heading and "Turn" another: read as naming a heading by a prefix
    ("turn" of "Turns"), the rows were dropped and with them every
    scenario's length. A heading's name is whole words of it."""
    data = (EDGES / "review3-scenario-rows.pdf").read_bytes()
    text = "\n".join(u.text for u in parse_file("s.pdf", data, game="x").units)
    assert "Mission Ambush Turns: 6" in text
    assert "Mission Hold the Line Turns: 4" in text


def test_a_list_of_two_bold_objectives_does_not_swallow_the_chapters_after_it() -> None:
    """Third review: a bold list "1. Hold the bridge", "2. Kill the enemy
    warlord", then chapters "3. Movement" to "6. Morale": each chapter read
    as the list's next item, and the rest of the book was cited as Setup. A
    next item is as close under the last as the last was under its own."""
    data = (EDGES / "review3-two-objectives.pdf").read_bytes()
    ids = [u.rule_id for u in parse_file("n.pdf", data, game="x").units]
    assert ids[-4:] == ["movement", "shooting", "close-combat", "morale"]
    lines = _edge_rule_lines("review3-two-objectives")["setup"]
    assert "1. Hold the bridge" in lines and "2. Kill the enemy warlord" in lines


def _to_width(start: str, width: float, end: str = "") -> str:
    """``start`` padded with words to run (nearly) to ``width``, then ``end``."""
    words = start.split()
    for word in itertools.cycle(["and", "the", "same", "order", "holds", "for", "each", "unit"]):
        if stringWidth(" ".join([*words, word]) + end, BODY_FONT, BODY_SIZE) >= width:
            return " ".join(words) + end
        words.append(word)
    raise AssertionError("unreachable")


def _full_line(start: str, end: str = ".") -> str:
    """``start`` padded with words to run to the right margin, then ``end``."""
    return _to_width(start, TEXT_W, end)


def test_numbered_rule_paragraphs_set_close_are_paragraphs() -> None:
    """Comprehensive rules set paragraph after paragraph with less than half a
    line between them: a line opening with a rule number after a sentence's
    end (a quotation's too) starts a paragraph, though the line before ran to
    the margin; a number that only continues a wrapped sentence does not."""
    b = Book(header="")
    b.new_page()
    b.heading("100. General", size=12)
    lines = [
        _full_line("100.1. These rules apply to every game of Hollowmere, and"),
        _full_line("100.1a Each player starts with 20 Light, and a player at 0", end=' "loses."'),
        _full_line("100.2. A deck holds at least forty cards, and"),
        _full_line("A sentence that wraps onto a line opening with a number, see", end=" rule"),
        "100.2. It stays in its paragraph.",
    ]
    for text in lines:
        b._line(MARGIN, text, BODY_FONT, BODY_SIZE)
        b.y -= LEADING
    result = read_pdf(b.pdf())
    got = [u.rule_id for u in result.units]
    assert got == ["100.1", "100.1a", "100.2"], got
    assert "rule 100.2. It stays" in " ".join(result.units[-1].text.split())


def test_text_beside_a_box_of_notes_in_the_margin_runs_on() -> None:
    """A page with a designer's-notes box in its margin, set smaller: the box's
    lines ended further right than the text's, so the text's right margin was
    taken there, every line of the page's ragged-right text stopped "short" of
    it and was a paragraph of its own, and a quote ended mid-sentence ("Spearmen
    facing the charge cancel")."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import inch
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=10.5, leading=13.5, spaceAfter=6)
    head = ParagraphStyle("h", parent=body, fontName="Helvetica-Bold", fontSize=15, leading=19)
    note = ParagraphStyle("n", fontName="Helvetica", fontSize=8.5, leading=10.5)
    height = letter[1]

    def sidebar(c: canvas.Canvas, doc: BaseDocTemplate) -> None:
        c.setFillColor(colors.HexColor("#e8e0c8"))
        c.rect(5.8 * inch, height - 5 * inch, 2.1 * inch, 2.2 * inch, fill=1)
        y = height - 2.9 * inch
        for text in ("Designer's Notes", "We wanted cavalry to feel fast but fragile.") * 3:
            p = Paragraph(text, note)
            _, h = p.wrap(1.9 * inch, 2 * inch)
            p.drawOn(c, 5.9 * inch, y - h)
            y -= h + 4

    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=letter)
    frame = Frame(0.9 * inch, 0.9 * inch, 4.7 * inch, height - 1.8 * inch)
    doc.addPageTemplates([PageTemplate("p", [frame], onPageEnd=sidebar)])
    more = " Each step is resolved before the next begins, and no step is taken back." * 3
    rules = [
        ("Charges", "A cavalry unit may charge an enemy up to three hexes away."),
        ("Charge Bonus", "A charging unit adds two to its attack roll. Spearmen facing the "
         "charge cancel the bonus."),
        ("After the Charge", "A charging unit that wins stays in place."),
    ]  # fmt: skip
    story = []
    for title, text in rules:
        story += [Paragraph(title, head), Paragraph(text + more, body)]
    doc.build(story)
    units = {u.title: u.text for u in parse_file("r.pdf", out.getvalue(), game="x").units}
    for title, text in rules:
        assert units[title].startswith(text + " Each step"), units[title]
        assert "\n" not in units[title].split("Designer's Notes")[0].strip(), units[title]


def test_a_one_page_sheet_in_two_columns_with_a_footer() -> None:
    """A quick-reference sheet: one page, a title across it, its sections in
    two columns, and a footer set small at the right naming the game and the
    page. The footer sat in the right half below every line of the text, so a
    heading low in the left column (the right column empty beside it) was
    taken for one set across the page: the right column was read before it,
    and a rule's text ran on into the one before. Nothing repeats on a single
    page, so the footer itself was the last rule's last line."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import inch
    from reportlab.platypus import BaseDocTemplate, Frame, FrameBreak, PageTemplate, Paragraph

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=10, leading=12.5, spaceAfter=5)
    head = ParagraphStyle("h", parent=body, fontName="Helvetica-Bold", fontSize=12, leading=15)
    title = ParagraphStyle("t", parent=head, fontSize=22, leading=26, alignment=1)
    width, height = letter
    margin, gap = 0.75 * inch, 0.3 * inch
    column = (width - 2 * margin - gap) / 2

    def footer(c: canvas.Canvas, doc: BaseDocTemplate) -> None:
        c.setFont("Helvetica", 8)
        c.drawRightString(width - margin, 0.4 * inch, f"Iron Hex \u2022 {c.getPageNumber()}")

    frames = [
        Frame(margin, height - margin - 0.8 * inch, width - 2 * margin, 0.8 * inch),
        Frame(margin, margin, column, height - 2 * margin - 0.9 * inch),
        Frame(margin + column + gap, margin, column, height - 2 * margin - 0.9 * inch),
    ]
    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=letter)
    doc.addPageTemplates([PageTemplate("p", frames, onPageEnd=footer)])
    more = " Players should keep the map tidy and units clearly facing a hex side." * 3
    rules = [
        ("1 Setup", "Lay out the map.", "Cavalry must be placed last."),
        ("2 Sequence of Play", "Players alternate turns.", "The fewest units go first."),
        ("3 Movement", "Infantry move two hexes.", "No unit may enter a zone of control."),
        ("4 Combat", "Roll two dice and add the attack value.", "Ties go to the defender."),
        ("5 Rally", "A unit that did not fight regains a point.", "Routed units never rally."),
        ("6 Victory", "The game ends after turn eight.", "Hold the hill to win."),
    ]
    story = [Paragraph("IRON HEX: Quick Rules", title), FrameBreak()]
    for heading, *paragraphs in rules:
        story.append(Paragraph(heading, head))
        story += [Paragraph(text + more, body) for text in paragraphs]
    doc.build(story)
    result = parse_file("r.pdf", out.getvalue(), game="x")
    units = {u.title: u.text for u in result.units}
    assert list(units) == [heading.split(" ", 1)[1] for heading, *_ in rules]
    for heading, first, second in rules:
        assert units[heading.split(" ", 1)[1]] == f"{first}{more}\n{second}{more}"
    assert result.dropped["running headers and footers"] == 1


def test_a_mark_set_with_reportlabs_super_before_a_full_stop_cites_its_note() -> None:
    """ReportLab's ``<super>`` sets a note's mark at 9 pt against 11 (0.82 of
    the text; Word and LaTeX set about two thirds), before the sentence's full
    stop ("away¹."). The mark was not known as raised, so nothing on the page
    cited the note: it was read as the page's last rule's closing line, and
    the citing sentence read "away1 ." with a space before its stop."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import inch
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=11, leading=14, spaceAfter=6)
    head = ParagraphStyle("h", parent=body, fontName="Helvetica-Bold", fontSize=13, leading=16)
    width, height = letter

    def footnote(c: canvas.Canvas, doc: BaseDocTemplate) -> None:
        c.setFont("Times-Roman", 8)
        c.drawString(inch, 0.9 * inch, "1 Woods and hills block line of sight.")

    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=letter)
    frame = Frame(inch, 1.2 * inch, width - 2 * inch, height - 2.2 * inch)
    doc.addPageTemplates([PageTemplate("p", [frame], onPageEnd=footnote)])
    doc.build(
        [
            Paragraph("Terrain", head),
            Paragraph("A unit in woods cannot be seen from two hexes away<super>1</super>.", body),
            Paragraph("Roads", head),
            Paragraph("A unit on a road pays half a movement point per hex.", body),
        ]
    )
    units = {u.title: u.text for u in parse_file("r.pdf", out.getvalue(), game="x").units}
    assert units == {
        "Terrain": "A unit in woods cannot be seen from two hexes away[1].\n"
        "[1] Woods and hills block line of sight.",
        "Roads": "A unit on a road pays half a movement point per hex.",
    }


def test_a_glossary_term_in_bold_opens_its_own_line_though_set_close() -> None:
    """A glossary whose entries open with a bold term ("Grit: ...") set no further
    apart than a paragraph's lines: an entry after a line that ran to the margin
    was read into the one before ("...added to its Brawl rolls. Ironclad: a
    steam-driven walker."), and the term could not be looked up."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=9.5, leading=11.5, spaceAfter=4)
    head = ParagraphStyle("h", parent=body, fontName="Times-Bold", fontSize=13, leading=16)
    glossary = [
        ("Casualty", "a model reduced to 0 Wounds and removed from the table."),
        ("Grit", "a Posse model's brawling skill, from 0 to 3, added to its Brawl rolls."),
        ("Ironclad", "a steam-driven walker. It is not part of the Posse."),
    ]
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=letter, leftMargin=217, rightMargin=242)
    story = [Paragraph("Glossary", head)]
    story += [Paragraph(f"<b>{name}:</b> {text}", body) for name, text in glossary]
    doc.build(story)
    lines = parse_file("g.pdf", out.getvalue(), game="x").units[0].text.split("\n")
    assert lines == [f"{name}: {text}" for name, text in glossary]


def test_a_ragged_line_that_ends_early_before_a_long_word_runs_on() -> None:
    """Text set ragged-right in a narrow column: a line stops well short of
    the margin where the next word is too long for the room left ("...during
    your" then "opponent's turn"). Such a line was taken for a paragraph's
    last, and a quote stopped there: "Ambush: You may play this card during
    your". A line that stops short before a word that would have fit still
    ends its paragraph."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    body = ParagraphStyle("b", fontName="Helvetica", fontSize=9.5, leading=12, spaceAfter=4)
    head = ParagraphStyle("h", parent=body, fontName="Helvetica-Bold", fontSize=13, leading=16)
    glossary = [
        ("Ambush", "You may play this card during your opponent's turn, as if it were your "
         "main step."),
        ("Barrier", "The first time this unit would be dealt damage each turn, prevent it."),
        ("Deathrattle", "When this unit is destroyed, carry out the effect written after it."),
    ]  # fmt: skip
    out = io.BytesIO()
    # a column as narrow as a two-column A4 page's (87 mm)
    doc = SimpleDocTemplate(out, pagesize=letter, leftMargin=25 * mm, rightMargin=104 * mm)
    story = [Paragraph("Keywords", head)]
    story += [Paragraph(f"<b>{name}:</b> {text}", body) for name, text in glossary]
    story += [Paragraph("You will need", body), Paragraph("Six dice and a board.", body)]
    # a list of items a line each, each opening in capitals, some long
    items = ["A mounted board of the county of Brisbury", "Reinforcement cards, twelve a side"]
    story += [Paragraph(item, body) for item in items]
    doc.build(story)
    lines = parse_file("r.pdf", out.getvalue(), game="x").units[0].text.split("\n")
    assert lines == [f"{name}: {text}" for name, text in glossary] + [
        "You will need",
        "Six dice and a board.",
        *items,
    ]


def test_a_wargames_cases_are_rules_of_their_own_and_a_one_line_case_no_heading() -> None:
    """Hex-and-counter wargames number each paragraph as a case of its
    section ("6.11", "6.12" under "6.1 Movement Allowance"), the number in
    bold, the text in the body's type. A case of one line ("8.32 Artillery
    units may never advance after combat.") was read as a heading by its
    number and lost, having no text under it; a case's first line that runs
    to the margin ("6.11 Each unit has a Movement Allowance (MA)") was a
    heading too, its sentence cut in two. Each case is now a rule, cited by
    its number."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=11, leading=13.5, spaceAfter=4)
    section = ParagraphStyle("s", parent=body, fontName="Times-Bold", fontSize=10.5)
    chapter = ParagraphStyle("c", parent=body, fontName="Times-Bold", fontSize=13, leading=16)
    cases = {
        "6.1 Movement Allowance": [
            ("6.11", "Each unit has a Movement Allowance (MA) printed on its counter. A unit "
             "spends movement points from its MA for each hex it enters."),
            ("6.12", "A unit may never exceed its MA. Unused points may not be saved."),
        ],
        "6.2 Advance After Combat": [
            ("6.21", "If the defending hex is vacated, any one attacking unit may advance."),
            ("6.22", "Artillery units may never advance after combat."),
        ],
    }  # fmt: skip
    story = [Paragraph("6.0 MOVEMENT", chapter)]
    for heading, paragraphs in cases.items():
        story.append(Paragraph(heading, section))
        story += [Paragraph(f"<b>{n}</b> {text}", body) for n, text in paragraphs]
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=letter, leftMargin=72, rightMargin=290).build(story)
    units = parse_file("r.pdf", out.getvalue(), game="x").units
    assert [(u.rule_id, u.title, " ".join(u.text.split())) for u in units] == [
        (n, heading.split(" ", 1)[1], text)
        for heading, paragraphs in cases.items()
        for n, text in paragraphs
    ]


def test_a_word_hyphenated_over_a_page_break_is_one_word() -> None:
    """PDFium marks a line-end hyphen as a hyphenation point only within a
    page: a word broken over a page break stayed "Barter-ing", and a search
    for the word missed its rule. Within a page, the same break was joined."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    lines = [
        ["Leaders", "The Quartermaster trades at better rates than",
         "the usual rates given under Foraging and Barter-"],
        ["ing, applicable to all the other leaders whatever their abili-",
         "ties, and in every village."],
    ]  # fmt: skip
    for page in lines:
        y = 700.0
        for k, text in enumerate(page):
            bold = page is lines[0] and k == 0
            c.setFont("Helvetica-Bold" if bold else "Times-Roman", 14 if bold else 11)
            c.drawString(72, y, text)
            y -= 20 if bold else 14
        c.showPage()
    c.save()
    (unit,) = parse_file("r.pdf", out.getvalue(), game="x").units
    assert unit.text == (
        "The Quartermaster trades at better rates than the usual rates given under Foraging "
        "and Bartering, applicable to all the other leaders whatever their abilities, and in "
        "every village."
    )


def test_running_headers_that_alternate_or_skip_pages_are_dropped() -> None:
    """A printed book's running headers alternate: the book's name on left
    pages, the chapter on right ones, and none on a chapter's first page. In
    a short book neither repeats on three pages, so "SHADOWS OF VALDRIS"
    ended two rules. The same small line at the same height on two pages is
    a header."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    for n in range(1, 6):
        if n % 2 == 0:
            c.setFont("Helvetica", 8.5)
            c.drawString(72, 760, "SHADOWS OF VALDRIS \u2014 Core Rulebook")
        y = 700.0
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, y, f"Rule {chr(64 + n)}")
        c.setFont("Times-Roman", 11)
        for k in range(3):
            y -= 16
            c.drawString(72, y, f"Sentence {k} of rule {chr(64 + n)} is set here in full.")
        if n % 2 == 0:
            # the same note at the same place at a page's foot stays: a rule's
            c.setFont("Helvetica", 8.5)
            c.drawString(72, 60, "* Optional: leave this rule out of your first game.")
        c.showPage()
    c.save()
    result = parse_file("r.pdf", out.getvalue(), game="x")
    assert not any("VALDRIS" in u.text for u in result.units)
    assert result.dropped["running headers and footers"] == 2
    noted = [u.title for u in result.units if "leave this rule out" in u.text]
    assert noted == ["Rule B", "Rule D"]
    assert all("Sentence 2 of rule" in u.text for u in result.units)


@pytest.mark.parametrize(
    ("last", "end", "first", "expected"),
    [
        # a list's item that ends with no stop, the next one atop the column
        (
            "• Attack one adjacent enemy unit with every figure",
            "",
            "• Rally one routed unit next to a friendly castle",
            ["• Attack", "• Rally"],
        ),
        # a sentence that ends inside its bracket
        (
            "(Cover is explained under Combat in the open",
            " field.)",
            "When a scout is revealed by a tower, it goes back",
            ["(Cover", "When a scout"],
        ),
        # a sentence going on at a number, which is no list's item
        (
            "Each model rolls one die, and it hits on a",
            " roll of",
            "6. Each hit then takes one wound from the unit",
            ["Each model"],
        ),
    ],
)
def test_a_column_ends_a_list_item_or_a_bracketed_sentence(
    last: str, end: str, first: str, expected: list[str]
) -> None:
    """A column's last line running to its margin, its text going on atop the
    next column: a paragraph runs on there only mid-sentence. A list's next
    item was read into the item before it when that one ended with no stop
    ("...during the night phase • Rally one routed unit"), and a sentence
    ending inside its bracket ("...in the open field.)") was taken for one
    going on, the next paragraph read into it. A sentence going on at a
    number ("...on a roll of" / "6. Each hit") goes on: no list is open."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter, invariant=1)
    c.setFont("Helvetica-Bold", 12)
    c.drawString(LEFT_X, 720, "Orders")
    c.setFont(BODY_FONT, BODY_SIZE)
    left = [_to_width(f"Orders rule line {k} says each band", COLUMN_W) for k in range(8)]
    left += [_to_width("Orders rule line 8 says each band", COLUMN_W, " of the game.")]
    left += [_to_width(last, COLUMN_W, end)]
    right = [_to_width(first, COLUMN_W)]
    right += [_to_width(f"and rule line {k} says each band", COLUMN_W) for k in range(8)]
    right += [_to_width("and rule line 8 says each band", COLUMN_W, " for good.")]
    for x, lines in ((LEFT_X, left), (RIGHT_X, right)):
        for k, line in enumerate(lines):
            # (space above the left column's last paragraph)
            c.drawString(x, 700 - k * LEADING - (6 if x == LEFT_X and k == 9 else 0), line)
    c.showPage()
    c.save()
    orders = next(u for u in read_pdf(out.getvalue()).units if u.title == "Orders")
    paras = orders.text.split("\n")
    assert [next((e for e in expected if p.startswith(e)), "") for p in paras] == [
        "",
        *expected,
    ], orders.text


def test_a_lists_item_atop_the_next_page_is_an_item_of_its_own() -> None:
    """A list's item ending with no stop at a page's foot, its line running
    to the margin: the next page's first item was read into it."""
    b = Book(header="")
    b.new_page()
    b.heading("Orders", size=12)
    b.lines([_full_line("Each order card lets you do one of the following things, as", end=":")])
    b.y = 112
    b._line(
        MARGIN,
        _to_width("• Attack one adjacent enemy unit with every figure", TEXT_W),
        BODY_FONT,
        BODY_SIZE,
    )
    b.new_page()
    b.lines(["• Rally one routed unit next to a friendly castle."])
    b.lines(["• Build a camp in an empty space you control."])
    orders = next(u for u in read_pdf(b.pdf()).units if u.title == "Orders")
    items = [p[:8] for p in orders.text.split("\n") if p.startswith("•")]
    assert items == ["• Attack", "• Rally ", "• Build "], orders.text


def test_a_one_page_sheets_header_is_not_read_into_a_column() -> None:
    """A one-page sheet in two columns with a header set small at the top
    right: it was read as the right column's first line, inside the sentence
    the left column's last line ran on with ("if it begins and Series Rules
    2023 ends that move")."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    c.setFont("Helvetica", 8)
    c.drawRightString(560, 765, "Series Rules 2023")
    left = [f"Left line {k} of the movement rule runs on and on" for k in range(12)]
    right = [f"right line {k} of the movement rule runs on and on" for k in range(12)]
    c.setFont("Helvetica-Bold", 14)
    c.drawString(50, 730, "Movement")
    c.setFont("Times-Roman", 10)
    for k, (a, b) in enumerate(zip(left, right, strict=True)):
        c.drawString(50, 710 - 13 * k, a)
        c.drawString(320, 723 - 13 * k, b)
    c.showPage()
    c.save()
    units = parse_file("r.pdf", out.getvalue(), game="x").units
    movement = next(u for u in units if u.title == "Movement")
    assert "Series Rules" not in movement.text
    assert " ".join(movement.text.split()) == " ".join(left + right)


def test_a_numbered_bold_title_alone_at_a_pages_foot_heads_the_next_pages_text() -> None:
    """A word processor's numbered title in bold at the text's size ("3.
    Winning") left as a page's last line, its text on the next page: it was
    read as the section before's last line, and the winning rules were cited
    as the storms rule."""
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    y = 720.0
    for k, (title, text) in enumerate(
        [("1. Sailing", "Ships move one zone a turn."), ("2. Storms", "A storm sinks one ship.")]
    ):
        c.setFont("Helvetica-Bold", 11.5)
        c.drawString(72, y, title)
        c.setFont("Times-Roman", 11.5)
        for line in range(20 if k else 3):
            y -= 15
            c.drawString(72, y, f"{text} Line {line} of it goes on here.")
        y -= 22
    c.setFont("Helvetica-Bold", 11.5)
    c.drawString(72, y, "3. Winning")
    c.showPage()
    c.setFont("Times-Roman", 11.5)
    c.drawString(72, 720, "The first player to control four ports wins.")
    c.showPage()
    c.save()
    units = parse_file("r.pdf", out.getvalue(), game="x").units
    assert [u.title for u in units] == ["Sailing", "Storms", "Winning"]
    assert units[-1].text == "The first player to control four ports wins."
    assert units[-1].source.page == 1  # where its title is printed


def _book_with_a_box_across_the_text(
    *,
    titled: bool,
    drawn_after: bool,
    table: bool = False,
    one_column: bool = False,
    middle: Literal["", "wrap", "span"] = "",
) -> bytes:
    """Two pages in two columns (or one), a shaded box across the text at
    page 1's foot: a designer's note (a bold title over italic text), or the
    same text with no title, or a table's rows. The last section on page 1
    runs on over the page, mid-sentence. With ``middle``, the box is set
    across the page's middle instead, the columns' text running around it
    ("wrap": the left column above it, then below it, then the right one,
    as a typesetter's text wrap runs) or stopping above it and starting
    again under it ("span": above it left then right, then below it)."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import inch
    from reportlab.platypus import (
        BaseDocTemplate,
        Flowable,
        Frame,
        NextPageTemplate,
        PageTemplate,
        Paragraph,
    )

    width, height = letter
    margin, gap, box = 0.7 * inch, 0.3 * inch, 1.5 * inch
    column = (width - 2 * margin - gap) / 2
    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=11.5, leading=14.5, spaceAfter=6)
    head = ParagraphStyle("h", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceBefore=6)
    title = ParagraphStyle("t", fontName="Helvetica-Bold", fontSize=10, leading=12, spaceAfter=2)
    note = ParagraphStyle("n", fontName="Helvetica-Oblique", fontSize=9, leading=11, spaceAfter=3)

    def draw(c: canvas.Canvas, doc: BaseDocTemplate) -> None:
        if c.getPageNumber() != 1:
            return
        c.setFillColor(colors.Color(0.93, 0.89, 0.80))
        c.rect(margin, base, width - 2 * margin, box, fill=1, stroke=0)
        c.setFillColor(colors.black)
        y = base + box - 8
        if table:
            c.setFont("Helvetica", 9)
            for row in (("Terrain", "Move cost", "Cover"), ("Forest", "2", "Light"),
                        ("Hills", "2", "None"), ("Swamp", "3", "None")):  # fmt: skip
                for k, cell in enumerate(row):
                    c.drawString(margin + 8 + k * 2.2 * inch, y - 10, cell)
                y -= 14
            return
        paras = [Paragraph("Designer's Note", title)] if titled else []
        paras += [
            Paragraph("Supply was traced every turn in playtesting, and it slowed the game "
                      "to a crawl, so now it is checked only once a season, at its start, "
                      "by both players together.", note),
            Paragraph("Groups who enjoy the bookkeeping may trace it every turn.", note),
        ]  # fmt: skip
        for p in paras:
            _, h = p.wrapOn(c, width - 2 * margin - 16, box)
            p.drawOn(c, margin + 8, y - h)
            y -= h + 3

    top = margin + box + 0.15 * inch
    frames = [
        Frame(margin, top, column, height - margin - top, id="a"),
        Frame(margin + column + gap, top, column, height - margin - top, id="b"),
    ]
    if one_column:
        frames = [Frame(margin, top, width - 2 * margin, height - margin - top, id="a")]
    later = frames  # the pages after the first (the box is on page 1 only)
    base = margin  # where the box stands
    if middle:
        # the box across the page's middle, each column in two frames
        base = (height - box) / 2 - 0.4 * inch
        over, under = base + box + 0.15 * inch, base - 0.15 * inch
        a_over, b_over, a_under, b_under = (
            Frame(x, y0, column, y1 - y0, id=f"{x}-{y0}")
            for y0, y1 in ((over, height - margin), (margin, under))
            for x in (margin, margin + column + gap)
        )
        frames = (
            [a_over, a_under, b_over, b_under]
            if middle == "wrap"
            else [a_over, b_over, a_under, b_under]
        )
    hook = {"onPageEnd": draw} if drawn_after else {"onPage": draw}
    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=letter)
    doc.addPageTemplates([PageTemplate("p", frames, **hook), PageTemplate("q", later)])
    topics = ["Seasons", "Supply", "Movement", "Battles", "Sieges", "Winter", "Leaders",
              "Fleets", "Alliances", "Victory"]  # fmt: skip
    story: list[Flowable] = [NextPageTemplate("q")]
    story += [
        Paragraph("Empire of Dust", ParagraphStyle("d", parent=head, fontSize=22, leading=26))
    ]
    for k, topic in enumerate(topics):
        story.append(Paragraph(topic, head))
        story += [
            Paragraph(f"The rule of {topic.lower()} number {k} sentence {j} says that every "
                      f"unit taking part follows the {topic.lower()} steps in the order given, "
                      f"and no player may skip one of them.", body)
            for j in range(3)
        ]  # fmt: skip
    doc.build(story)
    return out.getvalue()


@pytest.mark.parametrize(
    ("drawn_after", "one_column", "middle"),
    [
        (False, False, ""),
        (True, False, ""),
        (False, True, ""),
        (False, False, "wrap"),
        (False, False, "span"),
    ],
)
def test_a_titled_box_across_the_columns_is_a_rule_of_its_own(
    drawn_after: bool, one_column: bool, middle: Literal["", "wrap", "span"]
) -> None:
    """A designer's note in a shaded box across both columns at the page's
    foot, the columns running on over the page (probe4's sidebar): its
    title was read among the left column's paragraphs and its text into the
    rule at the foot of the right column, ending the paragraph that runs on
    over the page. Now it is a rule of its own, beside the section it sits
    in, and that section's text reads on unbroken, whether the PDF draws
    the box before the columns or after them. On a page in one column, the
    box the PDF draws before the text was read first, into the rule before
    the page's first heading. Across the page's middle, where the columns'
    text runs around the box (the left column above it, then below it, as
    a typesetter's text wrap runs), the paragraph running from above it to
    below it was cut in two, its end read atop the right column; where the
    columns stop above it and start again under it, they are read so."""
    data = _book_with_a_box_across_the_text(
        titled=True, drawn_after=drawn_after, one_column=one_column, middle=middle
    )
    result = read_pdf(data)
    units = {u.title: u for u in result.units}
    note = units["Designer's Note"]
    assert note.text.startswith("Supply was traced every turn in playtesting"), note.text
    assert note.text.endswith("may trace it every turn."), note.text
    assert note.source.page == 1
    assert note.parent == "Empire of Dust"
    for u in result.units:
        if u is not note:
            assert "playtesting" not in u.text and "Designer" not in u.text, u.title
        # every section's paragraphs whole: each of its three opens a line
        if u.title != "Empire of Dust" and u is not note:
            paras = u.text.split("\n")
            assert len(paras) == 3 and all(p.startswith("The rule of") for p in paras), u.text


def _shaded_note(
    c: canvas.Canvas, x: float, width: float, low: float, high: float, title: str, lines: list[str]
) -> None:
    """A note in a shaded box from ``low`` to ``high`` on the page: a bold
    title over lines in italics."""
    from reportlab.lib import colors

    c.setFillColor(colors.Color(0.93, 0.89, 0.80))
    c.rect(x, low, width, high - low, fill=1, stroke=0)
    c.setFillColor(colors.black)
    c.setFont("Helvetica-Bold", 9)
    c.drawString(x + 8, high - 18, title)
    c.setFont("Helvetica-Oblique", 8.5)
    for k, line in enumerate(lines):
        c.drawString(x + 8, high - 32 - 11 * k, line)


def _page_around_a_box(
    order: Literal["wrap", "span"], boxes: int = 1
) -> tuple[bytes, dict[str, list[str]], int]:
    """One page in two columns, a shaded box holding a designer's note across
    its middle (or ``boxes`` of them, one above another), the text's lines
    set in the places around the boxes in ``order`` and drawn in it: "wrap"
    (the left column down past every box, then the right column: a
    typesetter's text wrap) or "span" (each band between the boxes left
    then right: columns that stop at a box and start again under it).
    Returns the PDF, each section's paragraphs by title, and how many moves
    from one place to the next fall mid-paragraph."""

    topics = ["Marching", "Foraging", "Camps", "Scouting", "Ambushes", "Rivers"][: 7 - boxes]
    sections = {
        topic: [
            f"A column that is {topic.lower()} in part {k} follows these steps in the order "
            f"given, and its leader checks each step before the next one begins, so that no "
            f"unit of the {topic.lower()} column is left behind at dusk."
            for k in range(2)
        ]
        for topic in topics
    }
    # the text in reading order: (line, font, space above it, opens a paragraph)
    stream: list[tuple[str, str, float, bool]] = []
    for topic, paras in sections.items():
        stream.append((topic, "Helvetica-Bold", 10.0, True))
        for para in paras:
            stream += [
                (line, BODY_FONT, 4.0 if k == 0 else 0.0, k == 0)
                for k, line in enumerate(wrap(para, COLUMN_W))
            ]
    # each box's (bottom, top) on the page, and the bands of text around them
    # as (top line's y, floor)
    shelves = {1: [(350.0, 450.0)], 2: [(440.0, 510.0), (250.0, 320.0)]}[boxes]
    edges = [PAGE_H - 90, *(y for low, high in shelves for y in (high + 20, low - 20)), 110.0]
    bands = list(itertools.pairwise(edges))[::2]
    columns = (LEFT_X, RIGHT_X)
    places = (
        [(x, band) for x in columns for band in bands]
        if order == "wrap"
        else [(x, band) for band in bands for x in columns]
    )
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter, invariant=1)
    notes = [("Designer's Note", "Columns in playtesting kept losing units at dusk"),
             ("Optional Rule: Forced March", "A column may march on after dusk")]  # fmt: skip
    for (low, high), (title, text) in zip(shelves, notes, strict=False):
        lines = [f"{text}, so the leader now checks each step", "before the next one begins."]
        _shaded_note(c, LEFT_X, RIGHT_X + COLUMN_W - LEFT_X, low, high, title, lines)
    at, crossings = 0, 0
    for place, (x, (top, floor)) in enumerate(places):
        y = top
        while at < len(stream) and y - stream[at][2] > floor:
            text, font, space, opens = stream[at]
            if y == top and place and not opens:
                crossings += 1
            y -= space if y != top else 0
            c.setFont(font, BODY_SIZE)
            c.drawString(x, y, text)
            y -= LEADING
            at += 1
    assert at == len(stream), "the page is too full"
    c.showPage()
    c.save()
    return out.getvalue(), sections, crossings


@pytest.mark.parametrize("order", ["wrap", "span"])
@pytest.mark.parametrize("boxes", [1, 2])
def test_columns_read_around_a_box_across_the_page_as_the_pdf_runs_them(
    order: Literal["wrap", "span"], boxes: int
) -> None:
    """A box across a page's middle, the columns' text running around it: the
    left column above the box, then below it, then the right column (a
    typesetter's text wrap, as InDesign sets a sidebar). The page was read
    as if the columns stopped at the box and started again under it, so a
    paragraph running from above the box to below it was cut in two, its
    end read into the rule atop the right column. The two look the same on
    the page; the PDF draws each in the order its text runs, so each is read
    in that order, a paragraph whole where it goes on past the box in
    either column, and the box a rule of its own; so too past two boxes,
    one above the other."""
    data, sections, crossings = _page_around_a_box(order, boxes)
    assert crossings >= 2  # paragraphs do run on from one place to the next
    units = {u.title: u for u in read_pdf(data).units}
    for topic, paras in sections.items():
        assert units[topic].text.split("\n") == paras, units[topic].text
    assert units["Designer's Note"].text.startswith("Columns in playtesting")
    if boxes == 2:
        assert units["Optional Rule: Forced March"].text.startswith("A column may march")


def test_columns_drawn_around_a_box_but_written_in_bands_read_as_written() -> None:
    """A page whose columns stop at a box and start again under it, drawn
    column by column as if its text ran around the box: read in the order
    drawn, a paragraph would end mid-sentence before a heading and another
    go on in lower case after a sentence's end. Where the text's joins say
    so, they decide over the order drawn."""

    march = _to_width("Marching columns move at the pace of their slowest", COLUMN_W)
    forage = _to_width("Foraging columns take food from every village", COLUMN_W)
    scouts = _to_width("Scouts move ahead of the column, and", COLUMN_W)
    fed = _to_width("Each village feeds one column, and", COLUMN_W)
    places = {  # (x, top line's y): lines, in the order the text reads
        "above left": (LEFT_X, 680, ["Marching", march, march, march]),
        "above right": (RIGHT_X, 680, ["unit and halt at dusk.", scouts, "then wait."]),
        "below left": (LEFT_X, 320, ["Foraging", forage, forage, forage]),
        "below right": (RIGHT_X, 320, ["they pass, but never twice.", fed, "then burns."]),
    }
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter, invariant=1)
    note = [
        "Columns in playtesting kept losing units at dusk, so the",
        "leader now checks each step before the next one begins.",
    ]
    _shaded_note(c, LEFT_X, RIGHT_X + COLUMN_W - LEFT_X, 350, 450, "Designer's Note", note)
    for name in ("above left", "below left", "above right", "below right"):  # as drawn
        x, y, lines = places[name]
        for k, line in enumerate(lines):
            c.setFont("Helvetica-Bold" if k == 0 and line[0].isupper() and len(line) < 12
                      else BODY_FONT, BODY_SIZE)  # fmt: skip
            c.drawString(x, y - k * LEADING, line)
    c.showPage()
    c.save()
    units = {u.title: u for u in read_pdf(out.getvalue()).units}
    assert units["Marching"].text.split("\n") == [
        " ".join([march] * 3 + ["unit and halt at dusk."]),
        f"{scouts} then wait.",
    ], units["Marching"].text
    assert units["Foraging"].text.split("\n") == [
        " ".join([forage] * 3 + ["they pass, but never twice."]),
        f"{fed} then burns.",
    ], units["Foraging"].text


def test_a_box_across_the_columns_with_no_title_goes_after_its_section() -> None:
    """The same box with no title line is text of the section it sits in,
    after the paragraph that runs on past it, not inside it."""
    result = read_pdf(_book_with_a_box_across_the_text(titled=False, drawn_after=False))
    holders = [u for u in result.units if "playtesting" in u.text]
    assert len(holders) == 1
    paras = holders[0].text.split("\n")
    assert paras[-2].startswith("Supply was traced") and paras[-1].startswith("Groups who"), paras
    assert all(p.startswith("The rule of") for p in paras[:-2]), paras
    assert "Designer's Note" not in {u.title for u in result.units}


def test_a_table_in_a_box_across_the_columns_is_no_aside() -> None:
    """A shaded table set across the columns is no sidebar: its first row is
    no rule's title, and no rule is named after it."""
    result = read_pdf(_book_with_a_box_across_the_text(titled=True, drawn_after=False, table=True))
    titles = {u.title for u in result.units}
    assert not any("Terrain" in t for t in titles), titles
    assert any("Forest" in u.text for u in result.units)


# A page in one column: two sections, the first of two paragraphs
_MARCHING = (
    "A column that is marching follows these steps in the order given, and its leader "
    "checks each step before the next one begins, so that no unit of the column is left "
    "behind at dusk when the camp is made for the night."
)
_SCOUTS = "Scouts move ahead of the column and may look at the next terrain card."
_FORAGING = "A foraging column takes food from every village it passes, but never twice."


def _one_column_page_with_a_box(drawn: Literal["before", "after", "in place"]) -> bytes:
    """A page in one column with a designer's note in a shaded box across
    its text: drawn apart from the text, before it or after it (a frame of
    its own), the first paragraph running on from above the box to below
    it; or drawn in its place between the two paragraphs, with a note at
    the page's foot drawn first (a master page's frame)."""

    lines = [("Marching", True)] + [(x, False) for x in wrap(_MARCHING, TEXT_W)]
    lines += [(x, False) for x in wrap(_SCOUTS, TEXT_W)]
    lines += [("Foraging", True)] + [(x, False) for x in wrap(_FORAGING, TEXT_W)]
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter, invariant=1)

    def box(top: float) -> None:
        note = [
            "Columns in playtesting kept losing units at dusk.",
            "The leader now checks each step.",
        ]
        _shaded_note(c, MARGIN, TEXT_W, top - 80, top, "Designer's Note", note)

    if drawn == "before":
        box(640)
    if drawn == "in place":
        c.setFont(BODY_FONT, 8)
        c.drawString(MARGIN, 130, "Playtest draft 0.9 of the rules, printed for the spring meet.")
        c.drawString(MARGIN, 120, "Send comments and questions to the address on the box.")
    # the box after the first paragraph's second line (drawn apart), or
    # after the whole paragraph (in its place)
    under = 2 if drawn != "in place" else 3
    y = 700.0
    for k, (text, heading) in enumerate(lines):
        y -= 8 if heading or k == 4 else 0  # (space before headings and the second paragraph)
        c.setFont("Helvetica-Bold" if heading else BODY_FONT, BODY_SIZE)
        c.drawString(MARGIN, y, text)
        if k == under:
            if drawn == "in place":
                box(y - 8)
            y -= 120
        y -= LEADING
    if drawn == "after":
        box(640)
    c.showPage()
    c.save()
    return out.getvalue()


@pytest.mark.parametrize("drawn", ["before", "after"])
def test_a_box_the_text_runs_past_on_a_page_in_one_column_is_a_rule_of_its_own(
    drawn: Literal["before", "after"],
) -> None:
    """A page in one column with a designer's note in a box across its
    middle, drawn apart from the text (a frame of its own, before the text
    or after it), a paragraph running on from above the box to below it:
    the note was read before the page's first heading (the rule before it,
    or a rule "untitled" on page 1), or into the page's last rule, and the
    paragraph was cut at the box. Now the note is a rule of its own beside
    its section, and the paragraph reads whole."""
    units = {u.title: u for u in read_pdf(_one_column_page_with_a_box(drawn)).units}
    assert units["Marching"].text.split("\n") == [_MARCHING, _SCOUTS], units["Marching"].text
    assert units["Foraging"].text == _FORAGING
    assert units["Designer's Note"].text.startswith("Columns in playtesting")


def test_a_box_drawn_in_its_place_stays_though_a_line_elsewhere_is_drawn_first() -> None:
    """The same note drawn in its place between two paragraphs stays there,
    in its rule, though a note at the page's foot is drawn before all the
    text (a review found that one stray line made every such box look
    drawn apart, and the box went before the page's first heading)."""
    units = {u.title: u for u in read_pdf(_one_column_page_with_a_box("in place")).units}
    assert "Designer's Note" not in units, list(units)
    paras = units["Marching"].text.split("\n")
    assert paras[0] == _MARCHING and paras[-1] == _SCOUTS, paras
    assert any(p.startswith("Columns in playtesting") for p in paras[1:-1]), paras


def test_a_shaded_example_between_paragraphs_stays_in_its_rule() -> None:
    """A box between two paragraphs of a page in one column (an example set
    on a shaded ground) is no aside: it stays where the text has it, in its
    rule, between the paragraphs around it."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=11, leading=14, spaceAfter=8)
    head = ParagraphStyle("h", fontName="Helvetica-Bold", fontSize=14, leading=18, spaceBefore=6)
    shaded = ParagraphStyle(
        "e", parent=body, fontName="Helvetica-Oblique", fontSize=9.5, leading=12,
        backColor=colors.Color(0.9, 0.9, 0.85), borderPadding=6, spaceBefore=8, spaceAfter=14,
    )  # fmt: skip
    story = []
    for k, topic in enumerate(["Shooting", "Cover", "Morale"]):
        story += [
            Paragraph(topic, head),
            Paragraph(f"First paragraph of {topic.lower()}: every model that {topic.lower()}s "
                      "rolls one die for each weapon it carries, then adds its skill.", body),
            Paragraph(f"Example {k}: a squad of five {topic.lower()}s with two rifles each rolls "
                      "ten dice, and every die that shows a four or more is a success, so on "
                      "average five of them hit the target it chose.", shaded),
            Paragraph(f"Last paragraph of {topic.lower()}: a model may never take part in this "
                      "step twice in one turn.", body),
        ]  # fmt: skip
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=letter).build(story)
    result = read_pdf(out.getvalue())
    for k, topic in enumerate(["Shooting", "Cover", "Morale"]):
        paras = next(u for u in result.units if u.title == topic).text.split("\n")
        assert [p.split()[0] for p in paras] == ["First", "Example", "Last"], paras
        assert paras[1].startswith(f"Example {k}:"), paras


def test_a_short_right_column_is_a_column() -> None:
    """A page in two columns whose right one holds a section of three lines
    (a chapter's last page), under a title and a chapter line across both:
    too few lines on the right to count as a column, the page was read as
    one, every left line short of the margin the right column set (each a
    paragraph of its own), the heading atop the right column glued to the
    text before it ("...ignore thin ice. Crevasses") and the chapter lost."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import BaseDocTemplate, Frame, FrameBreak, PageTemplate, Paragraph

    width, height = 7 * 72, 10 * 72
    margin, gap, head = 50, 14, 110
    column = (width - 2 * margin - gap) / 2
    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=11, leading=14, spaceAfter=6)
    sub = ParagraphStyle("h", fontName="Helvetica-Bold", fontSize=12.5, leading=15, spaceBefore=4)
    chapter = ParagraphStyle("c", parent=sub, fontSize=15, leading=18)
    title = ParagraphStyle("t", parent=sub, fontSize=22, leading=26)
    frames = [
        Frame(margin, height - margin - head, width - 2 * margin, head, id="top"),
        Frame(margin, margin, column, height - 2 * margin - head, id="a"),
        Frame(margin + column + gap, margin, column, height - 2 * margin - head, id="b"),
    ]

    def folio(c: canvas.Canvas, doc: BaseDocTemplate) -> None:
        # a page number at the foot's middle, set small
        c.setFont("Helvetica", 8)
        c.drawCentredString(width / 2, 24, str(c.getPageNumber()))

    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=(width, height))
    doc.addPageTemplates([PageTemplate("p", frames, onPage=folio)])
    story = [Paragraph("Glacier Rally", title), Paragraph("Part One: The Race", chapter)]
    story.append(FrameBreak())
    left = ["Teams", "Speed Cards", "Thin Ice", "Weather"]
    for k, topic in enumerate(left):
        story += [
            Paragraph(topic, sub),
            Paragraph(f"Rule {k} of {topic.lower()}: every sled that takes part follows the "
                      f"{topic.lower()} steps in the order given, and no player may skip one "
                      "of them during the race.", body),
        ]  # fmt: skip
    story += [
        FrameBreak(),
        Paragraph("Crevasses", sub),
        Paragraph("Crevasse tokens block spaces. A sled may jump one only with a speed of "
                  "five or more.", body),
    ]  # fmt: skip
    doc.build(story)
    result = read_pdf(out.getvalue())
    units = {u.title: u for u in result.units}
    assert set(units) == {*left, "Crevasses"}, set(units)
    for topic in left:
        assert units[topic].parent == "Glacier Rally > Part One: The Race", units[topic].parent
        assert "\n" not in units[topic].text, units[topic].text
    assert units["Crevasses"].text.startswith("Crevasse tokens block spaces."), units["Crevasses"]
    assert "Crevasses" not in units["Weather"].text


def test_a_chapter_opening_panel_is_the_books_structure() -> None:
    """Each chapter opens with a shaded panel across the page holding its
    title (in the book's chapter style) and an introduction, its sections in
    two columns below. A review found the panel taken for a sidebar: its
    title put beside the section before it, and every section of the
    chapter under the wrong chapter. A box holding a heading above the
    section in progress, or before the first heading, is read where it
    stands."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import BaseDocTemplate, Frame, PageBreak, PageTemplate, Paragraph

    width, height = letter
    margin, gap, panel = 50, 20, 120
    column = (width - 2 * margin - gap) / 2
    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=10.5, leading=13, spaceAfter=5)
    head = ParagraphStyle("h", fontName="Helvetica-Bold", fontSize=12.5, leading=15, spaceBefore=4)
    big = ParagraphStyle("c", fontName="Helvetica-Bold", fontSize=20, leading=24, spaceAfter=4)
    chapters = {1: "Preparing for War", 2: "The Battle"}

    def draw(c: canvas.Canvas, doc: BaseDocTemplate) -> None:
        n = c.getPageNumber()
        c.setFillColor(colors.Color(0.85, 0.88, 0.93))
        c.rect(margin - 4, height - margin - panel, width - 2 * margin + 8, panel, fill=1, stroke=0)
        c.setFillColor(colors.black)
        y = height - margin - 6
        intro = (
            f"This chapter, {chapters[n].lower()}, explains what every player does before "
            "the armies meet and which cards each side keeps in hand for the turns ahead."
        )
        for p in (Paragraph(chapters[n], big), Paragraph(intro, body)):
            _, h = p.wrapOn(c, width - 2 * margin, panel)
            p.drawOn(c, margin, y - h)
            y -= h + 4

    top = height - margin - panel - 12
    frames = [
        Frame(margin, margin, column, top - margin, id="a"),
        Frame(margin + column + gap, margin, column, top - margin, id="b"),
    ]
    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=letter)
    doc.addPageTemplates([PageTemplate("p", frames, onPage=draw)])
    sections = {1: ["Components", "Setup", "Mustering"], 2: ["Deployment", "Volleys", "Melee"]}
    story = []
    for names in sections.values():
        for name in names:
            story.append(Paragraph(name, head))
            story += [
                Paragraph(f"{name} rule {j}: each army follows the {name.lower()} steps in "
                          "the order printed on its card, one unit at a time, and no unit may "
                          "act twice in the same step of a turn.", body)
                for j in range(4)
            ]  # fmt: skip
        story.append(PageBreak())
    doc.build(story[:-1])
    units = {u.title: u for u in read_pdf(out.getvalue()).units}
    for n, names in sections.items():
        assert units[chapters[n]].text.startswith(f"This chapter, {chapters[n].lower()}")
        for name in names:
            assert units[name].parent == chapters[n], (name, units[name].parent)


def test_a_note_drawn_in_its_place_at_a_page_foot_stays_in_its_rule() -> None:
    """A shaded note a browser draws between paragraphs, which a page break
    happened to leave at the foot of a page in one column: drawn in its place
    in the text, it is its rule's (a review found it made a rule "Note" of
    its own, while the same note mid-page stayed in its rule)."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=11, leading=14, spaceAfter=8)
    head = ParagraphStyle("h", fontName="Helvetica-Bold", fontSize=14, leading=18, spaceBefore=6)
    bold = ParagraphStyle("n", fontName="Helvetica-Bold", fontSize=9.5, leading=12)
    note = ParagraphStyle("i", fontName="Helvetica-Oblique", fontSize=9.5, leading=12)
    box = Table(
        [[[Paragraph("Note", bold),
           Paragraph("This applies only to ships in supply, and never in a storm turn; "
                     "a ship out of supply keeps its old speed until it is supplied again.",
                     note)]]],
        colWidths=[468],
        hAlign="LEFT",
        style=[("BACKGROUND", (0, 0), (-1, -1), colors.Color(0.92, 0.92, 0.86))],
    )  # fmt: skip
    story = [
        Paragraph("Naval Rules", head),
        Paragraph("Ships move along the sea lanes, up to three areas each turn, and may "
                  "carry two units each, which land in any coastal area they reach.", body),
        *[
            Paragraph(f"Rule {k} of the sea: a ship that ends its move in a port may trade "
                      "there, repair one damage or take on two more units, but only one of "
                      "the three in a turn.", body)
            for k in range(3)
        ],
        Spacer(1, 320),
        box,
        PageBreak(),
        Paragraph("Storms", head),
        Paragraph("A storm closes every sea lane for the rest of the turn.", body),
    ]  # fmt: skip
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=letter).build(story)
    units = {u.title: u for u in read_pdf(out.getvalue()).units}
    assert "Note" not in units, set(units)
    assert "applies only to ships in supply" in units["Naval Rules"].text


def test_a_title_several_boxes_share_is_a_label() -> None:
    """Boxes across the columns each titled "Example": a title they share is
    a label, not a rule's name, so each box is the text of the section it
    falls in, and no rule is called "Example"."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

    width, height = letter
    margin, gap, box = 50, 20, 90
    column = (width - 2 * margin - gap) / 2
    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=11, leading=14, spaceAfter=6)
    head = ParagraphStyle("h", fontName="Helvetica-Bold", fontSize=12.5, leading=15, spaceBefore=4)
    label = ParagraphStyle("l", fontName="Helvetica-Bold", fontSize=10, leading=12, spaceAfter=2)
    text = ParagraphStyle("t", fontName="Helvetica-Oblique", fontSize=9, leading=11)

    def draw(c: canvas.Canvas, doc: BaseDocTemplate) -> None:
        n = c.getPageNumber()
        c.setFillColor(colors.Color(0.93, 0.89, 0.80))
        c.rect(margin, margin, width - 2 * margin, box, fill=1, stroke=0)
        c.setFillColor(colors.black)
        y = margin + box - 8
        example = f"Example {n}: two scouts meet at a ford, and the faster one moves first."
        for p in (Paragraph("Example", label), Paragraph(example, text)):
            _, h = p.wrapOn(c, width - 2 * margin - 16, box)
            p.drawOn(c, margin + 8, y - h)
            y -= h + 3

    low = margin + box + 12
    frames = [
        Frame(margin, low, column, height - margin - low, id="a"),
        Frame(margin + column + gap, low, column, height - margin - low, id="b"),
    ]
    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=letter)
    doc.addPageTemplates([PageTemplate("p", frames, onPage=draw)])
    story = []
    for name in ["Scouting", "Fording", "Ambush", "Pursuit", "Retreat", "Camp", "Forage"]:
        story.append(Paragraph(name, head))
        story += [
            Paragraph(f"{name} rule {j}: every band that takes part follows the "
                      f"{name.lower()} steps in the order given, and no leader may skip one "
                      "of them on any turn of the game.", body)
            for j in range(4)
        ]  # fmt: skip
    doc.build(story)
    result = read_pdf(out.getvalue())
    titles = [u.title for u in result.units]
    assert "Example" not in titles, titles
    holders = [u for u in result.units if "two scouts meet at a ford" in u.text]
    assert len(holders) >= 2
    for u in holders:
        paras = u.text.split("\n")
        assert paras[-1].startswith("Example "), paras


def test_a_table_of_two_long_columns_drawn_row_by_row_keeps_its_rows() -> None:
    """A table of rulings with no lines, its questions long and its answers
    short, drawn a row at a time: its right column is short beside the
    left, as a chapter's last page is, but the PDF draws it a piece beside
    each question, not in one piece. Read as two columns (a review's find
    on the first version of ``_short_right_column``), every answer came
    after every question. (With a quarter of the lines or more on the right,
    such a table is read in columns as before: a page whose columns a PDF
    writes row by row looks the same.)"""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, Table, TableStyle

    body = ParagraphStyle("b", fontName="Times-Roman", fontSize=10.5, leading=13)
    head = ParagraphStyle("h", fontName="Helvetica-Bold", fontSize=16, leading=20)
    answers = [
        "Yes, the unit stops.",
        "Only if the space is empty and no enemy unit stands next to it at the start.",
        "The attacker chooses.",
        "Yes, once per turn.",
        "Discard it.",
    ]
    rows = [
        [Paragraph(f"Q{k}. A unit moves next to an enemy unit that is hidden in a forest "
                   f"space, and the enemy unit is then revealed by a scout card number {k}. "
                   "Does the moving unit still have to stop there?", body),
         Paragraph(answer, body)]
        for k, answer in enumerate(answers, start=1)
    ]  # fmt: skip
    table = Table(rows, colWidths=[252, 252])
    table.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                               ("LEFTPADDING", (0, 0), (-1, -1), 8),
                               ("RIGHTPADDING", (0, 0), (-1, -1), 8)]))  # fmt: skip
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=letter)
    title = Paragraph("Frequently Asked Questions", head)
    _, h = title.wrap(500, 100)
    title.drawOn(c, 54, letter[1] - 60 - h)
    _, h = table.wrap(504, 700)
    table.drawOn(c, 54, letter[1] - 100 - h)
    c.showPage()
    c.save()
    text = " ".join(u.text for u in read_pdf(out.getvalue()).units)
    at = [text.index(f"Q{k}.") for k in range(1, len(answers) + 1)]
    for k, answer in enumerate(answers):
        assert at[k] < text.index(answer) < (at[k + 1] if k + 1 < len(answers) else len(text)), (
            answer,
            text,
        )


def test_a_one_page_sheets_footer_with_a_version_and_the_word_page_goes() -> None:
    """ "Saltmarsh Corsairs v1.2 - page 1" under a one-page sheet was a rule of
    its own; a last line of text with a number in it stays."""
    b = Book(header="", page_numbers=False)
    b.new_page()
    b.heading("Saltmarsh Corsairs: Core Rules", size=18)
    b.heading("1 Ships")
    b.para("Each player commands a squadron of two to four ships.")
    b.heading("2 Sailing")
    b.para("A ship moves up to its Speed; it may turn once, by 45 degrees.")
    b.para("Ships end their move 1 inch apart at the least, as rule 2 says on page 1.")
    b.canvas.setFont(BODY_FONT, 7)
    b.canvas.drawString(MARGIN, 30, "Saltmarsh Corsairs v1.2 - page 1")
    result = parse_file("sheet.pdf", b.pdf(), game="x")
    text = "\n".join(u.text for u in result.units)
    assert "v1.2" not in text and result.dropped["running headers and footers"] == 1
    assert "as rule 2 says on page 1." in text
    # a note set as small, naming the book and ending in the page's number, stays
    for note in ("Corsairs: max 1", "Corsairs score 1", "* Corsairs reroll 1"):
        b = Book(header="", page_numbers=False)
        b.new_page()
        b.heading("Saltmarsh Corsairs: Core Rules", size=18)
        b.heading("1 Ships")
        b.para("Each player commands a squadron of two to four ships.")
        b.canvas.setFont(BODY_FONT, 7)
        b.canvas.drawString(MARGIN, 30, note)
        text = "\n".join(u.text for u in parse_file("s.pdf", b.pdf(), game="x").units)
        assert note in text, note
