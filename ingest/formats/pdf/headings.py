"""Stage 5 of the PDF reader: which lines are headings, and at what level.

The body size is the size most of the text is set in (``_body_size``). A
short line set larger than the body, set entirely in bold at the body's
margin, or opening with a dotted number ("3.2 Movement") is a heading; so
is a style the document uses only as lines alone before body text, again
and again: a smaller bold, or the text's own size and face marked only by
capitals (small caps, letter-spaced capitals) or by colour
(``_own_styles``); and a numbered line
set whole in bold at the margin ("1. Introduction", ``_numbered_titles``),
told apart from a bold numbered list. Heading styles (size, weight,
capitals) are ranked into levels, bigger and heavier first
(``_heading_styles``). Two checks made as the lines are read also live
here: a heading too long for its column going on in the next line
(``_wraps``), and a dotted number that is a sentence's cross-reference,
not a section (``_runs_into``).

Trade-off: typography, not a trained model: a book that marks headings with
nothing but spacing gets plain paragraphs under the nearest real heading;
and a style learned from its uses is all-or-nothing: one capitals line in
that style that is not alone before text (a table's header, a caution
"DO NOT SHUFFLE THE DECK.") and the book's capitals are text everywhere.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ruleslawyer.ingest.formats.pdf.lines import (
    _DOTTED_HEADING,
    _LIST_ITEM,
    _SENTENCE_ON,
    _at_margin,
    _body_size,
    _Line,
    _margins,
    _Page,
    _right_edges,
    _short,
    _Style,
    _style,
)
from ruleslawyer.ingest.typeset import HEADING_SIZE_RATIO

# A bold line alone at the margin is a heading down to this share of the body
# size. Not lower by size alone: a bold caption or "Example" label is set
# smaller.
BOLD_HEADING_SIZE = 0.95

# ...unless the document sets a smaller bold style as its headings throughout
# (``_own_styles``): down to this share, and only for a style used at
# least this often, each time alone at the margin with body text after it.
SMALL_BOLD_SIZE = 0.8
SMALL_BOLD_REPEATS = 3  # 2 where the book has at most one other heading line

# "Shots: 2", "Save: 4+", "Range: 24 inches": a profile's line, its label in
# bold, whose value has a number (see ``_in_profile``)
_STAT_LINE = re.compile(r"^[^:\d]{1,40}:\s+\S*\d")
_NUMBERED_TITLE = re.compile(r"^(\d{1,2})\.\s+[A-Z]")


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
    # each page's next first line (a title left alone at a page's foot has its
    # text on the next page), from the last page back
    firsts: list[_Line | None] = []
    for page in reversed(pages):
        firsts.append(page.lines[0] if page.lines else (firsts[-1] if firsts else None))
    firsts.reverse()
    for n, page in enumerate(pages):
        lines = page.lines
        next_page = firsts[n + 1] if n + 1 < len(pages) else None
        for i, ln in enumerate(lines):
            m = _NUMBERED_TITLE.match(ln.text)
            if not (m and ln.bold and not ln.row):
                continue
            number = int(m.group(1))
            before = lines[i - 1] if i else None
            after = lines[i + 1] if i + 1 < len(lines) else next_page
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


def _heading_styles(
    pages: list[_Page],
) -> tuple[float, dict[_Style, int], set[_Style], frozenset[_Style]]:
    """The body font size, each heading style's level (1 = top), the cover's
    styles, and the small bold styles the document sets its headings in
    (``_own_styles``), which ``_is_heading`` needs to be told.

    A style used on the first page and nowhere else but the last page of a
    longer document is the covers' (title, publisher), not a heading level,
    unless it numbers a heading ("1.1 Deployment"): a cover numbers nothing,
    and a short book may use a level only on those pages. (A short book's
    title line is read as a heading over the rest, as a web page's h1 is: a
    PDF does not say which it was.)
    """
    body = _body_size(pages)
    covers = {1, len(pages)}
    for repeats, marked in ((SMALL_BOLD_REPEATS, False), (2, False), (SMALL_BOLD_REPEATS, True)):
        # Again only when the last try finds at most one heading line (none,
        # or a page's title over all of it): the text would be one unit or
        # plain sections, so a small bold style used just twice, each time as
        # a heading is (a printed web page with two h5 sections), is better
        # evidence than none; and so, last, is the text's own face marked by
        # capitals or colour alone. Not before: in a book with headings of
        # its own, a coloured or capitals style used for short lines alone is
        # its labels ("Example", "Designer's Note") or its figures' captions.
        small_bold = _own_styles(pages, body, repeats, marked=marked)
        used_on: dict[_Style, set[int]] = {}
        lines_in: Counter[_Style] = Counter()
        numbered: set[_Style] = set()  # styles of headings with a dotted number: no cover's
        title_lines: list[_Style] = []  # the heading lines the book opens with: its title
        opening = True
        for page in pages:
            margins = _margins(page)
            for ln in page.lines:
                if _is_heading(ln, body, margins, small_bold):
                    used_on.setdefault(_style(ln), set()).add(page.number)
                    lines_in[_style(ln)] += 1
                    if opening:
                        title_lines.append(_style(ln))
                    if _DOTTED_HEADING.match(ln.text) and not ln.linked:  # (a contents entry)
                        numbered.add(_style(ln))
                else:
                    opening = False
        cover = {
            s
            for s, on in used_on.items()
            if 1 in on and on <= covers and len(pages) > 3 and s not in numbered
        }
        # (in another colour below the same in the text's: a box's title on a
        # dark bar is no chapter over the book's own headings)
        ranked = sorted(set(used_on) - cover, key=lambda s: (-s[0], not s[1], not s[2], s[3]))
        # (a title wrapped over two lines or more counts once)
        opened = sum(1 for s in title_lines if s in ranked)
        if sum(lines_in[s] for s in ranked) - max(0, opened - 1) > 1:
            break
    return body, {s: i + 1 for i, s in enumerate(ranked)}, cover, small_bold


def _own_styles(
    pages: list[_Page], body: float, repeats: int = SMALL_BOLD_REPEATS, *, marked: bool = False
) -> frozenset[_Style]:
    """The styles this document sets headings in that are not headings by
    size or weight: bold set smaller than ``BOLD_HEADING_SIZE`` (a browser
    prints an h5 at 0.83 of the body), and the text's own size and weight
    marked only by capitals (small caps, letter-spaced capitals) or by
    another colour (a designer's dark red "Setup" in the body font).

    Learned from the document, not from looks alone: a style qualifies only if
    it recurs (``repeats`` lines, each saying something else: headings name
    different sections, a label says the same again) and every line in it is
    a short line alone at the margin, with a line of regular body text after
    it. A caption or label used once, a label used again and again
    ("Example", "Designer's Note"), or a style that also sets table cells,
    run-in labels, links inside the text or whole paragraphs, stays text.
    """
    uses: dict[_Style, set[str]] = {}
    spoilt: set[_Style] = set()
    for page in pages:
        margins = _margins(page)
        right = _right_edges(page)
        for i, ln in enumerate(page.lines):
            if ln.bold:
                if not body * SMALL_BOLD_SIZE <= ln.size < body * BOLD_HEADING_SIZE:
                    continue
            elif not (
                marked
                and (ln.caps or ln.accent)
                and body * SMALL_BOLD_SIZE <= ln.size < body * HEADING_SIZE_RATIO
            ):
                continue
            after = page.lines[i + 1] if i + 1 < len(page.lines) else None
            alone = (
                not ln.row
                and ln.wide_gaps == 0
                and _at_margin(ln, margins)
                # (capitals tracked wide may fill a narrow column)
                and (_short(ln, margins, right) or (not ln.bold and len(ln.words) <= 6))
                and 1 <= len(ln.words) <= 8
                and not ln.text.endswith((".", ",", ";", ":"))
            )
            followed = after is None or (
                abs(after.size - body) <= 0.5
                and not after.bold
                and not after.accent
                and _style(after) != _style(ln)
            )
            if alone and followed:
                uses.setdefault(_style(ln), set()).add(ln.text.casefold())
            else:
                spoilt.add(_style(ln))
    return frozenset(s for s, texts in uses.items() if len(texts) >= repeats and s not in spoilt)


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
    if at_margin and (
        (ln.bold and ln.size >= body * BOLD_HEADING_SIZE) or _style(ln) in small_bold
    ):
        return True
    # set as the text is, only its number makes it a heading; one ending in a
    # colon opens a list ("702.3. The state checks are:"), as a rule does, and
    # one ending in a stop after words in lower case is a sentence, a wargame's
    # one-line case ("8.32 Artillery units may never advance after combat.",
    # three words or more in lower case after the first), where a title's words
    # are capitalised ("3.2 Charging.", "6.2 Terrain Effects on Movement.") or
    # few ("2.3 Draw a card.")
    sentence = text.endswith(".") and sum(1 for w in words[2:] if w[:1].islower()) >= 3
    return (
        at_margin
        and bool(_DOTTED_HEADING.match(text))
        and len(words) <= 8
        and text[-1] != ":"
        and not sentence
    )


def _opens_paragraph(
    ln: _Line, body: float, margins: dict[int, float], right: dict[int, float]
) -> bool:
    """Is a line that is a heading only by its dotted number (set as the text
    is) a paragraph's first line: one that runs to the column's margin, as
    a heading does not ("6.11 Each unit has a Movement Allowance (MA)" over
    "printed on its counter.", a wargame's case)?"""
    by_number_only = (
        ln.size < body * HEADING_SIZE_RATIO
        and not ln.bold
        and bool(_DOTTED_HEADING.match(ln.text))  # (not one in the book's own style)
    )
    return by_number_only and not _short(ln, margins, right)


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


# A box's title is a line of this many words at most
BOX_TITLE_WORDS = 10


def _box_title(box: list[_Line]) -> bool:
    """Does a box's first line title it ("Designer's Note", "Optional Rule:
    Forced March")? Set apart from the box's text by the box's own
    typography (bold over text that is not, larger, or in another colour),
    short, ending no sentence, with text under it."""
    first, rest = box[0], box[1:]
    if not rest or len(first.text.split()) > BOX_TITLE_WORDS:
        return False
    if first.text.rstrip(":").endswith((".", "!", "?", ",", ";")):
        return False
    size = sorted(ln.size for ln in rest)[len(rest) // 2]
    return (
        (first.bold and sum(ln.bold for ln in rest) * 2 < len(rest))
        or first.size >= HEADING_SIZE_RATIO * size
        or (first.accent and not any(ln.accent for ln in rest))
    )
