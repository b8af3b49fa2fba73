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
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from itertools import pairwise
from typing import Any
from urllib.parse import unquote

from ruleslawyer.errors import RulebookError
from ruleslawyer.ingest.formats import Format, ReadRequest
from ruleslawyer.ingest.outline import Block, Outline, build_units
from ruleslawyer.ingest.typeset import HEADING_WORDS, Line, typeset_headings
from ruleslawyer.ingest.units import ParseResult

_HTML_START = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html)\b", re.I | re.S
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_HEADING_TAGS = tuple(_HEADINGS)
RUN_IN_LEVEL = 7
# Words for one description in a <dl> to count as a sentence (a glossary's
# definitions are sentences; a stat block's values a word or two).
DEFINITION_WORDS = 6
ARTICLE_SHARE = 0.8  # of the page's words an <article> must hold to stand for the page
MAX_SPAN = 1000  # rows or columns one table cell may span
CARD_VALUE_CHARS = 60  # the longest value a data card's label may have
BLOCK_END_DEPTH = 8  # how deep _text looks for a block ending just before a word
# Share of an aside's or footer's words inside links for it to be the page's
# links box, not a note: a share bar or "see also" list is nearly all links,
# a designer's note nearly none (readability's link density, as a bound).
LINK_SHARE = 0.5
# Most words a term with no description may have to be a ;Term pseudo-heading;
# a longer one, or one ending as a sentence does, is a bold line of text.
PSEUDO_HEADING_WORDS = 12
_SCRIPTS = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "object")
_CHROME_TAGS = ("nav", "form", "button", "select", "dialog")
_LANDMARKS = ("header", "footer", "aside")  # chrome only outside the rules
_LINK_BOXES = ("footer", "aside")  # inside the rules, chrome when nearly all links
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "search", "menu", "dialog", "alertdialog"}
# Never page chrome by class or id: headings, a section's parts and a table's.
_NEVER_BY_NAME = frozenset(
    {"h1", "h2", "h3", "h4", "h5", "h6", "section", "table", "thead", "tbody", "tfoot", "tr",
     "th", "td", "caption"}
)  # fmt: skip
# Class or id tokens of page chrome, as sites and MediaWiki name them.
_CHROME_NAME = re.compile(
    r"^(?:nav|navbar|navigation|menu|mainmenu|sidebar|breadcrumbs?|site-?header|"
    r"site-?footer|footer|header|toc|tocs|table-of-contents|crosslinks(?:-\w+)?|"
    r"skip-?link|mw-editsection|mw-jump-link|mw-navigation|noprint|printfooter|"
    r"catlinks|navbox|sectiontocs?|pagination|[\w-]*cookie[\w-]*|cc-(?:window|banner)|"
    r"sitesub|contentsub|sitenotice|jump-to-nav|copyright|comments|comments-area|comment-list|"
    r"page-footer|theme-edit-this-page|theme-last-updated|"
    r"sharedaddy|related|related-(?:articles|posts|pages|links)|share(?:-\w+)?|"
    r"social(?:-\w+)?|ca-[a-z-]+)$",
    re.I,
)
# Names of page chrome only when the box is mostly links: a wiki's category
# line ("in: Units, Cavalry"), which a rules page could also use for a box of
# prose.
_LINKS_NAME = re.compile(r"^(?:[\w-]+__)?categories$", re.I)
# ... and a page's tool bar ("page-header__actions", "page-actions": a wiki's
# Edit / History / Talk tabs), also only when it is mostly links, and only a
# page's, article's or post's: a game's "unit-actions" box of links to its
# actions ("Move, Ram, Shoot") is a rule's list. No other name is chrome by a
# word in it: a class naming a "licence" or a "badge" said nothing of the
# box's part in the page, and a racing game's "Driver licence" rule and a
# heading's "Optional" were lost by them.
_ACTIONS_NAME = re.compile(
    r"^(?:[\w-]*(?:page|article|post|entry|content|header|toolbar)[\w-]*(?:__|-))actions$", re.I
)
_SENTENCE_END = (".", "!", "?")
_EMPTY_BRACKETS = re.compile(r"\s*\[\s*\]\s*$")
_LEADING_EMPTY_BRACKETS = re.compile(r"^\[\s*\]\s*")
# A heading's edit link as it reads: "[edit]", "edit", "[ edit source ]"
_EDIT_LINK = re.compile(r"^\[?\s*edit(?:\s+(?:source|section))?\s*\]?$", re.I)
_CLOSE_PUNCT = re.compile(r"\s+([.,;:!?)\]](?:\s|$))")  # a space before closing punctuation
# A footnote's mark as its link reads: "1", "[1]", "a", "iv", "*", "†".
_NOTE_MARK = re.compile(r"^\[?(\d{1,3}|[a-z]|[ivxl]{1,5}|[*\u2020\u2021\u00a7]{1,3})\]?$")
_NOTE_BODIES = ("li", "p", "dd", "div", "aside")  # what holds a footnote's text
# What a footnote never is, nor holds: a section of the rules.
_NOT_NOTES = ("h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "main", "body", "html")
MAX_NOTE_CHARS = 3000  # the longest box taken whole as one footnote
# What a footnote goes after: the block its mark sits in.
_NOTE_ANCHORS = ("p", "li", "dd", "dt", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "div")
# What may follow a contents entry's links: a page number set off by a tab, a
# no-break space or leader dots (a plain space before a number makes it a
# value: "Knight 150").
CONTENTS_TAIL = re.compile(
    r"^[ \r\n]*(?:(?:[\t\u00a0]|[.\u00b7_]{2,}|\u2026)[\s.\u00b7\u2026_]*(?:\d{1,4}|[ivxlc]{1,6})?)?\s*$",
    re.I,
)
# Past these a list is no longer in a box of its own, but on the page.
_PAGE_ROOTS = ("body", "main", "article", "html", "[document]")
# Letters and digits a contents entry may have beyond its heading's name: a
# section number and a page number ("12.3.4 Charging 123").
ENTRY_EXTRA_CHARS = 10
MIN_CONTENTS_ENTRIES = 3  # consecutive entries that make a contents list
CONTENTS_LABEL_WORDS = 4  # the most words a contents list's label ("Table of Contents") has
_WORD = re.compile(r"\w+")  # a word for link density: "Fighting, Moving" is two
# ARIA role tokens are compared case-insensitively by browsers: role="Main" is main.
_MAIN_ROLE = re.compile(r"^main$", re.I)
_HEADING_ROLE = re.compile(r"^heading$", re.I)
_RUN_IN_CLASS = re.compile(r"(?:paragraph|runin|run-in|inline)[-_]?head", re.I)
_BLOCKS = ("p", "pre", "figcaption", "caption", "dt", "dd", "address", "summary", "li")
_CONTAINERS = (
    "div", "section", "article", "main", "body", "blockquote", "figure", "details",
    "center", "html", "fieldset", "header", "footer", "aside", "form",
)  # fmt: skip
# Elements whose start separates words: "inches.<br>Then", "<li><p>one</p><p>two</p>".
_BREAKS = frozenset(
    {"br", "p", "div", "li", "tr", "td", "th", "dd", "dt", "ul", "ol", "table", "blockquote",
     "section", "article", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "figcaption", "caption"}
)  # fmt: skip


def sniff(head: bytes) -> bool:
    """A whole HTML document, not a text that merely mentions a tag."""
    return bool(_HTML_START.match(head.lstrip(b"\xef\xbb\xbf")))


def _in_rules(el: Any) -> bool:
    return (
        el.find_parent(["main", "article", "section"]) is not None
        or el.find_parent(attrs={"role": _MAIN_ROLE}) is not None
    )


def _is_chrome(el: Any, *, fragment: bool = False) -> bool:
    role = (el.get("role") or "").lower()
    if el.name in _LANDMARKS or role == "complementary":
        # The page's banner, footer and sidebar are chrome; inside the rules
        # an HTML5 section's own <header> holds its heading, a <footer> its
        # notes, and an <aside> (role "complementary") a designer's note or
        # an example box. A fragment (raw HTML in a Markdown file) is all rules.
        # Inside, an aside or footer of links is the page's all the same (a
        # section's <header> is not judged so: its heading is often a link).
        # On a page that marks no rules at all (no <main>, <article> or
        # <section>), an <aside> is only the page's when it is links: one of
        # prose is an example box or an optional rule.
        if not fragment and (
            (el.name in _LINK_BOXES and _link_dense(el))
            or (not _in_rules(el) and (el.name != "aside" or _has_rules_root(el)))
        ):
            return True
    elif el.name in _CHROME_TAGS:
        if el.name == "form":
            # A page wrapped whole in one form (ASP.NET, SharePoint) is the page;
            # its controls go by their own tags.
            return el.find(_HEADING_TAGS) is None and el.find(["main", "article"]) is None
        # A button in a heading is its text (an FAQ accordion's question).
        return not (el.name == "button" and el.find_parent(_HEADING_TAGS) is not None)
    if role in _CHROME_ROLES:
        return True
    if fragment:
        # Raw HTML a rulebook's author wrote into a Markdown file names its own
        # boxes: a "sidebar" there is a designer's sidebar, not the site's.
        return False
    classes = list(el.get("class") or [])
    names = [*classes, el.get("id") or ""]
    if el.name in _NEVER_BY_NAME:
        # A heading is the rules' own, whatever its id says (Sphinx and pandoc
        # give a section on "Navigation" the id "navigation"), and a table's
        # rows are cells, not a menu: a table named as navigation (a wiki's
        # "navbox", MediaWiki's old "toc") is the site's only when it is
        # mostly links too (a wiki's unit table links its names, not its stats).
        return (
            el.name == "table"
            and _link_dense(el)
            and any(_CHROME_NAME.match(n) for n in names if n)
        )
    if el.find_parent(_HEADING_TAGS) is not None:
        # In a heading an id is the heading's anchor (MediaWiki's headline
        # span); only a class names chrome there ("mw-editsection"), or an edit
        # link by what it says ("Altitude [edit]", whatever the wiki calls it).
        said = el.get_text(" ", strip=True)
        if (
            (el.name == "a" or el.find("a") is not None)
            and _EDIT_LINK.match(said)
            and el.find_parent(_HEADING_TAGS).get_text(" ", strip=True) != said
        ):
            return True  # (a heading that is only "Edit" is the rules' own)
        return any(_CHROME_NAME.match(n) for n in classes)
    if "section" in names and el.get("id") and el.get("id") == _heading_slug(el):
        # <div class="section" id="navigation"><h2>Navigation</h2> (older Sphinx,
        # pandoc): a section, named for its heading
        return False
    return any(_CHROME_NAME.match(n) for n in names if n) or (
        any(_LINKS_NAME.match(n) or _ACTIONS_NAME.match(n) for n in names if n) and _link_dense(el)
    )


def _heading_slug(el: Any) -> str:
    """The slug of the heading ``el`` opens with, if it opens with one."""
    from ruleslawyer.ingest.sources import slugify

    first = next((c for c in el.children if getattr(c, "name", None)), None)
    return slugify(first.get_text(" ")) if first is not None and first.name in _HEADINGS else ""


def _has_rules_root(el: Any) -> bool:
    """Does ``el``'s page mark where its rules are (``<main>``, ``<article>``,
    ``<section>``, ``role="main"``)?"""
    root = el.find_parent("html") or el.find_parent("body")
    return root is not None and (
        root.find(["main", "article", "section"]) is not None
        or root.find(attrs={"role": _MAIN_ROLE}) is not None
    )


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


def _link_dense(el: Any) -> bool:
    words = len(_WORD.findall(el.get_text(" ")))
    linked = sum(len(_WORD.findall(a.get_text(" "))) for a in el.find_all("a"))
    return words > 0 and linked >= LINK_SHARE * words


def _pseudo_heading(term: str) -> bool:
    """A ``;Term`` line: short, and not a sentence."""
    return 0 < len(term.split()) <= PSEUDO_HEADING_WORDS and not term.endswith(_SENTENCE_END)


def _text(el: Any, *, lines: bool = False) -> str:
    """The element's words, whitespace collapsed; a line break or a block inside
    it separates words, where it starts and where it ends (inline tags inside
    a word do not). With ``lines``, a ``<br>`` starts a new line: "Modifiers:<br>a)
    -1 in cover<br>b) ..." is a list typed with line breaks, and "<b>Range:</b>
    12 inches.<br><b>AP:</b> 1" two entries; joined, a value ran into the next
    entry's name. A heading and a table cell stay one line (``lines`` off)."""
    from bs4 import NavigableString, Tag

    parts: list[str] = []
    for node in el.descendants:
        # a block's end separates words too: "<h1>Firing</h1>Roll one die",
        # "<a><h3>Firing</h3></a>Roll" (looked for a few levels down only: a
        # hostile page nests thousands)
        before = node.previous_sibling
        for _ in range(BLOCK_END_DEPTH):
            if not isinstance(before, Tag):
                break
            if before.name in _BREAKS:
                parts.append(" ")
                break
            before = before.contents[-1] if before.contents else None
        if isinstance(node, Tag):
            if node.name in _BREAKS:
                parts.append(_LINE if lines and node.name == "br" else " ")
        elif isinstance(node, NavigableString) and type(node) is NavigableString:
            parts.append(str(node).replace(_LINE, " "))
    return _lines("".join(parts))


# What a <br> leaves in text being read, until its lines are made (a character
# no page's text is left holding: a source's own is read as a space).
_LINE = "\u2028"


def _lines(text: str) -> str:
    """``text``'s lines (split where a ``<br>`` was), whitespace collapsed in each,
    empty ones (a ``<br>`` ending a paragraph, two in a row) left out."""
    out = (" ".join(line.replace("\u200b", "").split()) for line in text.split(_LINE))
    return "\n".join(line for line in out if line)


def _place_footnotes(soup: Any) -> int:
    """Move each footnote to just after the block that first refers to it, as
    "[1] text"; returns how many were moved.

    A word processor's or converter's footnotes (Google Docs, Word, Pandoc,
    MediaWiki's references) sit at the end of the page, which puts them all
    in the last rule. A footnote is known by its links, not by any one
    tool's names: a mark ("1", "[1]", "a", "iv", "*") links to it, and it
    links back to that mark (or to the ``<sup>`` around it). A note is a
    few paragraphs at most: a target that is, or holds, a heading is a
    section (a contents list's entry, a numbered cross-reference), and is
    left where it is, as is one that holds another note's link back (a box
    of all the notes), or one whose mark sits where no block can take it.
    The mark reads "[1]" where it stands, as a Markdown footnote's does; a
    note referred to in a table goes after the table, and one referred to
    in a list item at the end of that item.
    """
    targets = _anchors(soup.find_all(True))
    sectionlike: dict[int, bool] = {}  # id(element) -> holds a heading or a section

    def is_section(el: Any) -> bool:
        if id(el) not in sectionlike:
            sectionlike[id(el)] = el.name in _NOT_NOTES or el.find(_NOT_NOTES) is not None
        return sectionlike[id(el)]

    def marks_of(a: Any) -> set[str]:
        """The names a note's link back may use for mark ``a``."""
        own = [a, a.parent] if a.parent is not None and a.parent.name == "sup" else [a]
        return {v for el in own for v in (el.get("id"), el.get("name")) if isinstance(v, str) and v}

    def back_links(el: Any) -> list[tuple[Any, str]]:
        found = []
        for a in el.find_all("a", href=True):
            href = a.get("href")
            if isinstance(href, str) and href.startswith("#") and len(href) > 1:
                found.append((a, href[1:]))
        return found

    def other_notes(el: Any, names: set[str]) -> bool:
        """Does ``el`` link back to a mark other than this note's?"""
        for _, target_id in back_links(el):
            other = targets.get(target_id)
            if target_id not in names and other is not None and other.name in ("a", "sup"):
                return True
        return False

    moved = 0
    placed: dict[int, Any] = {}  # id of a referring block -> the last note put after it
    # What went with a moved note. (Not ``.decomposed``: on a live tag, bs4
    # looks for a child named so, through the whole subtree.)
    gone: set[int] = set()
    for ref in soup.find_all("a", href=True):
        if id(ref) in gone:  # a note's link back, gone with its note
            continue
        href = ref.get("href")
        mark = _NOTE_MARK.match(_text(ref))
        if not isinstance(href, str) or not href.startswith("#") or not mark:
            continue
        target = targets.get(href[1:])
        if target is None or id(target) in gone or target.name in _NOT_NOTES:
            continue
        body = target if target.name in _NOTE_BODIES else target.find_parent(_NOTE_BODIES)
        names = marks_of(ref)
        if body is None or body.parent is None or not names or body in ref.parents:
            continue
        if is_section(body) or other_notes(body, names):
            continue
        if not any(target_id in names for _, target_id in back_links(body)):
            continue
        # a note of several paragraphs: the box it opens, holding nothing
        # else (not a page's box with the note at its end)
        while (
            body.parent is not None
            and body.parent.name in ("div", "li", "aside")
            and _first_text_child(body.parent) is body
            and not is_section(body.parent)
            and not other_notes(body.parent, names)
            and body.parent not in ref.parents
            and len(_text(body.parent)) <= MAX_NOTE_CHARS
        ):
            body = body.parent
        at = ref.find_parent("table") or ref.find_parent(_NOTE_ANCHORS)
        if at is None:
            continue
        for a, target_id in back_links(body):
            if target_id in names:
                gone.add(id(a))
                a.decompose()
        # the brackets a link back leaves behind when it goes (docutils'
        # "[<a>1</a>]" label): "[] It still counts" is "It still counts"
        text = _LEADING_EMPTY_BRACKETS.sub("", _text(body))
        gone.update(map(id, body.descendants))
        body.decompose()
        label = mark.group(1)
        ref.clear()
        ref.append(f"[{label}]")
        if not text:
            continue
        note = soup.new_tag("p")
        note.string = f"[{label}] {text}"
        if at.name == "li":
            at.append(note)  # inside the item: a list reads only its items
        else:
            placed.get(id(at), at).insert_after(note)
            placed[id(at)] = note
        moved += 1
    return moved


def _drop_contents(root: Any) -> int:
    """Drop the page's own table of contents; returns how many lines went.

    A contents list is known by what its links point at and where it sits,
    not by its name or its language: three or more consecutive entries
    (paragraphs, or the items of a list and its sub-lists), each nothing but
    links to the headings that follow it (in the page's order, each once,
    from the first heading after it), each entry naming its heading and
    little else, with perhaps a page number set off by a tab, a no-break
    space or leader dots (page numbers never go down), alone in its part of
    the page (nothing but a short label line above it, which goes too, and
    nothing after it before the next heading, through any box it sits in). That is how Word's, LibreOffice's and Google
    Docs' contents come out of their converters, and how a hand-made one
    reads. Left in, it was a rule (or the first rule's text) holding every
    heading's name, which matched questions about any of them.

    A section's own list of its subsections ("Sequence of Play" over links to
    each phase, "Units and Costs" over its units) is that rule's text: a list
    whose links all point at headings below the heading it sits under, inside
    that heading's section, stays, unless that heading is the page's title
    (the only heading of the top level). So do a list after a lead-in or
    before more text, numbers that are not page numbers ("Knight 150",
    "Rifle - 24", "-1", "1 Ambush"), a list of links to definitions elsewhere
    (a class's spells, linking to a later chapter), a quick reference whose
    links are rule sentences, a link in a sentence, links in a table's cell,
    and links to other pages. ``root`` is what the page's rules are read
    from (its one article, if that was chosen), so dropping a list beside it
    cannot change that choice.
    """
    from bs4 import NavigableString

    elements = root.find_all(True)
    order = {id(el): n for n, el in enumerate(elements)}
    targets = _anchors(elements)
    heads = [(order[id(h)], _HEADINGS[h.name], h) for h in elements if h.name in _HEADINGS]
    headings = {id(h) for _, _, h in heads}
    starts = [pos for pos, _, _ in heads]
    # where each heading's section ends: the next heading of its level or above
    ends: list[int | None] = [None] * len(heads)
    open_: list[int] = []
    for i, (pos, level, _) in enumerate(heads):
        while open_ and heads[open_[-1]][1] >= level:
            ends[open_.pop()] = pos
        open_.append(i)
    top = min((level for _, level, _ in heads), default=0)
    title_level = top if sum(1 for _, level, _ in heads if level == top) == 1 else 0
    seen: dict[int, tuple[list[Any] | None, int | None]] = {}

    found_heading: dict[int, Any] = {}

    def heading_of(target: Any) -> Any | None:
        """The heading ``target`` is, is inside, opens, or stands just before."""
        if id(target) not in found_heading:
            found_heading[id(target)] = find_heading(target)
        return found_heading[id(target)]

    def find_heading(target: Any) -> Any | None:
        if id(target) in headings:
            return target
        up = target.find_parent(_HEADING_TAGS)
        if up is not None:
            return up
        first = next((c for c in target.children if getattr(c, "name", None)), None)
        if first is not None and id(first) in headings and _first_text_child(target) is first:
            return first
        # an empty anchor just before its heading (<a id="x"></a><h2>...)
        nxt = target.find_next_sibling()
        if nxt is not None and id(nxt) in headings and not _text(target):
            return nxt
        return None

    def entry(el: Any) -> tuple[list[Any] | None, int | None]:
        """The headings a contents entry links to (None: no entry), and the
        page number it shows."""
        if id(el) not in seen:
            seen[id(el)] = read_entry(el)
        return seen[id(el)]

    def read_entry(el: Any) -> tuple[list[Any] | None, int | None]:
        links, head, tail = _own_links(el)
        if not links or head.strip() or not CONTENTS_TAIL.match(tail):
            return None, None
        if any(up.name in ("td", "th") for up in el.parents):
            return None, None
        found = []
        for a in links:
            href = a.get("href")
            if not isinstance(href, str) or not href.startswith("#") or len(href) < 2:
                return None, None
            target = targets.get(unquote(href[1:]))
            heading = heading_of(target) if target is not None else None
            if heading is None or order[id(heading)] < order.get(id(el), 0):
                return None, None  # a contents list comes before what it lists
            found.append(heading)
        # an entry names its heading ("1.2 Charging .... 4" for "Charging"), and
        # little else: "Movement: a model moves 6 inches" is a rule
        if not names_heading(_text(links[0]), _text(found[0])):
            return None, None
        digits = re.search(r"\d+", tail)
        return found, int(digits.group()) if digits else None

    def own_subsections(first: Any, linked: list[Any]) -> bool:
        """Do the links all point below the heading the list sits under, inside
        its section (and is that heading not the page's title)?"""
        i = bisect_right(starts, order[id(first)]) - 1
        if i < 0 or heads[i][1] == title_level:
            return False
        level, end = heads[i][1], ends[i]
        return all(
            _HEADINGS[h.name] > level and (end is None or order[id(h)] < end) for h in linked
        )

    def opens_with_heading(el: Any) -> bool:
        """Is ``el`` a box whose first words are a heading's (a <section>)?"""
        for _ in range(BLOCK_END_DEPTH):
            el = _first_text_child(el)
            if el is None or isinstance(el, NavigableString):
                return False
            if id(el) in headings:
                return True
        return False

    def is_label(el: Any) -> bool:
        return (
            el.name in ("p", "div")
            and el.find(["a", "ul", "ol", "table", *_HEADING_TAGS]) is None
            and label_line(_text(el))
        )

    def alone(first: Any, last: Any) -> tuple[bool, Any]:
        """Is the list alone between headings, through any box it sits in, but
        for a label line just above it? And that label, if any."""
        label = None
        node_first, node_last = first, last
        while True:
            opened = False  # stopped at a heading above it
            for sib in node_first.previous_siblings:
                if isinstance(sib, NavigableString):
                    if sib.strip():
                        return False, None
                    continue
                if id(sib) in headings:
                    opened = True
                    break
                if label is None and node_first is first and is_label(sib):
                    label = sib
                    continue
                if _text(sib):
                    return False, None
            for sib in node_last.next_siblings:
                if isinstance(sib, NavigableString):
                    if sib.strip():
                        return False, None
                    continue
                if id(sib) in headings or opens_with_heading(sib):
                    break
                if _text(sib):
                    return False, None
            parent = node_first.parent
            if opened or parent is None or parent.name in _PAGE_ROOTS:
                return True, label
            node_first = node_last = parent

    drops: list[tuple[int, list[Any]]] = []  # (lines, what goes: a list or its entries, a label)

    def consider(entries: list[Any], whole: Any = None) -> None:
        checked = [entry(el) for el in entries]
        if any(found is None for found, _ in checked):
            return
        pages = [n for _, n in checked if n is not None]
        if not all(a <= b for a, b in pairwise(pages)):
            return
        linked = [h for found, _ in checked for h in found or ()]
        # in the page's order, each once, from the first heading after the list:
        # a list of links to definitions elsewhere (a class's spells) is not
        at = [order[id(h)] for h in linked]
        after = bisect_right(starts, order[id(whole or entries[-1])])
        if after >= len(heads) or heads[after][2] is not linked[0]:
            return
        if not all(a < b for a, b in pairwise(at)):
            return
        if own_subsections(whole or entries[0], linked):
            return
        ok, label = alone(whole or entries[0], whole or entries[-1])
        if ok:
            lines = len(entries) + (label is not None)
            going = [whole] if whole is not None else list(entries)
            drops.append((lines, [*going, label] if label is not None else going))

    for lst in root.find_all(["ul", "ol"]):
        if lst.find_parent(["ul", "ol"]) is not None:
            continue
        items = lst.find_all("li")
        if len(items) >= MIN_CONTENTS_ENTRIES:
            consider(items, lst)
    boxes = {id(el.parent): el.parent for el in root.find_all(["p", "div"]) if el.parent}
    for parent in boxes.values():
        run: list[Any] = []
        blocks = [c for c in parent.children if getattr(c, "name", None) in ("p", "div")]
        for child in [*blocks, None]:
            ok = (
                child is not None
                and entry(child)[0] is not None
                and child.find(["p", "div", "ul", "ol", "table"]) is None
            )
            if ok and (not run or run[-1].find_next_sibling() is child):
                run.append(child)
                continue
            if len(run) >= MIN_CONTENTS_ENTRIES:
                consider(run)
            run = [child] if ok else []
    dropped = 0
    gone: set[int] = set()
    for lines, going in drops:
        if any(id(el) in gone for el in going):
            continue  # inside a list already gone
        dropped += lines
        for el in going:
            gone.update(id(d) for d in el.descendants)
            gone.add(id(el))
            el.extract()
    return dropped


def _anchors(elements: list[Any]) -> dict[str, Any]:
    """Each in-page link target (``id`` or ``name``) and the first element that
    carries it, as a browser follows "#target"."""
    targets: dict[str, Any] = {}
    for el in elements:
        for key in ("id", "name"):
            value = el.get(key)
            if isinstance(value, str) and value:
                targets.setdefault(value, el)
    return targets


def label_line(text: str) -> bool:
    """Is ``text`` a contents list's label ("Table of Contents"): a few words,
    not a sentence or a lead-in ("The phases are:")?"""
    return 0 < len(text.split()) <= CONTENTS_LABEL_WORDS and not text.endswith(
        (*_SENTENCE_END, ":")
    )


def names_heading(entry: str, heading: str) -> bool:
    """Does a contents entry's text name this heading, with at most a number
    or two beside it ("1.2 Charging 4" for "Charging")?"""
    entry_key, heading_key = anchor_key(entry), anchor_key(heading)
    return heading_key in entry_key and len(entry_key) - len(heading_key) <= ENTRY_EXTRA_CHARS


def anchor_key(text: str) -> str:
    """A heading's name as anchors and contents entries compare it: letters and
    digits only ("Running & Walking", "running--walking", "1 Running 3")."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def _own_links(el: Any) -> tuple[list[Any], str, str]:
    """An entry's links (not those of a list nested in it), the text before the
    first, and the text outside them after it: leader dots and a page number."""
    from bs4 import NavigableString

    links: list[Any] = []
    head: list[str] = []
    tail: list[str] = []
    stack = list(reversed(list(el.children)))
    while stack:
        node = stack.pop()
        if isinstance(node, NavigableString):
            (tail if links else head).append(str(node))
        elif node.name == "a" and node.get("href") is not None:
            links.append(node)
        elif node.name not in ("ul", "ol"):
            stack.extend(reversed(list(node.children)))
    return links, "".join(head), "".join(tail)


def _first_text_child(el: Any) -> Any:
    """The first child of ``el`` that holds words."""
    for child in el.children:
        text = child if isinstance(child, str) else child.get_text()
        if text.strip():
            return child
    return None


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
    table on a line of its own, no longer under its header."""
    if _PRESENTATION_ROLE.match(str(table.get("role") or "").strip()):
        return True
    from bs4 import NavigableString, Tag

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


def _bolds(el: Any) -> bool:
    return el.name in ("b", "strong") or bool(_BOLD_STYLE.search(str(el.get("style") or "")))


def _all_bold(el: Any) -> bool:
    """Are all of ``el``'s words inside bold markup (``<b>``, ``<strong>``, a
    ``font-weight`` of bold or 600 and more), ``el``'s own included?"""
    from bs4 import NavigableString

    words = False
    for node in el.find_all(string=True):
        if type(node) is not NavigableString or not node.strip():
            continue
        words = True
        up: Any = node.parent
        while not _bolds(up):
            if up is el or up.parent is None:
                return False
            up = up.parent
    return words


def _bold_line(el: Any, text: str) -> bool:
    """A line set all in bold that could be a heading: short (``HEADING_WORDS``,
    as in a Word file), a letter in it, not ending as a sentence or a
    lead-in does ("Important!", "Range:" are text)."""
    return (
        1 <= len(text.split()) <= HEADING_WORDS
        and any(c.isalpha() for c in text)
        and not text.endswith((*_SENTENCE_END, ",", ";", ":"))
        and _all_bold(el)
    )


def _bold_headings(root: Any, outline: Outline) -> None:
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
            bold += len(node.strip()) if any(map(_bolds, node.parents)) else 0
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
        lines.append(Line(el, text, 1.0, _bold_line(el, text), listed=listed))
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


# How a list is numbered, as CSS names it; docutils' classes for the same
# (Sphinx's pages number by them from a style sheet of their own, not in the page)
_CSS_LIST_KINDS = {
    "decimal": "1", "lower-alpha": "a", "lower-latin": "a", "upper-alpha": "A",
    "upper-latin": "A", "lower-roman": "i", "upper-roman": "I",
}  # fmt: skip
_DOCUTILS_LIST_KINDS = {
    "arabic": "1", "loweralpha": "a", "upperalpha": "A", "lowerroman": "i", "upperroman": "I"
}  # fmt: skip
_CSS_LIST_TYPE = re.compile(r"list-style(?:-type)?\s*:\s*([^;}]*)", re.I)
_CSS_RULE = re.compile(r"([^{};]+)\{([^{}]*)\}")  # a rule's selectors and declarations
_CSS_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_CSS_CONTENT = re.compile(r"(?<![\w-])content\s*:\s*([^;]*)", re.I)
# a "content" value's pieces: strings, and counters (with the style they show)
_CSS_PIECE = re.compile(r'"([^"]*)"|\'([^\']*)\'|counter\(\s*[\w-]+\s*(?:,\s*([\w-]+)\s*)?\)')
ListStyle = tuple[str, str | None, str | None]  # kind (1, a, A, i, I), prefix, suffix


def _css_kind(value: str) -> str | None:
    return next((_CSS_LIST_KINDS[w] for w in value.lower().split() if w in _CSS_LIST_KINDS), None)


def _declared_list_style(declarations: str) -> ListStyle | None:
    """The numbering a CSS rule's declarations set: a ``list-style-type``, or a
    marker drawn with one counter (Google Docs: ``content: counter(c,
    lower-latin) ") "``, a) b) c)), with what is written around it."""
    m = _CSS_LIST_TYPE.search(declarations)
    if m and _css_kind(m.group(1)):
        return _css_kind(m.group(1)) or "1", None, None
    content = _CSS_CONTENT.search(declarations)
    if content is None or "counter(" not in content.group(1):
        return None
    pieces = list(_CSS_PIECE.finditer(content.group(1)))
    counters = [n for n, p in enumerate(pieces) if p.group(0).startswith("counter")]
    if len(counters) != 1:  # "1.2." drawn from two counters: no one list's number
        return None
    at = counters[0]
    kind = _css_kind(pieces[at].group(3) or "decimal")
    if kind is None:
        return None

    def said(run: list[re.Match[str]]) -> str:
        return "".join(p.group(1) or p.group(2) or "" for p in run)

    # the strings as written ("Step " counter(step) ": " is "Step 1:"; joined
    # and trimmed it was "Step1:"), less the space before the item's text,
    # which the item's line puts back
    return kind, said(pieces[:at]).lstrip(), said(pieces[at + 1 :]).rstrip()


_CSS_COMBINATOR = re.compile(r"\s*[>+~]\s*|\s+")
_CSS_ITEM = re.compile(r"^li(?![\w-])", re.I)


def _styled_list_class(selector: str) -> str | None:
    """The class of lists a selector styles: the one class of its last compound
    selector (``ol.alpha``, ``ol .rules``' ``.rules``), or of the one before
    it when that last one is the list's items (``.lst-kix_q1-0>li:before``,
    ``ol.steps li::marker``). None when the selector goes on past the class
    to another element: ``ol.rules ol`` styles the lists inside a
    ``.rules``, and lettered the outer list itself."""
    compounds = [c for c in _CSS_COMBINATOR.split(selector.strip()) if c]
    if len(compounds) > 1 and _CSS_ITEM.match(compounds[-1]):
        compounds.pop()
    classes = set(_CSS_CLASS.findall(compounds[-1])) if compounds else set()
    return classes.pop() if len(classes) == 1 else None


def _list_styles(soup: Any) -> dict[str, ListStyle]:
    """The numbering the page's own style sheets give a class of lists (see
    ``_styled_list_class``): which class a compound of two means is for a
    full cascade, which this is not. A later rule for the class wins, as in
    CSS."""
    styles: dict[str, ListStyle] = {}
    for sheet in soup.find_all("style"):
        css = re.sub(r"/\*.*?\*/", "", sheet.get_text(), flags=re.S)
        for selectors, declarations in _CSS_RULE.findall(css):
            style = _declared_list_style(declarations)
            if style is None:
                continue
            for selector in selectors.split(","):
                name = _styled_list_class(selector)
                if name is not None:
                    styles[name] = style
    return styles


def _list_style(el: Any, sheet: dict[str, ListStyle]) -> tuple[str, str, str]:
    """An ordered list's numbering as a browser shows it: its kind (1, a, A, i,
    I) and what goes before and after the number. From its own ``style``,
    else a rule of the page's style sheet for its class, else docutils' class
    ("loweralpha"), else its ``type`` (CSS outranks the attribute); around
    the number, a browser's "." or the label a word processor's list style
    sets (the OpenDocument reader passes it on as ``data-prefix`` and
    ``data-suffix``)."""
    m = _CSS_LIST_TYPE.search(str(el.get("style") or ""))
    kind = _css_kind(m.group(1)) if m else None
    prefix: str | None = None
    suffix: str | None = None
    classes = [str(c) for c in el.get("class") or []]
    if kind is None:
        for c in classes:
            if c in sheet:
                kind, prefix, suffix = sheet[c]
    if kind is None:
        docutils = [_DOCUTILS_LIST_KINDS.get(c.lower()) for c in classes]
        kind = next((k for k in docutils if k), None)
    if kind is None:
        kind = str(el.get("type") or "1")
    if el.get("data-prefix") is not None:
        prefix = str(el.get("data-prefix"))
    if el.get("data-suffix") is not None:
        suffix = str(el.get("data-suffix"))
    return kind, prefix or "", "." if suffix is None else suffix


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


def _html_int(value: Any, default: int) -> int:
    """An integer attribute as browsers read it: its leading digits (with a
    sign), else ``default``; "x" is no number and refused no page."""
    m = re.match(r"\s*([+-]?\d{1,9})", str(value)) if value is not None else None
    return int(m.group(1)) if m else default


def list_number(n: int, kind: str) -> str:
    """A number as an ordered list of ``type`` ``kind`` shows it: 1, a, A, i or I
    (the Word and OpenDocument readers number their lists and headings with it)."""
    if kind in ("a", "A") and n > 0:
        letters = ""
        while n > 0:
            n, rest = divmod(n - 1, 26)
            letters = chr(ord("a") + rest) + letters
        return letters if kind == "a" else letters.upper()
    if kind in ("i", "I") and 0 < n < 4000:
        numeral = ""
        for value, mark in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                            (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):  # fmt: skip
            while n >= value:
                numeral += mark
                n -= value
        return numeral if kind == "i" else numeral.upper()
    return str(n)


def _span(value: Any) -> int:
    """A rowspan or colspan as a count, read as browsers read it (its leading
    digits: "2px" is 2): 1 when missing, malformed or 0 (HTML's "to the end
    of the section", which no rulebook table seen uses), and capped so a typo
    cannot blow a row up."""
    digits = re.match(r"\s*(\d+)", str(value or ""))
    return min(max(int(digits.group(1)), 1), MAX_SPAN) if digits else 1


def _table_rows(table: Any) -> list[list[str]]:
    """The table's rows as cell texts, a cell that spans rows (``rowspan``) in
    every row it spans.

    A weapon table's category cell ("Rifles") spans the rows of its weapons;
    read only in its first row, the next rows lose their first column and
    every cell after it shifts left, so "Lever rifle | 18" no longer says
    it is a rifle or lines up with the header. A cell spanning columns is
    read once, where it starts, and leaves an empty cell in each other column
    it spans, so the cells after it stay under their headers ("Ember Thrower
    | | 3 | -2" under "Weapon | Range | Attacks | AP"; read once and closed
    up, 3 read as its Range). Empty, not its value repeated: a name spanning
    the Range column is no range, and a row across the whole table (a
    category's name) would read "Rifles | Rifles | Rifles". Those empty
    cells are left off the row's end, where nothing follows to shift. A row
    short of cells gets empty ones up to a cell spanning down into it. A
    span ends with its row group (``<thead>``, ``<tbody>``), as in a
    browser. Rows of a table inside a cell are its own (the cell's text
    holds them too).
    """
    # per row group (a nested table's are its own): column -> (text, rows left, width)
    carried: dict[int, dict[int, tuple[str, int, int]]] = {}
    rows: list[list[str]] = []
    for tr in table.find_all("tr"):
        spans = carried.setdefault(id(tr.parent), {})
        row: list[str] = []
        col = 0
        spanned = 0  # the empty cells at the row's end that a colspan left
        # the row's own cells, also those an old site wraps in a <div>
        for cell in (c for c in tr.find_all(["th", "td"]) if c.find_parent("tr") is tr):
            before = len(row)
            col = _carry(spans, row, col)
            spanned = 0 if len(row) > before else spanned
            text = _text(cell)
            width, height = _span(cell.get("colspan")), _span(cell.get("rowspan"))
            row.append(text)
            row.extend([""] * (width - 1))
            spanned = width - 1
            for inside in range(col + 1, col + width):  # overlapped by this cell: used up here
                if inside in spans:
                    over, left, wide = spans.pop(inside)
                    if left > 1:
                        spans[inside] = (over, left - 1, wide)
            if height > 1:
                spans[col] = (text, height - 1, width)
            col += width
        for start in sorted(spans):  # spans past the row's own cells
            if start >= col:
                row.extend([""] * (start - col))
                col = _carry(spans, row, start)
                spanned = 0
        rows.append(row[: len(row) - spanned])
    return rows


def _carry(spans: dict[int, tuple[str, int, int]], row: list[str], col: int) -> int:
    """Append the cells spanning down into ``col`` and the columns after it; the
    column after them."""
    while col in spans:
        text, left, width = spans.pop(col)
        row.append(text)
        if left > 1:
            spans[col] = (text, left - 1, width)
        col += width
    return col


# Labels a page may declare that browsers widen (the WHATWG Encoding Standard's
# map): "iso-8859-1" is read as windows-1252 (such pages use 0x80-0x9F for
# “”–€), "shift_jis" as Microsoft's cp932 (its ① and Ⅲ), "euc-kr" as cp949
# (its extra Hangul), "gb2312" as gb18030, ... Python's codecs of the narrow
# names refuse those bytes, and the page was read as undeclared.
_WIDENED = {
    **dict.fromkeys(
        ("ascii", "us-ascii", "iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591", "latin-1",
         "latin1", "l1", "cp819", "ibm819", "x-cp1252", "cp1252", "windows-1252",
         "iso-ir-100", "csisolatin1", "iso_8859-1:1987", "ansi_x3.4-1968", "iso646-us",
         "csascii", "us"),
        "windows-1252",
    ),
    **dict.fromkeys(
        ("iso-8859-9", "iso8859-9", "iso_8859-9", "iso88599", "latin5", "l5", "csisolatin5",
         "iso-ir-148", "iso_8859-9:1989", "x-cp1254", "cp1254", "windows-1254"),
        "cp1254",
    ),
    **dict.fromkeys(
        ("tis-620", "iso-8859-11", "iso8859-11", "iso885911", "dos-874", "windows-874",
         "cp874"),
        "cp874",
    ),
    **dict.fromkeys(
        ("shift_jis", "shift-jis", "sjis", "ms_kanji", "csshiftjis", "x-sjis", "windows-31j",
         "ms932", "cp932"),
        "cp932",
    ),
    **dict.fromkeys(
        ("euc-kr", "euc_kr", "cseuckr", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601",
         "ksc_5601", "korean", "csksc56011987", "iso-ir-149", "windows-949", "cp949"),
        "cp949",
    ),
    **dict.fromkeys(
        ("gb2312", "gb_2312", "gb_2312-80", "csgb2312", "csiso58gb231280", "iso-ir-58",
         "chinese", "gbk", "x-gbk", "cp936", "ms936", "windows-936", "gb18030"),
        "gb18030",
    ),
    **dict.fromkeys(("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"), "big5hkscs"),
    **dict.fromkeys(("iso-8859-8-i", "csiso88598i", "logical"), "iso-8859-8"),
    **dict.fromkeys(("macintosh", "mac", "x-mac-roman", "csmacintosh"), "mac-roman"),
    **dict.fromkeys(("x-mac-cyrillic", "x-mac-ukrainian"), "mac-cyrillic"),
    **dict.fromkeys(("koi8-u", "koi8-ru"), "koi8-u"),
    **dict.fromkeys(("unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf8"), "utf-8"),
}  # fmt: skip
# How far a page's charset declaration is looked for: its whole <head>, or this
# many bytes when that is longer (a browser takes a <meta> wherever its parser
# meets it; bs4's own look stops at 2 KB, before a long style sheet's end).
DECLARATION_BYTES = 64 * 1024
_HEAD_END = re.compile(rb"</head\s*>", re.I)
# Share of a detected page's letters that must be outside the Latin script for
# the detector's guess to be trusted: a page of Russian or Japanese is nearly
# all such letters; a page of English misread as Central European has none
# (its "½" read as "˝", its quotes as other marks).
NON_LATIN_SHARE = 0.2
_MARKUP = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.I | re.S)


