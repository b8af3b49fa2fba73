"""Ordered lists numbered as a browser numbers them.

An ``<ol>``'s numbering comes from its inline style, its class's rule in
the page's style sheet (``list-style-type``, or a ``::before`` counter with
its prefix and suffix: "(a)", "1)"), docutils' classes, or its ``type``
(``_list_styles``, ``_list_style``); ``list_number`` writes a number in one
of the five kinds (1, a, A, i, I), and the Word and OpenDocument readers
number their lists with it too.

Trade-off: a small reading of CSS (the one class of a selector's last
compound, or of the one before its ``li``), not a style engine: a list
styled only by an id or an attribute selector is numbered by its ``type``.
"""

from __future__ import annotations

import re
from typing import Any

from ruleslawyer.ingest.formats.html.elements import _css_rules

# How a list is numbered, as CSS names it; docutils' classes for the same
# (Sphinx's pages number by them from a style sheet of their own, not in the page)
_CSS_LIST_KINDS = {
    "decimal": "1", "lower-alpha": "a", "lower-latin": "a", "upper-alpha": "A",
    "upper-latin": "A", "lower-roman": "i", "upper-roman": "I", "none": "none",
}  # fmt: skip
_DOCUTILS_LIST_KINDS = {
    "arabic": "1", "loweralpha": "a", "upperalpha": "A", "lowerroman": "i", "upperroman": "I"
}  # fmt: skip
_CSS_LIST_TYPE = re.compile(r"list-style(?:-type)?\s*:\s*([^;}]*)", re.I)
_CSS_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_CSS_CONTENT = re.compile(r"(?<![\w-])content\s*:\s*([^;]*)", re.I)

# a "content" value's pieces: strings, and counters (with the style they show)
_CSS_PIECE = re.compile(r'"([^"]*)"|\'([^\']*)\'|counter\(\s*[\w-]+\s*(?:,\s*([\w-]+)\s*)?\)')


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

ListStyle = tuple[str, str | None, str | None]  # kind (1, a, A, i, I), prefix, suffix


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
    for selectors, declarations in _css_rules(soup):
        style = _declared_list_style(declarations)
        if style is None:
            continue
        for selector in selectors.split(","):
            name = _styled_list_class(selector)
            # "list-style-type: none" hides the browser's marker, not one the
            # page draws itself (Google Docs: a counter in li:before)
            if name is not None and not (style[0] == "none" and name in styles):
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
