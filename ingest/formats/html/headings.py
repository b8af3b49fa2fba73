"""Headings a page marks without h-tags, and the levels of numbered ones.

A run-in heading (a leading element classed as one, as LaTeX converters
write ``\\paragraph``: ``_run_in_heading``), a layout table's cells that
hold a heading and its section (``_is_layout``), bold lines on a page with
no heading element at all, decided as a hand-made Word file's are
(``_bold_headings``), and the depth of a heading's printed number
(``_number_depth``, ``_number_offset``), so "2.1" sits under "2".

Bold is read from the markup, inline styles, and the page's own style
sheet where a rule makes one class bold (``_bold_classes``: Google Docs'
"Download as HTML" sets every run's weight that way, ``.c3{font-weight:
700}``). Trade-off: a small reading of CSS, not a style engine: a class
made bold by a compound selector, or a line made a heading only by its
size, stays text.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ruleslawyer.ingest.formats.html.elements import (
    _HEADING_TAGS,
    _HEADINGS,
    _SENTENCE_END,
    _WORD,
    DEFINITION_WORDS,
    _css_rules,
    _text,
)
from ruleslawyer.ingest.outline import Outline
from ruleslawyer.ingest.typeset import HEADING_WORDS, Line, typeset_headings

_RUN_IN_CLASS = re.compile(r"(?:paragraph|runin|run-in|inline)[-_]?head", re.I)


def _run_in_heading(el: Any) -> Any | None:
    """The leading heading-classed child of a paragraph, if it opens one."""
    for child in el.children:
        if isinstance(child, str):
            if child.strip():
                return None
            continue
        classes = " ".join(child.get("class") or [])
        if _RUN_IN_CLASS.search(classes):
            return child
        return None
    return None


# What in a cell after its heading makes the cell a part of the page: the
# heading's section (its paragraphs, lists, tables, boxes).
_SECTION_BLOCKS = (
    "p", "ul", "ol", "dl", "table", "div", "blockquote", "pre", "section", "article", "center",
    "figure", "details", "address",
)  # fmt: skip
_PRESENTATION_ROLE = re.compile(r"^(?:presentation|none)$", re.I)


def _row_of_one(cell: Any, table: Any) -> bool:
    """Is ``cell`` the only cell of its row of ``table``?"""
    row = cell.find_parent("tr")
    return (
        row is not None
        and len([c for c in row.find_all(["td", "th"]) if c.find_parent("table") is table]) == 1
    )


def _is_layout(table: Any) -> bool:
    """Does the table lay the page out (an old site's menu cell beside its rules
    cell) rather than hold a rules table? Its role says so
    (``role="presentation"``), or a cell of its own holds a section: a heading
    with a paragraph, a list, a table or a box of text after it, or a
    sentence's worth of words (``DEFINITION_WORDS``). Read as rows, such a
    page was one row of one cell, no heading found, the menu in the rule and
    a table inside the cell read twice. A cell that is only a heading
    ("<td><h3>Rifles</h3></td>", a stat card's name across its columns) is a
    data table's header cell: taking that for layout put each value of the
    table on a line of its own, no longer under its header. A table of one
    cell, or whose cell holds a table, lays out a page too."""
    if _PRESENTATION_ROLE.match(str(table.get("role") or "").strip()):
        return True
    from bs4 import NavigableString, Tag

    # One cell alone, or a cell holding a table of its own (alone in its row,
    # or in a table with no header cells), is a box around a page's text
    # (ASP.NET's DataList, an old site's menu beside its text), not a table's
    # data: read as a row, its lines ran together and the table inside was
    # read twice. (A data table under its headers may hold small tables.)
    own_cells = [c for c in table.find_all(["td", "th"]) if c.find_parent("table") is table]
    headed = any(c.name == "th" for c in own_cells)
    if len(own_cells) == 1 or any(
        c.find("table") is not None and (_row_of_one(c, table) or not headed) for c in own_cells
    ):
        return True

    for cell in table.find_all(["td", "th"]):
        if cell.find(_HEADING_TAGS) is None or cell.find_parent("table") is not table:
            continue
        heading = False  # a heading of this table's seen in the cell
        words = 0  # loose words after it
        for node in cell.descendants:
            if isinstance(node, Tag) and node.name in _HEADINGS:
                heading = heading or node.find_parent("table") is table
            elif not heading or node.find_parent(_HEADING_TAGS) is not None:
                continue
            elif isinstance(node, Tag):
                if node.name in _SECTION_BLOCKS and _WORD.search(node.get_text()):
                    return True
            elif type(node) is NavigableString:
                words += len(_WORD.findall(node))
                if words >= DEFINITION_WORDS:
                    return True
    return False


# A heading's printed number ("3", "3.2", "3.2.1."), a word after it ("2D6 ..." is none)
_NUMBERED = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+(?=[^\W\d])")
_BOLD_STYLE = re.compile(r"font-weight\s*:\s*(?:bold|bolder|[6-9]00)\b", re.I)

# What a line of the page is set in, for bold lines as headings
_LINE_BLOCKS = (
    "p", "div", "li", "dt", "dd", "td", "th", "blockquote", "center", "summary", "address",
    "figcaption", "caption", "pre",
)  # fmt: skip

# Lines that are never headings, as a list item is none in a Word file
_LISTED = ("li", "dt", "dd", "td", "th", "caption", "pre")


def _number_depth(text: str) -> int:
    """How deep a heading's printed number is: "2 The Turn" 1, "2.1 Initiative" 2,
    no number 0."""
    m = _NUMBERED.match(text)
    return m.group(1).count(".") + 1 if m else 0


def _number_offset(root: Any) -> int:
    """How the page's numbered h-tags stand to their numbers' depth: "3 Movement"
    an <h2> and "3.2 Charging" an <h3> is 1; 0 when none is numbered."""
    offsets: Counter[int] = Counter()
    for h in root.find_all(_HEADING_TAGS):
        depth = _number_depth(_text(h))
        if depth:
            offsets[_HEADINGS[h.name] - depth] += 1
    return offsets.most_common(1)[0][0] if offsets else 0


# a selector naming one class, on any element or one kind: ".c3", "span.c3"
_ONE_CLASS = re.compile(r"^[a-zA-Z0-9]*\.(-?[_a-zA-Z][\w-]*)$")
_WEIGHT = re.compile(r"font-weight\s*:", re.I)


def _bold_classes(soup: Any) -> frozenset[str]:
    """The classes the page's style sheets make bold, each by a rule for that
    class alone (a later rule for the class wins, as in CSS)."""
    weights: dict[str, bool] = {}
    for selectors, declarations in _css_rules(soup):
        if not _WEIGHT.search(declarations):
            continue
        bold = bool(_BOLD_STYLE.search(declarations))
        for selector in selectors.split(","):
            m = _ONE_CLASS.match(selector.strip())
            if m:
                weights[m.group(1)] = bold
    return frozenset(name for name, bold in weights.items() if bold)


def _bolds(el: Any, classes: frozenset[str] = frozenset()) -> bool:
    return (
        el.name in ("b", "strong")
        or bool(_BOLD_STYLE.search(str(el.get("style") or "")))
        or (bool(classes) and not classes.isdisjoint(el.get("class") or ()))
    )


def _all_bold(el: Any, classes: frozenset[str] = frozenset()) -> bool:
    """Are all of ``el``'s words inside bold markup (``<b>``, ``<strong>``, a
    ``font-weight`` of bold or 600 and more, a class the page makes bold),
    ``el``'s own included?"""
    from bs4 import NavigableString

    words = False
    for node in el.find_all(string=True):
        if type(node) is not NavigableString or not node.strip():
            continue
        words = True
        up: Any = node.parent
        while not _bolds(up, classes):
            if up is el or up.parent is None:
                return False
            up = up.parent
    return words


