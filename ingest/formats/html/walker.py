"""The page walked in reading order into an outline of headings and blocks (``_Walker``).

h1-h6, run-in headings and glossary terms open sections; paragraphs, list
items (numbered as the page numbers them), table rows (cells joined by
" | "), definition lists and block quotes become body blocks. A
definition list is read by what its entries hold: a glossary's terms open
sections, a stat block's entries are "Move: 6" lines, and so are a data
card's label-value rows (``_is_data_card``).

Trade-off: text after a glossary in the same section reads as part of its
last term, as after any run-in heading.
"""

from __future__ import annotations

import re
from typing import Any

from ruleslawyer.ingest.formats.html.chrome import _link_dense
from ruleslawyer.ingest.formats.html.elements import (
    _HEADING_TAGS,
    _HEADINGS,
    _LINE,
    _SENTENCE_END,
    DEFINITION_WORDS,
    _lines,
    _text,
)
from ruleslawyer.ingest.formats.html.headings import (
    _bold_line,
    _is_layout,
    _number_depth,
    _run_in_heading,
)
from ruleslawyer.ingest.formats.html.lists import ListStyle, _html_int, _list_style, list_number
from ruleslawyer.ingest.formats.html.tables import _table_rows
from ruleslawyer.ingest.outline import Block, Outline

RUN_IN_LEVEL = 7

_EMPTY_BRACKETS = re.compile(r"\s*\[\s*\]\s*$")

_CLOSE_PUNCT = re.compile(r"\s+([.,;:!?)\]](?:\s|$))")  # a space before closing punctuation

_BLOCKS = ("p", "pre", "figcaption", "caption", "dt", "dd", "address", "summary", "li")
_CONTAINERS = (
    "div", "section", "article", "main", "body", "blockquote", "figure", "details",
    "center", "html", "fieldset", "header", "footer", "aside", "form",
)  # fmt: skip

# What an inline element may hold that is more than a run of words
_STRUCTURE = ("br", "hr", "table", "ul", "ol", "dl", "pre", *_BLOCKS, *_CONTAINERS, *_HEADINGS)

CARD_VALUE_CHARS = 60  # the longest value a data card's label may have

# Most words a term with no description may have to be a ;Term pseudo-heading;
# a longer one, or one ending as a sentence does, is a bold line of text.
PSEUDO_HEADING_WORDS = 12


