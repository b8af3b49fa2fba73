"""Shared pieces of the rulebook parsers: the parse result and unit building.

Each parser finds *spans* of the original text; ``build_unit`` turns a span
into a ``RuleUnit`` whose ``text`` is the original characters (minus page
furniture inside the span) and whose ``search_text`` is the normalised view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ruleslawyer.ingest.normalize import normalize
from ruleslawyer.records import RuleUnit, Source

Span = tuple[int, int]

# "(13.08)", "(04)", "See Attached Units (19)", "see 18.0", "(See 15.4)", "(24.13)"
_REF_PAREN = re.compile(r"\((?:[Ss]ee )?(\d{1,2}(?:\.\d{1,2})?)\)")
_REF_SEE = re.compile(r"\b[Ss]ee (?:rule )?(\d{1,2}\.\d{1,2})\b")
# "See [CLOSE-QUARTERS]." refers to a rule by its name
_REF_SEE_NAME = re.compile(r"\b[Ss]ee (\[[A-Z][^\]]{1,40}\])")
_HYPHEN_BREAK = re.compile(r"(\w)[-\u2011]\n\s*(\w)")


@dataclass
class ParseResult:
    units: list[RuleUnit] = field(default_factory=list)
    furniture: list[tuple[int, int, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)  # rule IDs whose duplicates were merged
    parser: str = ""
    # What a structured reader left out before any text was made, by reason
    # ("running header": 58, ...): counts of lines or elements.
    dropped: dict[str, int] = field(default_factory=dict)
    pages: int = 0  # formats with pages (PDF)
    format: str = ""  # the file format it was read as (set by the pipeline)

    @property
    def furniture_chars(self) -> int:
        """Characters left out as furniture (overlapping spans counted once)."""
        return _union_length([(s, e) for s, e, _ in self.furniture])

    def uncovered(self, text: str) -> list[Span]:
        """Spans of non-space text in no unit and no furniture: silently dropped text.

        Every parser must leave this empty; the ingest report and tests check it.
        """
        covered = sorted(
            [(u.source.start, u.source.end) for u in self.units]
            + [(s, e) for s, e, _ in self.furniture]
        )
        gaps: list[Span] = []
        pos = 0
        for s, e in [*covered, (len(text), len(text))]:
            if s > pos and text[pos:s].strip():
                gaps.append(trim_span(text, pos, s))
            pos = max(pos, e)
        return gaps


def _union_length(spans: list[Span]) -> int:
    total, pos = 0, 0
    for s, e in sorted(spans):
        s = max(s, pos)
        if e > s:
            total += e - s
            pos = e
    return total


def extract_refs(text: str) -> tuple[str, ...]:
    refs: list[str] = []
    for rx in (_REF_PAREN, _REF_SEE, _REF_SEE_NAME):
        for m in rx.finditer(text):
            if m.group(1) not in refs:
                refs.append(m.group(1))
    return tuple(refs)


def search_view(text: str) -> str:
    """Normalised text for retrieval: joins words hyphenated across lines."""
    return normalize(_HYPHEN_BREAK.sub(r"\1\2", text))


def trim_span(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def cut_furniture(text: str, start: int, end: int, furniture: list[tuple[int, int, str]]) -> str:
    """``text[start:end]`` with furniture spans inside it removed."""
    pieces: list[str] = []
    pos = start
    for fs, fe, _ in sorted(furniture):
        if fe <= pos or fs >= end:
            continue
        if fs > pos:
            pieces.append(text[pos:fs])
        pos = max(pos, fe)
    if pos < end:
        pieces.append(text[pos:end])
    joined = ""
    for piece in pieces:
        if joined and not joined[-1].isspace() and piece and not piece[0].isspace():
            joined += " "
        joined += piece
    return joined.strip()


def build_unit(
    *,
    rule_id: str,
    game: str,
    title: str,
    text: str,
    span: Span,
    file: str,
    parent: str,
    kind: str,
    title_source: str = "printed",
    furniture: list[tuple[int, int, str]] | None = None,
    page: int | None = None,
    number: str = "",
) -> RuleUnit | None:
    """A unit from ``text[span]``; None when nothing but whitespace is left."""
    start, end = trim_span(text, *span)
    body = cut_furniture(text, start, end, furniture or [])
    if not body:
        return None
    return RuleUnit(
        rule_id=rule_id,
        game=game,
        title=title,
        text=body,
        parent=parent,
        source=Source(file, start, end, page),
        refs=extract_refs(body),
        title_inferred=title_source not in ("printed", "heading", ""),
        title_source=title_source if title else "",
        kind=kind,
        search_text=search_view(body),
        number=number,
    )


def tidy_title(raw: str) -> str:
    """Printed ALL-CAPS headings become Title Case; bracketed keywords stay as printed."""
    raw = " ".join(raw.split()).replace("\u2011", "-")
    if raw.startswith("["):
        return raw
    if raw.isupper():
        small = {"and", "or", "of", "in", "to", "the", "a", "an", "but", "at", "with"}
        words = raw.lower().split(" ")
        return " ".join(
            w if (i and w in small) else "-".join(p[:1].upper() + p[1:] for p in re.split(r"-", w))
            for i, w in enumerate(words)
        )
    return raw


def short_title(text: str, limit: int = 70) -> str:
    """First sentence of ``text``, cut at a word boundary: a title for untitled rulings."""
    flat = " ".join(text.split())
    sentence = re.split(r"(?<=[.:?!])\s", flat, maxsplit=1)[0]
    if len(sentence) <= limit:
        return sentence.rstrip(".:")
    cut = sentence[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;") + "..."