def _codec(label: str) -> str | None:
    """The Python codec a browser reads a declared ``label`` with; None for a
    label no codec knows (a browser ignores it too)."""
    label = label.strip().lower()
    if label.replace("-", "").replace("_", "").startswith("utf16"):
        return "utf-8"  # a meta saying UTF-16 in a page of bytes means UTF-8
    name = _WIDENED.get(label, label)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _declared(data: bytes) -> str | None:
    """The label of the charset the page declares: its XML declaration, else a
    ``<meta>`` in its ``<head>`` or its first ``DECLARATION_BYTES``."""
    from bs4.dammit import EncodingDetector

    head = _HEAD_END.search(data)
    end = max(head.end() if head else 0, DECLARATION_BYTES)
    return EncodingDetector.find_declared_encoding(
        data[:end], is_html=True, search_entire_document=True
    )


def _c1_controls(err: UnicodeError) -> tuple[str, int]:
    """The five bytes windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90,
    0x9D) as the WHATWG standard reads them: the C1 controls of the same
    number, so a page read as windows-1252 has no undecodable byte."""
    assert isinstance(err, UnicodeDecodeError)
    return err.object[err.start : err.end].decode("latin-1"), err.end


codecs.register_error("ruleslawyer-c1", _c1_controls)


def _windows_1252(data: bytes) -> str:
    return data.decode("cp1252", errors="ruleslawyer-c1")


