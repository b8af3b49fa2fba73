"""Which game a question is about, when the player did not say.

Two kinds of evidence, strongest first:

1. names and jargon only one game uses ("in AoS", "warcaster", "stratagem",
   "WIZARD"), a short curated list: these are facts about the games, not
   about the loaded rulebooks, so they also work for rules not yet ingested;
2. words distinctive of one game's loaded rules (computed from the index:
   a word counts when nearly all its occurrences are in one game).

A question with no clear winner is searched across all games.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

from ruleslawyer.records import RuleUnit
from ruleslawyer.retrieval.tokens import tokenize

# (pattern, game, weight). Weight 3 = the game named outright.
_CUES: list[tuple[str, str, float]] = [
    (r"\b(?:40k|40,?000|wh40k|warhammer 40|grimdark)\b", "40k", 3),
    (r"\b(?:aos|age of sigmar|sigmar|mortal realms)\b", "aos", 3),
    (r"\b(?:warmachine|hordes|wmh|mk ?(?:iii|iv|3|4))\b", "warmachine", 3),
    (
        r"\b(?:stratagems?|battle-?shock(?:ed)?|datasheets?|command points?|overwatch|"
        r"deep strike|fights? first|feel no pain|lethal hits|sustained hits|devastating wounds|"
        r"titanic|engaged|advanced?|fall(?:s|ing)? back|fell back|space marines?|orks?|"
        r"necrons?|tyranids?|intercessors?|objective control|\boc\b|psykers?)\b",
        "40k",
        1.5,
    ),
    (
        r"\b(?:wizards?|priests?|warscrolls?|manifestations?|unbind|banish|ward save|ward|"
        r"rally|redeploy|counter ?charge|all-out (?:attack|defen[cs]e)|hero phase|"
        r"stormcast|seraphon|skaven|battle tactics?|places? of power|prayers?|"
        r"combat range|in combat|power through|covering fire)\b",
        "aos",
        1.5,
    ),
    (
        r"\b(?:warcasters?|warlocks?|warjacks?|warbeasts?|focus|fury|feats?|"
        r"any ?time abilit(?:y|ies)|infernals?|knocked down|slam(?:s|med)?|trample|rof|"
        r"reposition|teleport|countercharge|activation|soul phase|impact attacks?|"
        r"orders?|cast(?:ing)? a spell before)\b",
        "warmachine",
        1.5,
    ),
]
_COMPILED = [(re.compile(p, re.I), g, w) for p, g, w in _CUES]
# Below this margin the question is searched in every game.
MIN_MARGIN = 1.0


class GameDetector:
    def __init__(self, units: Sequence[RuleUnit]) -> None:
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for u in units:
            counts[u.game].update(set(tokenize(u.title + " " + u.search_text)))
        self.games = sorted(counts)
        total: Counter[str] = Counter()
        for c in counts.values():
            total.update(c)
        # word -> (game, weight) for words whose documents sit (almost) all in one game
        self.distinctive: dict[str, tuple[str, float]] = {}
        for word, n in total.items():
            if n < 2 or not word[:1].isalpha():
                continue
            game, k = max(((g, counts[g][word]) for g in counts), key=lambda x: x[1])
            if k / n >= 0.9:
                self.distinctive[word] = (game, min(1.0, 0.35 * math.log2(1 + k)))

    def scores(self, question: str) -> dict[str, float]:
        score: dict[str, float] = defaultdict(float)
        for rx, game, weight in _COMPILED:
            # each distinct cue counts ("warjack" and "slam" are two clues), up to three
            found = {m.group(0).lower() for m in rx.finditer(question)}
            score[game] += weight * min(3, len(found))
        for word in set(tokenize(question)):
            if word in self.distinctive:
                game, weight = self.distinctive[word]
                score[game] += weight
        return dict(score)

    def detect(self, question: str, named: dict[str, float] | None = None) -> str | None:
        """The game, or None when no game clearly wins. ``named``: extra votes,
        e.g. for games whose rules the question names outright."""
        score = self.scores(question)
        for game, weight in (named or {}).items():
            score[game] = score.get(game, 0.0) + weight
        if not score:
            return None
        ranked = sorted(score.items(), key=lambda kv: kv[1], reverse=True)
        best, top = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
        return best if top - runner_up >= MIN_MARGIN else None
