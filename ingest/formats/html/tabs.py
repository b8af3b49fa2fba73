"""Tabbed panels: each panel's text read under its tab's label.

A rules wiki shows a rule's editions or variants as tabs ("First edition",
"Second edition"), a docs site its game modes ("Standard game", "Veteran
game"). On the page only one panel shows at a time, under its label; read
as text, the labels came first as a list and the panels' rules after them,
so an answer quoted two contradicting rules with nothing to tell them
apart. Here each panel opens with its label ("First edition:") and the row
of labels is dropped.

A panel is known by ARIA (``role="tabpanel"``) or by the classes of the
toolkits that write tabs without it: Bootstrap's ``tab-pane``, MkDocs
Material's ``tabbed-block``, Fandom's ``wds-tab__content``, MediaWiki's
Tabber ``tabbertab``. Its label, in that order: the element its
``aria-labelledby`` names; the tab that points at its ``id``
(``aria-controls``, ``href="#id"``); its own ``title`` or ``data-title``
(Tabber); else the label in the same place in its tab set's row of labels
(``role="tablist"``, or the toolkit's row), when the row has as many labels
as the set has panels. A set with neither ARIA nor a known class is known
by its shape (``_shaped_sets``): a box holding only a list of short labels
and, after it, a box of as many boxes, one label marked as chosen and one
panel shown (Wikidot's YUI tabs, Wiki.js's tabsets). Trade-off: tabs of
another shape, with no ARIA and no known class, read as before.
"""

from __future__ import annotations

import re
from typing import Any

from ruleslawyer.ingest.formats.html.elements import _WORD, _hidden, _text

# a panel's class in toolkits that write no ARIA
_PANEL_CLASSES = frozenset({"tab-pane", "tabbed-block", "wds-tab__content", "tabbertab"})
# a row of tab labels: its class there, or ARIA's tablist
_ROW_CLASSES = frozenset({"nav-tabs", "tabbed-labels", "wds-tabs", "tabbernav"})
_TAB_ROLE = re.compile(r"^tab$", re.I)
_TABLIST_ROLE = re.compile(r"^tablist$", re.I)
_PANEL_ROLE = re.compile(r"^tabpanel$", re.I)
# what one label is inside a row: ARIA's tab, a list item, a <label>
_LABEL_TAGS = ("li", "label")


def _classes(el: Any) -> set[str]:
    return set(el.get("class") or ())


def _is_panel(el: Any) -> bool:
    return bool(_PANEL_ROLE.match(str(el.get("role") or ""))) or bool(_classes(el) & _PANEL_CLASSES)


def _is_row(el: Any) -> bool:
    return bool(_TABLIST_ROLE.match(str(el.get("role") or ""))) or bool(_classes(el) & _ROW_CLASSES)


def _row_labels(row: Any) -> list[str]:
    tabs = row.find_all(role=_TAB_ROLE) or row.find_all(_LABEL_TAGS)
    # a label inside another (an <li> holding a <label>) counts once
    outer = [t for t in tabs if not any(p in tabs for p in t.parents)]
    return [" ".join(_text(t).split()) for t in outer]


def _own_label(panel: Any, soup: Any) -> str:
    """A panel's label from its markup: ARIA, a tab pointing at it, its title."""
    for ref in str(panel.get("aria-labelledby") or "").split():
        found = soup.find(id=ref)
        if found is not None and _text(found).strip():
            return " ".join(_text(found).split())
    pid = panel.get("id")
    if pid:
        tab = soup.find(attrs={"aria-controls": pid}) or soup.find("a", href=f"#{pid}")
        if tab is not None and _text(tab).strip():
            return " ".join(_text(tab).split())
    return " ".join(str(panel.get("title") or panel.get("data-title") or "").split())


# the most words a tab's label has, in a set known by its shape alone
LABEL_WORDS = 5


