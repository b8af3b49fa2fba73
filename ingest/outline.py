"""Heading-structured documents -> rule units, the same way for every format.

The PDF, Markdown and HTML readers (and Word's, through HTML) each turn a
file into an ``Outline``: a flat list of ``Block``s in reading order, each
either a heading (with its level) or body text (a paragraph, a list item, a
table row, a quoted note). ``build_units`` makes the units from it, so all
of them agree on what a rule is:

- every heading with body text under it (up to the next heading of any level)
  is one unit, titled by the heading; a heading with no text of its own
  (a chapter that only holds sections) is no unit but stays in its
  children's breadcrumb (``parent``: "Infantry > Combat");
- a printed dotted number ("3.2 Charge", "10.05") is the rule ID, because
  that is what players cite; a bare chapter number ("3 Infantry") is taken
  off the title but is no ID (it collides across books and says little):
  it is kept beside the ID (``RuleUnit.number``) for "rule 3" and "rules
  show 3", unless it is part of the title (``numbers_in_titles``): "2
  Player Game" and "3 Player Game" keep their numbers;
- every other heading's ID is the slug of its heading path
  ("infantry/combat/line-of-sight"): stable across re-ingests and across
  formats of the same book, and unique within the book;
- text before the first heading is one unit named after the document;
- a paragraph that opens with a rule number under its section's number
  ("100. General", then "100.1. These rules apply...", "100.2a In
  constructed play...", as comprehensive rules for card games are written)
  is a unit of its own, its ID the paragraph's number (what players cite),
  titled and breadcrumbed by the section; unnumbered paragraphs after one
  (an "Example:") stay with it. Only a run counts, in the book's order
  (``_numbered_paragraphs``): a sentence that opens with "2.5 inches" under
  "3 Movement", a contents list, a reference, a table's row stay text;
- so does a house rulebook's: rules numbered in the paragraphs ("1.1 A model
  may not...") under headings with no number ("MOVEMENT"), or under none, when
  they run in order through the whole book (a numbered list's "1. Place the
  template" is no rule; "1. Each model..." over "1.1" is).

Trade-off: the unit is the smallest headed section. A long section with
no subheadings stays one unit; retrieval embeds sentence windows of long
units and the evidence picker quotes the deciding sentence, so that costs
little, while splitting sections by length would invent boundaries the
book does not have.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ruleslawyer.ingest.sources import slugify
from ruleslawyer.ingest.units import ParseResult, build_unit, short_title
from ruleslawyer.records import RuleUnit, case_of, numbered_under

# "3.2 Charge", "3.2. Charge", "§ 10.05 Assault", "10.05Assault Shooting",
# "100.2a Constructed" (a card game's lettered sub-rule)
_DOTTED = re.compile(r"^(?:§\s*)?(\d{1,3}(?:\.\d{1,3})+(?:[a-z](?=[.\s]))?)\.?\s*(?=[^\d.\s])")
# "3 Infantry", "3. Infantry", "Chapter 3: Infantry" (not "2D6 Checks": a space is required)
_BARE = re.compile(r"^(?:(?:chapter|part|section)\s+)?(\d{1,3})[.:)]?\s+(?=[^\W\d])", re.I)
_SENTENCE_ENDS = (".", "!", "?", ":", '"', "”", "’", ")")
# "100.1. These rules...", "100.2a In constructed play...", "5.1.3 The shard...":
# a paragraph that opens with a rule number of its own, then a sentence (not
# "3.5 inches...", "1.5x damage", a table row's first cell "3.1 | Walk | 6")
_PARAGRAPH_NUMBER = re.compile(
    r"^(\d{1,3}(?:\.\d{1,3})+(?:[a-z](?![a-z]))?)\.?\s+(?=[^\W\d_]|[\"'“‘(\[])(?![a-z])"
)
# "1. Each model may move...": a whole number opening a paragraph. An item of a
# numbered list looks the same, so it is a rule only over rules numbered under
# it ("1.1", "1.2") in a run of its own (``_numbered_paragraphs``).
_WHOLE_NUMBER = re.compile(r"^(\d{1,3})\.\s+(?=[^\W\d_a-z]|[\"'“‘(\[])")
# A run of numbered paragraphs under no numbered heading holds at least this
# many dotted numbers ("1.1", "1.2", "2.1"): a house rulebook numbering its
# rules under plain headings, or under none.
MIN_FREE_RUN = 3


@dataclass(frozen=True)
class Block:
    """One heading (``level`` >= 1) or one piece of body text (``level`` 0)."""

    text: str
    level: int = 0
    page: int | None = None


@dataclass
class Outline:
    """What a structured reader found in one file."""

    blocks: list[Block] = field(default_factory=list)
    title: str = ""  # the document's own title (front matter, <title>, PDF metadata)
    dropped: Counter[str] = field(default_factory=Counter)  # reason -> lines or elements
    warnings: list[str] = field(default_factory=list)
    pages: int = 0


def split_number(heading: str, titled: Collection[str] = ()) -> tuple[str, str]:
    """("3.2", "Charge") for "3.2 Charge"; ("", "Infantry") for "3 Infantry";
    ("", "2 Player Game") when the heading is in ``titled``, the headings whose
    number is part of their title (``numbers_in_titles``)."""
    number, _, title = split_heading(heading, titled)
    return number, title


def split_heading(heading: str, titled: Collection[str] = ()) -> tuple[str, str, str]:
    """``split_number`` with the bare number it took off: ("", "3", "Infantry")
    for "3 Infantry" and "Chapter 3: Infantry"; ("3.2", "", "Charge")."""
    text = " ".join(heading.split())
    m = _DOTTED.match(text)
    if m and text[m.end() :].strip():
        return m.group(1), "", text[m.end() :].strip()
    m = _BARE.match(text)
    if m and text[m.end() :].strip() and text not in titled:
        return "", m.group(1), text[m.end() :].strip()
    return "", "", text


def nest_by_number(blocks: list[Block]) -> list[Block]:
    """``blocks`` with a dotted number's heading put under the heading whose
    number it extends, where both came out at one level: "2.2.1 The Leader"
    under "2.2 Building a Warband". For readers that take levels from the
    type (PDF): a book that sets its second and third levels alike still
    numbers them apart, and the number is the book's own word on where a
    rule belongs. A level given deeper than the number says is left alone.
    The headings under one put down a level go down with it (an "Example"
    set smaller under "2.2.1" stays its child)."""
    out: list[Block] = []
    stack: list[tuple[int, str]] = []  # (level, number) of the headings open
    moved: list[tuple[int, int]] = []  # (level as set, levels down) of the headings put down
    for block in blocks:
        if not block.level:
            out.append(block)
            continue
        while moved and block.level <= moved[-1][0]:
            moved.pop()
        level = block.level + (moved[-1][1] if moved else 0)
        number = split_number(block.text)[0]
        given = level
        while stack and stack[-1][0] >= level:
            above, above_number = stack[-1]
            if number and above_number and number.startswith(above_number + "."):
                level = above + 1
                break
            stack.pop()
        if level != given:
            moved.append((block.level, level - block.level))
        stack.append((level, number))
        out.append(block if level == block.level else replace(block, level=level))
    return out


def numbers_in_titles(headings: Iterable[str]) -> set[str]:
    """The headings whose bare leading number is part of the title, not the
    section's number: "2 Player Game" beside "3 Player Game" (the number
    tells two headings apart), and "1 vs 1 Duels" (a chapter's title starts
    with a capital). A number marked as one ("3. Infantry", "Chapter 3:
    Infantry") is always the section's.
    """
    plain: list[tuple[str, str, str]] = []
    for heading in headings:
        text = " ".join(heading.split())
        m = _BARE.match(text)
        if m and not _DOTTED.match(text) and m.group(0).strip() == m.group(1):
            plain.append((text, m.group(1), text[m.end() :].strip()))
    numbers: dict[str, set[str]] = {}
    for _, number, title in plain:
        numbers.setdefault(title, set()).add(number)
    return {
        text
        for text, _, title in plain
        if title and (title[0].islower() or len(numbers[title]) > 1)
    }


@dataclass
class _Section:
    level: int
    title: str
    number: str
    path: tuple[str, ...]  # titles from the top heading down to this one
    page: int | None
    body: list[tuple[int, int, int | None]] = field(default_factory=list)  # spans, page
    bare: str = ""  # the bare number taken off the title ("3" of "3. Infantry")
    # a numbered rule under no heading: titled by its first words (the book's
    # title, or its file's name, says nothing of it), the book its breadcrumb
    untitled: bool = False


def build_units(
    outline: Outline,
    *,
    file: str,
    game: str,
    parser: str,
    title_fixes: dict[str, str] | None = None,
    title: str = "",
) -> ParseResult:
    """Rule units from an outline (see the module docstring for the rules).

    A document with no heading at all and no numbered rules is not
    structured: it becomes plain sections of a few hundred words, with a
    warning, rather than one unit the size of the book. ``title`` (the
    manifest's) names the text before the first heading when the document has
    no title of its own.
    """
    if not any(b.level for b in outline.blocks) and not numbered_rules(outline.blocks):
        from ruleslawyer.ingest.plain import parse_plain

        body = "\n\n".join(b.text for b in outline.blocks)
        starts = itertools.accumulate((len(b.text) + 2 for b in outline.blocks[:-1]), initial=0)
        pages = [(start, b.page) for start, b in zip(starts, outline.blocks, strict=True)]
        result = parse_plain(body, file=file, game=game, parent=title, pages=pages)
        result.dropped, result.pages = dict(outline.dropped), outline.pages
        n = len(result.units)
        result.warnings += [
            *outline.warnings,
            f"{file}: no headings found; ingested as {n} plain section{'s' if n != 1 else ''}",
        ]
        return result
    result = ParseResult(parser=parser, dropped=dict(outline.dropped), pages=outline.pages)
    result.warnings.extend(outline.warnings)
    # one rule a line ("100.1. ...\n100.2. ..." in one paragraph: typed text,
    # a web page's <br>s, Markdown's soft breaks) as the paragraphs they are;
    # the document's text is the same, since blocks are joined by line breaks
    blocks = _numbered_lines_apart(outline.blocks)
    doc = "\n".join(b.text for b in blocks)
    fixes = title_fixes or {}
    numbered, sections_of_rules = _numbered_paragraphs(blocks)
    # a heading with rules numbered under its number: the number is the section's
    titled = numbers_in_titles(b.text for b in blocks if b.level > 0) - sections_of_rules
    stack: list[_Section] = []
    sections: list[_Section] = []
    front = _Section(0, outline.title or title or file.rsplit(".", 1)[0], "", (), None)
    current = front
    pos = 0
    section_at: dict[int, _Section] = {}  # heading block -> its section
    for i, block in enumerate(blocks):
        start, end = pos, pos + len(block.text)
        pos = end + 1
        if block.level > 0:
            number, bare, title = split_heading(block.text, titled)
            if not title:
                continue
            while stack and stack[-1].level >= block.level:
                stack.pop()
            path = (*(s.title for s in stack), title)
            current = _Section(block.level, title, number, path, block.page, bare=bare)
            section_at[i] = current
            stack.append(current)
            sections.append(current)
        elif i in numbered:
            number, skip, heading_block = numbered[i]
            heading = section_at.get(heading_block, front)  # the title's, for none (-1)
            path = (*heading.path, heading.title)
            current = _Section(heading.level + 1, heading.title, number, path, block.page)
            current.untitled = heading is front
            sections.append(current)
            current.body.append((start + skip, end, block.page))
        elif block.text.strip():
            current.body.append((start, end, block.page))
    history = _changelog(sections, file)
    if history:
        depth = min(len(s.path) for s in sections if id(s) in history)  # the entries'
        versions = [s.title for s in sections if id(s) in history and len(s.path) == depth]
        result.warnings.append(
            f"{file}: {len(versions)} changelog entries ({', '.join(versions[:3])}"
            f"{', ...' if len(versions) > 3 else ''}) kept for `rules show`, not quoted in answers"
        )
    used: dict[str, int] = {}
    for section in [front, *sections]:
        if not section.body:
            continue
        if section.number:
            rule_id = section.number
        elif section is front:
            rule_id = slugify(section.title) or "front"
        else:
            rule_id = "/".join(s for s in (slugify(t) for t in section.path) if s) or "section"
        # The same heading path twice in one file ("Notes" under two "Special Rules")
        n = used.get(rule_id, 0) + 1
        used[rule_id] = n
        if n > 1:
            rule_id = f"{rule_id}-{n}"
        title = fixes.get(rule_id, section.title)
        source = "manifest" if rule_id in fixes else "heading"
        if section.untitled and rule_id not in fixes:
            start, end = section.body[0][0], section.body[-1][1]
            title, source = short_title(doc[start:end]), "first-words"
        unit = _with_page_breaks(
            section,
            build_unit(
                rule_id=rule_id,
                game=game,
                title=title,
                text=doc,
                span=(section.body[0][0], section.body[-1][1]),
                file=file,
                parent=front.title if section.untitled else " > ".join(section.path[:-1]),
                kind="changelog" if id(section) in history else "rule",
                title_source=source,
                page=section.page if section.page is not None else section.body[0][2],
                number=section.bare,
            ),
        )
        if unit:
            result.units.append(unit)
    return result


def _numbered_paragraphs(
    blocks: list[Block],
) -> tuple[dict[int, tuple[str, int, int]], set[str]]:
    """The body blocks that are rules of their own (see the module docstring):
    block index -> (its number, where its text starts after the number, the
    index of the heading it is numbered under); and the texts of those headings.

    A paragraph's number must be under the number of one of the headings it
    is in, the nearest such ("100.2", "100.2a" under "100"; "702.19a" under
    "702.19"; "702.4" under "702" after a heading "702.3"), and no heading's
    number elsewhere in the document (a contents list, or a cross-reference
    opening a paragraph: "2.1 and 2.2 apply only..."). The paragraphs under
    one heading count only as a run: two or more, each after the one before
    in the book's order, or one lettered sub-rule of the heading's own number
    ("601.4a" under "601.4 Steadfast"), or, in a book with such runs, a
    heading's first number alone ("3.2.1" under "3.2 Running").

    A house rulebook numbers its rules in the paragraphs alone, under plain
    headings ("MOVEMENT", then "1.1 A model may...", "1.2 ...", "SHOOTING",
    "2.1 ...") or under none. Paragraphs under no numbered heading count as one
    run over the whole book: at least ``MIN_FREE_RUN`` dotted numbers, every
    number after the one before; a paragraph "1. Each model..." is a rule of
    that run only where rules are numbered under it (a numbered list's "1.
    Place the template" has none). The heading they are in (the book's title
    where there is none, index -1) titles them.
    """
    headings = {i: split_heading(b.text) for i, b in enumerate(blocks) if b.level > 0}
    heading_numbers = {number for number, _, _ in headings.values() if number}
    runs: dict[int, list[tuple[int, str, int]]] = {}
    free: list[tuple[int, str, int, int]] = []  # (block, number, skip, nearest heading)
    open_headings: list[tuple[int, str, int]] = []  # (level, number, block index)
    for i, block in enumerate(blocks):
        if block.level > 0:
            number, bare, _ = headings[i]
            while open_headings and open_headings[-1][0] >= block.level:
                open_headings.pop()
            open_headings.append((block.level, number or bare, i))
            continue
        m = _PARAGRAPH_NUMBER.match(block.text) or _WHOLE_NUMBER.match(block.text)
        if not m or m.group(1) in heading_numbers:
            continue
        number = m.group(1)
        if not any(under for _, under, _ in open_headings):
            free.append((i, number, m.end(), open_headings[-1][2] if open_headings else -1))
            continue
        if "." not in number:
            continue
        for _, under, heading in reversed(open_headings):
            if under and (numbered_under(number, under) or case_of(number, under)):
                runs.setdefault(heading, []).append((i, number, m.end()))
                break
            if under and _number_key(number) <= _number_key(under):
                break  # "3.2.1" after a heading "3.3": text, not a rule out of order
    out: dict[int, tuple[str, int, int]] = {}
    under_headings: set[str] = set()
    lone: list[tuple[int, list[tuple[int, str, int]]]] = []
    for heading, run in runs.items():
        number, bare, _ = headings[heading]
        keys = [_number_key(n) for _, n, _ in run]
        if len(run) == 1 and run[0][1][:-1] != (number or bare):
            lone.append((heading, run))
            continue
        if all(a < b for a, b in itertools.pairwise(keys)):
            out.update({i: (n, skip, heading) for i, n, skip in run})
            under_headings.add(blocks[heading].text)
    if out:
        # A book that numbers its rules in runs under its headings numbers a
        # section's only rule the same way: "3.2.1 A Run action..." alone under
        # "3.2 Running", its siblings' 2.2.1 and 2.2.2 rules of their own, is
        # rule 3.2.1 too (read into 3.2, "rule 3.2.1" was "no such rule"). Only
        # the first number under the heading's: one paragraph opening with
        # another ("3.2.4 ...") is as likely a cross-reference.
        for heading, run in lone:
            number, bare, _ = headings[heading]
            if run[0][1] == f"{number or bare}.1":
                out.update({i: (n, skip, heading) for i, n, skip in run})
                under_headings.add(blocks[heading].text)
    out.update({i: (n, skip, heading) for i, n, skip, heading in _free_run(free)})
    return out, under_headings


def _free_run(
    free: list[tuple[int, str, int, int]],
) -> list[tuple[int, str, int, int]]:
    """The numbered paragraphs under no numbered heading that are rules (see
    ``_numbered_paragraphs``): all of them or none."""
    dotted = {n for _, n, _, _ in free if "." in n}
    run = [p for p in free if "." in p[1] or any(numbered_under(d, p[1]) for d in dotted)]
    keys = [_number_key(n) for _, n, _, _ in run]
    if len(dotted) < MIN_FREE_RUN or not all(a < b for a, b in itertools.pairwise(keys)):
        return []
    return run


def numbered_rules(blocks: list[Block]) -> int:
    """How many of ``blocks`` are numbered rules of their own (``_numbered_paragraphs``)."""
    return len(_numbered_paragraphs(blocks)[0])


def opens_numbered_rule(line: str, before: str) -> bool:
    """Does ``line``, after ``before`` (the text up to it), open a numbered rule
    of its own: a rule number and a sentence after a sentence's end ("...all
    games." then "100.2. Each player...")? For readers that join a
    paragraph's lines (typed text, Markdown's soft breaks), so one rule a line
    stays one rule a block. "2. A model may shoot..." too: whether it is a
    rule or a list's item, ``_numbered_paragraphs`` decides."""
    opens = _PARAGRAPH_NUMBER.match(line) or _WHOLE_NUMBER.match(line)
    return bool(opens) and before.rstrip().endswith(_SENTENCE_ENDS)


def _numbered_lines_apart(blocks: list[Block]) -> list[Block]:
    """``blocks`` with a body block cut before each of its lines (after the
    first) that opens with a rule number and a sentence."""
    out: list[Block] = []
    for block in blocks:
        lines = block.text.split("\n")
        if block.level or len(lines) < 2 or not any(_PARAGRAPH_NUMBER.match(x) for x in lines[1:]):
            out.append(block)
            continue
        piece: list[str] = []
        for line in lines:
            if piece and _PARAGRAPH_NUMBER.match(line):
                out.append(replace(block, text="\n".join(piece)))
                piece = []
            piece.append(line)
        out.append(replace(block, text="\n".join(piece)))
    return out


def _number_key(number: str) -> tuple[tuple[int, str], ...]:
    """ "100.2" < "100.2a" < "100.2b" < "100.10": the order a rule number sorts in."""
    parts = []
    for part in number.split("."):
        digits = part.rstrip("abcdefghijklmnopqrstuvwxyz")
        parts.append((int(digits or 0), part[len(digits) :]))
    return tuple(parts)


# A heading that is a version: "1.2", "v1.1.3", "Version 2.0 (March 2024)",
# "[1.2.0] - 2024-01-01"
_VERSION = re.compile(
    r"^\[?(?:v|version|release|rev\.?|revision)?\s*(\d+(?:\.\d+)+)\]?"
    r"(?:\s*(?:[-\u2013\u2014:(,]|\d{4}|\w+\s+\d{4}).*)?$",
    re.I,
)


# What a changelog's own heading (or its file) is called. An errata's entries
# ("Version 1.2 (June 2025)" over the rule's new text) look the same but hold
# the rules in force, so the name, not the shape alone, says which it is.
_CHANGELOG_NAME = re.compile(
    r"\b(?:change\s*-?\s*log|changes|release\s+notes|version\s+history|revision\s+history"
    r"|history|what'?s\s+new|news)\b",
    re.I,
)


def _changelog(sections: list[_Section], file: str = "") -> set[int]:
    """The sections (by ``id``) that are a changelog's entries: two or more
    headings side by side under one parent that are nothing but versions,
    newest first ("1.2", "1.1.3", "1.1"), with what lies under them, where
    the parent heading (or, with none, the file) is named a changelog. A
    changelog's "Charge distance is 2D6 inches" is the old rule: quoted, it
    answered "What is the charge distance?" with the rule the book replaced.
    A rulebook numbers its sections upwards and titles them; an errata, named
    so, holds the rules in force."""
    siblings: dict[tuple[int, tuple[str, ...]], list[tuple[_Section, tuple[int, ...]]]] = {}
    for section in sections:
        m = _VERSION.match(section.title) if not section.number else None
        if m:
            key = (section.level, section.path[:-1])
            siblings.setdefault(key, []).append(
                (section, tuple(int(x) for x in m.group(1).split(".")))
            )
    entries: list[_Section] = []
    for (_, parents), run in siblings.items():
        versions = [v for _, v in run]
        named = _CHANGELOG_NAME.search(
            parents[-1] if parents else Path(file).stem.replace("_", " ")
        )
        if named and len(run) >= 2 and all(a > b for a, b in itertools.pairwise(versions)):
            entries += [s for s, _ in run]
    history = {id(s) for s in entries}
    for section in sections:  # what lies under an entry ("### Fixed")
        if any(section.path[: len(e.path)] == e.path and section is not e for e in entries):
            history.add(id(section))
    return history


def _with_page_breaks(section: _Section, unit: RuleUnit | None) -> RuleUnit | None:
    """``unit`` with the offsets in its text where its body moves on to a later page
    (a rule over two PDF pages: a quote from the second is cited with its page)."""
    if unit is None or unit.source.page is None:
        return unit
    breaks: list[tuple[int, int]] = []
    page = unit.source.page
    for start, _, block_page in section.body:
        offset = start - unit.source.start
        # (at offset 0 too: a heading set alone at a page's foot, its text on
        # the next page, where a quote of it is printed)
        if block_page is not None and block_page != page and 0 <= offset < len(unit.text):
            breaks.append((offset, block_page))
            page = block_page
    if not breaks:
        return unit
    return replace(unit, source=replace(unit.source, page_breaks=tuple(breaks)))
