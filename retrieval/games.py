"""Which game a question is about, when the player did not say.

Evidence, strongest first:

1. the game named outright: its slug, display name or an alias from the
   manifests ("in skirmishers", "in AoS", "40k");
2. jargon only one game uses, where its manifest lists some (``cues``:
   hand-written regexes, shipped only for the seed games; an extra, since
   they also work for rules not yet ingested); a cue that another loaded
   game's rules also use is dropped at load;
3. words distinctive of one game's loaded rules, learned at index load: a
   word counts when nearly all the rule units that use it are one game's.
   (Rule names that only one game has are a fourth, stronger vote, cast by
   the exact-name lookup in ``retrieval.hybrid``.)

Any game works with (1) and (3) alone; nothing here knows a game by name.
A question with no clear winner is searched across all games.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from ruleslawyer.records import GameInfo, RuleUnit
from ruleslawyer.retrieval.tokens import tokenize

NAMED_WEIGHT = 3.0  # the game named outright
CUE_WEIGHT = 1.5  # a manifest's jargon cue
# Below this margin the question is searched in every game.
MIN_MARGIN = 1.0


def _phrase(text: str) -> str:
    """A name as a whole-word regex that tolerates spacing and hyphens."""
    words = [re.escape(w) for w in re.split(r"[\s\-]+", text.strip()) if w]
    return r"(?<![\w])" + r"[\s\-]?".join(words) + r"(?![\w])" if words else ""


class GameDetector:
    def __init__(self, units: Sequence[RuleUnit], games: Iterable[GameInfo] = ()) -> None:
        self.cues: list[tuple[re.Pattern[str], str, float]] = []
        self.names: list[re.Pattern[str]] = []
        for info in games:
            names = [n for n in (info.slug, info.name, *info.aliases) if n]
            pattern = "|".join(p for p in dict.fromkeys(_phrase(n) for n in names) if p)
            if pattern:
                self.names.append(re.compile(pattern, re.I))
                self.cues.append((self.names[-1], info.slug, NAMED_WEIGHT))
            others = [u.search_text or u.text for u in units if u.game != info.slug]
            for cue in info.cues:
                try:
                    rx = re.compile(rf"\b(?:{cue})\b", re.I)
                except re.error:
                    continue  # a bad cue in a user's manifest must not break search
                # Jargon is only a cue while no other loaded game's rules use it:
                # "activation" says Warmachine until a game that activates is loaded.
                if not any(rx.search(text) for text in others):
                    self.cues.append((rx, info.slug, CUE_WEIGHT))
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

    def named(self, question: str) -> list[str]:
        """The games ``question`` names outright ("in AoS"), in the manifests' order."""
        return [g for rx, g, w in self.cues if w == NAMED_WEIGHT and rx.search(question)]

    def without_names(self, question: str) -> str:
        """The question minus the games it names: "in Age of Sigmar" picks the game
        and says nothing about which rule answers."""
        for rx in self.names:
            question = rx.sub(" ", question)
        return question

    def scores(self, question: str) -> dict[str, float]:
        score: dict[str, float] = defaultdict(float)
        for rx, game, weight in self.cues:
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
