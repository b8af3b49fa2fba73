"""Rules web pages and wiki pages, parsed with BeautifulSoup over lxml.

What is not the rules goes first: scripts, styles, forms, and the page's
chrome by its own markup (``<nav>``; ``<header>``, ``<footer>`` and ``<aside>``
outside ``<main>``, ``role="main"``, ``<article>`` or ``<section>``, since
inside them they are a section's heading, notes or sidebar box; ARIA
navigation and dialog roles; and the class names sites and wikis give menus,
breadcrumbs, tables of contents, share boxes, cookie banners, comments and
"[edit]" links). Never by name a heading, a section or a table's parts, nor
by its id anything inside a heading: documentation generators and wikis
name a section after its heading, and a rule on "Navigation" is a rule. A
heading's permalink mark ("¶", "#", a zero-width space) is dropped; a
button inside a heading (an FAQ accordion's question) is its text. The rules are then read
from ``<main>`` when the page has one, else from ``<body>``; and from its one
``<article>`` instead, when that holds nearly all of the text.

h1-h6 open sections exactly as Markdown headings do (``ingest.outline``). A
run-in heading, the way LaTeX converters and some wikis mark
``\\paragraph{...}`` (a leading element whose class says it is a heading:
``paragraphHead``, ``runinhead``), opens a section one level below the
deepest h-tag. Paragraphs, list items, table rows (cells joined by " | ")
and block quotes become body text.

A definition list (``<dl>``) is read by what its entries hold. Where most
descriptions are sentences, a glossary or a list of questions and answers,
each term opens a section of its own one level below the
deepest h-tag, as a PDF's bold terms at the margin do, so "Doused" is a
rule that can be looked up and cited whichever format the book came in.
Where they are short values (a stat block: "Move" / "6", even with a long
"Special" entry or two), each entry is one line, "Move: 6", so the value
never stands in a quote without its name. Nothing in the list is dropped: a
note between entries goes with the entry before it, a term with no
description is a line of text, and a list inside a description gives lines.
Trade-off: text after a glossary in the same section reads as part of its
last term, as after any run-in heading. A list of terms alone, with no
descriptions, is how MediaWiki renders its ``;Term`` pseudo-heading, and each
short term opens a section as a run-in heading does. A ``<dl>`` inside a list
item gives "term: value" lines after the item.

Inside the rules, an ``<aside>`` or ``<footer>`` whose words are mostly link
text (a share bar, a "see also" box of links) is the page's, not the rule's:
a designer's note is prose, and keeps the odd link it has. On a page that
marks no rules at all (no ``<main>``, ``<article>`` or ``<section>``), an
``<aside>`` is judged the same way: its prose is an example box or an
optional rule, which losing would cost more than a sidebar's text leaking.

What a page's markup says, read as a browser shows it. Its bytes are decoded
by its byte order mark, else by the charset it declares anywhere in its head
(under the name a browser reads it by: "shift_jis" as cp932), bytes that do
not fit it replaced and counted in a warning; else as UTF-8, else by
``--encoding``; else, undeclared, by bs4's detector when what it reads is
mostly a script other than Latin (Russian, Japanese), or as windows-1252
(the HTML standard's default) with a warning (see ``decode_page``).
``role="heading"`` with its ``aria-level`` is a heading; so is a heading
inside a toggle's ``<summary>``, or a summary that is a bold line (its level
its number's depth, set as the page sets its numbered h-tags). A table whose
cells hold a heading and its section lays the page out (an old site's), as
does one of ``role="presentation"``: its cells are blocks of the page, a cell
of links alone its menu; a cell that is only a heading is a data table's
header cell. A list item opening with a heading (a toggle list's) is blocks
of the page; one with a heading after its text keeps it as text. A page with
no heading element at all has its bold lines as headings, decided as a
hand-made Word file's are (``ingest.typeset``). A ``<br>`` breaks the line
(not in a heading or a table's cell, each one line); a cell spanning columns
leaves empty cells after it, so its row's cells stay under their headers; an
ordered list is numbered by its style, its class's rule in the page's style
sheet, docutils' classes or its ``type``. A permalink ("¶", "#" linking into
its own page or classed as one) is no text, nor the icons a Notion export
marks as its page's and its callouts'; any other line of symbols alone (a
die's face, a legend's icon) is text. Raw HTML in another document
(``fragment``) gets none of the page-only readings: its tables are tables,
its headings the document's.

Each concern is a module of this package, with its own account:
``encoding`` (bytes to text), ``chrome`` (what is not the rules),
``contents`` (the book's own table of contents), ``notes`` (footnotes to
the text citing them), ``headings`` (headings without h-tags, numbered
levels), ``tabs`` (tab panels under their labels), ``lists`` (list
numbering), ``tables`` (rows and spans) and
``walker`` (the page into an outline), over ``elements`` (an element's
text, and the tags most stages test). This module runs the page-wide
passes (``outline_of``: decode, tabs, chrome, footnotes, contents, the
title the page shows, what follows the rules, bold headings), then the
walker, which calls on lists, tables and headings as it meets them; the
Word and OpenDocument readers hand it the page they convert
(``read_document``). The helpers keep a leading underscore: they
are the reader's own, shared between its modules.
"""

