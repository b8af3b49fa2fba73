"""Parser for rulebooks whose rules are headed by section numbers (40k: ``24.21``).

The 40k seeds are PDF extractions, so the parser works on evidence rather
than layout:

1. **Furniture** (page numbers, ``++ FLAVOUR ++`` lines, running headers,
   app navigation) is found first and masked with spaces, so every later
   regex sees clean text while character offsets stay those of the file.
2. **Headings**: every ``NN.NN`` followed by words is a candidate; the real
   headings are the longest run of candidates in increasing order. That one
   rule throws out the navigation fragments PDFs scatter around ("24.32 Surge
   Move 24.07 [] 24.11 ..." at the top of the core-abilities file) without a
   list of known junk.
3. **Titles** are taken as printed (``[ANTI] 24.03``, ``LEADER 24.22``,
   ``10.02Shoot``); when the extraction lost them (``[] 24.21``) they are
   recovered from the body where the rule names itself ("an attack is made
   with a [LANCE] weapon", "always takes the form [MELTA X]"), then from
   navigation hints ("SUPPORT 24.34"), then from a manifest of hand fixes;
   each recovered title records where it came from.
4. Text outside numbered rules (an appendix, a chapter tail) is split at
   ALL-CAPS headings that open a sentence, and FAQ blocks into Q/A pairs.

Trade-off: the heading rules are heuristics tuned on real extractions; a
rulebook laid out very differently falls back to plain sections (see
``ingest.parse``), with a warning, rather than being forced through here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ruleslawyer.ingest.units import (
    ParseResult,
    Span,
    build_unit,
    search_view,
    short_title,
    tidy_title,
)

# --- page furniture -----------------------------------------------------------
_FURNITURE: list[tuple[str, re.Pattern[str]]] = [
    ("flavour line", re.compile(r"\+\+[^+\n]{2,80}\+\+")),
    ("app notice", re.compile(r"CONTINUED IN THE APP")),
    ("navigation", re.compile(r"(?m)^\u25ba[^\n]*$")),
    ("navigation", re.compile(r"SEE ALSO [^\n]*")),
    # running header + chapter number, before a flavour line or page number
    (
        "running header",
        re.compile(r"\b[A-Z][A-Z ]{4,40}[A-Z] \d{1,2}(?= *(?:\+\+|\d{2,3} *$))", re.M),
    ),
    ("running header", re.compile(r"(?m)^[A-Z][A-Z ]{4,40}[A-Z] \d{2,3} *$")),
    ("running header", re.compile(r"\bRULES APPENDIX\b")),
    ("page number", re.compile(r"(?m)(?:(?<=\s)|^)\d{2,3} *$")),
    # a section number followed by another: a broken cross-page reference
    ("stray section number", re.compile(r"(?<![\d.(])\b\d{1,2}\.\d{2}(?= +\d{1,2}\.\d{2}\b)")),
]

_CANDIDATE = re.compile(r"(?<![\d.(])\b(\d{1,2})\.(\d{2})(?![\d.]\d)")
_PRE_TITLE = re.compile(
    r"(\[[^\]\n]{0,40}\]|[A-Z][A-Z0-9'\u2011-]*(?: [A-Z][A-Z0-9'\u2011-]*){0,4}) *$"
)
_NAV_HINT = re.compile(
    r"(?:^|/ )([A-Z][A-Z\u2011-]+(?: [A-Z][A-Z\u2011-]+)*) (\d{1,2}\.\d{2})\b", re.M
)
_CHAPTER_LINE = re.compile(r"(?m)^(\d{1,2}) ([A-Z][^\n]{2,60})$")
_EXAMPLE_ACTION = re.compile(
    r"(?<=[.!?] )(\d{1,2}) ([A-Z][A-Z' \u2011-]+?) EXAMPLE ACTION(?: \([A-Z ]+\))?"
)
# An ALL-CAPS run followed by a word that opens a sentence is a heading; a
# caps run followed by anything else is a flattened table label.
_OPENERS = (
    "The|A|An|If|When|While|Some|Throughout|During|Each|Unless|In|Note|Q:|Many|This|"
    "These|Units|Until|After|Before|Once|All|Any|You|Your|It|Such|For|To|At|Only"
)
_CAPS_HEADING = re.compile(
    r"(?:(?<=[.!?:)\"'] )|(?<=\n)|^)([A-Z][A-Z\u2011'-]{3,}(?:,? [A-Z][A-Z\u2011'-]*){0,7})"
    rf" (?=(?:{_OPENERS})(?![a-z]))"
    # mid-sentence (a PDF column break) only a run of two or more words counts
    r"|(?<=\s)([A-Z][A-Z\u2011'-]+(?:,? [A-Z][A-Z\u2011'-]*){1,7})"
    rf" (?=(?:{_OPENERS})(?![a-z]))",
    re.M,
)
_FAQ_Q = re.compile(r"\bQ: ")
# "10.02Shoot": the extraction lost the space between a rule's number and its
# title. The unit's text gets it back, so a quote reads as the page does.
_GLUED_HEAD = re.compile(r"\A(\d{1,2}\.\d{2})(?=[A-Za-z\[])")

# Recovering lost titles from the body, most specific first.
_TITLE_FROM_BODY: list[re.Pattern[str]] = [
    re.compile(r"always takes the form \[([A-Z][A-Z\u2011 -]*?)(?:[ \u2011-]X\b[^\]]*)?\]"),
    re.compile(r"takes the form ([A-Z][a-z]+(?: [A-Z][a-z]+)*) X\b"),
    re.compile(r"\[([A-Z][A-Z\u2011 -]*[A-Z])(?: \d+\+?)?\] weapons?\b"),
    re.compile(r"\bthe ([A-Z][a-z]+(?: [A-Z][a-z]+)+) ability\b"),
    re.compile(r"\bis an? ([A-Z][a-z]+(?: [A-Z][a-z]+)+) unit\b"),
    re.compile(r"\[([A-Z][A-Z\u2011 -]*[A-Z])\]"),
]


def find_furniture(text: str) -> list[tuple[int, int, str]]:
    spans: list[tuple[int, int, str]] = []
    for reason, rx in _FURNITURE:
        for m in rx.finditer(text):
            if m.end() > m.start():
                spans.append((m.start(), m.end(), reason))
    return sorted(spans)


def mask(text: str, spans: list[tuple[int, int, str]]) -> str:
    chars = list(text)
    for s, e, _ in spans:
        for i in range(s, e):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


@dataclass
class _Heading:
    number: str
    start: int  # where the heading (title included) starts
    body: int  # where the rule text starts
    title: str
    title_source: str
    lost_title: tuple[int, int] | None = None  # empty brackets where a title was printed


def _candidates(masked: str) -> list[re.Match[str]]:
    out = []
    for m in _CANDIDATE.finditer(masked):
        if m.group(2) == "00":  # chapter-level numbers are navigation
            continue
        before = masked[max(0, m.start() - 4) : m.start()]
        if before.lower().endswith("see "):
            continue
        after = masked[m.end() : m.end() + 3].lstrip(" \n")
        if not after or not after[0].isalpha():
            continue
        out.append(m)
    return out


def _increasing_run(cands: list[re.Match[str]]) -> list[re.Match[str]]:
    """Longest subsequence with strictly increasing (major, minor) numbers."""
    keys = [(int(m.group(1)), int(m.group(2))) for m in cands]
    best = [1] * len(cands)
    prev = [-1] * len(cands)
    for i in range(len(cands)):
        for j in range(i):
            if keys[j] < keys[i] and best[j] + 1 > best[i]:
                best[i], prev[i] = best[j] + 1, j
    if not cands:
        return []
    i = max(range(len(cands)), key=lambda k: (best[k], k))
    run = []
    while i >= 0:
        run.append(cands[i])
        i = prev[i]
    return run[::-1]


def _heading_for(masked: str, m: re.Match[str], floor: int) -> _Heading:
    number = f"{m.group(1)}.{m.group(2)}"
    start, body, title, source = m.start(), m.end(), "", ""
    lost_title: tuple[int, int] | None = None
    pre = _PRE_TITLE.search(masked, max(floor, m.start() - 60), m.start())
    # the printed title sits on the heading's own line: "[ANTI] 24.03", "LEADER 24.22"
    if pre and pre.end() == m.start():
        lead = masked[max(floor, pre.start() - 3) : pre.start()].rstrip(" ")
        at_sentence_start = not lead or lead[-1] in ".!?:)\"'\n" or pre.start() <= floor
        raw = pre.group(1).strip()
        if at_sentence_start and (raw.startswith("[") or len(raw) >= 3):
            start = pre.start()
            inner = raw.strip("[]").strip()
            if inner:
                title, source = tidy_title(raw), "printed"
            else:
                # "[] 24.21": the keyword title was lost in extraction. The
                # empty brackets end neither rule: they are left out (and
                # reported), so no quote of either reads "[] 24.21 ...". (The
                # match runs from the brackets to the number: spaces only between.)
                lost_title = (start, m.start())
    # "10.02Shoot\n": a short title on the rest of the heading line
    line_end = masked.find("\n", m.end())
    line_end = len(masked) if line_end < 0 else line_end
    rest = masked[m.end() : line_end].strip()
    if not title and rest and len(rest.split()) <= 6 and not rest.endswith((".", ":")):
        title, source, body = tidy_title(rest), "printed", line_end
    return _Heading(number, start, body, title, source, lost_title)


def infer_title(body: str) -> str:
    for rx in _TITLE_FROM_BODY:
        m = rx.search(body)
        if m:
            name = m.group(1).strip()
            return f"[{name}]" if rx.pattern.startswith(("always", r"\[")) else name
    return ""


def parse_numbered(
    text: str,
    *,
    file: str,
    game: str,
    parent: str,
    title_fixes: dict[str, str] | None = None,
) -> ParseResult:
    result = ParseResult(parser="numbered")
    furniture = find_furniture(text)
    masked = mask(text, furniture)
    run = _increasing_run(_candidates(masked))
    in_run = {m.start() for m in run}
    title_fixes = title_fixes or {}

    # Navigation hints ("SUPPORT 24.34") from fragments that are not headings.
    nav_titles: dict[str, str] = {}
    for m in _NAV_HINT.finditer(masked):
        if m.start(2) not in in_run:
            nav_titles.setdefault(m.group(2), tidy_title(m.group(1)))

    chapters = {
        int(m.group(1)): tidy_title(m.group(2).strip()) for m in _CHAPTER_LINE.finditer(masked)
    }
    # A short first line is the page's own header ("Actions", "Core Abilities
    # (Universal Special Rules)"): the section name when no chapter line is printed.
    first_line = text.lstrip().split("\n", 1)[0].strip()
    header = first_line.split("(")[0].strip() if len(first_line.split()) <= 6 else ""
    if header and _CANDIDATE.match(header):
        header = ""

    headings: list[_Heading] = []
    floor = 0
    for m in run:
        h = _heading_for(masked, m, floor)
        headings.append(h)
        floor = m.end()

    # Boundaries that end a numbered rule without starting one.
    breaks: list[tuple[int, int, str, str]] = []  # (start, body, kind, title)
    for m in _CANDIDATE.finditer(masked):
        if m.start() in in_run or m.group(2) == "00":
            continue
        caps = re.match(r"[ \n]*([A-Z][A-Z ]{3,40}[A-Z])(?= )", masked[m.end() :])
        if caps and headings and m.start() > headings[0].start:
            breaks.append((m.start(), m.end(), "section", tidy_title(caps.group(1))))
    for m in _CHAPTER_LINE.finditer(masked):
        breaks.append((m.start(), m.end(), "chapter", tidy_title(m.group(2).strip())))
    for m in _EXAMPLE_ACTION.finditer(masked):
        breaks.append((m.start(), m.end(), "example", tidy_title(m.group(2))))
    for m in re.finditer(r"\bRULES APPENDIX\b", text):
        if not headings or m.start() > headings[0].start:
            breaks.append((m.start(), m.start(), "appendix", "Rules Appendix"))
    breaks.sort()

    starts = sorted([h.start for h in headings] + [b[0] for b in breaks])

    def end_of(pos: int) -> int:
        for s in starts:
            if s > pos:
                return s
        return len(text)

    if headings and headings[0].start > 0 and masked[: headings[0].start].strip():
        furniture.append((0, headings[0].start, "navigation before the first rule"))

    for h in headings:
        if h.lost_title:
            furniture.append((*h.lost_title, "empty title brackets"))
    for h in headings:
        end = end_of(h.start)
        body_text = masked[h.body : end]
        title, source = h.title, h.title_source
        major = int(h.number.split(".")[0])
        # The first rule of a chapter introduces it: it is named by the chapter.
        if not title and h.number.endswith(".01"):
            title = chapters.get(major) or header
            source = "chapter" if title else ""
        if not title:
            title = infer_title(body_text)
            source = "body" if title else ""
        if not title and h.number in nav_titles:
            title, source = nav_titles[h.number], "nav"
        if not title and h.number in title_fixes:
            title, source = title_fixes[h.number], "manifest"
        unit = build_unit(
            rule_id=h.number,
            game=game,
            title=title,
            text=text,
            span=(h.lost_title[1] if h.lost_title else h.start, end),
            file=file,
            parent=chapters.get(major) or header or parent,
            kind="rule",
            title_source=source,
            furniture=furniture,
        )
        if unit and _GLUED_HEAD.match(unit.text):
            spaced = _GLUED_HEAD.sub(r"\1 ", unit.text, count=1)
            unit = replace(unit, text=spaced, search_text=search_view(spaced))
        if unit:
            result.units.append(unit)

    appendix_parent = parent
    for start, body, kind, title in breaks:
        end = end_of(start)
        if kind == "appendix":
            appendix_parent = "Rules Appendix"
            _split_sections(
                text, masked, (body, end), file, game, appendix_parent, furniture, result
            )
        elif kind == "chapter":
            span_text = masked[body:end].strip()
            if not span_text:
                furniture.append((start, body, "chapter heading with no text"))
                continue
            number = re.match(r"\d+", text[start:]).group(0)  # type: ignore[union-attr]
            unit = build_unit(
                rule_id=number,
                game=game,
                title=title,
                text=text,
                span=(start, end),
                file=file,
                parent=parent,
                kind="section",
                furniture=furniture,
            )
            if unit:
                result.units.append(unit)
        elif kind == "example":
            unit = build_unit(
                rule_id=title,
                game=game,
                title=f"{title} (example action)",
                text=text,
                span=(start, end),
                file=file,
                parent=parent,
                kind="example",
                furniture=furniture,
            )
            if unit:
                result.units.append(unit)
        else:  # an out-of-sequence heading: a fragment of another chapter
            furniture.append((start, body, "out-of-sequence section number"))
            masked = masked[:start] + " " * (body - start) + masked[body:]
            _split_sections(text, masked, (body, end), file, game, parent, furniture, result)

    result.furniture = sorted(furniture)
    return result


def _split_sections(
    text: str,
    masked: str,
    span: Span,
    file: str,
    game: str,
    parent: str,
    furniture: list[tuple[int, int, str]],
    result: ParseResult,
) -> None:
    """Split a region outside numbered rules at caps headings and FAQ questions."""
    start, end = span
    heads = list(_CAPS_HEADING.finditer(masked, start, end))
    if not heads or masked[start : heads[0].start()].strip():
        lead_end = heads[0].start() if heads else end
        if masked[start:lead_end].strip():
            furniture.append((start, lead_end, "text before the first heading of a section"))
    for i, m in enumerate(heads):
        sec_end = heads[i + 1].start() if i + 1 < len(heads) else end
        title = tidy_title(m.group(1) or m.group(2))
        if title.lower() in ("faqs", "faq"):
            furniture.append((m.start(), m.end(), "FAQ heading"))
            _split_faqs(text, masked, (m.end(), sec_end), file, game, parent, furniture, result)
            continue
        unit = build_unit(
            rule_id=title,
            game=game,
            title=title,
            text=text,
            span=(m.start(), sec_end),
            file=file,
            parent=parent,
            kind="appendix",
            furniture=furniture,
        )
        if unit:
            result.units.append(unit)


def _split_faqs(
    text: str,
    masked: str,
    span: Span,
    file: str,
    game: str,
    parent: str,
    furniture: list[tuple[int, int, str]],
    result: ParseResult,
) -> None:
    start, end = span
    qs = list(_FAQ_Q.finditer(masked, start, end))
    for i, q in enumerate(qs, start=1):
        q_end = qs[i].start() if i < len(qs) else end
        question = masked[q.end() : q_end].split(" A: ")[0]
        unit = build_unit(
            rule_id=f"FAQ {i}",
            game=game,
            title=short_title(question, 60),
            text=text,
            span=(q.start(), q_end),
            file=file,
            parent=f"{parent}: FAQs",
            kind="faq",
            furniture=furniture,
        )
        if unit:
            result.units.append(unit)