class _Walker:
    def __init__(
        self,
        outline: Outline,
        list_styles: dict[str, ListStyle] | None = None,
        number_offset: int = 0,
        *,
        fragment: bool = False,
    ) -> None:
        self.outline = outline
        # a word processor's table (a Word or OpenDocument file, raw HTML in
        # Markdown) is a table, a heading in it text: no page is laid out by one
        self.fragment = fragment
        self.pending: list[str] = []  # loose inline text inside a container
        self.in_definition = 0  # depth of <dl>s being read
        self.in_card = 0  # depth of data cards (see ``_is_data_card``) being read
        self.label = ""  # a data card's label, waiting for its value
        self.list_styles = list_styles or {}  # class -> numbering, from the page's <style>
        # a numbered heading's h-level less its numbering depth, as the page sets
        # its h-tags ("3 Movement" an <h2>: 1), for a heading known by its number
        self.number_offset = number_offset

    def flush(self) -> None:
        # Pieces are set apart (a site's styled spans often have no space
        # between them), but not from the punctuation after them: "see
        # <a>Cover</a>." is "see Cover.", not "see Cover .". A loose <br>
        # breaks the line.
        text = _CLOSE_PUNCT.sub(r"\1", _lines(" ".join(self.pending)))
        self.pending = []
        if text:
            self.add(text)

    def add(self, text: str, level: int = 0) -> None:
        self.flush()
        if level:
            # the brackets an edit link left behind: "Altitude [edit]" -> "Altitude []"
            text = _EMPTY_BRACKETS.sub("", text)
        if text:
            self.outline.blocks.append(Block(self._labelled(text) if not level else text, level))

    def _layout(self, table: Any) -> None:
        """A table laid out as the page (see ``_is_layout``): each cell a block of
        the page, in order, but a cell of links and no heading (the site's
        menu beside the rules), which is left out."""
        self.flush()
        caption = table.find("caption")
        if caption is not None and caption.find_parent("table") is table:
            self.walk(caption)  # the table's name, or a heading in it
            self.flush()
        for tr in table.find_all("tr"):
            if tr.find_parent("table") is not table:
                continue
            for cell in tr.find_all(["td", "th"], recursive=False):
                if cell.find(_HEADING_TAGS) is None and _link_dense(cell):
                    self.outline.dropped["navigation, headers and footers"] += 1
                    continue
                self.walk(cell)
                self.flush()

    def _summary_level(self, summary: Any) -> int:
        """The level of the heading a ``<summary>`` is: one inside it (read as
        itself, so any level), or a bold line's (see ``_bold_line``) by its
        number's depth, the page's h-tags' offset added, else a run-in
        heading's; 0 when it is text (an FAQ's question)."""
        if summary.find(_HEADING_TAGS) is not None:
            return 1
        text = _text(summary)
        if not _bold_line(summary, text):
            return 0
        depth = _number_depth(text)
        return min(depth + self.number_offset, 6) if depth else RUN_IN_LEVEL

    def _opens_section(self, li: Any) -> bool:
        """Does the list item open with a heading, no text before it (a heading,
        or a toggle's ``<summary>`` that is one: Notion's toggle lists)? One
        with text first ("Shoot with your models." and a note box with its
        "Note" heading) is an item: read as blocks of the page, its number
        was lost and the rest of the list went under a rule named "Note"."""
        from bs4 import NavigableString

        if li.find(_HEADING_TAGS) is None and li.find("summary") is None:
            return False
        first = next((s for s in li.descendants if type(s) is NavigableString and s.strip()), None)
        if first is None:
            return False
        if first.find_parent(_HEADING_TAGS) is not None:
            return first.find_parent("li") is li
        summary = first.find_parent("summary")
        return (
            summary is not None
            and summary.find_parent("li") is li
            and bool(self._summary_level(summary))
        )

    def _level(self) -> int:
        """The level of the section being read (0 before any heading)."""
        return next((b.level for b in reversed(self.outline.blocks) if b.level), 0)

    def _lone_label(self) -> None:
        """A data-card label no value followed (the card's title): a line of its own."""
        label, self.label = self.label, ""
        self.add(label)

    def _labelled(self, text: str) -> str:
        """``text`` as the value of the data-card label waiting for one, if any."""
        label, self.label = self.label, ""
        return f"{label}: {text}" if label else text

    def walk(self, el: Any) -> None:
        for child in el.children:
            self._read(child)

    def _read(self, child: Any) -> None:
        """One node of a container: text, a heading, a block, a list, a table."""
        if isinstance(child, str):
            if child.strip() and child.__class__.__name__ == "NavigableString":
                self.pending.append(str(child))
            return
        name = child.name
        if name in _HEADINGS and self.in_card:
            # a data card's label: the line its value goes on ("Cost: 45 points")
            self.flush()
            self._lone_label()
            self.label = _text(child)
        elif name in _HEADINGS and _titles_a_box(child, self._level()):
            self.add(_text(child))  # a line of the rule the box stands in
        elif name in _HEADINGS:
            self.add(_text(child), _HEADINGS[name])
        elif name == "aside" and _is_data_card(child):
            self.flush()
            self.in_card += 1
            self.walk(child)
            self.flush()
            self._lone_label()
            self.in_card -= 1
        elif name == "table" and not self.fragment and _is_layout(child):
            self._layout(child)
        elif name == "table":
            self.flush()
            caption = child.find("caption")
            if caption is not None:  # the table's name ("Weapon Table"), said first
                self.add(_text(caption))
            for cells in _table_rows(child):
                if any(cells):
                    self.add(" | ".join(cells))
        elif name in ("ul", "ol"):
            self._list(child, 0)
        elif name == "dl":
            self._definitions(child)
        elif name == "pre":
            # Preformatted text keeps its lines: an ASCII table's rows, a
            # list typed with line breaks.
            self.flush()
            for line in child.get_text().replace("\u200b", "").splitlines():
                self.add(" ".join(line.split()))
        elif name == "summary" and self._summary_level(child):
            # a toggle's title (Notion, GitBook, an FAQ): a heading when it holds
            # one, or is a bold line; the <details>' body is its rule
            if child.find(_HEADING_TAGS) is not None:
                self.flush()
                self.walk(child)
                self.flush()
            else:
                self.add(_text(child), self._summary_level(child))
        elif name in _BLOCKS:
            self.flush()
            head = _run_in_heading(child) if name == "p" else None
            if head is not None:
                self.add(_text(head), RUN_IN_LEVEL)
                head.extract()
            self.add(_text(child, lines=True))
        elif name in _CONTAINERS:
            self.flush()
            self.walk(child)
            self.flush()
        elif name == "br":
            self.pending.append(_LINE)
        elif name == "hr":
            self.flush()
        elif child.find(_STRUCTURE) is not None:
            # an inline element holding a page's structure (a rules site's whole
            # text in one <span>: line breaks, rules, a table) is read as a
            # container is, in its place: flattened, its lines ran together
            # and its table was read twice
            self.walk(child)
        else:  # inline element loose in a container (span, a, strong, ...)
            self.pending.append(_text(child))

    def _definitions(self, el: Any, *, lines: bool = False) -> None:
        """A ``<dl>``: its terms as sections, or its entries as "term: value" lines.

        Everything in the list is kept: a ``<div>`` grouping an entry is read
        through, any other element or text (a note between entries) goes with
        the entry before it, and a term with no description is body text. A
        list inside a description is read as lines, never as sections: its
        terms are not siblings of the outer list's.
        """
        from bs4 import NavigableString, Tag

        self.flush()
        entries: list[tuple[list[str], list[Any]]] = []  # (terms, descriptions)

        def take(container: Any) -> None:
            for child in container.children:
                if isinstance(child, Tag) and child.name == "div" and child.find(["dt", "dd"]):
                    take(child)  # <div><dt>..</dt><dd>..</dd></div>, as HTML allows
                elif isinstance(child, Tag) and child.name == "dt":
                    if not entries or entries[-1][1]:
                        entries.append(([], []))
                    entries[-1][0].append(_text(child))
                elif isinstance(child, Tag) or (type(child) is NavigableString and child.strip()):
                    if not entries:
                        entries.append(([], []))
                    entries[-1][1].append(child)

        take(el)
        described = [
            _text(d) for _, dds in entries for d in dds if isinstance(d, Tag) and d.name == "dd"
        ]
        # Prose when more than half the descriptions are sentences (a few
        # words or more, or ending as a sentence does: "See Darkness."), so a
        # stat block with a long "Special" entry or two stays a stat block.
        sentences = sum(
            1 for t in described if len(t.split()) >= DEFINITION_WORDS or t.endswith(_SENTENCE_END)
        )
        # Inside another list (``lines``: a list item's), terms are not sections.
        lines = lines or bool(self.in_definition)
        prose = not lines and sentences * 2 > len(described)
        # Terms alone (MediaWiki's ";Term" lines): section openers, as bold
        # terms at a PDF's margin are, when each is short and not a sentence.
        headings = (
            not lines
            and bool(entries)
            and all(
                terms and not dds and all(map(_pseudo_heading, terms)) for terms, dds in entries
            )
        )
        self.in_definition += 1
        try:
            for terms, dds in entries:
                term = " / ".join(t for t in terms if t)
                if headings:
                    for t in terms:
                        self.add(t, RUN_IN_LEVEL)
                    continue
                if term and dds and not prose:
                    values = (_text(d) if isinstance(d, Tag) else str(d).strip() for d in dds)
                    # a term with its own colon (docutils' field list: "Range:")
                    # takes no second one ("Range:: 12 inches")
                    self.add(f"{term.rstrip(': ')}: {' '.join(values)}")
                    continue
                # a term as a section, or one with no description as a line
                self.add(term, RUN_IN_LEVEL if prose and dds else 0)
                for d in dds:
                    if isinstance(d, Tag) and d.name == "dd":
                        self.walk(d)
                    else:
                        self._read(d)
                    self.flush()
        finally:
            self.in_definition -= 1

    def _list(self, el: Any, depth: int) -> None:
        """One block per item ("- ", "1. ", "b. "), nested lists indented after
        their item; an ordered list numbered as a browser numbers it (its
        ``start``, ``type`` and each item's ``value``)."""
        self.flush()
        ordered = el.name == "ol"
        number = _html_int(el.get("start"), 1)
        kind, prefix, suffix = _list_style(el, self.list_styles)
        for li in el.find_all("li", recursive=False):
            number = _html_int(li.get("value"), number) if ordered else number
            if kind == "none":
                # "list-style: none": no marker shows (a rules page numbering its
                # items itself, "101.1. The active player...", sets it)
                marker = "  " * depth
            else:
                label = f"{prefix}{list_number(number, kind)}{suffix}"
                marker = "  " * depth + (f"{label} " if ordered else "- ")
            number += 1
            if self._opens_section(li):
                # an item opening with a heading (a Notion toggle list's
                # heading toggle) is a block of the page, not an item of a list
                self.flush()
                self.walk(li)
                self.flush()
                continue
            nested = [n.extract() for n in li.find_all(["ul", "ol", "dl"], recursive=False)]
            text = _text(li, lines=True)
            if text:
                # a line broken in the item goes under its text, not its marker
                self.add(marker + text.replace("\n", "\n" + " " * len(marker)))
            for n in nested:
                if n.name == "dl":
                    self._definitions(n, lines=True)  # "term: value" lines
                else:
                    self._list(n, depth + 1)


