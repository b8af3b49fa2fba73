"""The page's chrome: what is not the rules, known by the page's own markup.

Navigation, headers, footers and asides outside the rules (``<main>``,
``role="main"``, ``<article>``, ``<section>``), ARIA navigation and dialog
roles, and the class names sites and wikis give menus, breadcrumbs, share
boxes and "[edit]" links (``_is_chrome``); never by name a heading or a
section, since documentation generators name a section after its heading,
and a table named as navigation only when it is mostly links. Also here:
link-dense boxes (``_link_dense``), permalinks (``_is_permalink``) and a
Notion export's icons (``_notion_icons``).

Trade-off: markup, not rendering: a page that styles its menu as plain
paragraphs with no telling markup keeps it as text.
"""

from __future__ import annotations

import re
from typing import Any

from ruleslawyer.ingest.formats.html.elements import (
    _HEADING_TAGS,
    _HEADINGS,
    _MAIN_ROLE,
    _WORD,
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
    named = [n for n in names if n and _CHROME_NAME.match(n)]
    if named and all(n.lower() in _PROSE_BOX_NAMES for n in named) and _in_rules(el):
        # Inside the rules a "sidebar" box of prose is the book's (a designer's
        # sidebar, as tabletop books name a boxed aside), a "header" a
        # section's; the site's are mostly links
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
    words = len(_WORD.findall(el.get_text(" ")))
    linked = sum(len(_WORD.findall(a.get_text(" "))) for a in el.find_all("a"))
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
