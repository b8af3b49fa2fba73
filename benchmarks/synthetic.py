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


def write_markdown_corpus(
    units: list[RuleUnit],
    folder: Path,
    *,
    files: int = 50,
    size: int = 1_000_000,
    seed: int = 11,
    stem: str = "chapter",
) -> list[Path]:
    """A Markdown rulebook set of ``files`` files and about ``size`` bytes,
    named ``{stem}-00.md`` on.

    Shaped like a wiki-style rules repository: each file one chapter (``#``),
    sections (``##``) and rules (``###``, some with ``####`` sub-rules), about
    500 bytes of text per heading; bullet lists, a table now and then,
    designer's notes in block quotes and bold run-in labels. Sentences are
    the seeds' own with a third of their words swapped, as in ``write_corpus``.
    """
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    sentences = [s for u in units for s in re.split(r"(?<=[.!?])\s+", u.search_text) if len(s) > 30]
    vocab = [w for u in units for w in _WORD.findall(u.search_text)]

    def para(n: int) -> str:
        return " ".join(_mangle(rng.choice(sentences), vocab, rng) for _ in range(n))

    def name() -> str:
        return " ".join(w.capitalize() for w in rng.sample(vocab, rng.randint(1, 3)))

    out = []
    per_file = size // files
    for f in range(files):
        lines = [f"# {name()}", "", para(2), ""]
        while sum(len(x) + 1 for x in lines) < per_file:
            lines += [f"## {name()}", "", para(2), ""]
            for _ in range(rng.randint(2, 5)):
                lines += [f"### {name()}", "", para(rng.randint(2, 4)), ""]
                r = rng.random()
                if r < 0.3:
                    lines += [f"- {para(1)}" for _ in range(3)] + [""]
                elif r < 0.4:
                    lines += ["| Name | Range | Effect |", "|---|---|---|"]
                    lines += [f'| {name()} | {rng.randint(1, 24)}" | {name()} |' for _ in range(3)]
                    lines += [""]
                elif r < 0.5:
                    lines += [f"> **Designer's note:** {para(1)}", ""]
                elif r < 0.6:
                    lines += [f"**{name()}:** {para(1)}", ""]
                if rng.random() < 0.25:
                    lines += [f"#### {name()}", "", para(2), ""]
        path = folder / f"{stem}-{f:02d}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        out.append(path)
    return out
