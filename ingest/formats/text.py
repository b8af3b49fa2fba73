"""Plain text rulebooks (text pasted out of a PDF or a web page).

The layout picks the parser (``ingest.parse``): numbered rules, ability
cards, wiki rulings, or plain sections with a warning. Text that looks like
Markdown or a web page is sent to those readers instead (``formats.detect``),
so these parsers never see, or fire on, another format's look-alikes.
"""

from __future__ import annotations

from ruleslawyer.ingest.formats import Format, ReadRequest
from ruleslawyer.ingest.parse import parse_rulebook
from ruleslawyer.ingest.reader import decode_rulebook
from ruleslawyer.ingest.units import ParseResult


def read(data: bytes, request: ReadRequest) -> ParseResult:
    text = decode_rulebook(data, request.name, request.encoding)
    result = parse_rulebook(
        text,
        file=request.name,
        game=request.game,
        parent=request.title,
        title_fixes=request.title_fixes,
    )
    gaps = result.uncovered(text)
    if gaps:
        result.warnings.append(
            f"{request.name}: {sum(e - s for s, e in gaps)} characters in no unit"
        )
    return result


FORMAT = Format(name="text", extensions=(".txt", ".text"), read=read, priority=90)
