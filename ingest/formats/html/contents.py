"""A book's own table of contents, left out and reported (``_drop_contents``).

A contents list is known by what its links point at and where it sits, not
by its name or language: three or more consecutive entries whose links go
to headings of the page below it, each entry naming its heading
(``names_heading``), perhaps with a page number. The Markdown reader reads
its contents the same way, with ``anchor_key``, ``names_heading``,
``label_line``, ``CONTENTS_TAIL`` and ``MIN_CONTENTS_ENTRIES`` from here.

Trade-off: a list of links to sibling sections alone under a heading reads
as contents, since nothing but the heading's words tells the two apart.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import pairwise
from typing import Any
from urllib.parse import unquote

from ruleslawyer.ingest.formats.html.elements import (
    _HEADING_TAGS,
    _HEADINGS,
    _SENTENCE_END,
    BLOCK_END_DEPTH,
    _anchors,
    _first_text_child,
    _text,
)

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