from __future__ import annotations

import re
from typing import Any

from ruleslawyer.errors import RulebookError
from ruleslawyer.ingest.formats import Format, ReadRequest
from ruleslawyer.ingest.formats.html.chrome import (
    _after_the_rules,
    _before_the_rules,
    _bylines,
    _is_chrome,
    _is_permalink,
    _notion_icons,
    _script_controls,
    _word_furniture,
)
from ruleslawyer.ingest.formats.html.contents import _drop_contents
from ruleslawyer.ingest.formats.html.elements import (
    _HEADING_TAGS,
    _HEADINGS,
    _MAIN_ROLE,
    _WORD,
    _text,
)
from ruleslawyer.ingest.formats.html.encoding import decode_page
from ruleslawyer.ingest.formats.html.headings import (
    _bold_classes,
    _bold_headings,
    _number_offset,
)
from ruleslawyer.ingest.formats.html.lists import _html_int, _list_styles, list_number
from ruleslawyer.ingest.formats.html.notes import _place_footnotes
from ruleslawyer.ingest.formats.html.tabs import label_tab_panels
from ruleslawyer.ingest.formats.html.walker import _Walker
from ruleslawyer.ingest.outline import Outline
from ruleslawyer.ingest.units import ParseResult

# What the format registry and the Word, OpenDocument, Markdown and PDF
# readers use of this one.
__all__ = ["FORMAT", "list_number", "outline_of", "read", "read_document", "sniff"]

_HTML_START = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)\b", re.I | re.S
)

ARTICLE_SHARE = 0.8  # of the page's words an <article> must hold to stand for the page

_SCRIPTS = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "object")

_HEADING_ROLE = re.compile(r"^heading$", re.I)


_WORD_OUTLINE_LEVEL = re.compile(r"mso-outline-level\s*:\s*([1-9])\b", re.I)
OUTLINE_HEADING_WORDS = 12  # the most words of a paragraph its outline level makes a heading


def sniff(head: bytes) -> bool:
    """A whole HTML document, not a text that merely mentions a tag."""
    return bool(_HTML_START.match(head.lstrip(b"\xef\xbb\xbf")))


