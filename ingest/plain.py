"""Fallback for text with no recognisable rule structure: plain sections.

Paragraphs are grouped into sections of a few hundred words so each stays a
citable, embeddable size. IDs are ``<file stem> §N``: honest about the fact
that the book gave us no rule numbers.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from ruleslawyer.ingest.units import ParseResult, build_unit, short_title

_PARA = re.compile(r"\S(?:.*\S)?(?:\n(?!\s*\n).*)*")
MAX_SECTION_CHARS = 1500


def parse_plain(
    text: str,
    *,
    file: str,
    game: str,
    parent: str,
    pages: list[tuple[int, int | None]] | None = None,
) -> ParseResult:
    """Plain sections of ``text``. ``pages`` gives, for a text read from a
    paged format, where each page's text starts: ``(offset, page)`` in order,
    so each section records the page it starts on."""
    result = ParseResult(parser="plain")
    starts = [offset for offset, _ in pages or []]
    stem = Path(file).stem
    spans: list[tuple[int, int]] = []
    for m in _PARA.finditer(text):
        if spans and m.end() - spans[-1][0] <= MAX_SECTION_CHARS:
            spans[-1] = (spans[-1][0], m.end())
        else:
            # a single huge paragraph is cut at sentence ends near the limit
            s = m.start()
            while m.end() - s > MAX_SECTION_CHARS:
                cut = text.rfind(". ", s, s + MAX_SECTION_CHARS)
                cut = cut + 1 if cut > s else s + MAX_SECTION_CHARS
                spans.append((s, cut))
                s = cut
            spans.append((s, m.end()))
    for n, span in enumerate(spans, start=1):
        unit = build_unit(
            rule_id=f"{stem} §{n}",
            game=game,
            title=short_title(text[span[0] : span[1]]),
            text=text,
            span=span,
            file=file,
            parent=parent,
            kind="section",
            title_source="first-words",
            page=pages[bisect.bisect_right(starts, span[0]) - 1][1] if pages else None,
        )
        if unit:
            result.units.append(unit)
    return result
