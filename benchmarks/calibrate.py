"""Fit the yes/no verdict model per LLM on the dev set, and compare the models.

    python -m benchmarks calibrate [--models qwen2.5-0.5b,smollm2-135m,gemma3-270m] [--write]

For every dev question with a yes/no ruling, the real pipeline runs
(retrieval with the game detected, evidence selection) and the verdict
features are recorded: the model's logP(" Yes") - logP(" No") margin and the
two text cues. A logistic model is fitted on them (L2-regularised; quality
reported by leave-one-out, so the figure is not a training-set figure), and
the confidence floor is chosen as the operating point that maximises
balanced accuracy counting withheld verdicts as wrong, among floors whose
verdict precision is at least the always-answer precision. ``--write``
stores the weights in ``prompts/calibration.toml``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import DEV, items, settings_for
from ruleslawyer.evals.metrics import balanced_accuracy, verdict_coverage, verdict_precision
from ruleslawyer.service import RulesService
from ruleslawyer.verdict import CALIBRATION_FILE, FEATURES, Calibration, decide, features

CONFIDENCES = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8]


def fit(x: np.ndarray, y: np.ndarray, l2: float = 0.5, steps: int = 3000) -> np.ndarray:
    """Logistic regression by gradient descent; returns [bias, weights...]."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    # balance the classes so an always-"no" model is not the optimum
    pos = y.mean() if len(y) else 0.5
    sw = np.where(y == 1, 0.5 / max(pos, 1e-6), 0.5 / max(1 - pos, 1e-6))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (sw * (p - y)) / len(y) + l2 * np.r_[0, w[1:]] / len(y)
        w -= 0.5 * grad
    return w


def calibration_from(w: np.ndarray, confidence: float, note: str) -> Calibration:
    weights = dict(zip([f"w_{name}" for name in FEATURES], map(float, w[1:]), strict=True))
    return Calibration(bias=float(w[0]), confidence=confidence, measured=note, **weights)


def collect(model: str, dataset: str) -> tuple[np.ndarray, np.ndarray, list[str], float]:
    """Verdict features for the dev yes/no questions, cached per model, prompt and dataset."""
    import hashlib
    import json

    from ruleslawyer.prompts.templates import template

    settings = settings_for(llm="llama_cpp", default_model=model)
    # the features depend on the prompt, the dataset, and the code that picks evidence
    import ruleslawyer

    code = "".join(
        (Path(ruleslawyer.__file__).parent / name).read_text(encoding="utf-8")
        for name in ("verdict.py", "evidence.py", "answer.py")
    )
    key = hashlib.sha1(
        (model + template("verdict") + Path(dataset).read_text(encoding="utf-8") + code).encode()
    ).hexdigest()[:16]
    cache = settings.data_dir / "calibration-cache" / f"{model}-{key}.json"
    if cache.exists():
        d = json.loads(cache.read_text())
        return np.array(d["x"]), np.array(d["y"]), d["ids"], d["per_q"]
    x, y, ids, per_q = _collect(settings, dataset)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"x": x.tolist(), "y": y.tolist(), "ids": ids, "per_q": per_q}))
    return x, y, ids, per_q


def _collect(settings: Any, dataset: str) -> tuple[np.ndarray, np.ndarray, list[str], float]:
    service = RulesService(settings)
    service.ingest()
    answerer = service.answerer()
    llm = service.llm()
    qs = [q for q in items(dataset) if q.expected_verdict in ("yes", "no")]
    rows, golds, ids = [], [], []
    service.ask(qs[0].question)  # warm: models loaded
    t0 = time.perf_counter()
    for q in qs:
        result = service.search(q.question)
        ev = answerer._evidence(q.question, result) if result.hits else []
        f = features(llm, q.question, [e.quote for e in ev[:2]])
        rows.append(f.as_tuple() if f else (0.0,) * len(FEATURES))
        golds.append(1 if q.expected_verdict == "yes" else 0)
        ids.append(q.id)
    per_q = (time.perf_counter() - t0) / max(1, len(qs))
    return np.array(rows, dtype=float), np.array(golds, dtype=float), ids, per_q


def evaluate(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    golds = ["yes" if v else "no" for v in y]
    raw = ["yes" if m > 0 else "no" for m in x[:, 0]]
    out: dict[str, Any] = {"raw_balanced": balanced_accuracy(golds, raw)}
    # leave-one-out probabilities
    loo = np.zeros(len(y))
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        w = fit(x[keep], y[keep])
        loo[i] = probability_yes_row(w, x[i])
    best = None
    for c in CONFIDENCES:
        preds = [decide(p, Calibration(confidence=c)) for p in loo]
        row = {
            "confidence": c,
            "balanced": balanced_accuracy(golds, preds),
            "coverage": verdict_coverage(golds, preds),
            "precision": verdict_precision(golds, preds),
        }
        out.setdefault("curve", []).append(row)
        if best is None or (row["balanced"] or 0) > (best["balanced"] or 0):
            best = row
    out["best"] = best
    out["weights"] = fit(x, y).tolist()
    return out


def probability_yes_row(w: np.ndarray, row: np.ndarray) -> float:
    z = w[0] + float(np.dot(w[1:], row))
    return float(1 / (1 + np.exp(-z)))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks calibrate", description=__doc__)
    ap.add_argument("--models", default="qwen2.5-0.5b,smollm2-135m,gemma3-270m")
    ap.add_argument("--dataset", default=str(DEV))
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    entries = {}
    print(
        f"{'model':16s} {'raw bal.':>8s} {'LOO bal.':>8s} {'coverage':>8s} {'precision':>9s} {'conf':>5s} {'s/q':>5s}"
    )
    for model in args.models.split(","):
        x, y, _, per_q = collect(model, args.dataset)
        r = evaluate(x, y)
        b = r["best"]
        print(
            f"{model:16s} {r['raw_balanced']:8.3f} {b['balanced']:8.3f} {b['coverage']:8.3f} "
            f"{b['precision']:9.3f} {b['confidence']:5.2f} {per_q:5.2f}"
        )
        for row in r["curve"]:
            print(
                f"    confidence {row['confidence']:.2f}: balanced {row['balanced'] or 0:.3f} "
                f"coverage {row['coverage'] or 0:.3f} precision {row['precision'] or 0:.3f}"
            )
        w = r["weights"]
        note = (
            f"{time.strftime('%Y-%m-%d')}: dev n={len(y)}, leave-one-out balanced accuracy "
            f"{b['balanced']:.3f} at coverage {b['coverage']:.3f}"
        )
        entries[model] = calibration_from(np.array(w), b["confidence"], note)
    if args.write:
        lines = [
            "# Written by `python -m benchmarks calibrate --write`; per model, see ruleslawyer/verdict.py.",
            "",
        ]
        for model, cal in entries.items():
            lines.append(f'[models."{model}"]')
            for k, v in cal.__dict__.items():
                lines.append(f"{k} = {v!r}" if isinstance(v, float) else f'{k} = "{v}"')
            lines.append("")
        CALIBRATION_FILE.write_text("\n".join(lines), encoding="utf-8")
        print(f"wrote {CALIBRATION_FILE}")
