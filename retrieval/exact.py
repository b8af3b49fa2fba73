"""Exact lookup: a rule number or a rule's name in the question goes straight to it.

Players ask "what does 24.21 say", "does lance work on overwatch", "can I
redeploy after running". A rule number is unambiguous. A name is matched as
a whole phrase against each unit's ID and title (brackets and case ignored),
longest names first so "Scout Move" wins over "Scouts".

A longer or bracketed name ("Line of Sight", "[SUSTAINED HITS]") is a
*strong* match: it vouches for the rule. A one-word name is strong only when
that word occurs in no other rule of its game ("Redeploy", "Lance"): a word
the rules also use in passing ("Charge", "Movement", "Run") is as likely the
plain verb or noun, so it is a *weak* match that feeds the fusion like any
retriever. That is learned from the loaded rules, so it holds for any game.
A question that is nothing but a rule's name ("charge") is a lookup, and
that match is strong whatever the name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ruleslawyer.ingest.normalize import normalize
from ruleslawyer.records import RuleUnit, rules_under

# A printed rule number: "24.21", "3.2", "10.5.1", "100.2a" (a card game's
# comprehensive rules letter their sub-rules). Only numbers some rule of the
# index carries count, so "2.5 inches" in a question is a lookup only in a book
# that has a rule 2.5.
RULE_NUMBER = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,3})+(?:[a-z](?![a-z]))?)(?![\d])")
# A bare number the question names as a rule or chapter ("rule 2", "chapter 3",
# "§ 4"): a heading's number that is no rule ID (``RuleUnit.number``). Alone,
# "2" is as likely inches or dice.
_CAPITAL_LETTER = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,3})+)([A-Z])(?![A-Za-z])")
# How many of the rules numbered under a number no rule has stand for it
_UNDER = 3
NAMED_BARE_NUMBER = re.compile(r"(?i)(?:\b(?:rule|section|chapter)\s*|§\s*)(\d{1,3})\b(?![.,]\d)")


def name_key(name: str) -> str:
    """How names compare: case, brackets, quotes, punctuation and hyphens ignored."""
    name = normalize(name).lower().strip("[] ")
    name = re.sub(r"[\"'?!,;:()\[\]]", " ", name)
    return " ".join(re.sub(r"[\s\-]+", " ", name).split()).rstrip(".")


def name_words(text: str) -> list[str]:
    """The words of ``text`` that names are looked up by, as ``name_key`` reads them."""
    return re.findall(r"[a-z0-9][a-z0-9.+\u2011'-]*", name_key(text).replace("-", " "))


@dataclass(frozen=True)
class ExactMatch:
    position: int  # index of the unit in the index
    strong: bool
    matched: str
    number: bool = False  # matched by rule number
    whole: bool = False  # the question is nothing but this name


class ExactIndex:
    def __init__(self, units: Sequence[RuleUnit]) -> None:
        self.by_number: dict[str, list[int]] = {}
        self.by_bare_number: dict[str, list[int]] = {}
        self.games = [u.game for u in units]
        self.in_heading = {i for i, u in enumerate(units) if u.in_its_heading}
        self.bracketed: set[str] = set()
        names: dict[str, set[int]] = {}
        for i, u in enumerate(units):
            if RULE_NUMBER.fullmatch(u.rule_id):
                self.by_number.setdefault(u.rule_id, []).append(i)
            if u.number:
                self.by_bare_number.setdefault(u.number, []).append(i)
            for name in {u.rule_id, u.title}:
                if (
                    not name
                    or RULE_NUMBER.fullmatch(name)
                    or u.kind in ("ruling", "section", "faq")
                ):
                    continue
                if u.slug_id and name == u.rule_id:
                    continue  # "infantry/combat/line-of-sight": the title is the name
                key = name_key(name)
                if len(key) >= 3:
                    names.setdefault(key, set()).add(i)
                    if name.strip().startswith("["):
                        self.bracketed.add(key)
        self.names = {k: sorted(v) for k, v in names.items()}
        # One-word names no other rule of the game uses: strong (see the docstring).
        holders: dict[str, set[int]] = {k: set() for k in self.names if " " not in k}
        for j, u in enumerate(units):
            for word in set(re.findall(r"[a-z0-9]+", normalize(u.search_text).lower())):
                if word in holders:
                    holders[word].add(j)
        self.distinct_words = set()
        for key, used_by in holders.items():
            named = set(self.names[key])
            games = {units[p].game for p in named}
            if not any(units[j].game in games for j in used_by - named):
                self.distinct_words.add(key)
        self.max_words = max((k.count(" ") + 1 for k in self.names), default=1)

    def numbered_under(self, number: str, game: str | None = None) -> list[int]:
        """The first rules of ``game`` (of any game: None) numbered under
        ``number``: a section whose text is all in its numbered paragraphs ("3.2"
        of 3.2.1 and 3.2.2, "100" of 100.1 and 100.1a, a wargame's "8.3" of its
        cases 8.31 and 8.32) is found by its number."""
        # (a heading "1.10" is no case of 1.1: ``records.case_of``)
        numbered = (
            (i, rule_id, i in self.in_heading)
            for rule_id, positions in self.by_number.items()
            for i in positions
            if game is None or self.games[i] == game
        )
        return sorted(rules_under(number, numbered))[:_UNDER]

    def match(self, question: str, game: str | None = None) -> list[ExactMatch]:
        """The rules ``question`` names by number or by name; with ``game``, a
        number is looked up in that game's rules (the rules under a number no
        rule of it has come from it alone)."""
        out: list[ExactMatch] = []
        seen: set[int] = set()
        # "Rule 100.2A" as "100.2a": a player's capital is the book's letter
        lettered = _CAPITAL_LETTER.sub(lambda m: m.group(1) + m.group(2).lower(), question)
        numbers = [
            # a lettered number the index lacks is its rule without the letter
            # ("3.2a" in a book that letters no sub-rules is its rule 3.2)
            (n if n in self.by_number or not n[-1].isalpha() else n[:-1], self.by_number)
            for n in RULE_NUMBER.findall(lettered)
        ]
        numbers += [(n, self.by_bare_number) for n in NAMED_BARE_NUMBER.findall(question)]
        for num, table in numbers:
            found = list(table.get(num, ()))
            in_game = [i for i in found if game is None or self.games[i] == game]
            # Only a number named as a rule, or asked about alone ("what does 3.2
            # say?"), stands for the rules under it: "a unit walks 2.5 inches"
            # is no lookup of 2.5.1 where no 2.5 is printed.
            named = table is self.by_bare_number or re.search(
                rf"(?i)(?:\b(?:rule|section|chapter)s?\s*|§\s*){re.escape(num)}(?![\d.]\d)",
                lettered,
            )
            alone = len(re.findall(r"[^\W\d_]+", lettered.replace(num, " "))) <= 3
            if not in_game and (named or alone):
                found += self.numbered_under(num, game)
            for i in found:
                if i not in seen:
                    out.append(ExactMatch(i, True, num, number=True))
                    seen.add(i)
        # Look up every word n-gram of the question (longest first) in the name
        # table: cost grows with the question, not with the number of rules.
        whole_key = name_key(question)
        words = name_words(question)
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
                whole = n == len(words) and key == whole_key.replace("-", " ")
                strong = n > 1 or key in self.bracketed or key in self.distinct_words or whole
                for p in positions:
                    if p not in seen:
                        out.append(ExactMatch(p, strong, key, whole=whole))
                        seen.add(p)
        return out
