"""Exact lookup: a rule number or a rule's name in the question goes straight to it.

Players ask "what does 24.21 say", "does lance work on overwatch", "can I
redeploy after running". A rule number is unambiguous. A name is matched as
a whole phrase against each unit's ID and title (brackets and case ignored),
longest names first so "Scout Move" wins over "Scouts". Names that are also
everyday words ("Run", "Fight", "Shoot") are *weak* matches: they feed the
fusion like any retriever instead of jumping to the top.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ruleslawyer.ingest.normalize import normalize
from ruleslawyer.records import RuleUnit

_NUMBER = re.compile(r"(?<![\d.])(\d{1,2}\.\d{2})(?![\d])")
# Single words that name rules but mostly appear in questions as plain verbs/nouns.
_COMMON = frozenset(
    "run shoot fight charge fly move retreat rally leader support champion musician destroyed "
    "revived hover stealth heavy assault blast torrent pistol precision psychic scouts".split()
)


def _key(name: str) -> str:
    name = normalize(name).lower().strip("[] ")
    name = re.sub(r"[\"']", "", name)
    return re.sub(r"[\s\-]+", " ", name)


def _phrase(key: str) -> str:
    """Regex for a name as a whole phrase, any spacing or hyphens between its words."""
    words = [re.escape(w) for w in key.split(" ")]
    return r"(?<![\w-])" + r"[\s-]+".join(words) + r"(?![\w-])"


@dataclass(frozen=True)
class ExactMatch:
    position: int  # index of the unit in the index
    strong: bool
    matched: str
    number: bool = False  # matched by rule number


class ExactIndex:
    def __init__(self, units: Sequence[RuleUnit]) -> None:
        self.by_number: dict[str, list[int]] = {}
        names: dict[str, set[int]] = {}
        for i, u in enumerate(units):
            if _NUMBER.fullmatch(u.rule_id):
                self.by_number.setdefault(u.rule_id, []).append(i)
            for name in {u.rule_id, u.title}:
                if not name or _NUMBER.fullmatch(name) or u.kind in ("ruling", "section", "faq"):
                    continue
                key = _key(name)
                if len(key) >= 3:
                    names.setdefault(key, set()).add(i)
        self.names = sorted(names.items(), key=lambda kv: -len(kv[0]))
        self._patterns = [(re.compile(_phrase(k)), k, sorted(v)) for k, v in self.names]

    def match(self, question: str) -> list[ExactMatch]:
        out: list[ExactMatch] = []
        seen: set[int] = set()
        for num in _NUMBER.findall(question):
            for i in self.by_number.get(num, []):
                if i not in seen:
                    out.append(ExactMatch(i, True, num, number=True))
                    seen.add(i)
        text = _key(question)
        taken: list[tuple[int, int]] = []
        for rx, key, positions in self._patterns:
            for m in rx.finditer(text):
                if any(s <= m.start() < e for s, e in taken):
                    continue  # part of a longer name already matched
                taken.append((m.start(), m.end()))
                strong = key not in _COMMON
                for i in positions:
                    if i not in seen:
                        out.append(ExactMatch(i, strong, key))
                        seen.add(i)
        return out
