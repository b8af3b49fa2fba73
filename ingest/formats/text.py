"""Plain text rulebooks (text pasted out of a PDF or a web page).

The layout picks the parser (``ingest.parse``): numbered rules, ability
cards, wiki rulings, or plain sections with a warning. A web page saved as
text goes to the HTML reader (``formats.detect``); text whose only structure
is Markdown headings (no text layout matched, and several ``#`` headings)
goes to the Markdown reader instead of becoming plain sections.
"""

from __future__ import annotations

from dataclasses import replace

from ruleslawyer.ingest.formats import Format, ReadRequest
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
    if result.parser == "plain" and markdown.sniff(text.encode("utf-8")[:4096]):
        result = markdown.read(text.encode("utf-8"), replace(request, encoding=None))
        result.format = "markdown"
        return result
    gaps = result.uncovered(text)
    if gaps:
        result.warnings.append(
            f"{request.name}: {sum(e - s for s, e in gaps)} characters in no unit"
        )
    return result


FORMAT = Format(name="text", extensions=(".txt", ".text"), read=read, priority=90)
