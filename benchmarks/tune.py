"""Fit retrieval's numbers on the *fit* questions, choose the floor on *choose*.

    python -m benchmarks tune [--sentence-only] [--write]

Everything is measured with the game detected, as players ask. Signals
(dense and BM25 scores, exact matches, game cues) are computed once per
question; each setting is then scored offline:

1. game choice: weights and margin that detect the most questions'
   games right, a wrong game costing three right ones (a wrong game hides
   the answer; an undetected one only searches every game);
2. fusion weights: recall@5, then MRR (with no sentence re-ordering);
   then the weight of the top rules' best-sentence match
   (``w_sentence``, see ``HybridRetriever.fuse``): MRR, the smallest
   weight of the best;
3. relevance: a logistic model over ``RELEVANCE_FEATURES`` fitted on fit
   (answerable vs unanswerable, classes balanced); its floor is the highest
   probability that keeps false abstentions on *choose* at most 5%.

The split definitions are in ``benchmarks/splits.py``; test and cross
questions are never looked at here (``python -m benchmarks report``
reports them). ``--write`` stores the result in ``retrieval/tuning.toml``.

``--sentence-only`` fits ``w_sentence`` alone on the shipped tuning and
``--write`` then changes only its line. The rest of the file was fitted on
2026-11-30; a whole refit on today's larger *fit* gives other fusion and
game weights, which were measured and not kept (README, "What was tried"),
so a new signal is fitted beside them rather than by refitting them.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import re
import time
import tomllib
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from benchmarks.common import fit_logistic, highest_floor, retrieval_scores
from benchmarks.splits import questions, service
from ruleslawyer.retrieval.hybrid import RELEVANCE_FEATURES, TUNING_FILE, Signals, Tuning

GAME_GRID = {
    "game_lexical": [0.5, 1.0],
    "game_named": [0.0, 1.0, 2.0, 3.0],
    "game_dense": [0.0, 5.0, 10.0, 20.0, 40.0],
    "game_bm25": [0.0, 1.0, 2.0, 4.0, 8.0],
    "game_margin": [0.5, 1.0, 1.5, 2.0, 3.0],
}
FUSION_GRID = {
    "w_dense": [0.5, 1.0, 1.5, 2.0],
    "w_bm25": [0.5, 1.0, 1.5, 2.0],
    "w_exact": [0.0, 0.5, 1.0, 2.0],
    "rrf_k": [5.0, 20.0, 60.0],
    "pin_names": [0.0, 1.0],
}
SENTENCE_GRID = [w / 20 for w in range(61)]  # 0-3
MAX_FALSE_ABSTENTION = 0.05
WRONG_GAME_COST = 3


def signals(split: str) -> list[tuple[Any, Any, Signals]]:
    """(question, retriever, signals) for every question of ``split``, game not given."""
    out = []
    retrievers: dict[str, Any] = {}
    for item, corpus in questions(split):
        if corpus not in retrievers:
            retrievers[corpus] = service(corpus, llm="none").retriever()
        r = retrievers[corpus]
        out.append((item, r, r.signals(item.question)))
    return out


def game_figures(rows: list[tuple[Any, Any, Signals]], t: Tuning) -> dict[str, int]:
    right = wrong = none = 0
    for item, r, sig in rows:
        if item.unanswerable:
            continue
        g = r.choose_game(sig, t)
        right += g == item.game
        wrong += g is not None and g != item.game
        none += g is None
    return {"right": right, "wrong": wrong, "undetected": none}


def fused(rows: list[tuple[Any, Any, Signals]], t: Tuning) -> list[tuple[Any, Any]]:
    return [(item, r.fuse(sig, k=5, refs=False, tuning=t)) for item, r, sig in rows]


def features(rows: list[tuple[Any, Any, Signals]], t: Tuning) -> tuple[list[Any], list[int]]:
    x = [r.relevance_inputs(sig, t) for _, r, sig in rows]
    return x, [0 if item.unanswerable else 1 for item, _, _ in rows]


def abstention(results: list[tuple[Any, Any]]) -> dict[str, float]:
    unans = [res for item, res in results if item.unanswerable]
    ans = [res for item, res in results if not item.unanswerable]
    return {
        "turned_away": sum(not r.relevant for r in unans) / max(1, len(unans)),
        "false_abstention": sum(not r.relevant for r in ans) / max(1, len(ans)),
        "unanswerable": len(unans),
        "answerable": len(ans),
    }


def fit_sentence_weight(t: Tuning, fit_rows: list[tuple[Any, Any, Signals]]) -> Tuning:
    """``t`` with the ``w_sentence`` of the best MRR on fit (the smallest of equals)."""

    def mrr(w: float) -> float:
        cand = replace(t, w_sentence=w)
        return float(retrieval_scores([(i, res.hits) for i, res in fused(fit_rows, cand)])["mrr"])

    by_w = {w: round(mrr(w), 4) for w in SENTENCE_GRID}
    return replace(t, w_sentence=max(SENTENCE_GRID, key=lambda w: (by_w[w], -w)))


def figures(t: Tuning, rows_by_split: dict[str, list[tuple[Any, Any, Signals]]]) -> dict[str, Any]:
    report: dict[str, Any] = {}
    for name, rows in rows_by_split.items():
        results = fused(rows, t)
        report[name] = {
            **retrieval_scores([(i, res.hits) for i, res in results]),
            "game": game_figures(rows, t),
            **abstention(results),
        }
    return report


def sentence_only() -> tuple[Tuning, dict[str, Any]]:
    """The shipped tuning with only ``w_sentence`` fitted again."""
    rows = {"fit": signals("fit"), "choose": signals("choose")}
    shipped = Tuning.load()
    t = fit_sentence_weight(shipped, rows["fit"])
    off = replace(shipped, w_sentence=0.0)
    return t, {
        **{f"{k} (w_sentence 0)": v for k, v in figures(off, rows).items()},
        **figures(t, rows),
    }


def write_sentence_weight(w: float, path: Path = TUNING_FILE) -> None:
    """Set ``w_sentence`` in the tuning file, leaving every other line as it is.

    The new text is parsed before it replaces the file, and replaces it in
    one step: a tuning file that no longer parses would stop every search.
    """
    text = path.read_text(encoding="utf-8")
    line = f"w_sentence = {w!r}"
    key = re.compile(r"(?m)^[ \t]*w_sentence[ \t]*=.*$")
    if key.search(text):
        text = key.sub(line, text)
    elif re.search(r"(?m)^\[retrieval\][ \t]*$", text):
        text = re.sub(r"(?m)^\[retrieval\][ \t]*$", f"[retrieval]\n{line}", text, count=1)
    else:
        text = text.rstrip("\n") + f"\n[retrieval]\n{line}\n"
    note = (
        "# w_sentence fitted on fit by `python -m benchmarks tune --sentence-only --write` on "
        f"{time.strftime('%Y-%m-%d')}, everything else as it was."
    )
    text = re.sub(r"(?m)^# w_sentence fitted .*\n", "", text)
    text = re.sub(r"(?m)^\[retrieval\]", f"{note}\n[retrieval]", text, count=1)
    if tomllib.loads(text)["retrieval"]["w_sentence"] != w:
        raise SystemExit(f"could not set w_sentence in {path}; it is unchanged")
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def tune() -> tuple[Tuning, dict[str, Any]]:
    fit_rows, choose_rows = signals("fit"), signals("choose")
    t = replace(Tuning.load(), w_sentence=0.0)
    report: dict[str, Any] = {}

    best: tuple[int, Tuning] | None = None
    for values in itertools.product(*GAME_GRID.values()):
        cand = replace(t, **dict(zip(GAME_GRID, values, strict=True)))
        g = game_figures(fit_rows, cand)
        score = g["right"] - WRONG_GAME_COST * g["wrong"]
        if best is None or score > best[0]:
            best = (score, cand)
    assert best is not None
    t = best[1]

    best_f: tuple[tuple[float, float], Tuning] | None = None
    for values in itertools.product(*FUSION_GRID.values()):
        cand = replace(t, **dict(zip(FUSION_GRID, values, strict=True)))
        sc = retrieval_scores([(i, res.hits) for i, res in fused(fit_rows, cand)])
        key = (round(sc["recall@5"], 4), round(sc["mrr"], 4))
        if best_f is None or key > best_f[0]:
            best_f = (key, cand)
    assert best_f is not None
    t = best_f[1]

    t = fit_sentence_weight(t, fit_rows)

    x, y = features(fit_rows, t)
    bias, weights = fit_logistic(x, y)
    # The background a single-game index lacks: the other games' best match,
    # recovered from the contrasts (own minus other), averaged over fit.
    names = list(RELEVANCE_FEATURES)
    d, b = names.index("dense"), names.index("log_bm25")
    dc, bc = names.index("dense_contrast"), names.index("bm25_contrast")
    t = replace(
        t,
        bg_dense=sum(row[d] - row[dc] for row in x) / len(x),
        bg_log_bm25=sum(row[b] - row[bc] for row in x) / len(x),
        rel_bias=bias,
        **{f"rel_{n}": w for n, w in zip(RELEVANCE_FEATURES, weights, strict=True)},
    )
    # The floor: the highest that keeps false abstentions on choose within the bound.
    probs = [
        r.relevance
        for item, r in fused(choose_rows, replace(t, floor=0.0))
        if not item.unanswerable
    ]
    # (just under the lowest score that must pass, rounded down, so it still passes)
    lowest = highest_floor(probs, MAX_FALSE_ABSTENTION)
    t = replace(t, floor=math.floor((lowest - 1e-6) * 1e4) / 1e4 if probs else 0.0)

    report.update(figures(t, {"fit": fit_rows, "choose": choose_rows}))
    return t, report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks tune", description=__doc__)
    ap.add_argument("--write", action="store_true", help=f"write the result to {TUNING_FILE}")
    ap.add_argument(
        "--sentence-only",
        action="store_true",
        help="fit only w_sentence, on the shipped tuning (--write changes only its line)",
    )
    args = ap.parse_args(argv)
    t, report = sentence_only() if args.sentence_only else tune()
    for name, r in report.items():
        g = r["game"]
        print(
            f"{name:7s} recall@1 {r['recall@1']:.3f} recall@5 {r['recall@5']:.3f} MRR {r['mrr']:.3f}"
            f" | game right {g['right']}, wrong {g['wrong']}, undetected {g['undetected']}"
            f" | unanswerable turned away {r['turned_away']:.0%} of {r['unanswerable']},"
            f" false abstention {r['false_abstention']:.1%} of {r['answerable']}"
        )
    print("tuning:", ", ".join(f"{k}={v:.4g}" for k, v in asdict(t).items()))
    if args.write and args.sentence_only:
        write_sentence_weight(t.w_sentence)
        print(f"wrote w_sentence = {t.w_sentence!r} to {TUNING_FILE}")
    elif args.write:
        f, c = report["fit"], report["choose"]
        TUNING_FILE.write_text(
            "# Written by `python -m benchmarks tune --write` on "
            f"{time.strftime('%Y-%m-%d')}: weights fitted on the fit split, floor chosen on choose.\n"
            f"# fit: recall@5 {f['recall@5']:.3f}, MRR {f['mrr']:.3f}, turned away {f['turned_away']:.0%}, "
            f"false abstention {f['false_abstention']:.1%}\n"
            f"# choose: recall@5 {c['recall@5']:.3f}, MRR {c['mrr']:.3f}, turned away {c['turned_away']:.0%}, "
            f"false abstention {c['false_abstention']:.1%}\n"
            "[retrieval]\n" + "".join(f"{k} = {v!r}\n" for k, v in asdict(t).items()),
            encoding="utf-8",
        )
        print(f"wrote {TUNING_FILE}")