def _is_data_card(el: Any) -> bool:
    """An aside that is a data card (a wiki's infobox: "Type Cavalry", "Move
    10\"", "Cost 45 points"), its headings labels and not sections.

    Read as sections, each label became a rule of a few characters, and the
    article's first paragraph, which follows the card, went into the last
    label's rule ("Cost"). A label is a heading that opens its own box and is
    followed there by a short value; two of them make a card. A designer's
    note or an example box in an aside (a heading, then prose) is no card.
    """
    labels = 0
    for heading in el.find_all(_HEADING_TAGS):
        value = heading.find_next_sibling()
        if (
            heading.find_previous_sibling() is None
            and value is not None
            and value.name not in _HEADINGS
            and 0 < len(_text(value)) <= CARD_VALUE_CHARS
            and value.find_next_sibling() is None
        ):
            labels += 1
    return labels >= 2


# The boxes that set a note apart from the text it stands in, by their
# element or their ARIA role, not by their class: an aside, a quotation, an
# alert (Bootstrap's and Docsy's), a note
_NOTE_ROLES = frozenset({"note", "alert", "complementary", "status"})
# ... and the blocks of running text it stands among
_RUNNING_TEXT = ("p", "ul", "ol", "table", "dl", "pre", "blockquote")


def _titles_a_box(heading: Any, level: int) -> bool:
    """Does ``heading`` title a note standing among a section's paragraphs (an
    alert's ``alert-heading``, an aside's title), not open a section? It opens
    a box that is a note by its element or role (``_NOTE_ROLES``), holding
    more after it and no other heading; it is deeper than the section being
    read (``level``) and carries no rule number; and the box has running
    text on both sides (a paragraph, a list, a table), no heading. Read as a
    section, it took the paragraph after the box, back in the rule's own
    text, as the note's. A box of any other kind (a stat block, an FAQ
    entry, a card, a page's sections each in a box) still opens a section."""
    box = heading.parent
    role = str(box.get("role") or "").lower() if box is not None else ""
    if box is None or not (box.name in ("aside", "blockquote") or role in _NOTE_ROLES):
        return False
    if _HEADINGS[heading.name] <= level or _number_depth(_text(heading)):
        return False
    own = [c for c in box.find_all(True, recursive=False) if _text(c)]
    if not own or own[0] is not heading or len(own) < 2:
        return False
    if len(box.find_all(_HEADING_TAGS)) > 1:
        return False

    def beside(step: str) -> Any:
        for sibling in getattr(box, step):
            if getattr(sibling, "name", None) is None:
                if str(sibling).strip():
                    return None  # loose text: read as it comes
                continue
            if _text(sibling):
                return sibling
        return None

    return all(
        near is not None and near.name in _RUNNING_TEXT and near.find(_HEADING_TAGS) is None
        for near in (beside("previous_siblings"), beside("next_siblings"))
    )


def _pseudo_heading(term: str) -> bool:
    """A ``;Term`` line: short, and not a sentence."""
    return 0 < len(term.split()) <= PSEUDO_HEADING_WORDS and not term.endswith(_SENTENCE_END)
