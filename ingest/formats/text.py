"""Plain text rulebooks (text pasted out of a PDF or a web page).

The layout picks the parser (``ingest.parse``): numbered rules, ability
cards, wiki rulings, or plain sections with a warning. A web page saved as
text goes to the HTML reader (``formats.detect``); text whose only structure
is Markdown headings (no text layout matched, and several ``#`` headings)
goes to the Markdown reader instead of becoming plain sections. Headings
underlined with a line of ``=``, ``-`` or ``~`` are read here, not by the
Markdown reader: typed rulebooks underline headings too, and CommonMark
would take a whole paragraph above an underline for the heading (a page
break's form feed is no blank line to it, so a rule and the next chapter's
title became one heading).

Text that none of those take, but whose lines show headings the way a
typed rulebook does (a numbered line, "1.1 Scurrying" or "2. Deployment", a
short line in capitals, "SETUP", standing alone between paragraphs, or a
short line underlined, "=" for a chapter, "-" under it, "~" under that), is
read as an outline of those headings (``ingest.outline``), as the other
structured formats are: each heading's text is a unit, numbered rules keep
their numbers. Only when there are at least ``MIN_HEADING_LINES`` of them,
so a stray "2 players" line does not split a book; or as many rules numbered
in their paragraphs ("1.1 A model may...", a line each), headings or none.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from dataclasses import dataclass, replace

from ruleslawyer.ingest.formats import Format, ReadRequest
from ruleslawyer.ingest.outline import Block, Outline, numbered_rules, opens_numbered_rule
from ruleslawyer.ingest.parse import parse_rulebook
from ruleslawyer.ingest.reader import decode_rulebook
from ruleslawyer.ingest.units import ParseResult


def read(data: bytes, request: ReadRequest) -> ParseResult:
    from ruleslawyer.ingest.formats import markdown

    text = decode_rulebook(data, request.name, request.encoding)
    result = parse_rulebook(
        text,
        file=request.name,
        game=request.game,
        parent=request.title,
        title_fixes=request.title_fixes,
    )
    # Underlined headings ("Movement" over "--------") are typed text's as much
    # as Markdown's, and read here, unless the text is marked up as Markdown
    # too ("#" headings, "**bold**", "[a link](...)")
    if (
        result.parser == "plain"
        and markdown.sniff(text.encode("utf-8")[:4096])
        and markdown.marked_up(text)
    ):
        result = markdown.read(text.encode("utf-8"), replace(request, encoding=None))
        result.format = "markdown"
        return result
    if result.parser in ("plain", "wiki"):
        outline = heading_lines(text)
        # A wiki's numbered items are rulings, sentences; four "1. SETUP" headings
        # over paragraphs also look like one to it, and would become rulings
        # numbered under the book's title line.
        if outline is not None and (
            result.parser == "plain"
            or _numbered_headings(outline) >= MIN_HEADING_LINES
            # the wiki reading leaves text in no rule that the headings hold (a
            # forum post's one numbered list under its underlined headings)
            or bool(result.uncovered(text))
        ):
            return request.units(outline, "heading lines")
    gaps = result.uncovered(text)
    if gaps:
        result.warnings.append(
            f"{request.name}: {sum(e - s for s, e in gaps)} characters in no unit"
        )
    return result


MIN_HEADING_LINES = 3
# "1.1 Scurrying", "2. Deployment", "3) Movement": a number, then a few words
# that are no sentence (a sentence ends with a stop, or runs on)
_NUMBERED = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)[.)]?\s+([^\W\d][^\n]{0,60})$")
_MAX_HEADING_WORDS = 8


def _heading_level(line: str, prev_blank: bool, next_blank: bool) -> int:
    """The heading level of a line of typed text, or 0 for body text: numbered
    lines by their depth ("1" -> 1, "1.1" -> 2), a line in capitals alone
    between blank lines -> 1."""
    text = line.strip()
    if not text or text[-1] in ".,;:!?" or len(text.split()) > _MAX_HEADING_WORDS:
        return 0
    m = _NUMBERED.match(text)
    if m:
        return m.group(1).count(".") + 1
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 3 and all(c.isupper() for c in letters) and prev_blank and next_blank:
        return 1
    return 0


# A heading's underline, or a rule line across the page: one character
# repeated, "=====", "-----", "~~~~~" (the level of the heading it is under).
_UNDERLINE = re.compile(r"\s*([=~-])\1{2,}\s*")
_UNDERLINE_LEVELS = {"=": 1, "-": 2, "~": 3}
# Underlined, a heading may be longer than one standing alone: the underline says so.
_MAX_UNDERLINED_WORDS = 12
# A table's rule under its header ("-----+----+----", "|---|---|").
_TABLE_RULE = re.compile(r"\s*[|+]?(?:[-=:]{2,}[|+])+[-=:]*[|+]?\s*")
# A list's item: a bullet, or a letter or number in brackets ("a)", "(ii)").
_ITEM = re.compile(r"(?:[*\u2022+-]|\(?[a-z0-9]{1,3}\)|\d{1,3}\.)\s+\S", re.I)


def _underlined(lines: list[str], i: int) -> int:
    """The level of line ``i`` as a heading underlined by line ``i + 1``, or 0:
    a short line that ends no sentence, standing alone above its underline."""
    if i + 1 >= len(lines) or not (m := _UNDERLINE.fullmatch(lines[i + 1])):
        return 0
    text = lines[i].strip()
    if (
        not text
        or text[-1] in ".,;"
        or len(text.split()) > _MAX_UNDERLINED_WORDS
        # a table's header, its columns lined up: between two rules ("Roll    Result"),
        # or three columns or more ("Weapon  Range  Strength")
        or len(gaps := re.findall(r"\S {2,}(?=\S)", text)) >= 2
        or (gaps and i > 0 and _UNDERLINE.fullmatch(lines[i - 1]))
        or _UNDERLINE.fullmatch(lines[i])
        or (i > 0 and lines[i - 1].strip() and not _UNDERLINE.fullmatch(lines[i - 1]))
    ):
        return 0
    numbered = _NUMBERED.match(text)
    return numbered.group(1).count(".") + 1 if numbered else _UNDERLINE_LEVELS[m.group(1)]


# A sentence's start on the line after a heading: a capitalised word, then a
# word in lower case ("A model...", "Place three...").
_SENTENCE_START = re.compile(r"[A-Z][a-z]*\s+[a-z]")


def _run_in_capitals(line: str, prev_blank: bool, following: str) -> bool:
    """Is ``line`` a heading in capitals set directly over its text
    ("DEPLOYMENT" then "Place three ember wells..."): after a blank line, a few
    words in capitals, one of four letters or more (not a stat line's "M WS
    BS"), and the next line opening a sentence."""
    text = line.strip()
    letters = [c for c in text if c.isalpha()]
    return (
        prev_blank
        and bool(text)
        and text[-1] not in ".,;:!?"
        and len(text.split()) <= _MAX_HEADING_WORDS
        and len(letters) >= 3
        and all(c.isupper() for c in letters)
        and any(len(w) >= 4 and w.isalpha() for w in text.split())
        and bool(_SENTENCE_START.match(following.strip()))
    )


def _on_its_own_line(line: str, last: str) -> bool:
    """Does ``line`` of a paragraph start a line of its own rather than run on
    from ``last``: a list's item, or a table's row after another?"""
    return bool(_ITEM.match(line)) or (line.count("|") >= 1 and last.count("|") >= 1)


def _list_runs(lines: list[str]) -> set[int]:
    """The numbered lines (by index) that are a list's items, not headings:
    two or more numbered alike on consecutive lines ("1) Roll off" over "2) The
    winner picks a table edge"), each with nothing under it but the next."""
    depth = [
        m.group(1).count(".") if (m := _NUMBERED.match(line.strip())) else -1 for line in lines
    ]
    return {
        i
        for i, d in enumerate(depth)
        if d >= 0 and ((i + 1 < len(lines) and depth[i + 1] == d) or (i > 0 and depth[i - 1] == d))
    }


def _numbered_headings(outline: Outline) -> int:
    return sum(1 for b in outline.blocks if b.level and _NUMBERED.match(b.text))


# A line of a page's furniture, once its numbers are masked: "Page 12 Ashfall
# Rules", "- 12 -", "12". It repeats through text pasted out of a PDF.
_FURNITURE_WORDS = 8
_FURNITURE_REPEATS = 3
_PAGE_LINES = 10  # a page of pasted text holds at least this many lines
_DIGITS = re.compile(r"\d+")
_HEADING_NUMBER = re.compile(r"^\d{1,3}(?:\.\d{1,3})*[.)]\s")
# The word a page's number is printed with ("-- page 3 --", "Page 12 Ashfall Rules")
_PAGE = frozenset({"page", "p", "pg"})
# a word broken at a line's end: "de-" then "clare"
_BROKEN_WORD = re.compile(r"([^\W\d_]+)-$")


def _page_furniture(lines: list[str]) -> set[int]:
    """The lines (by index) that are a page number or a running header or
    footer: short, holding a number, the same line again and again (at least
    ``_FURNITURE_REPEATS`` times, a page apart: ``_PAGE_LINES``) but for the
    number, which counts the pages (up by one or two: facing pages may differ),
    and no words but the book's own name (its first line), or but "page".
    "Turn 1", "Turn 2", "Turn 3" over a scenario's turns are no such lines."""
    title = _words(lines[0]) if lines else frozenset()
    seen: dict[str, list[tuple[int, int]]] = {}
    for n, line in enumerate(lines):
        text = " ".join(line.split())
        numbers = _DIGITS.findall(text)
        # (a numbered heading, "4. Charging", is the book's own)
        if numbers and len(text.split()) <= _FURNITURE_WORDS and not _HEADING_NUMBER.match(text):
            seen.setdefault(_DIGITS.sub("#", text), []).append((n, int(numbers[0])))
    out: set[int] = set()
    for shape, found in seen.items():
        words = _words(shape)
        # no words, or the book's name, or only "page" ("-- page 3 --"); not a
        # heading of the book's words ("MISSION 1" in the "MISSION PACK")
        if len(found) < _FURNITURE_REPEATS or (
            words and not ((title and title <= words) or words <= _PAGE)
        ):
            continue
        apart = all(b[0] - a[0] >= _PAGE_LINES for a, b in itertools.pairwise(found))
        counting = all(0 < b[1] - a[1] <= 2 for a, b in itertools.pairwise(found))
        if apart and counting:
            out.update(n for n, _ in found)
    return out


def _words(line: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in re.findall(r"[^\W\d_]+", line))


@dataclass(frozen=True)
class _Vocabulary:
    """How the book writes its words, counted once (a book of thousands of
    broken lines searched the whole text again for each of them)."""

    words: frozenset[str]  # every word, folded
    alone: frozenset[str]  # words written somewhere whole, not as a piece of a broken one
    starts: tuple[str, ...]  # ``alone``, sorted: the words a piece may begin
    compounds: frozenset[str]  # "well-known", as written

    @classmethod
    def of(cls, text: str) -> _Vocabulary:
        counts = Counter(w.casefold() for w in re.findall(r"[^\W\d_]+", text))
        pieces = Counter(w.casefold() for m in _LINE_BREAK.finditer(text) for w in m.groups())
        alone = frozenset(w for w, n in counts.items() if n > pieces[w])
        return cls(
            frozenset(counts),
            alone,
            tuple(sorted(alone)),
            frozenset(re.findall(r"[^\W\d_]+-[^\W\d_]+", text)),
        )

    def begins_a_word(self, piece: str) -> bool:
        at = bisect.bisect_right(self.starts, piece)
        return at < len(self.starts) and self.starts[at].startswith(piece)


# a word broken over a line's end: its two pieces
_LINE_BREAK = re.compile(r"([^\W\d_]+)-[ \t]*\n[ \t]*([^\W\d_]+)")


def _joined(para: list[str], line: str, vocabulary: _Vocabulary) -> bool:
    """Join ``line`` to the paragraph's last line as the rest of a word broken
    there, where the text itself says how the word is written: whole elsewhere
    ("de-" + "clare" is "declare"), or with its hyphen ("well-" + "known" is
    "well-known"), or each piece is no word of the book's and the first begins
    some ("declar-" + "ing", where "declares" is written; not "non-" +
    "player", "pre-" + "measure", "Pre-" + "and post-game"). Else it is left
    as it was ("just- in-time"), which still finds both pieces."""
    m = _BROKEN_WORD.search(para[-1]) if para else None
    rest = re.match(r"[^\W\d_]+", line) if line[:1].islower() else None
    if m is None or rest is None:
        return False
    head, tail = m.group(1).casefold(), rest.group(0).casefold()
    if f"{m.group(1)}-{rest.group(0)}" in vocabulary.compounds:
        para[-1] += line
    elif (head + tail) in vocabulary.words or (
        # (a piece of three letters is as often a prefix: "pre-", "sub-", "non-")
        len(head) >= 4
        and head not in vocabulary.alone
        and tail not in vocabulary.alone
        and vocabulary.begins_a_word(head)
    ):
        para[-1] = para[-1][:-1] + line
    else:
        return False
    return True


def _after(places: list[int], k: int) -> list[int]:
    """The first two of ``places`` (sorted) after ``k``: enough to tell once
    from more than once."""
    at = bisect.bisect_right(places, k)
    return places[at : at + 2]


def _contents(lines: list[str]) -> tuple[set[int], set[int]]:
    """The lines (by index) of the book's contents, and the lines that the
    contents list as its headings,
    though they are neither numbered nor in capitals ("Glossary" after "801.
    Tandem"): a line standing alone that repeats a line of the contents. The
    contents are a run of at least ``MIN_HEADING_LINES`` lines standing alone,
    one after another with no text between them, at least half of them
    numbered headings, and four in five of them standing alone again later,
    once (the headings they list), counted from the first such line to the
    last: not the book's title or the word "Contents" over them, nor the
    first headings of the text under them."""
    alone = [
        i
        for i, line in enumerate(lines)
        if line.strip()
        and (i == 0 or not lines[i - 1].strip())
        and (i + 1 >= len(lines) or not lines[i + 1].strip())
        and line.strip()[-1] not in ".,;:!?"
        and len(line.split()) <= _MAX_HEADING_WORDS
    ]
    texts = [" ".join(lines[i].split()) for i in alone]
    runs: list[list[int]] = []  # runs of positions in ``alone``, no text between them
    for k, i in enumerate(alone):
        if runs and all(not line.strip() for line in lines[alone[k - 1] + 1 : i]):
            runs[-1].append(k)
        else:
            runs.append([k])
    where: dict[str, list[int]] = {}  # each text's places, in order
    for k, text in enumerate(texts):
        where.setdefault(text, []).append(k)
    contents: set[int] = set()
    listed: set[int] = set()
    for run in runs:
        later = {k: _after(where[texts[k]], k) for k in run}
        again = [k for k in run if len(later[k]) == 1]
        if not again:
            continue
        # from the first line listed to the last (not the book's title or the
        # word "Contents" over them, nor the first headings under them)
        listing = [k for k in run if again[0] <= k <= again[-1]]
        numbered = sum(1 for k in listing if _NUMBERED.match(texts[k]))
        if (
            len(listing) >= MIN_HEADING_LINES
            and 2 * numbered >= len(listing)
            and len(again) >= 0.8 * len(listing)
        ):
            contents.update(alone[k] for k in listing)
            listed.update(alone[later[k][0]] for k in again)
    return contents, listed


def heading_lines(text: str) -> Outline | None:
    """``text`` as an outline of its heading lines, or None when it shows fewer
    than ``MIN_HEADING_LINES`` with text under them. A running header or
    footer repeated from page to page is left out (text pasted out of a PDF),
    and a word broken over two lines is one word again."""
    lines = text.split("\n")
    furniture = _page_furniture(lines)
    lines = [line for n, line in enumerate(lines) if n not in furniture]
    vocabulary = _Vocabulary.of(text)
    blocks: list[Block] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(Block(" ".join(para)))
            para.clear()

    contents, listed = _contents(lines)
    steps = _list_runs(lines)

    def standing_level(i: int) -> int:
        """The level of line ``i`` as a heading standing on its own, or 0."""
        prev_blank = i == 0 or not lines[i - 1].strip()
        next_blank = i + 1 >= len(lines) or not lines[i + 1].strip()
        return (
            underlined[i]
            or (0 if i in steps else _heading_level(lines[i], prev_blank, next_blank))
            or (1 if i in listed else 0)
        )

    # each line's level read once, for the pass over sections and the outline's
    underlined = [_underlined(lines, i) for i in range(len(lines))]
    levels = [standing_level(i) for i in range(len(lines))]

    # Headings in capitals run in over their text count where a section has two
    # or more of them, side by side ("DEPLOYMENT", "GAME LENGTH"): a lone
    # "EXAMPLE" or "NOTE" over its paragraph is part of the rule it is in.
    sections: dict[int, list[int]] = {}
    last = -1
    for i in range(len(lines) - 1):
        if i in contents:
            continue
        if levels[i]:
            last = i
        elif _run_in_capitals(lines[i], i == 0 or not lines[i - 1].strip(), lines[i + 1]):
            sections.setdefault(last, []).append(i)
    run_in = {i for found in sections.values() if len(found) >= 2 for i in found}

    skip = -1
    standing = 0  # the level of the last heading not run in over its text
    for i, line in enumerate(lines):
        if i in contents or i == skip:
            continue  # its headings are read where they head their text; an underline
        level = levels[i]
        if level:
            standing = level
        elif i in run_in:
            level = min(standing + 1, 6)  # a section of the heading above it
        if level:
            flush()
            blocks.append(Block(" ".join(line.split()), level))
            skip = i + 1 if underlined[i] else -1
        elif _UNDERLINE.fullmatch(line) or (_TABLE_RULE.fullmatch(line) and para):
            # a rule line across the page, or under a table's header
            continue
        elif line.strip():
            if para and opens_numbered_rule(line.strip(), para[-1]):
                flush()  # one numbered rule a line, with no blank line between
            if para and _on_its_own_line(line.strip(), para[-1].rsplit("\n", 1)[-1]):
                para[-1] += "\n" + " ".join(line.split())
            elif not _joined(para, line.strip(), vocabulary):
                # a table's row: its cells apart by " | ", not by the spaces lining them up
                para.append(" ".join(line.split()) if "|" in line else line.strip())
        else:
            flush()
    flush()
    title = ""
    if len(blocks) > 1 and not blocks[0].level and blocks[1].level:
        first = blocks[0].text
        if (
            "\n" not in first
            and len(first.split()) <= _MAX_HEADING_WORDS
            and first[-1] not in ".!?"
        ):
            # a first line standing alone above the first heading is the book's title
            title, blocks = first, blocks[1:]
    headed = sum(1 for a, b in itertools.pairwise(blocks) if a.level and not b.level)
    # rules numbered in their paragraphs ("1.1 A model may...") are structure too,
    # with headings or without
    enough = max(headed, numbered_rules(blocks)) >= MIN_HEADING_LINES
    if not enough:
        return None
    outline = Outline(blocks=blocks, title=title)
    if furniture:
        outline.dropped["running headers and page numbers"] += len(furniture)
    if contents:
        outline.dropped["table of contents lines"] += len(contents)
    return outline


FORMAT = Format(name="text", extensions=(".txt", ".text"), read=read, priority=90, label="text")
