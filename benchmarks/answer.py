"""Answer latency with the default model, warm, over the dev set (as `ask --batch` runs it).

    python -m benchmarks answer [--dataset PATH] [--repeat N] [--json OUT] [--no-llm]

Prints p50/p95 of total time and of time to the first streamed token of the
explanation, and the breakdown (retrieve / evidence / verdict / generate).
Models are loaded once before timing starts, exactly as in batch mode.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from statistics import median
from typing import Any

from benchmarks.common import DEV, items, latency, machine, settings_for, timed_ask
from ruleslawyer.service import RulesService


def run(dataset: Path = DEV, repeat: int = 1, no_llm: bool = False) -> dict[str, Any]:
    service = RulesService(settings_for(llm="none") if no_llm else settings_for(explain=True))
    service.ingest()
    questions = [q.question for q in items(dataset)]
    service.ask(questions[0])  # warm: embedder, index, model loaded
    totals, firsts = [], []
    parts: dict[str, list[float]] = {}
    for _ in range(repeat):
        for q in questions:
            answer, total, first = timed_ask(service, q)
            totals.append(total)
            if first is not None:
                firsts.append(first)
            for k, v in answer.timings_ms.items():
                parts.setdefault(k, []).append(v)
    return {
        "machine": machine(),
        "model": service.answerer().model_name,
        "questions": len(totals),
        "total": latency(totals),
        "first_token": latency(firsts) if firsts else None,
        "breakdown_median_ms": {k: round(median(v), 1) for k, v in parts.items()},
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks answer", description=__doc__)
    ap.add_argument("--dataset", type=Path, default=DEV)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-llm", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    r = run(args.dataset, args.repeat, args.no_llm)
    print(f"Answer latency ({r['machine']}), model {r['model']}, {r['questions']} questions, warm")
    print(f"  total        p50 {r['total']['p50_ms']:8.0f} ms   p95 {r['total']['p95_ms']:8.0f} ms")
    if r["first_token"]:
        ft = r["first_token"]
        print(f"  first token  p50 {ft['p50_ms']:8.0f} ms   p95 {ft['p95_ms']:8.0f} ms")
    print(
        "  median breakdown: "
        + ", ".join(f"{k} {v:.0f} ms" for k, v in r["breakdown_median_ms"].items())
    )
    if args.json:
        args.json.write_text(json.dumps(r, indent=2))
