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
    [
        "run",
        "shoot",
        "fight",
        "charge",
        "fly",
        "move",
        "retreat",
        "rally",
        "leader",
        "support",
        "champion",
        "musician",
        "destroyed",
        "revived",
        "hover",
        "stealth",
        "heavy",
        "assault",
        "blast",
        "torrent",
        "pistol",
        "precision",
        "psychic",
        "scouts",
    ]
)


def name_key(name: str) -> str:
    """How names compare: case, brackets, quotes, punctuation and hyphens ignored."""
    name = normalize(name).lower().strip("[] ")
    name = re.sub(r"[\"'?!,;:()\[\]]", " ", name)
    return " ".join(re.sub(r"[\s\-]+", " ", name).split()).rstrip(".")


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
                key = name_key(name)
                if len(key) >= 3:
                    names.setdefault(key, set()).add(i)
        self.names = {k: sorted(v) for k, v in names.items()}
        self.max_words = max((k.count(" ") + 1 for k in self.names), default=1)

    def match(self, question: str) -> list[ExactMatch]:
        out: list[ExactMatch] = []
        seen: set[int] = set()
        for num in _NUMBER.findall(question):
            for i in self.by_number.get(num, []):
                if i not in seen:
                    out.append(ExactMatch(i, True, num, number=True))
                    seen.add(i)
        # Look up every word n-gram of the question (longest first) in the name
        # table: cost grows with the question, not with the number of rules.
        words = re.findall(r"[a-z0-9][a-z0-9.+\u2011'-]*", name_key(question).replace("-", " "))
        used = [False] * len(words)
        for n in range(min(self.max_words, len(words)), 0, -1):
            for i in range(len(words) - n + 1):
                if any(used[i : i + n]):
                    continue
                key = " ".join(words[i : i + n])
                positions = self.names.get(key)
                if not positions:
                    continue
                for j in range(i, i + n):
                    used[j] = True
                strong = key not in _COMMON
                for p in positions:
                    if p not in seen:
                        out.append(ExactMatch(p, strong, key))
                        seen.add(p)
        return out