def outline_of(data: bytes | str, *, fragment: bool = False) -> Outline:
    """The page's rules as an outline; ``fragment`` for raw HTML inside another
    document, where no element is the page's own banner or sidebar. ``data``
    is the page's text, or its bytes in UTF-8 or the charset it declares."""
    from bs4 import BeautifulSoup, Comment

    if isinstance(data, bytes):
        data = decode_page(data, "page")[0]
    # a soft hyphen shows only where a line breaks: no character of the text
    data = data.replace("\u00ad", "").replace("&shy;", "")
    soup = BeautifulSoup(data, "lxml")
    outline = Outline()
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    list_styles = _list_styles(soup)
    bold_classes = _bold_classes(soup)  # (the style sheets go next)
    for tag in soup.find_all(_SCRIPTS):
        outline.dropped["scripts and styles"] += 1
        tag.decompose()
    # Word's web page marks a paragraph that heads a level of its outline with
    # mso-outline-level (a heading made by hand, or an "Appendix" style):
    # a heading of that level, as its own navigation pane shows it
    for tag in soup.find_all("p", style=_WORD_OUTLINE_LEVEL):
        m = _WORD_OUTLINE_LEVEL.search(str(tag.get("style")))
        text = _text(tag)
        # (a heading's words, not a rule's sentences a style set at a level)
        heading_like = (
            len(text.split()) <= OUTLINE_HEADING_WORDS
            and not re.search(r"[.!?]\s+\S", text)
            and not text.rstrip().endswith(".")
        )
        if m and _WORD.search(text) and heading_like and tag.find_parent(("table", "li")) is None:
            tag.name = f"h{min(int(m.group(1)), 6)}"
    headers, toc = _word_furniture(soup)
    if headers:
        outline.dropped["running headers and footers"] += headers
    if toc:
        outline.dropped["table of contents lines"] += toc
    # before links to places on the page go: a tab may be one
    tab_rows = label_tab_panels(soup)
    if tab_rows:
        outline.dropped["rows of tab labels"] += tab_rows
    icons = _notion_icons(soup)
    if icons:
        outline.dropped["decorations"] += icons
    for heading in soup.find_all(_HEADING_TAGS):
        # A heading's permalink ("¶", "#", a zero-width space): no part of its
        # title. An empty anchor (<a id="x"></a>, Word's bookmark) stays: it
        # is what a contents entry links to, and has no text to lose.
        for a in heading.find_all("a"):
            if not _WORD.search(_text(a)) and (a.get("href") or _text(a)):
                a.decompose()
        _drop_hidden(heading)
    for a in soup.find_all("a", href=True):
        if not a.decomposed and _is_permalink(a):
            a.decompose()  # after a term or a caption too: "Engagement¶"
    tops = _top_links(soup)
    if tops:
        outline.dropped["links back to the top"] += tops
    controls = _script_controls(soup)
    if controls:
        outline.dropped["the page's controls (show / hide)"] += controls
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        if _is_chrome(tag, fragment=fragment):
            outline.dropped["navigation, headers and footers"] += 1
            tag.decompose()
    if not fragment and (bylines := _bylines(soup)):
        outline.dropped["bylines and dates"] += bylines
    # ARIA's heading (GitBook, Notion: <div role="heading" aria-level="3">) is a
    # heading of its level. Only with its level: a role alone marks a box's
    # title (a callout's "Tip"), which as an h2 swallowed the sections after it.
    for tag in soup.find_all(role=_HEADING_ROLE):
        level = _html_int(tag.get("aria-level"), 0)
        if tag.name not in _HEADINGS and level > 0:
            tag.name = f"h{min(level, 6)}"
    _aria_tables(soup)
    _place_footnotes(soup)
    root = soup.find("main") or soup.find(role=_MAIN_ROLE) or soup.body or soup
    # One <article> holding nearly all of the page's text is the rules, and
    # what sits beside it the page's own tools (a wiki's "Article · Talk ·
    # Edit" tabs, a share bar). An article that is a box inside the rules (an
    # example), or one of several, leaves the whole page to be read.
    articles = root.find_all("article")
    if len(articles) == 1 and len(_text(articles[0])) >= ARTICLE_SHARE * len(_text(root)):
        root = articles[0]
    # after the article is chosen: a contents list beside it is part of the page
    # it is measured against
    contents = _drop_contents(root)
    if contents:
        outline.dropped["table of contents lines"] += contents
    if not fragment:
        outline.title = _shown_title(soup, root)
        after = _after_the_rules(root)
        for box in after:
            box.decompose()
        if after:
            outline.dropped["the page's boxes after its rules (tags, feedback, footer)"] += len(
                after
            )
        before = _before_the_rules(root)
        for box in before:
            box.decompose()
        if before:
            outline.dropped["links before the rules' first heading"] += len(before)
    if not fragment and root.find(_HEADING_TAGS) is None:
        # (raw HTML in a Markdown file has its headings in the Markdown; a Word
        # or OpenDocument file's hand-made ones were found by its reader)
        _bold_headings(root, outline, bold_classes)
    walker = _Walker(outline, list_styles, _number_offset(root), fragment=fragment)
    lead = None if fragment or outline.title else _title_before(soup, root)
    if lead is not None:
        walker.add(_text(lead), _HEADINGS[lead.name])
    walker.walk(root)
    walker.flush()
    return outline


