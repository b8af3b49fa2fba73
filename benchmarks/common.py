"""Helpers shared by the benchmarks: a service on a chosen data dir, the dev set,
and matching retrieved units against expected rules (the eval suite's own
``same_rule``, so benchmark and eval numbers mean the same thing)."""

from __future__ import annotations

import platform
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ruleslawyer.evals.dataset import EvalItem, load_dataset
from ruleslawyer.evals.metrics import mean, percentile, recall_at_k, reciprocal_rank, same_rule
from ruleslawyer.records import Hit
from ruleslawyer.settings import PROJECT_ROOT, Settings

DEV = PROJECT_ROOT / "evals" / "datasets" / "dev.jsonl"
HELDOUT = PROJECT_ROOT / "evals" / "datasets" / "heldout.jsonl"


def machine() -> str:
    import os

    day = time.strftime("%Y-%m-%d")
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {day}"
    )


def items(path: Path = DEV) -> list[EvalItem]:
    return load_dataset(path)


def ranked_ids(hits: Sequence[Hit], game: str) -> list[str]:
    """Retrieved rule IDs in order; a unit of another game can never match."""
    return [h.unit.rule_id if h.unit.game == game else f"<{h.unit.game}>" for h in hits]


def retrieval_scores(results: Sequence[tuple[EvalItem, Sequence[Hit]]]) -> dict[str, Any]:
    r1, r5, rr = [], [], []
    for item, hits in results:
        if item.unanswerable:
            continue
        ids = ranked_ids([h for h in hits if "ref" not in h.why][:5], item.game)
        r1.append(recall_at_k(ids, item.expected_rules, 1))
        r5.append(recall_at_k(ids, item.expected_rules, 5))
        rr.append(reciprocal_rank(ids, item.expected_rules))
    return {"n": len(r5), "recall@1": mean(r1), "recall@5": mean(r5), "mrr": mean(rr)}


def misses(results: Sequence[tuple[EvalItem, Sequence[Hit]]]) -> list[str]:
    out = []
    for item, hits in results:
        if item.unanswerable:
            continue
        ids = ranked_ids([h for h in hits if "ref" not in h.why][:5], item.game)
        if not any(same_rule(a, b) for a in ids for b in item.expected_rules):
            out.append(f"{item.id}: expected {list(item.expected_rules)}, got {ids}")
    return out


def latency(values_ms: Sequence[float]) -> dict[str, float | None]:
    return {"p50_ms": percentile(values_ms, 50), "p95_ms": percentile(values_ms, 95)}


def settings_for(data_dir: Path | None = None, **kw: Any) -> Settings:
    s = Settings.from_env()
    return s.with_overrides(data_dir=data_dir, **kw) if data_dir else s.with_overrides(**kw)


def timed_ask(service: Any, question: str) -> tuple[Any, float, float | None]:
    """Ask once: (answer, total ms, ms to the first streamed word or None)."""
    first: list[float] = []
    t0 = time.perf_counter()

    def on_text(_piece: str) -> None:
        if not first:
            first.append((time.perf_counter() - t0) * 1000)

    answer = service.ask(question, on_text=on_text)
    return answer, (time.perf_counter() - t0) * 1000, first[0] if first else None
