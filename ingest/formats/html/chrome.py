"""The page's chrome: what is not the rules, known by the page's own markup.

Navigation, headers, footers and asides outside the rules (``<main>``,
``role="main"``, ``<article>``, ``<section>``), ARIA navigation and dialog
roles, and the class names sites and wikis give menus, breadcrumbs, share
boxes and "[edit]" links (``_is_chrome``); never by name a heading or a
section, since documentation generators name a section after its heading,
and a table named as navigation only when it is mostly links; and the
classes that keep a box out of print (``d-print-none``), the page's own
word that the box is not its text. Also here: link-dense boxes
(``_link_dense``), permalinks (``_is_permalink``), a Notion export's icons
(``_notion_icons``), links that only run the page's script
(``_script_controls``), and what follows the box the rules are in
(``_after_the_rules``): a wiki's tags and edit bar, a docs site's feedback
line, which no name in the list above covered; and a post's byline and
datelines in its header or footer (``_bylines``), known by the standard
marks they carry (``<time>``, link types, schema.org properties).

Trade-off: markup, not rendering: a page that styles its menu as plain
paragraphs with no telling markup keeps it as text.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from ruleslawyer.ingest.formats.html.elements import (
    _HEADING_TAGS,
    _HEADINGS,
    _MAIN_ROLE,
    _SENTENCE_END,
    _WORD,
    _hidden,
    _runs_script,
    _text,
)

# Share of an aside's or footer's words inside links for it to be the page's
# links box, not a note: a share bar or "see also" list is nearly all links,
# a designer's note nearly none (readability's link density, as a bound).
LINK_SHARE = 0.5


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
    r"^(?:nav|navbar|navigation|menu|mainmenu|side-?bar|breadcrumbs?|site-?header|"
    r"site-?footer|footer|header|toc|tocs|table-of-contents|crosslinks(?:-\w+)?|"
    r"skip-?link|mw-editsection|mw-jump-link|mw-navigation|noprint|printfooter|"
    r"catlinks|navbox|sectiontocs?|pagination|[\w-]*cookie[\w-]*|cc-(?:window|banner)|"
    r"sitesub|contentsub|sitenotice|jump-to-nav|copyright|comments|comments-area|comment-list|"
    r"page-footer|theme-edit-this-page|theme-last-updated|"
    r"sharedaddy|related|related-(?:articles|posts|pages|links)|share(?:-\w+)?|"
    r"social(?:-\w+)?|ca-[a-z-]+)$",
    re.I,
)

# What the page itself leaves out of print (Bootstrap's and Tailwind's
# utilities, the usual hand-written names): a site's menus, feedback boxes and
# footers; chrome when it is links or holds a form's controls ("Was this page
# helpful? Yes / No"), since a screen-only tip may still be a rule's
_PRINT_HIDDEN = re.compile(
    r"^(?:d-print-none|hidden-print|print:hidden|no-print|do-?not-?print|print-?hidden)$", re.I
)
_CONTROLS = ("button", "input", "select", "textarea")

# ... but inside the rules (``<main>``, ``<article>``, ``<section>``) these
# name a box of the book's own, chrome only when it is mostly links
_PROSE_BOX_NAMES = frozenset({"sidebar", "header"})

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

# A heading's edit link as it reads: "[edit]", "edit", "[ edit source ]"
_EDIT_LINK = re.compile(r"^\[?\s*edit(?:\s+(?:source|section))?\s*\]?$", re.I)


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
            # its controls go by their own tags. Such a page need not have a
            # heading (a rules site's page of spans and <br>s): a form that
            # holds most of the page's words is the page too.
            return (
                el.find(_HEADING_TAGS) is None
                and el.find(["main", "article"]) is None
                and not _holds_the_page(el)
            )
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
    if (heading := el.find_parent(_HEADING_TAGS)) is not None:
        # In a heading an id is the heading's anchor (MediaWiki's headline
        # span); only a class names chrome there ("mw-editsection"), or an edit
        # link by what it says ("Altitude [edit]", whatever the wiki calls it).
        said = el.get_text(" ", strip=True)
        anchor = heading.get("id")
        if anchor and el.name == "a" and el.get("href") == f"#{anchor}":
            # a link to the heading itself is the heading's, whatever its class:
            # mdBook links every heading so, as <a class="header">, and dropped
            # as a page header, every heading of the book went
            return False
        if (
            (el.name == "a" or el.find("a") is not None)
            and _EDIT_LINK.match(said)
            and heading.get_text(" ", strip=True) != said
        ):
            return True  # (a heading that is only "Edit" is the rules' own)
        return any(_CHROME_NAME.match(n) for n in classes)
    if "section" in names and el.get("id") and el.get("id") == _heading_slug(el):
        # <div class="section" id="navigation"><h2>Navigation</h2> (older Sphinx,
        # pandoc): a section, named for its heading
        return False
    if any(_PRINT_HIDDEN.match(n) for n in names if n):
        return _link_dense(el) or el.find(_CONTROLS) is not None
    named = [n for n in names if n and _CHROME_NAME.match(n)]
    if (
        named
        and all(n.lower().replace("-", "") in _PROSE_BOX_NAMES for n in named)
        and _in_rules(el)
    ):
        # Inside the rules a "sidebar" box of prose is the book's (a designer's
        # sidebar, as tabletop books name a boxed aside), a "header" a
        # section's; the site's are mostly links
        return _link_dense(el)
    if (
        named
        and all(n.lower().replace("-", "") == "sidebar" for n in named)
        and not _has_rules_root(el)
        and el.find_previous(_HEADING_TAGS) is not None
        and el.find(_HEADING_TAGS) is None
    ):
        # On a page that marks no rules, a sidebar of prose after one of the
        # book's headings stands among its sections: the book's (a
        # designer's aside), unless it is links. The site's own comes
        # before them (a wiki's "side-bar", after its banner, whose heading
        # went with it) or holds headings of its own ("About me", "Archives").
        return _link_dense(el)
    return bool(named) or (
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


def _holds_the_page(el: Any) -> bool:
    """Does ``el`` hold most of its page's words, its controls' aside (a
    search box's form, a menu's "Jump to" list of options, holds a few)?"""
    root = el.find_parent("body") or el.find_parent("html")
    if root is None:
        return False
    controls = ("select", "option", "button", "label", "textarea")

    def words(box: Any) -> int:
        return sum(
            len(_WORD.findall(s)) for s in box.find_all(string=True) if not s.find_parent(controls)
        )

    return words(el) >= 0.5 * words(root)


def _link_dense(el: Any) -> bool:
    return _mostly_links([el])


def _mostly_links(boxes: list[Any], *, dates: bool = False) -> bool:
    """Are at least ``LINK_SHARE`` of the words of ``boxes``, all together, link
    text (or, with ``dates``, a date's: a ``<time>`` holding one)?"""
    words = sum(len(_WORD.findall(el.get_text(" "))) for el in boxes)
    marked = ["a", "time"] if dates else ["a"]
    linked = sum(
        len(_WORD.findall(a.get_text(" ")))
        for el in boxes
        for a in el.find_all(marked)
        if a.name == "a" or (_is_byline_mark(a) and a.find_parent("a") is None)
    )
    return words > 0 and linked >= LINK_SHARE * words


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


# Share of the page's words the box around its last heading must hold to be
# the box its rules are in.
RULES_SHARE = 0.5
# After the rules, always text: a table, an accordion's question and answer, a
# definition list, a quotation, a figure (a table's frame).
_ALWAYS_TEXT = ("table", "details", "dl", "blockquote", "pre", "figure")


def _after_the_rules(root: Any) -> list[Any]:
    """The page's boxes after the box its rules are in: a wiki's tags, "page
    revision" line, edit bar, footer and licence (Wikidot); read, they ended
    the last rule. Not removed here: the caller drops them and counts.

    The rules' box is the innermost box around the page's last heading that
    holds at least ``RULES_SHARE`` of ``root``'s words. What follows it, at
    every level up to ``root``, goes only when it is the page's own: named
    boxes (a class or an id) whose shown words are, all together, at least
    ``LINK_SHARE`` link text or dates (a ``<time>`` holding one), as a
    page's tags, tools, pager, "Last updated" line and footer are, with
    no heading, nothing that is always text (``_ALWAYS_TEXT``) and nothing
    hidden inside them (a folded rule). Anything else there means the rules
    go on past the box, and nothing goes: text loose between tags, a box
    like the rules' own (``_alike``: a book's next page), an unnamed
    paragraph, a box of short rule lines ("Move: 6 inches"). A box hidden
    by its style (a login dialog, a keyword's pop-up) stays where it is.
    Losing a rule costs more than a footer line kept, so the test leans to
    keeping: a docs site's "Was this helpful?" alone, mostly words, not
    links, stays, as do a blog's comments.
    """
    headings = root.find_all(_HEADING_TAGS)
    if len(headings) < 2:
        return []
    total = len(_WORD.findall(root.get_text(" ")))
    box = headings[-1].parent
    while box is not None and box is not root:
        if len(_WORD.findall(box.get_text(" "))) >= RULES_SHARE * total:
            break
        box = box.parent
    if box is None or box is root:
        return []
    after: list[Any] = []
    for level in [box, *box.parents]:
        if level is root:
            break
        for sibling in level.next_siblings:
            if not hasattr(sibling, "find_all"):  # a string between the tags
                if _WORD.search(str(sibling)):
                    return []
                continue
            if _alike(level, sibling):
                return []
            if _WORD.search(sibling.get_text(" ")) and not _hidden(sibling):
                after.append(sibling)
    if not after or not all(_the_pages(el) for el in after):
        return []
    return after if _mostly_links(after, dates=True) else []


def _before_the_rules(root: Any) -> list[Any]:
    """What stands before ``root``'s first heading when it is nothing but links:
    a hand-made page's "<< back to the rules index", a breadcrumb or a
    "Download the PDF" line with no telling markup. Read, each was a rule
    named after the file, and quoted. Not removed here: the caller drops
    them and counts.

    Only when every word before the first heading is link text (a link that
    leads somewhere: not an in-page anchor, not an empty ``href``), none of
    it is inside what is always text (``_ALWAYS_TEXT``: a table, a
    definition list, a quotation; a layout table's menu cell is the
    walker's) or a list (the stratagems a page opens with; a menu in a
    list is chrome by its markup or not at all), no link reads as a
    sentence (it ends in ".", "!" or "?") and no comma lists the links as
    terms (a datasheet's "Infantry, Core, Raider"). One word of text there
    ("A unit that <a>Advanced</a> this turn cannot shoot.", "The following
    abilities are Core:") and the page opens with its rules: nothing goes.
    What goes is each link's outermost box before the heading.
    """
    # (imported here, as the other passes import it: the CLI imports the
    # readers, and bs4 with lxml would add ~85 ms to every `ask`'s start)
    from bs4 import NavigableString

    first = root.find(_HEADING_TAGS)
    if first is None:
        return []
    above = {id(a) for a in first.parents}  # the boxes holding the heading
    boxes: list[Any] = []
    for string in first.find_all_previous(string=True):
        if type(string) is not NavigableString:
            continue  # a comment, a doctype
        if not any(p is root for p in string.parents):
            # before the box the rules are read from (the page's <title>: its
            # "Rules, v2" or "Ch. 3" is no text of the rules and must not stop this)
            break
        link = string.find_parent("a")
        if link is None and ("," in string or _SENTENCE_STOP.search(string)):
            # terms listed ("Infantry, Core, Raider": a datasheet's keywords), or
            # a linked sentence's full stop after its link (hidden too: a
            # keyword's pop-up is read as rules, see ``_hidden``)
            return []
        if not _WORD.search(string):
            continue  # a string of signs between links ("»", "/", "|")
        if _hidden(string.parent):
            continue
        href = str(link.get("href") or "").strip() if link is not None else ""
        if (
            not href
            # a link around the heading (an unclosed "<a>Back" before the title
            # holds the whole page): the rules, not a link before them
            or id(link) in above
            or href.startswith("#")
            or string.find_parent((*_ALWAYS_TEXT, "li")) is not None
            # a link whose text ends as a sentence does ("Read the rules first.")
            or _text(link).rstrip("\"'\u201d\u2019)").endswith(_SENTENCE_END)
        ):
            return []
        box: Any = link  # not None: it has an href
        while box.parent is not None and box.parent is not root and id(box.parent) not in above:
            box = box.parent
        if not any(box is b for b in boxes):
            boxes.append(box)
    return boxes


def _the_pages(el: Any) -> bool:
    """Could ``el``, after the rules, be the page's own: named (a class or an
    id), holding no heading, nothing that is always text (``_ALWAYS_TEXT``)
    and nothing hidden (a fold's rule)?"""
    if not (el.get("class") or el.get("id")) or el.name in _HEADINGS or el.name in _ALWAYS_TEXT:
        return False
    return not any(
        t.name in _HEADINGS or t.name in _ALWAYS_TEXT or (_hidden(t) and _WORD.search(t.get_text()))
        for t in el.find_all(True)
    )


# a number in an id: "page2-div", "page3-div" name one kind of box
_DIGITS = re.compile(r"\d+")


def _alike(box: Any, other: Any) -> bool:
    """Are two boxes of one kind: the same tag, and a class in common, ids
    alike but for their numbers, or neither named? A page's boxes after its
    rules are each named for what they are; a book's pages ("page",
    "page last-page"; "page2-div", "page3-div"), a wiki's sections, are
    alike."""
    if box.name != other.name:
        return False
    classes = (set(box.get("class") or ()), set(other.get("class") or ()))
    if classes[0] & classes[1]:
        return True
    ids = (str(box.get("id") or ""), str(other.get("id") or ""))
    if all(ids) and _DIGITS.search(ids[0]) and _DIGITS.sub("", ids[0]) == _DIGITS.sub("", ids[1]):
        return True
    return not any(classes) and not any(ids)


# the sign a toggle's label opens with, a space after it: "+ Show example",
# "- Hide", "▸ Details" (not the minus of "-1 to hit")
_TOGGLE_SIGN = re.compile(r"^\s*(?:\[[+-]\]|[+\-\u2212\u25b8\u25b6\u25ba\u25be\u25bc](?=\s))\s*")
# the most words a fold's "hide" link has ("- Hide example")
TOGGLE_WORDS = 4


def _script_controls(soup: Any) -> int:
    """A fold made of links that only run the page's script (Wikidot's
    collapsible blocks: "+ Show example" alone in its box, then the hidden
    box it unfolds, which opens with "- Hide example" alone in a box of its
    own before what it hides): the link that hides is a control and goes;
    the one that shows names what it unfolds, and stays a line without its
    sign ("Optional rule: Strafing runs"). Only the pair is a fold: any
    other script link stays as it is (an army builder's link, or a hidden
    list of them, may be a rule's whole text; a dice roller's "- Roll 2D6"
    before its hidden result). Everything is decided before anything goes.
    How many went."""

    def alone(a: Any) -> Any:
        box = a.parent
        fits = box is not None and box.name in ("p", "div", "li") and _text(box) == _text(a)
        return box if fits and _runs_script(a) else None

    scripted = [(box, a) for a in soup.find_all("a", href=True) if (box := alone(a)) is not None]
    hides: dict[int, Any] = {}  # id of the hidden fold -> its "hide" link's box
    for box, a in scripted:
        fold = box.parent
        if (
            box.name == "div"
            and fold is not None
            and _hidden(fold)
            and box.find_previous_sibling(True) is None
            and box.find_next_sibling(True) is not None
            and len(_text(a).split()) <= TOGGLE_WORDS
        ):
            hides[id(fold)] = box
    shows = [
        (box, a)
        for box, a in scripted
        if id(box.find_next_sibling(True)) in hides  # shows the fold after it
    ]
    folds = {id(box.find_next_sibling(True)) for box, _ in shows}
    for box, a in shows:
        label = _TOGGLE_SIGN.sub("", _text(a))
        box.clear()
        box.append(label)
    gone = [box for fold, box in hides.items() if fold in folds]
    for box in gone:
        box.decompose()
    return len(gone)


# What marks a post's byline and dates by standard, not by any one site's
# names: a <time> holding a date, the link types a post's author, tags and
# permalink take ("author", "tag", "category", "bookmark"), and schema.org's
# author and date properties (Jekyll, WordPress, Ghost and Blogger use some
# of them).
_BYLINE_RELS = frozenset({"author", "tag", "category", "bookmark"})
_BYLINE_PROPS = frozenset({"author", "creator", "datepublished", "datemodified", "datecreated"})
# a date as <time datetime> gives it ("2024-01-03", "2024-01"), not a
# duration ("PT45M") or a clock time ("14:00") that a scenario's rules give
_DATE_VALUE = re.compile(r"^\s*\d{4}-\d{2}")
# The most words a byline or dateline box holds ("Published January 3, 2024
# By Mara Quill / Categorized as Rules Tagged melee" is 13)
BYLINE_WORDS = 30
# The boxes a byline may be. The walk up from a mark passes inline elements
# and a list's items (a list goes whole or not at all) and stops at any
# other box; and the byline must be in a <header> or <footer>, which hold a
# post's or a section's title and "who wrote it" (the HTML standard's words).
_BYLINE_BOXES = ("p", "div", "header", "footer", "ul", "ol", "dl")
_PASSED = frozenset(
    {"span", "a", "abbr", "small", "b", "i", "em", "strong", "time", "sup", "sub", "data",
     "li", "dt", "dd"}
)  # fmt: skip
# a sentence's stop anywhere in a text (elements' _SENTENCE_END: only at its end):
# a byline's words, or a linked sentence's full stop after its link
_SENTENCE_STOP = re.compile(r"[.!?](?:\s|$)")


def _is_byline_mark(el: Any) -> bool:
    if el.name == "time":
        return bool(_DATE_VALUE.match(str(el.get("datetime") or "")))
    rels = {str(r).lower() for r in el.get("rel") or ()} if el.name == "a" else set()
    props = {p.lower() for p in str(el.get("itemprop") or "").split()}
    return bool(rels & _BYLINE_RELS) or bool(props & _BYLINE_PROPS)


def _is_byline(box: Any) -> bool:
    """Is ``box`` a byline or dateline ("Jan 3, 2024 • Mara Quill", "Last
    updated 3 days ago", "Published ... By Mara Quill"): a short box
    (``BYLINE_WORDS``), no table in it, whose words are at least half inside
    its marks (``_is_byline_mark``) or links, and whose own words make no
    sentence ("Errata issued on <time>3 Jan</time>." is a rule's)? A box
    holding a heading is one only after its post's title (Ghost sets the
    author's name as a heading; a blog's list of posts titles each with a
    link, before its dateline)."""
    words = _WORD.findall(_text(box))
    if not words or len(words) > BYLINE_WORDS or box.find("table") is not None:
        return False
    own = copy.copy(box)  # the box with its marks' and links' words taken out
    for el in own.find_all(True):
        if _is_byline_mark(el) or el.name == "a":
            el.clear()
    left = _text(own)
    if _SENTENCE_STOP.search(left):
        return False
    if box.find(_HEADING_TAGS) is not None:
        # the post around it (past a <section> that is only the byline, Ghost's)
        scope = next(
            (
                up
                for up in box.find_parents(["article", "section", "main", "body"])
                if len(_WORD.findall(_text(up))) > len(words)
            ),
            None,
        )
        if scope is None or not any(
            scope in h.parents for h in box.find_all_previous(_HEADING_TAGS)
        ):
            return False
    return len(words) - len(_WORD.findall(left)) >= LINK_SHARE * len(words)


def _bylines(soup: Any) -> int:
    """Drop each post's byline and datelines: from each mark up, the largest
    box that is one (``_is_byline``), inside a <header> or <footer>; how many
    went. Read, they were the first or the last rule's text ("...flees.
    Published January 3, 2024 By Mara Quill"), and an author's name set as a
    heading took the post's first rule for its own. A mark in a box that is
    no byline (a rule's sentence, a list of dates) stays."""
    gone: list[Any] = []
    for mark in soup.find_all(_is_byline_mark):
        if any(g in mark.parents for g in gone):
            continue
        best = None
        for box in mark.parents:
            if box.name in _PASSED:
                continue
            if box.name not in _BYLINE_BOXES or not _is_byline(box):
                break
            best = box
        if best is not None and (
            best.name in ("header", "footer") or best.find_parent(["header", "footer"]) is not None
        ):
            gone.append(best)
    dropped = 0
    for box in gone:
        if not box.decomposed:  # (not inside a byline already gone)
            box.decompose()
            dropped += 1
    return dropped


# Word's "Save as Web Page" marks its page header and footer with a style
# (mso-element:header, :footer) and its contents with the styles it writes
# them in (MsoToc1-9, and "TOC Heading")
_WORD_PAGE_PART = re.compile(r"mso-element\s*:\s*(?:header|footer)\b", re.I)
_WORD_CONTENTS = re.compile(r"^MsoToc(?:\d|Heading)$", re.I)


def _word_furniture(soup: Any) -> tuple[int, int]:
    """Drop a Word web page's own header and footer boxes and its contents
    lines, by Word's own marks, which no other page writes: (boxes, lines).
    Kept inline, the header read as the first rule ("Rulebook v2.3 - DRAFT"),
    the footer ("(c) 2026 Brasswick Games - Page 1") as the last rule's end,
    and the contents ("3.5 Hand Limit.") answered "What is the hand limit?"."""
    boxes = [t for t in soup.find_all(style=_WORD_PAGE_PART) if t.name in ("div", "p")]
    for box in boxes:
        box.decompose()
    lines = [
        t for t in soup.find_all(["p", "div", "li"], class_=_WORD_CONTENTS) if not t.decomposed
    ]
    for line in lines:
        line.decompose()
    return len(boxes), len(lines)