def _title_before(soup: Any, root: Any) -> Any | None:
    """The page's title heading when the page sets it just outside the box
    its rules are read from (WordPress's block themes put the post's ``<h1>``
    above ``<main>``): the last heading before that box, when it is the
    ``<title>``'s first part and the box holds no heading as high. Left out,
    the text before the box's first heading was named after the file and
    its sections had no parent."""
    title = (soup.head or soup).find("title")
    if root.name in ("body", "html", "[document]") or title is None:
        return None
    parts = [p for p in _TITLE_PARTS.split(_text(title)) if _WORD.search(p)]
    lead = root.find_previous(_HEADING_TAGS)
    if lead is None or not parts or _text(lead).casefold() != parts[0].casefold():
        return None
    level = _HEADINGS[lead.name]
    if any(_HEADINGS[h.name] <= level for h in root.find_all(_HEADING_TAGS)):
        return None
    return lead


def _top_links(soup: Any) -> int:
    """Take out the links back to the page's top that stand alone in their
    block ("↑ Back to top" after every section of a one-page rulebook, which
    ended each rule): a link to "#", or to the page itself (``<body
    id="top">``) or an anchor before any of its text; how many."""
    body = soup.body or soup
    first_text = next((s for s in body.find_all(string=True) if _WORD.search(s)), None)
    # what stands before the page's first words (near its start: cheap to walk)
    above = {id(t) for t in first_text.find_all_previous(True)} if first_text is not None else set()
    ids = {str(t.get("id")): t for t in soup.find_all(id=True)}
    found = 0
    for a in list(body.find_all("a", href=True)):
        href = str(a.get("href") or "").strip()
        if a.decomposed or not href.startswith("#"):
            continue
        target = ids.get(href[1:]) if len(href) > 1 else body
        at_top = target is not None and (
            target.name in ("html", "body")
            or (id(target) in above and not _WORD.search(target.get_text()))
        )
        box = a.parent
        if at_top and box is not None and _text(box) == _text(a) and _text(a):
            (box if box.name in ("p", "div", "li") else a).decompose()
            found += 1
    return found


# How a page's <title> joins its own name to its site's: "Combat - Skirmish
# SRD", "Combat | Starfall Tactics Rules", "Combat :: Wiki"
_TITLE_PARTS = re.compile(r"\s+[-|\u2013\u2014:\u00b7\u2022]{1,2}\s+")


def _shown_title(soup: Any, root: Any) -> str:
    """The page's title as the page shows it above its text, not as a heading
    (Wikidot's ``#page-title``, a wiki's headline box): its first line, when
    that line is the ``<title>``'s first part ("Combat" of "Combat - Skirmish
    SRD"; the rest is the site's name). The line is taken out, and names the
    text before the first heading, which was named after the file. Nothing
    when the first line is a heading (it titles its own section), is not a
    block of its own (a table's first cell, a list's item, a bold term
    opening its sentence), is all the text before the first heading, or
    matches a later part: that is the site's name over its pages ("Emberfall Wiki"
    of "Combat - Emberfall Wiki"), and the sites that put their name first
    ("Club - House Rules") are left as they were."""
    title = (soup.head or soup).find("title")
    first = next((s for s in root.find_all(string=True) if _WORD.search(s)), None)
    if title is None or first is None or first.find_parent(_HEADING_TAGS) is not None:
        return ""
    shown = first.strip()
    parts = [p for p in _TITLE_PARTS.split(_text(title)) if _WORD.search(p)]
    if not parts or shown.casefold() != parts[0].casefold():
        return ""
    line = first
    while line.parent is not None and line.parent is not root and _text(line.parent) == shown:
        line = line.parent
    # a block of its own, not a table's cell, a list's item or a term in its
    # sentence ("<b>Charge</b>: a move that...")
    if line.name not in ("div", "p", "header") or line.find_parent(_IN_ITEMS) is not None:
        return ""
    # ... with text of its own after it, before any heading: a line that is
    # all the page says there is that text, not its title
    after = next(
        (t for t in line.find_all_next(string=True) if _WORD.search(t) and line not in t.parents),
        None,
    )
    if after is None or after.find_parent(_HEADING_TAGS) is not None:
        return ""
    line.extract()
    return shown


