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
line, which no name in the list above covered.

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
    r"^(?:nav|navbar|navigation|menu|mainmenu|side-?bar|breadcrumbs?|site-?header|"
    r"site-?footer|footer|header|toc|tocs|table-of-contents|crosslinks(?:-\w+)?|"
    r"skip-?link|mw-editsection|mw-jump-link|mw-navigation|noprint|printfooter|"
    r"catlinks|navbox|sectiontocs?|pagination|[\w-]*cookie[\w-]*|cc-(?:window|banner)|"
    r"sitesub|contentsub|sitenotice|jump-to-nav|copyright|comments|comments-area|comment-list|"
    r"page-footer|theme-edit-this-page|theme-last-updated|"
    r"sharedaddy|related|related-(?:articles|posts|pages|links)|share(?:-\w+)?|"
    r"social(?:-\w+)?|ca-[a-z-]+|"
    # what the page itself leaves out of print (Bootstrap's and Tailwind's
    # utilities, the usual hand-written names): a site's menus, feedback
    # boxes and footers, never its text
    r"d-print-none|hidden-print|print:hidden|no-print|do-?not-?print|print-?hidden)$",
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
    if (
        named
        and all(n.lower().replace("-", "") in _PROSE_BOX_NAMES for n in named)
        and _in_rules(el)
    ):
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


# Share of the page's words the box around its last heading must hold to be
# the box its rules are in; what follows that box is the page's, not a rule's.
RULES_SHARE = 0.5


def _after_the_rules(root: Any) -> list[Any]:
    """The page's boxes after the box its rules are in: a wiki's tags, "page
    revision" line, edit bar and licence (Wikidot), a docs site's "Was this
    helpful?" and "Previous / Next" (GitBook), a login dialog; read, they
    ended the last rule. Not removed here: the caller drops them and counts.

    The rules' box is the innermost box around the page's last heading that
    holds at least ``RULES_SHARE`` of ``root``'s words: its headings and most
    of its text say it is the rules, and a rule's text lies inside it (a
    section runs to the end of its box). What comes after it, at every
    level up to ``root``, goes, unless any of it holds a heading, is a
    block of text that does not say what it is (``_bare_text``: a last
    paragraph of errata after an ``<article>``), or a box like the rules'
    own follows it (a book's next page: ``_alike``): then the rules go on
    past the box, and nothing is dropped. Nothing
    before the box is judged so: a title, a lead paragraph or an
    introduction stands there. Trade-off: a page whose rules end in text
    outside the box of its sections, with no heading of its own (an
    appendix in a box beside the chapters), loses that text; a page with
    fewer than two headings, or whose box holds too little of it, is read
    whole."""
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
        following = level.find_next_siblings(True)
        if any(_alike(level, el) for el in following):
            return []  # the rules run on in a box like their own (a book's next page)
        after.extend(following)
    if any(
        el.name in _HEADINGS or el.find(_HEADING_TAGS) is not None or _bare_text(el) for el in after
    ):
        return []
    return after


# Blocks of text as a rule's are written: after the rules' box with no class
# or id to say what they are, they are more of the rules ("Errata: none.")
_TEXT_BLOCKS = ("p", "ul", "ol", "dl", "table", "blockquote", "pre", "div")


def _bare_text(el: Any) -> bool:
    """Is ``el`` a block of text that does not say what it is (no class, no
    id), and is shown? A page's own boxes after its rules are named
    ("page-info", "page-tags", a theme's utility classes); a paragraph at
    the rules' level is text."""
    return (
        el.name in _TEXT_BLOCKS
        and not el.get("class")
        and not el.get("id")
        and not _HIDDEN.search(str(el.get("style") or ""))
        and _WORD.search(el.get_text(" ")) is not None
    )


# An inline style that hides its box (a login dialog kept for the script);
# not dropped for it, since a folded example or a tab's panel is hidden so too
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)


def _alike(box: Any, other: Any) -> bool:
    """Are two boxes of one kind: the same tag and classes, or both bare
    (no class, no id)? A page's boxes after its rules are each named for
    what they are; a book's pages, a wiki's sections, are alike."""
    if box.name != other.name:
        return False
    classes = (box.get("class") or [], other.get("class") or [])
    if classes[0] or classes[1]:
        return classes[0] == classes[1]
    return not box.get("id") and not other.get("id")


def _script_controls(soup: Any) -> int:
    """Drop the links that only run the page's script, standing alone in their
    block (Wikidot's "+ Show example" / "- Hide example" toggles, a "fold"
    link): a control, as a button is, not text. A script link inside a
    sentence (a footnote's mark) stays. How many."""
    found = 0
    for a in list(soup.find_all("a", href=True)):
        if a.decomposed or not str(a.get("href")).strip().lower().startswith("javascript:"):
            continue
        box = a.parent
        if box is not None and box.name in ("p", "div", "li") and _text(box) == _text(a):
            box.decompose()
            found += 1
    return found