def _replaced(data: bytes, codec: str) -> tuple[str, int]:
    """``data`` decoded by ``codec``, bytes it cannot read each a U+FFFD, and how
    many such places there were (the U+FFFDs the page itself holds not counted)."""
    if codec == "cp1252":
        return _windows_1252(data), 0
    try:
        return data.decode(codec), 0
    except UnicodeDecodeError:
        text = data.decode(codec, errors="replace")
    try:
        own = data.count("\ufffd".encode(codec))
    except UnicodeEncodeError:
        own = 0
    return text, text.count("\ufffd") - own


def _non_latin(text: str) -> float:
    """The share of the page's letters (outside its tags, scripts and styles)
    that are not Latin script."""
    letters = [c for c in _MARKUP.sub(" ", text) if c.isalpha()]
    other = sum(1 for c in letters if not unicodedata.name(c, "").startswith("LATIN"))
    return other / len(letters) if letters else 0.0


def decode_page(data: bytes, name: str, encoding: str | None = None) -> tuple[str, list[str]]:
    """The page's text, and warnings about how it was decoded.

    As a browser reads it, near enough: by its byte order mark; else by the
    charset it declares (an XML declaration, ``<meta charset>`` or its
    ``http-equiv``, anywhere in the head), by the name a browser reads it as
    ("shift_jis" as cp932); else as UTF-8 if the bytes are UTF-8; else by
    ``encoding`` (``--encoding``). A declared charset is the page's word:
    bytes that do not fit it (one stray byte in a UTF-8 page) are each a
    U+FFFD, counted in a warning; trying another codec read the whole page
    as windows-1252, every accent and quote in it wrong.

    Else the page declares nothing, and the statistical detector bs4 uses
    (``UnicodeDammit``) is asked, and believed when what it reads is mostly
    in a script other than Latin (``NON_LATIN_SHARE``): Russian in
    windows-1251, Japanese in Shift_JIS, which no default reads. A guess of
    a Latin script is not believed: a page of English with "½" and curly
    quotes was guessed Central European ("6½" read as "6˝"); such a page is
    read as windows-1252, the HTML standard's default, with a warning.
    """
    from bs4.dammit import EncodingDetector, UnicodeDammit

    body, bom = EncodingDetector.strip_byte_order_mark(data)
    if bom:
        text, bad = _replaced(body, bom)
        said = f"{name}: {bad} places not valid {bom}, as its byte order mark says; each read "
        said += "as \ufffd"
        return text, [said] if bad else []
    label = _declared(data)
    codec = _codec(label) if label else None
    if codec:
        text, bad = _replaced(data, codec)
        return text, [
            f"{name}: {bad} places not valid {label}, the charset the page declares; each read "
            "as \ufffd"
        ] if bad else []
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    if encoding:
        try:
            return data.decode(encoding), []
        except LookupError:
            raise RulebookError(f"{name}: unknown encoding {encoding!r}") from None
        except UnicodeDecodeError as err:
            raise RulebookError(
                f"{name}: not valid {encoding} text (byte {err.start}); check --encoding"
            ) from None
    guess = UnicodeDammit(data, is_html=True)
    found = guess.original_encoding
    if (
        guess.unicode_markup is not None
        and found
        and _non_latin(guess.unicode_markup) > NON_LATIN_SHARE
    ):
        return guess.unicode_markup, [
            f"{name}: no character set declared and not UTF-8; read as {found} by its "
            "letters (pass --encoding to name another)"
        ]
    return _windows_1252(data), [
        f"{name}: no character set declared and not UTF-8; read as windows-1252 (pass "
        "--encoding to name another)"
    ]


