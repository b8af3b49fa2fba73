"""Stage 3 of the PDF reader: page furniture, dropped and counted.

Lines in a page's top and bottom zones that repeat (digits aside) on many
pages are running headers and footers (``_drop_furniture``), never lines
that also repeat down their own page's body (a long table's rows); a
header whose repeated part stands in the same place, and whose changing
part names one of the book's headings, goes too. Also dropped here: a
browser's printed date, title, address and page counter
(``_browser_margins``), bare page numbers and a table-of-contents page.
Lines whose every word lies in one of the page's links (menus, link bars,
"[Edit]" links), standing as a block of their own, are known here
(``_is_menu``, with a menu's label over it: ``_menu_label``) and dropped as
the text is read (``outline_of``), as is a short cover page.

Everything dropped is counted by reason, so the ingest report can say
what was left out.

Trade-off: repetition across pages is the evidence, so a one- or two-page
sheet has little to go on; its page numbers are recognised by their place,
and a footer by naming only the book beside the page's own number.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ruleslawyer.ingest.formats.pdf.headings import _is_heading
from ruleslawyer.ingest.formats.pdf.lines import (
    _PAGE_COUNTER,
    _PAGE_NUMBER,
    _WORDS,
    FURNITURE_ZONE,
    _body_size,
    _Line,
    _margins,
    _Page,
)
from ruleslawyer.ingest.formats.pdf.paragraphs import _starts_block
from ruleslawyer.ingest.outline import Outline

EDGE_ZONE = 0.15  # how far in a page's outermost line may still be its header or footer

_TOC_LINE = re.compile(r"^(.*?\D.*?)[\s.\u2026\u00b7]+(\d{1,4})$")


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
    return tuple(_WORDS.findall(text.lower()))


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


# The most words besides the book's name a one- or two-page sheet's footer
# holds ("v", "page" of "Saltmarsh Corsairs v1.2 - page 1")
SHEET_FOOTER_OTHER_WORDS = 2
# a line's last number set apart by a sign, a word between them at most:
# "• 1", "- page 1", "| p. 2" (not ": max 2", where the colon opens a value)
_SET_APART_NUMBER = re.compile(r"[-\u2013\u2014\u2022\u00b7|/]\s*(?:[^\W\d_]+\.?\s+)?(\d+)\s*$")


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
    # a top margin line's text (digits aside) at its height, in its size: the
    # same on two pages is a running header of a book whose headers alternate
    # (left pages name the book, right pages the chapter) or skip the pages
    # that open chapters, so that none repeats on three
    placed: Counter[tuple[str, int, int, str]] = Counter()

    def place_of(ln: _Line) -> tuple[str, int, int, str]:
        return (ln.zone, round(ln.top / 2), round(ln.size * 2), key_of(ln))

    for page in pages:
        seen.update({key_of(ln) for ln in page.lines if ln.zone})
        placed.update({place_of(ln) for ln in page.lines if ln.zone == "top" and not ln.edge})
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

    def small_print(ln: _Line, margins: dict[int, float]) -> bool:
        # a few words in another size than the text, and no heading: what
        # every rule below asks of a margin line before its own evidence
        return (
            abs(ln.size - body) > 0.5
            and len(ln.text.split()) <= 12
            and not _is_heading(ln, body, margins)
        )

    def placed_like_furniture(ln: _Line, margins: dict[int, float]) -> bool:
        return (
            ln.zone == "top"
            and small_print(ln, margins)
            and any(slots[slot] >= repeat for slot in _slots(ln))
        )

    # the book's name as its first page sets it largest ("IRON HEX: Quick
    # Rules"), for a sheet's footer that names it beside its page number
    cover = max(pages[0].lines, key=lambda ln: ln.size, default=None) if pages else None
    book = set(_words(cover.text)) if cover is not None and cover.size > body else set()

    def names_book_and_page(ln: _Line, page: _Page, margins: dict[int, float]) -> bool:
        # a sheet of one or two pages: nothing repeats often enough, but a
        # margin line set smaller than the text that holds the page's own
        # number and otherwise only words of the book's name ("Iron Hex •
        # 1") is its footer; a note or a last line of text names more. So is
        # one that names the book and ends with the page's number set apart
        # by a sign, with at most two words besides ("Saltmarsh Corsairs v1.2
        # - page 1"; not a note's "Corsairs: max 2" or "Corsairs score 1")
        if ln.size >= body or not small_print(ln, margins):
            return False
        numbers = re.findall(r"\d+", ln.text)
        words = _words(ln.text)
        if numbers == [str(page.number)] and words and set(words) <= book:
            return True
        last = _SET_APART_NUMBER.search(ln.text)
        return (
            last is not None
            and last.group(1) == str(page.number)
            and bool(set(words) & book)
            and len([w for w in words if w not in book]) <= SHEET_FOOTER_OTHER_WORDS
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
                or (ln.zone and len(pages) < 3 and names_book_and_page(ln, page, margins))
                or (
                    # (at the top only: a page's foot also holds small lines
                    # that are rules, a footnote repeated word for word)
                    ln.zone == "top"
                    and not ln.edge
                    and placed[place_of(ln)] >= 2
                    and in_body[key] < 2
                    and small_print(ln, margins)
                )
                or (
                    # two pages (an errata sheet, a quick reference): on both,
                    # in another size than the text, and no heading
                    ln.zone
                    and len(pages) == 2
                    and in_body[key] < 2
                    and seen[key] == 2
                    and small_print(ln, margins)
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