def _shaped_sets(soup: Any) -> None:
    """Mark as tabs (ARIA's roles) the sets known only by their shape: a box
    whose only parts are a bulleted list of N >= 2 short labels and then a
    box of exactly N boxes, one label marked as the one chosen (a class the
    others lack: "selected", "is-active") and the panel in its place the one
    shown (the rest hidden by their style), or marked as chosen too. Without
    them it is a list before some boxes (a unit card's keywords over its
    profile, one keyword and one stat line classed apart), not tabs."""
    for row in soup.find_all("ul"):
        holder = row.parent
        parts = holder.find_all(True, recursive=False) if holder is not None else []
        if len(parts) != 2 or parts[0] is not row or _is_row(row):
            continue
        if any(_WORD.search(str(s)) for s in holder.find_all(string=True, recursive=False)):
            continue  # text of its own beside the list: not a tab set's box
        items = row.find_all("li", recursive=False)
        boxes = parts[1].find_all(True, recursive=False)
        if (
            len(items) >= 2
            and len(boxes) == len(items)
            and all(0 < len(_text(i).split()) <= LABEL_WORDS for i in items)
            and all(b.name == "div" and _text(b).strip() for b in boxes)
            and not any(_is_panel(b) for b in boxes)
            and (chosen := _chosen(items)) is not None
            and chosen == _shown(boxes)
        ):
            row["role"] = "tablist"
            for box in boxes:
                box["role"] = "tabpanel"


def _chosen(parts: list[Any]) -> int | None:
    """The place of the one part of ``parts`` carrying a class none of the
    others has (the chosen tab: "selected", "is-active"), the others all
    alike; None if there is no such one part."""
    names = [_classes(p) for p in parts]
    own = [
        n - set().union(*(m for j, m in enumerate(names) if j != i)) for i, n in enumerate(names)
    ]
    chosen = [i for i, o in enumerate(own) if o]
    others = [n for n, o in zip(names, own, strict=True) if not o]
    if len(chosen) != 1 or any(n != others[0] for n in others):
        return None
    return chosen[0]


def _shown(panels: list[Any]) -> int | None:
    """The place of the one panel shown: the only one not hidden by its
    style, else the only one marked as chosen (a class the others lack)."""
    shown = [i for i, p in enumerate(panels) if not _hidden(p)]
    return shown[0] if len(shown) == 1 else _chosen(panels)


def label_tab_panels(soup: Any) -> int:
    """Put each tab panel's label before its text and drop the rows of labels
    (see the module docstring); how many rows were dropped."""
    _shaped_sets(soup)
    panels = soup.find_all(_is_panel)
    if not panels:
        return 0
    labels = {id(p): _own_label(p, soup) for p in panels}
    rows = [r for r in soup.find_all(_is_row) if r.find_parent(_is_row) is None]
    sets: list[tuple[Any, list[Any]]] = []  # (row, its panels in order)
    for row in rows:
        # the set: the nearest element holding the row and a panel
        holder = next((up for up in row.parents if up.find(_is_panel) is not None), None)
        if holder is None:
            continue
        own = [
            p
            for p in holder.find_all(_is_panel)
            # not a panel of a set nested inside this one
            if next((up for up in p.parents if up.find(_is_row) is not None), None) is holder
        ]
        sets.append((row, own))
        names = _row_labels(row)
        if len(names) == len(own) and not all(labels[id(p)] for p in own):
            for p, name in zip(own, names, strict=True):
                labels[id(p)] = labels[id(p)] or name
    labelled = [p for p in panels if labels[id(p)]]
    for panel in labelled:
        line = soup.new_tag("p")
        label = labels[id(panel)]
        line.string = label if label.endswith((":", ".", "?", "!")) else f"{label}:"
        panel.insert(0, line)
    # a row goes once its panels say what it said (else it is all there is)
    dropped = 0
    for row, own in sets:
        if own and all(labels[id(p)] for p in own):
            row.decompose()
            dropped += 1
    return dropped