# A link whose whole text is one of these marks a permalink to where it stands
# (Sphinx's "¶" after a heading, a term or a caption; "#", "🔗"): no text.
_ANCHOR_SIGNS = frozenset({"\u00b6", "#", "\u00a7", "\U0001f517", "\u2693"})
# Class tokens of a permalink (Sphinx's "headerlink", "anchor", "header-anchor",
# Docusaurus' "hash-link", AnchorJS' "anchorjs-link", "permalink")
_PERMALINK_CLASS = re.compile(r"anchor|permalink|headerlink|hash-?link|head(?:er|ing)-?link", re.I)


def _is_permalink(a: Any) -> bool:
    """Is the link a permalink sign: a sign alone (``_ANCHOR_SIGNS``) that links
    into its own page or is classed as one? A "#" linking elsewhere is text
    (a table's sort link, a tag token in prose: both were lost). "§" also
    marks a footnote: it must link to the box it stands in."""
    sign = _text(a).replace("\ufe0f", "")
    if sign not in _ANCHOR_SIGNS:
        return False
    href = str(a.get("href") or "")
    if sign == "\u00a7":
        return href.startswith("#") and any(up.get("id") == href[1:] for up in a.parents)
    return href.startswith("#") or any(
        _PERMALINK_CLASS.search(str(c)) for c in a.get("class") or []
    )


