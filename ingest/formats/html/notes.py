"""Footnotes placed after the paragraph that cites them (``_place_footnotes``).

A page's notes (short texts a mark in the text links to, each linking
back to its mark) go after the first block that cites each, as "[1] text",
the mark in the text written "[1]", as the PDF and Markdown readers write
them, so a quote carries its note. A link that only runs a script naming
one element of the page by id links to that element (``_script_links``:
Wikidot's marks and links back), and a box of notes left with only its
title once its notes have gone ("Footnotes") goes too.

Trade-off: a note is known by its links both ways, not by a tool's names:
a target that is or holds a heading (a section), a box of all the notes,
and a note whose mark no block can take stay where the page has them.
"""

from __future__ import annotations

import re
from typing import Any

from ruleslawyer.ingest.formats.html.elements import (
    _anchors,
    _first_text_child,
    _runs_script,
    _text,
)

# what a note's link back leaves before its text when it goes: docutils'
# "[<a>1</a>]" leaves "[]", Wikidot's "<a>1</a>. text" a full stop
_LEADING_EMPTY_BRACKETS = re.compile(r"^(?:\[\s*\]|[.)](?=\s))\s*")
# the most words a box of notes keeps once its notes have gone (its title,
# "Footnotes") for it to go too
TITLE_WORDS = 3
# what such a box is: never a table's cell or a list's item, whose row or list
# would lose its place
_NOTE_BOXES = ("div", "ol", "ul", "dl", "aside")

# A footnote's mark as its link reads: "1", "[1]", "a", "iv", "*", "†".
_NOTE_MARK = re.compile(r"^\[?(\d{1,3}|[a-z]|[ivxl]{1,5}|[*\u2020\u2021\u00a7]{1,3})\]?$")
# ... and, raised (in a <sup>), "1)" or "(1)", as DokuWiki marks its notes: on
# the line, that is a list's label or a step linking to another
_RAISED_MARK = re.compile(r"^\(?(\d{1,3})\)$")
_NOTE_BODIES = ("li", "p", "dd", "div", "aside")  # what holds a footnote's text

# What a footnote never is, nor holds: a section of the rules.
_NOT_NOTES = ("h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "main", "body", "html")
MAX_NOTE_CHARS = 3000  # the longest box taken whole as one footnote

# What a footnote goes after: the block its mark sits in.
_NOTE_ANCHORS = ("p", "li", "dd", "dt", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "div")


# a quoted name in a script call: WIKIDOT.page.utils.scrollToReference('footnote-1')
_QUOTED = re.compile(r"""["']([\w:.-]+)["']""")


def _script_links(soup: Any) -> None:
    """Make a link that only runs a script (``href="javascript:;"``) a link to
    the element of the page its script names by id, where it names one
    (Wikidot's footnote marks and their links back scroll so: ``onclick=
    "...scrollToReference('footnote-1')"``), so its notes are known by
    their links both ways as any page's are. One named id, or none: a call
    naming two ids says nothing of which one it goes to."""
    ids = {str(t.get("id")) for t in soup.find_all(id=True)}
    for a in soup.find_all("a", href=True, onclick=True):
        if not _runs_script(a):
            continue
        named = {n for n in _QUOTED.findall(str(a.get("onclick"))) if n in ids}
        if len(named) == 1:
            a["href"] = f"#{named.pop()}"


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
    _script_links(soup)
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
    holders: list[Any] = []  # the boxes the moved notes were in
    for ref in soup.find_all("a", href=True):
        if id(ref) in gone:  # a note's link back, gone with its note
            continue
        href = ref.get("href")
        said = _text(ref)
        mark = _NOTE_MARK.match(said) or (
            _RAISED_MARK.match(said) if ref.find_parent("sup") is not None else None
        )
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
        holders.append(body.parent)
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
    # A box of notes left with only its title ("Footnotes") goes too: a
    # heading's stays, and titles its own empty section, which is dropped.
    for box in holders:
        if (
            id(box) not in gone
            and box.parent is not None
            and box.name in _NOTE_BOXES
            and box.find(_NOT_NOTES) is None
            and len(_text(box).split()) <= TITLE_WORDS
        ):
            gone.update(map(id, box.descendants))
            gone.add(id(box))
            box.decompose()
    return moved
