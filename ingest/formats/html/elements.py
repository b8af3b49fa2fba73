"""What the HTML reader's stages read an element by: its text, its anchors, and the tags and words it is judged by.

``_text`` gives an element's text as a browser shows it (block children
apart, inline ones run together, ``<br>`` as a line break where lines are
kept); ``_anchors`` and ``_first_text_child`` find what a link points at
and what an element opens with (for contents and footnotes). The heading
tags and the sentence ends here are the ones the chrome, contents,
headings and walker stages test against, so they agree on what a heading
or a sentence is.
"""

from __future__ import annotations

import re
from typing import Any

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_HEADING_TAGS = tuple(_HEADINGS)

# Words for one description in a <dl> to count as a sentence (a glossary's
# definitions are sentences; a stat block's values a word or two).
DEFINITION_WORDS = 6

BLOCK_END_DEPTH = 8  # how deep _text looks for a block ending just before a word

_SENTENCE_END = (".", "!", "?")

_WORD = re.compile(r"\w+")  # a word for link density: "Fighting, Moving" is two

# ARIA role tokens are compared case-insensitively by browsers: role="Main" is main.
_MAIN_ROLE = re.compile(r"^main$", re.I)

# Elements whose start separates words: "inches.<br>Then", "<li><p>one</p><p>two</p>".
_BREAKS = frozenset(
    {"br", "p", "div", "li", "tr", "td", "th", "dd", "dt", "ul", "ol", "table", "blockquote",
     "section", "article", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "figcaption", "caption"}
)  # fmt: skip


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
            if lines and before.name == "summary":
                # a toggle's title is a line of its own: "Effects", then its text
                parts.append(_LINE)
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


def _first_text_child(el: Any) -> Any:
    """The first child of ``el`` that holds words."""
    for child in el.children:
        text = child if isinstance(child, str) else child.get_text()
        if text.strip():
            return child
    return None


_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_RULE = re.compile(r"([^{};]+)\{([^{}]*)\}")  # a rule's selectors and declarations


def _css_rules(soup: Any) -> list[tuple[str, str]]:
    """The page's own style sheets as (selectors, declarations), in order: a
    small reading of CSS for the stages that read a class's rule (lists'
    numbering, bold lines), not a style engine."""
    return [
        rule
        for sheet in soup.find_all("style")
        for rule in _CSS_RULE.findall(_CSS_COMMENT.sub("", sheet.get_text()))
    ]


# An inline style that hides its box: a login dialog kept for the page's
# script, a folded example, a tab's other panels
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.I)


def _hidden(el: Any) -> bool:
    """Is ``el`` hidden by its own markup (``hidden``, ``display: none``)?"""
    return el.has_attr("hidden") or bool(_HIDDEN_STYLE.search(str(el.get("style") or "")))


def _runs_script(a: Any) -> bool:
    """Does link ``a`` only run the page's script (``href="javascript:..."``)?"""
    return str(a.get("href") or "").strip().lower().startswith("javascript:")
