"""Retrieval benchmark: recall@5/MRR per retriever and fused, and latency at scale.

    python -m benchmarks retrieval [--scale 100] [--dataset PATH] [--json OUT]

Recall is measured on the dev set twice: with the question's game detected
(what a player gets by default) and with the game given (``--game``).
Latency is per query, query embedding included, models loaded, on the
seeds and on the corpus scaled up with synthetic distractor rules; with
the top rules' sentence re-ordering and without it (``time_queries``).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.common import DEV, items, latency, machine, misses, retrieval_scores, settings_for
from benchmarks.synthetic import write_corpus
from ruleslawyer.service import RulesService

SINGLE = {
    "dense": {"w_dense": 1.0, "w_bm25": 0.0, "w_exact": 0.0, "pin_names": 0.0, "w_sentence": 0.0},
    "bm25": {"w_dense": 0.0, "w_bm25": 1.0, "w_exact": 0.0, "pin_names": 0.0, "w_sentence": 0.0},
    "exact": {"w_dense": 0.0, "w_bm25": 0.0, "w_exact": 1.0, "pin_names": 1.0, "w_sentence": 0.0},
    "fused, no sentence re-ordering": {"w_sentence": 0.0},
}


def recall_table(service: RulesService, dataset: Path) -> dict[str, Any]:
    retriever = service.retriever()
    qs = items(dataset)
    out: dict[str, Any] = {}
    for mode in ("detected", "given"):
        sigs = [
            retriever.signals(q.question, game=None if mode == "detected" else q.game) for q in qs
        ]
        rows: dict[str, Any] = {}
        for name, weights in [*SINGLE.items(), ("fused", {})]:
            tuning = replace(retriever.tuning, **weights)
            fused = [retriever.fuse(s, k=5, tuning=tuning) for s in sigs]
            results = [(q, r.hits) for q, r in zip(qs, fused, strict=True)]
            rows[name] = retrieval_scores(results)
            if name == "fused":
                rows[name]["misses"] = misses(results)
                games = [(q.game, r.game) for q, r in zip(qs, fused, strict=True)]
                rows[name]["wrong_game_detected"] = sum(
                    1 for want, got in games if got is not None and got != want
                )
                rows[name]["game_detected"] = sum(1 for _, got in games if got is not None)
        out[mode] = rows
    return out


def time_queries(service: RulesService, questions: list[str], repeat: int = 3) -> dict[str, Any]:
    """Search latency as players get it (``p50_ms``, ``p95_ms``), then with the
    top rules' sentence re-ordering off (``fused_*``).

    On a fresh service, the first pass over the questions meets their top
    rules' sentences uncached (as a new question does) and the later passes
    cached, so p95 is about the cost of a new question's sentences (the 1x
    figures of ``run`` come after its recall table searched every question,
    so there they are cached). That cost does not grow with the corpus; the
    fused figures are how search scales with it.
    """
    service.search(questions[0])  # warm: models loaded
    retriever = service.retriever()
    shipped = retriever.tuning

    def timed() -> list[float]:
        times = []
        for _ in range(repeat):
            for q in questions:
                t0 = time.perf_counter()
                service.search(q)
                times.append((time.perf_counter() - t0) * 1000)
        return times

    times = timed()
    retriever.tuning = replace(shipped, w_sentence=0.0)
    try:
        fused = latency(timed())
    finally:
        retriever.tuning = shipped
    return {
        **latency(times),
        "fused_p50_ms": fused["p50_ms"],
        "fused_p95_ms": fused["p95_ms"],
        "queries": len(times),
        "units": len(service.index().units),
    }


def scaled_service(base: RulesService, scale: int) -> RulesService:
    """A service over seeds + synthetic rules (scale x the seed corpus), cached on disk."""
    data = base.settings.data_dir / f"bench-scale-{scale}"
    folder = data / "synthetic-src"
    service = RulesService(settings_for(data))
    if not (data / "rulebooks" / "manifest.toml").exists():
        files = write_corpus(base.index().units, scale, folder)
        for game in sorted({g for _, g in files}):
            service.ingest([p for p, g in files if g == game], game=game)
    service.ingest()
    return service


def run(scale: int = 100, dataset: Path = DEV) -> dict[str, Any]:
    service = RulesService(settings_for())
    service.ingest()
    questions = [q.question for q in items(dataset)]
    result: dict[str, Any] = {"machine": machine(), "dataset": str(dataset)}
    result["recall"] = recall_table(service, dataset)
    result["latency"] = {"1x": time_queries(service, questions)}
    if scale > 1:
        big = scaled_service(service, scale)
        result["latency"][f"{scale}x"] = time_queries(big, questions)
    return result


def print_table(r: dict[str, Any]) -> None:
    print(f"Retrieval benchmark ({r['machine']}); dataset {r['dataset']}")
    for mode, rows in r["recall"].items():
        n = rows["fused"]["n"]
        print(f"\n  game {mode} ({n} answerable questions)")
        print(f"  {'retriever':10s} {'recall@1':>9s} {'recall@5':>9s} {'MRR':>7s}")
        for name, row in rows.items():
            print(f"  {name:10s} {row['recall@1']:9.3f} {row['recall@5']:9.3f} {row['mrr']:7.3f}")
        fused = rows["fused"]
        print(
            f"  game detected for {fused['game_detected']} questions, wrong game for {fused['wrong_game_detected']}"
        )
        for m in fused["misses"]:
            print(f"    miss: {m}")
    print(
        f"\n  {'corpus':8s} {'units':>7s} {'p50 ms':>8s} {'p95 ms':>8s}"
        f" {'fused p50':>10s} {'fused p95':>10s}"
    )
    for name, row in r["latency"].items():
        print(
            f"  {name:8s} {row['units']:7d} {row['p50_ms']:8.1f} {row['p95_ms']:8.1f}"
            f" {row['fused_p50_ms']:10.1f} {row['fused_p95_ms']:10.1f}"
        )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks retrieval", description=__doc__)
    ap.add_argument("--scale", type=int, default=100)
    ap.add_argument("--dataset", type=Path, default=DEV)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    r = run(args.scale, args.dataset)
    print_table(r)
    if args.json:
        args.json.write_text(json.dumps(r, indent=2))