def _notion_icons(soup: Any) -> int:
    """Drop the icons a Notion export marks as its page's and its callouts'
    (``<div class="page-header-icon">``; a callout's first box holding only
    its ``class="icon"``), and say how many. Read, the page's "⚔️" was a rule
    named after the file and a callout's "💡" a line of its rule. Only by
    that markup: a line of symbols alone elsewhere (a die's face "⚅" before
    its result, an icon legend's "⚔️", a card's "★★★") says something."""
    icons = soup.find_all(class_="page-header-icon")
    for callout in soup.find_all("figure", class_="callout"):
        first = callout.find(True)
        marked = "icon" in (first.get("class") or []) if first is not None else False
        if (
            first is not None
            and (marked or first.find(class_="icon") is not None)
            and not _WORD.search(first.get_text())
        ):
            icons.append(first)
    for icon in icons:
        icon.decompose()
    return len(icons)


def outline_of(data: bytes | str, *, fragment: bool = False) -> Outline:
    """The page's rules as an outline; ``fragment`` for raw HTML inside another
    document, where no element is the page's own banner or sidebar. ``data``
    is the page's text, or its bytes in UTF-8 or the charset it declares."""
    from bs4 import BeautifulSoup, Comment

    if isinstance(data, bytes):
        data = decode_page(data, "page")[0]
    soup = BeautifulSoup(data, "lxml")
    outline = Outline()
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    list_styles = _list_styles(soup)
    for tag in soup.find_all(_SCRIPTS):
        outline.dropped["scripts and styles"] += 1
        tag.decompose()
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
    for a in soup.find_all("a", href=True):
        if not a.decomposed and _is_permalink(a):
            a.decompose()  # after a term or a caption too: "Engagement¶"
    for tag in soup.find_all(True):
        if tag.decomposed:
            continue
        if _is_chrome(tag, fragment=fragment):
            outline.dropped["navigation, headers and footers"] += 1
            tag.decompose()
    # ARIA's heading (GitBook, Notion: <div role="heading" aria-level="3">) is a
    # heading of its level. Only with its level: a role alone marks a box's
    # title (a callout's "Tip"), which as an h2 swallowed the sections after it.
    for tag in soup.find_all(role=_HEADING_ROLE):
        level = _html_int(tag.get("aria-level"), 0)
        if tag.name not in _HEADINGS and level > 0:
            tag.name = f"h{min(level, 6)}"
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
    if not fragment and root.find(_HEADING_TAGS) is None:
        # (raw HTML in a Markdown file has its headings in the Markdown; a Word
        # or OpenDocument file's hand-made ones were found by its reader)
        _bold_headings(root, outline)
    walker = _Walker(outline, list_styles, _number_offset(root), fragment=fragment)
    walker.walk(root)
    walker.flush()
    return outline


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
    return build_units(
        outline,
        file=request.name,
        game=request.game,
        parser=parser,
        title_fixes=request.title_fixes,
        title=request.title,
    )


def read(data: bytes, request: ReadRequest) -> ParseResult:
    page, warnings = decode_page(data, request.name, request.encoding)
    outline = outline_of(page)
    outline.warnings[:0] = warnings
    if not outline.blocks:
        raise RulebookError(
            f"{request.name}: no text in the page (only navigation, scripts or styles)"
        )
    return build_units(
        outline,
        file=request.name,
        game=request.game,
        parser="html",
        title_fixes=request.title_fixes,
        title=request.title,
    )


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