_IN_ITEMS = ("table", "li", "dl", "ul", "ol")


def _drop_hidden(heading: Any) -> None:
    """Take out what a heading hides from readers (``aria-hidden``: Google
    Sites' "Copy heading link" tooltip, an icon), unless that is all it says;
    a hidden part holding a number (a rule number shown to the eye alone,
    "3.1") stays."""
    hidden = [
        tag
        for tag in heading.find_all(True, {"aria-hidden": "true"})
        if not any(c.isdigit() for c in _text(tag))
    ]
    outer = [tag for tag in hidden if not any(p in hidden for p in tag.parents)]
    shown = " ".join(
        str(s) for s in heading.find_all(string=True) if not any(p in outer for p in s.parents)
    )
    if outer and _WORD.search(shown):
        for tag in outer:
            tag.decompose()


def _aria_tables(soup: Any) -> None:
    """ARIA's tables (GitBook draws every table so: ``<div role="table">``,
    rows of role "row", cells of "cell" or "columnheader") made tables, as
    the ARIA headings are made headings above: read as boxes, each cell was
    a line of its own and the rows came apart."""
    for grid in soup.find_all(True, {"role": _TABLE_ROLE}):
        if grid.name != "table" and grid.find(True, {"role": "row"}) is not None:
            for part in [grid, *grid.find_all(True, {"role": True})]:
                part_role = str(part.get("role") or "").strip().lower()
                if part.find_parent(True, {"role": _TABLE_ROLE}) not in (grid, None):
                    continue  # a table inside a cell is its own
                if part_role in _ARIA_TABLE_TAGS:
                    part.name = _ARIA_TABLE_TAGS[part_role]


_TABLE_ROLE = re.compile(r"^\s*(?:table|grid|treegrid)\s*$", re.I)
_ARIA_TABLE_TAGS = {
    "table": "table", "grid": "table", "treegrid": "table", "rowgroup": "tbody", "row": "tr",
    "columnheader": "th", "rowheader": "th", "cell": "td", "gridcell": "td",
}  # fmt: skip


def read_document(
    page: str, title: str, left_out: dict[str, int], request: ReadRequest, parser: str
) -> ParseResult:
    """A word processor's document converted to HTML (``page``), read as a page
    with no chrome: its ``title`` names the text before the first heading, and
    what the conversion left out (``left_out``, by kind) is reported with the rest."""
    outline = outline_of(page.encode("utf-8"), fragment=True)
    for kind, count in left_out.items():
        outline.dropped[kind] += count
    if not outline.blocks:
        raise RulebookError(f"{request.name}: no text in the document")
    outline.title = outline.title or title
    return request.units(outline, parser)


def read(data: bytes, request: ReadRequest) -> ParseResult:
    page, warnings = decode_page(data, request.name, request.encoding)
    outline = outline_of(page)
    outline.warnings[:0] = warnings
    if not outline.blocks:
        raise RulebookError(
            f"{request.name}: no text in the page (only navigation, scripts or styles)"
        )
    return request.units(outline, "html")


FORMAT = Format(
    name="html",
    extensions=(".html", ".htm", ".xhtml"),
    read=read,
    sniff=sniff,
    binary=True,
    priority=20,
    sniff_overrides_extension=True,
    label="HTML",
)
