"""Pick a parser by what the text looks like, and report what it did.

The game only tags the units; the *layout* decides the parser, so a 40k
supplement laid out like the AoS cards still parses. Order matters: numbered
headings are the strongest evidence, plain sections the fallback.
"""

from __future__ import annotations

import re

from ruleslawyer.ingest.abilities import looks_like_abilities, parse_abilities
from ruleslawyer.ingest.numbered import parse_numbered
from ruleslawyer.ingest.plain import parse_plain
from ruleslawyer.ingest.units import ParseResult
from ruleslawyer.ingest.wiki import looks_like_wiki, parse_wiki

_NUMBERED_HEADING = re.compile(r"(?m)(?:^|\] |[A-Z] )\d{1,2}\.\d{2}(?: ?[A-Z])")


def parse_rulebook(
    text: str,
    *,
    file: str,
    game: str,
    parent: str = "",
    title_fixes: dict[str, str] | None = None,
) -> ParseResult:
    """Split rulebook text into rule units; never raises on odd text."""
    result = ParseResult()
    if len(_NUMBERED_HEADING.findall(text)) >= 1:
        result = parse_numbered(text, file=file, game=game, parent=parent, title_fixes=title_fixes)
    if not result.units and looks_like_abilities(text):
        result = parse_abilities(text, file=file, game=game, parent=parent)
    if not result.units and looks_like_wiki(text):
        result = parse_wiki(text, file=file, game=game, parent=parent)
    if not result.units:
        result = parse_plain(text, file=file, game=game, parent=parent)
        result.warnings.append(
            f"{file}: no recognisable rule numbers, abilities or rulings; "
            f"ingested as {len(result.units)} plain section{'s' if len(result.units) != 1 else ''}"
        )
    return result