def _bold_line(el: Any, text: str, classes: frozenset[str] = frozenset()) -> bool:
    """A line set all in bold that could be a heading: short (``HEADING_WORDS``,
    as in a Word file), a letter in it, not ending as a sentence or a
    lead-in does ("Important!", "Range:" are text)."""
    return (
        1 <= len(text.split()) <= HEADING_WORDS
        and any(c.isalpha() for c in text)
        and not text.endswith((*_SENTENCE_END, ",", ";", ":"))
        and _all_bold(el, classes)
    )


def _bold_headings(root: Any, outline: Outline, classes: frozenset[str] = frozenset()) -> None:
    """Make a page's bold lines its headings, when it has no heading element at
    all (a page typed in a plain editor, a forum post: "<p><b>2.1
    Initiative</b></p>"); read as text, the page was one plain section.

    Which lines are headings is decided as for a Word file whose headings are
    made by hand (``ingest.typeset``): a short line all in bold, not a list
    item or a table cell, with text after it, where bold is not most of the
    page. Their levels: where most of them are numbered, each numbered one
    by its number's depth ("2.1" under "2"), an unnumbered bold line is a
    label in its rule's text (a "Designer's Note", an "Example"), and the
    page's first line, above them all, its title (as a Word file's title
    line is no rule of its own); else by their looks, as in a Word file.
    Trade-off: a book numbering its rules but not its chapters reads the
    chapters as text.
    """
    from bs4 import NavigableString

    total = bold = 0
    for node in root.find_all(string=True):
        if type(node) is NavigableString and node.strip():
            total += len(node.strip())
            bold += len(node.strip()) if any(_bolds(p, classes) for p in node.parents) else 0
    blocks = root.find_all(_LINE_BLOCKS)
    # the innermost blocks are the lines (found upward: each stops at its
    # nearest block, so a page nested thousands deep is read once)
    holders = {id(el.find_parent(_LINE_BLOCKS)) for el in blocks}
    lines = []
    for el in blocks:
        text = "" if id(el) in holders else _text(el)
        if not text:
            continue
        listed = el.name in _LISTED or el.find_parent(["li", "table", "dl", "pre"]) is not None
        lines.append(Line(el, text, 1.0, _bold_line(el, text, classes), listed=listed))
    found = typeset_headings(lines, Counter({1.0: total}), bold)
    heads = [(el, level, _text(el)) for el, level in found.headings]
    numbered = sum(1 for _, _, text in heads if _number_depth(text))
    if numbered >= 2 and 2 * numbered >= len(heads):
        for el, _, text in heads:
            if _number_depth(text):
                el.name = f"h{min(_number_depth(text), 6)}"
            elif el is lines[0].element and el is heads[0][0]:
                outline.title = text
                el.decompose()
    else:
        for el, level, _ in heads:
            el.name = f"h{level}"
