"""Parser for ability-card rulebooks (Age of Sigmar core abilities).

The text is a run of blocks separated by blank lines. An ability is:

    Name (cost)          <- short line, no full stop
    Timing               <- short line: "Your Movement Phase", "Passive", "Reaction: ..."
    DECLARE: / USED BY: / EFFECT: / KEYWORDS: lines and follow-on sentences

A block is a name when the block after it reads like a timing and the block
after that opens a field or is a sentence; that tells "Abilities" (the page
header, followed by a name) from a real ability. The ``rule_id`` is the name
as a player says it ("All-out defence"); exact repeats of an ability (the
seed prints several twice) are merged into one unit and counted.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ruleslawyer.ingest.normalize import normalize
from ruleslawyer.ingest.units import ParseResult, build_unit

_BLOCK = re.compile(r"[^\n]+(?:\n[^\n]+)*")
_FIELD = re.compile(r"^(?:DECLARE|EFFECT|USED BY|KEYWORDS)\s*:", re.I)
_COST = re.compile(r"\s*\((\d+)\s*cp\)\s*$", re.I)


def _is_short(block: str) -> bool:
    return "\n" not in block and len(block.split()) <= 8 and not block.rstrip().endswith(".")


def ability_id(name: str) -> str:
    """'BANISH MANIFESTATION' / 'run' / 'All-out defence (1 cp)' -> 'Banish manifestation' etc."""
    name = _COST.sub("", name).strip()
    return name[:1].upper() + name[1:].lower()


def looks_like_abilities(text: str) -> bool:
    return len(re.findall(r"(?m)^EFFECT\s*:", text)) >= 3


def parse_abilities(text: str, *, file: str, game: str, parent: str) -> ParseResult:
    result = ParseResult(parser="abilities")
    blocks = [(m.start(), m.end(), m.group(0).strip()) for m in _BLOCK.finditer(text)]
    starts: list[int] = []
    for i in range(len(blocks) - 2):
        name, timing, after = blocks[i][2], blocks[i + 1][2], blocks[i + 2][2]
        if (
            _FIELD.match(name)
            or not _is_short(name)
            or not _is_short(timing)
            or _FIELD.match(timing)
        ):
            continue
        if _FIELD.match(after) or after.rstrip().endswith("."):
            starts.append(i)
    if not starts:
        return result
    if blocks[starts[0]][0] > 0:
        result.furniture.append((0, blocks[starts[0]][0], "page header"))

    seen: dict[str, int] = {}
    for n, i in enumerate(starts):
        end_block = starts[n + 1] - 1 if n + 1 < len(starts) else len(blocks) - 1
        span = (blocks[i][0], blocks[end_block][1])
        name = blocks[i][2]
        rule_id = ability_id(name)
        printed = _COST.sub("", name).strip()
        unit = build_unit(
            rule_id=rule_id,
            game=game,
            title=printed.title() if printed.isupper() or printed.islower() else printed,
            text=text,
            span=span,
            file=file,
            parent=parent,
            kind="ability",
        )
        if unit is None:
            continue
        if rule_id.lower() in seen:
            k = seen[rule_id.lower()]
            first = result.units[k]
            if normalize(first.text) == normalize(unit.text):
                result.units[k] = replace(first, merged=first.merged + 1)
                result.merged.append(rule_id)
                result.furniture.append((span[0], span[1], f"exact repeat of {rule_id}"))
                continue
            result.warnings.append(f"{file}: two different abilities named {rule_id!r}; kept both")
            copies = sum(1 for u in result.units if u.rule_id.startswith(rule_id))
            unit = replace(unit, rule_id=f"{rule_id} ({copies + 1})")
        seen[rule_id.lower()] = len(result.units)
        result.units.append(unit)
    return result
