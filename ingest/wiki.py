"""Parser for wiki-style clarification pages (the Warmachine rulings page).

Structure is carried by indentation and list markers:

- ``Category:...`` lines and ``(Edit)``/``[Show/Hide]`` links are furniture;
- a line with ``(Edit)`` and no bullet is the page title (the units' parent);
- a bulleted line with ``(Edit)`` opens a section; a short unbulleted line
  without a full stop opens a subsection;
- numbered items (``1.``) and bullets are rulings; anything indented deeper
  than the ruling above it (sub-bullets, "(Although ...)" notes) belongs to it.

IDs are what a player would say: ``Any Time abilities 2`` for the second
numbered restriction, ``Any Time abilities note 1`` for a bullet after the
numbered list, ``Units with Any Time abilities 3`` for a bullet in a
subsection. "Restrictions on" and quote marks are dropped from section names
because players do not say them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ruleslawyer.ingest.units import ParseResult, build_unit, short_title

_EDIT = re.compile(r"\s*(?:\(Edit\)|\[Show/Hide\])")
_NUMBERED = re.compile(r"^(\s*)(\d{1,2})\.\s+\S")
_BULLET = re.compile(r"^(\s*)[\u2022*\-]\s+\S")
_PREFIX = re.compile(r"^(?:Restrictions|Rules|Clarifications?|Rulings?) (?:on|for|about) ", re.I)


def looks_like_wiki(text: str) -> bool:
    return len(re.findall(r"(?m)^\s*(?:\u2022|\d{1,2}\.)\s", text)) >= 4


def section_id(raw: str) -> str:
    name = _EDIT.sub("", raw).strip().lstrip("\u2022*- ").strip()
    name = _PREFIX.sub("", name)
    name = re.sub(r"[\"\u201c\u201d']", "", name)
    return " ".join(name.split())


@dataclass
class _Item:
    rule_id: str
    start: int
    end: int
    indent: int
    parent: str = ""


def parse_wiki(text: str, *, file: str, game: str, parent: str) -> ParseResult:
    result = ParseResult(parser="wiki")
    page = parent
    base = ""
    numbered_seen = False
    count = 0
    notes = 0
    items: list[_Item] = []
    pos = 0
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        stripped = line.strip()
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        current = items[-1] if items else None
        if stripped.startswith("Category:"):
            result.furniture.append((start, end, "wiki category"))
            continue
        if "(Edit)" in stripped and not _BULLET.match(line):
            page = re.sub(r"\s+:", ":", " ".join(_EDIT.sub("", stripped).split()))
            result.furniture.append((start, end, "page title"))
            continue
        if "(Edit)" in stripped:
            base, numbered_seen, count, notes = section_id(stripped), False, 0, 0
            result.furniture.append((start, end, "section heading"))
            continue
        if (
            current
            and indent > current.indent
            and not (_NUMBERED.match(line) and indent <= current.indent + 1)
        ):
            current.end = end  # sub-bullet or note of the ruling above
            continue
        where = f"{page}: {base}" if base else page
        num = _NUMBERED.match(line)
        if num:
            numbered_seen = True
            items.append(_Item(f"{base} {num.group(2)}".strip(), start, end, indent, where))
            continue
        if _BULLET.match(line):
            if stripped.endswith(":") and not numbered_seen and count == 0:
                items.append(_Item(base or short_title(stripped), start, end, indent, where))
            elif numbered_seen:
                notes += 1
                items.append(_Item(f"{base} note {notes}", start, end, indent, where))
            else:
                count += 1
                items.append(_Item(f"{base} {count}".strip(), start, end, indent, where))
            continue
        if len(stripped.split()) <= 8 and not stripped.endswith((".", ":", ")")):
            base, numbered_seen, count, notes = section_id(stripped), False, 0, 0
            result.furniture.append((start, end, "subsection heading"))
            items.append(_Item("", end, end, 10**6))  # closes the ruling above
            continue
        if current:
            current.end = end
        else:
            result.furniture.append((start, end, "text before the first ruling"))

    seen: set[str] = set()
    for item in items:
        if not item.rule_id:
            continue
        rule_id = item.rule_id
        if rule_id.lower() in seen:
            rule_id = f"{rule_id} ({sum(1 for s in seen if s.startswith(rule_id.lower())) + 1})"
            result.warnings.append(
                f"{file}: repeated ruling ID {item.rule_id!r}; renamed {rule_id!r}"
            )
        seen.add(rule_id.lower())
        body = re.sub(r"^\s*(?:\u2022|\d{1,2}\.)\s*", "", text[item.start : item.end])
        unit = build_unit(
            rule_id=rule_id,
            game=game,
            title=short_title(body),
            text=text,
            span=(item.start, item.end),
            file=file,
            parent=item.parent,
            kind="ruling",
            title_source="first-words",
        )
        if unit:
            result.units.append(unit)
    return result
