"""Fit retrieval's numbers on the *fit* questions, choose the floor on *choose*.

    python -m benchmarks tune [--write]

Everything is measured with the game detected, as players ask. Signals
(dense and BM25 scores, exact matches, game cues) are computed once per
question; each setting is then scored offline:

1. game choice: weights and margin that detect the most questions'
   games right, a wrong game costing three right ones (a wrong game hides
   the answer; an undetected one only searches every game);
2. fusion weights: recall@5, then MRR;
3. relevance: a logistic model over ``RELEVANCE_FEATURES`` fitted on fit
   (answerable vs unanswerable, classes balanced); its floor is the highest
   probability that keeps false abstentions on *choose* at most 5%.

The split definitions are in ``benchmarks/splits.py``; test and cross
questions are never looked at here (``python -m benchmarks report``
reports them). ``--write`` stores the result in ``retrieval/tuning.toml``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from dataclasses import asdict, replace
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


def tune() -> tuple[Tuning, dict[str, Any]]:
    fit_rows, choose_rows = signals("fit"), signals("choose")
    t = Tuning.load()
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

    for name, rows in (("fit", fit_rows), ("choose", choose_rows)):
        results = fused(rows, t)
        report[name] = {
            **retrieval_scores([(i, res.hits) for i, res in results]),
            "game": game_figures(rows, t),
            **abstention(results),
        }
    return t, report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks tune", description=__doc__)
    ap.add_argument("--write", action="store_true", help=f"write the result to {TUNING_FILE}")
    args = ap.parse_args(argv)
    t, report = tune()
    for name, r in report.items():
        g = r["game"]
        print(
            f"{name:7s} recall@1 {r['recall@1']:.3f} recall@5 {r['recall@5']:.3f} MRR {r['mrr']:.3f}"
            f" | game right {g['right']}, wrong {g['wrong']}, undetected {g['undetected']}"
            f" | unanswerable turned away {r['turned_away']:.0%} of {r['unanswerable']},"
            f" false abstention {r['false_abstention']:.1%} of {r['answerable']}"
        )
    print("tuning:", ", ".join(f"{k}={v:.4g}" for k, v in asdict(t).items()))
    if args.write:
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
