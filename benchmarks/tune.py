"""Choose the fusion weights and the relevance floor by measurement on the dev set.

    python -m benchmarks tune [--dataset PATH] [--write]

Signals (dense scores, BM25 scores, exact matches) are computed once per
question; every weight combination is then scored offline. The objective is
recall@5 with the game detected (what players get), then MRR. The floor is
the highest relevance threshold that keeps at least 97% of answerable
questions answered, and it is reported with the share of unanswerable
questions it turns away. ``--write`` stores the choice in
``retrieval/tuning.toml``; the held-out set is never looked at here.
"""

from __future__ import annotations

import argparse
import itertools
import time
from dataclasses import replace

from benchmarks.common import DEV, items, retrieval_scores, settings_for
from ruleslawyer.retrieval.hybrid import TUNING_FILE
from ruleslawyer.service import RulesService

GRID = {
    "w_dense": [0.5, 1.0, 1.5, 2.0],
    "w_bm25": [0.5, 1.0, 1.5, 2.0],
    "w_exact": [0.0, 0.5, 1.0, 2.0],
    "rrf_k": [5.0, 20.0, 60.0],
    "pin_names": [0.0, 1.0],
}
RELEVANCE = {
    "dense_weight": [0.3, 0.5, 0.7, 1.0],
    "bm25_scale": [5.0, 10.0, 20.0, 40.0],
    "agree_bonus": [0.0, 0.1, 0.2, 0.3],
}
MIN_ANSWERED = 0.97


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks tune", description=__doc__)
    ap.add_argument("--dataset", default=str(DEV))
    ap.add_argument("--write", action="store_true", help=f"write the result to {TUNING_FILE}")
    args = ap.parse_args(argv)
    service = RulesService(settings_for())
    service.ingest()
    retriever = service.retriever()
    qs = items(args.dataset)
    sigs = [retriever.signals(q.question) for q in qs]

    best = None
    for values in itertools.product(*GRID.values()):
        t = replace(retriever.tuning, **dict(zip(GRID, values, strict=True)))
        res = [
            (q, retriever.fuse(s, k=5, refs=False, tuning=t).hits)
            for q, s in zip(qs, sigs, strict=True)
        ]
        sc = retrieval_scores(res)
        key = (round(sc["recall@5"], 4), round(sc["mrr"], 4))
        if best is None or key > best[0]:
            best = (key, t, sc)
    assert best is not None
    _, tuning, sc = best
    print(
        f"weights: dense {tuning.w_dense}, bm25 {tuning.w_bm25}, exact {tuning.w_exact}, rrf_k {tuning.rrf_k}"
    )
    print(
        f"  recall@1 {sc['recall@1']:.3f}  recall@5 {sc['recall@5']:.3f}  MRR {sc['mrr']:.3f} (n={sc['n']})"
    )

    # Relevance floor: separate answerable from unanswerable questions.
    answerable = [not q.unanswerable for q in qs]
    best_floor = None
    for dw, scale, bonus in itertools.product(*RELEVANCE.values()):
        t = replace(tuning, dense_weight=dw, bm25_scale=scale, agree_bonus=bonus)
        rel = [retriever.fuse(s, k=5, refs=False, tuning=t).relevance for s in sigs]
        ans = sorted(r for r, a in zip(rel, answerable, strict=True) if a)
        # highest floor that keeps MIN_ANSWERED of answerable questions
        cut = ans[int((1 - MIN_ANSWERED) * len(ans))] if ans else 0.0
        floor = cut - 1e-6
        unans = [r for r, a in zip(rel, answerable, strict=True) if not a]
        turned_away = sum(1 for r in unans if r < floor) / len(unans) if unans else 0.0
        kept = sum(1 for r in ans if r >= floor) / len(ans)
        key = (turned_away, kept)
        if best_floor is None or key > best_floor[0]:
            best_floor = (key, dw, scale, bonus, floor)
    assert best_floor is not None
    (turned_away, kept), dw, scale, bonus, floor = best_floor
    tuning = replace(
        tuning, dense_weight=dw, bm25_scale=scale, agree_bonus=bonus, floor=round(floor, 4)
    )
    print(
        f"relevance: dense_weight {dw}, bm25_scale {scale}, agree_bonus {bonus}, floor {tuning.floor:.4f}"
    )
    print(f"  unanswerable turned away {turned_away:.0%}, answerable kept {kept:.0%}")
    if args.write:
        TUNING_FILE.write_text(
            "# Written by `python -m benchmarks tune --write` on "
            f"{time.strftime('%Y-%m-%d')} from {args.dataset}.\n"
            f"# dev recall@5 {sc['recall@5']:.3f}, MRR {sc['mrr']:.3f}; "
            f"floor turns away {turned_away:.0%} of unanswerable, keeps {kept:.0%} of answerable.\n"
            "[retrieval]\n" + "".join(f"{k} = {v}\n" for k, v in tuning.__dict__.items()),
            encoding="utf-8",
        )
        print(f"wrote {TUNING_FILE}")
