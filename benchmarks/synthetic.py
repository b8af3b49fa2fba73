"""Synthetic distractor rulebooks, to measure how things scale.

Each synthetic rule is built from real seed sentences with a third of their
content words swapped for other words of the corpus: same style, length and
vocabulary as real rules, but no real rule's sentences, so they compete
for attention without ever being a right answer. Files are written in the
numbered layout so they go through the real parser and ingest pipeline.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from ruleslawyer.records import RuleUnit

_WORD = re.compile(r"[A-Za-z]{4,}")


def write_corpus(
    units: list[RuleUnit], scale: int, folder: Path, seed: int = 7
) -> list[tuple[Path, str]]:
    """Write rulebooks holding (scale - 1) x len(units) synthetic rules; return (path, game)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    games = list(dict.fromkeys(u.game for u in units))
    sentences: dict[str, list[str]] = {g: [] for g in games}
    vocab: list[str] = []
    for u in units:
        sentences.setdefault(u.game, []).extend(
            s for s in re.split(r"(?<=[.!?])\s+", u.search_text) if len(s) > 30
        )
        vocab.extend(_WORD.findall(u.search_text))
    per_game = {g: sum(1 for u in units if u.game == g) * (scale - 1) for g in games}
    out: list[tuple[Path, str]] = []
    for game, count in per_game.items():
        if not count or not sentences.get(game):
            continue
        per_file = 99 * 20  # 20 chapters of 99 rules per file
        n_files = (count + per_file - 1) // per_file
        made = 0
        for f in range(n_files):
            lines = []
            for chapter in range(30, 50):
                for rule in range(1, 100):
                    if made >= count:
                        break
                    body = " ".join(
                        _mangle(rng.choice(sentences[game]), vocab, rng)
                        for _ in range(rng.randint(2, 5))
                    )
                    title = " ".join(w.capitalize() for w in rng.sample(vocab, 2))
                    lines.append(f"{chapter}.{rule:02d} {title}\n{body}")
                    made += 1
            path = folder / f"synthetic-{game}-{f:03d}.txt"
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            out.append((path, game))
    return out


def _mangle(sentence: str, vocab: list[str], rng: random.Random) -> str:
    return _WORD.sub(lambda m: rng.choice(vocab) if rng.random() < 0.33 else m.group(0), sentence)
