"""Helpers shared by the benchmarks: a service on a chosen data dir, the dev set,
and matching retrieved units against expected rules (the eval suite's own
``same_rule``, so benchmark and eval numbers mean the same thing)."""

from __future__ import annotations

import math
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ruleslawyer.evals.dataset import EvalItem, load_dataset
from ruleslawyer.evals.metrics import mean, percentile, recall_at_k, reciprocal_rank, same_rule
from ruleslawyer.records import Hit
from ruleslawyer.settings import PROJECT_ROOT, Settings

DEV = PROJECT_ROOT / "evals" / "datasets" / "dev.jsonl"
HELDOUT = PROJECT_ROOT / "evals" / "datasets" / "heldout.jsonl"


def cpu_model() -> str:
    """The CPU's model name and its vector extensions that matter to llama.cpp."""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or platform.machine()
    name = next(
        (ln.split(":", 1)[1].strip() for ln in info.splitlines() if ln.startswith("model name")),
        platform.machine(),
    )
    flags_line = next((ln for ln in info.splitlines() if ln.startswith("flags")), "")
    flags = set(flags_line.split(":", 1)[-1].split())
    wanted = ("avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")
    have = [f for f in wanted if f in flags]
    return f"{name} [{' '.join(have) or 'no AVX2'}]"


def machine() -> str:
    import os

    day = time.strftime("%Y-%m-%d")
    return f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, {day}"


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


def unmeasured_entries(path: Path, measured: set[str], entry: Callable[[str], str]) -> list[str]:
    """The TOML of every ``[models."NAME"]`` entry in ``path`` whose NAME is not in
    ``measured``, re-serialised by ``entry(NAME)``: a ``--write`` for one model must
    keep the others' entries."""
    if not path.exists():
        return []
    import tomllib

    names = tomllib.loads(path.read_text(encoding="utf-8")).get("models", {})
    return [entry(name) for name in names if name not in measured]


def highest_floor(scores: Sequence[float], max_share: float) -> float:
    """The highest floor at which at most ``max_share`` of ``scores`` fall below it
    (a score equal to the floor passes, as relevance does): the (k+1)-th lowest
    score for k = int(max_share * n), or infinity when every score may fall below.
    The tuner's floor on *choose* and the relevance benchmark's bound are this."""
    k = int(max_share * len(scores) + 1e-9)  # (the epsilon keeps 0.57 * 100 from flooring to 56)
    ordered = sorted(scores)
    return ordered[k] if k < len(ordered) else math.inf


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


def fit_logistic(
    x: Any, y: Any, *, l2: float = 0.05, steps: int = 4000, balanced: bool = True
) -> tuple[float, list[float]]:
    """L2-regularised logistic regression by gradient descent: (bias, weights).

    Features are standardised for the fit and the weights folded back, so
    the result applies to raw feature values. ``balanced`` weighs both
    classes equally, so the rarer class (unanswerable, "yes") is not ignored.
    """
    import numpy as np

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = (x - mu) / sd
    pos = y.mean() if len(y) else 0.5
    sw = (
        np.where(y == 1, 0.5 / max(pos, 1e-6), 0.5 / max(1 - pos, 1e-6))
        if balanced
        else np.ones(len(y))
    )
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        w -= 0.5 * (z.T @ (sw * (p - y)) / len(y) + l2 * w)
        b -= 0.5 * float((sw * (p - y)).mean())
    raw = w / sd
    return float(b - raw @ mu), [float(v) for v in raw]
