"""Fit each LLM's yes/no verdict on *fit*, choose its floor on *choose*, report on the rest.

    python -m benchmarks calibrate [--models qwen2.5-0.5b,qwen2.5-1.5b,~/m/any.gguf] [--write]
                                   [--charts artifacts/] [--features margin,claim,...]

For every yes/no question of every split, the real pipeline runs (game
detected, evidence picked) and every verdict feature of ``ruleslawyer.verdict``
is recorded (cached per model, prompts, code and dataset). Then, per model:

1. a logistic model over the features is fitted on *fit* (classes balanced);
2. the operating point is the lowest confidence whose verdict precision on
   *choose* is at least ``MIN_PRECISION`` over at least ``MIN_VERDICTS``
   verdicts; a model with no such point is disabled (no verdicts, no scoring
   passes);
3. figures are reported on *test*, *test-fresh* (seed games), *cross*,
   *cross-fresh* and *cross-fresh2* (another game's rulebook), never used
   above: coverage, precision, wrong yes/no
   rate, and the balanced accuracy a verdict on every question would get;
4. cross-corpus: refitted on the seed games' questions alone and tested on
   the other game's (its three sets), and the reverse (fitted on the other
   game's, tested on the seed test and test-fresh questions).

``--features a,b`` fits on those features only, from the same cached rows:
how an experiment's feature is judged against the incumbent ones.

The FAQ match (``FaqMatch``) is fitted the same way: the lowest
question/FAQ similarity among *fit* FAQs whose literal answer was right, as
long as no wrong one reaches it. It is fitted on every FAQ pair, what the
similarity says alone; its figures are reported on the pairs the answer
would use (no condition in the FAQ's question that the player's lacks,
``EvidencePicker.missing_conditions``), since a floor fitted on only those
would rest on one or two pairs. ``--write`` stores everything in
``prompts/calibration.toml``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.answerable import entry_name, model_settings
from benchmarks.common import fit_logistic, machine, unmeasured_entries
from benchmarks.splits import CORPORA, DATASETS, SPLITS, questions, service
from ruleslawyer.evals import metrics as m
from ruleslawyer.evals.report import save_verdict_curves
from ruleslawyer.verdict import (
    CALIBRATION_FILE,
    FEATURES,
    Calibration,
    FaqMatch,
    decide,
    features,
    probability_yes,
)

MIN_PRECISION = 0.9
MIN_VERDICTS = 10  # fewer verdicts at 90% on choose is luck, not precision
CONFIDENCES = [round(c, 2) for c in np.arange(0.5, 1.0, 0.01)]
NAMES = list(FEATURES)
VERDICT_SPLITS = ("fit", "choose", "test", "cross", "cross-fresh", "test-fresh", "cross-fresh2")
UNSEEN_SEEDS = ("test", "test-fresh")
UNSEEN_OTHER_GAME = ("cross", "cross-fresh", "cross-fresh2")


def _cache_key(model: str) -> str:
    import ruleslawyer
    from ruleslawyer.prompts.templates import template

    root = Path(ruleslawyer.__file__).parent
    parts = [model, *(template(t) for t in ("verdict", "verdict_zero_shot", "verdict_claim"))]
    # everything that decides which evidence a question gets, and the corpora
    code = ("verdict.py", "evidence.py", "answer.py")
    parts += [(root / n).read_text(encoding="utf-8") for n in code]
    parts += [p.read_text(encoding="utf-8") for p in sorted(root.parent.glob("retrieval/*.*"))]
    parts += [
        (DATASETS / f).read_text(encoding="utf-8") for s in VERDICT_SPLITS for f, _ in SPLITS[s]
    ]
    parts += [hashlib.sha1(p.read_bytes()).hexdigest() for c in CORPORA.values() for p in c.paths]
    return hashlib.sha1("".join(parts).encode()).hexdigest()[:16]


def collect(model: str) -> list[dict[str, Any]]:
    """One row per yes/no question of every split: gold, features, FAQ match."""
    folder = Path(".ruleslawyer") / "bench" / "calibration"
    cache = folder / f"{entry_name(model)}-{_cache_key(model)}.json"
    if cache.exists():
        rows: list[dict[str, Any]] = json.loads(cache.read_text(encoding="utf-8"))
        return rows
    rows = []
    services: dict[str, Any] = {}
    for split in VERDICT_SPLITS:
        for item, corpus in questions(split):
            if item.expected_verdict not in ("yes", "no"):
                continue
            if corpus not in services:
                services[corpus] = service(corpus, **model_settings(model))
            svc = services[corpus]
            result = svc.search(item.question)
            answerer = svc.answerer()
            evidence = answerer.evidence(item.question, result) if result.hits else []
            t0 = time.perf_counter()
            f = features(svc.llm(), item.question, [e.quote for e in evidence[:2]], NAMES)
            quote = evidence[0] if evidence else None
            faq = answerer.faq_similarity(item.question, quote, conditions=False) if quote else None
            rows.append(
                {
                    "split": split,
                    "id": item.id,
                    "gold": item.expected_verdict,
                    "features": f or {},
                    "faq": faq[0] if faq else None,
                    "faq_similarity": faq[1] if faq else None,
                    # whether the answer would use it: no condition the player lacks
                    "faq_conditions": bool(faq and answerer.faq_similarity(item.question, quote)),
                    "seconds": time.perf_counter() - t0,
                }
            )
    for svc in services.values():
        svc.close()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(rows), encoding="utf-8")
    return rows


def _x(rows: list[dict[str, Any]], names: list[str]) -> np.ndarray:
    return np.array([[r["features"].get(n, 0.0) for n in names] for r in rows], dtype=float)


def _y(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array([1 if r["gold"] == "yes" else 0 for r in rows])


def verdict_figures(rows: list[dict[str, Any]], cal: Calibration) -> dict[str, Any]:
    """What players would see at ``cal``: coverage, precision and wrong yes/no rate
    (no verdicts at all when disabled), and the balanced accuracy of always answering."""
    golds = [r["gold"] for r in rows]
    probs = [probability_yes(r["features"], cal) for r in rows]
    preds = [decide(p, cal) if cal.enabled else "quote" for p in probs]
    return {
        "n": len(rows),
        "coverage": m.verdict_coverage(golds, preds),
        "precision": m.verdict_precision(golds, preds),
        "wrong": m.wrong_verdict_rate(golds, preds),
        "balanced_if_always": m.balanced_accuracy(
            golds, ["yes" if p > 0.5 else "no" for p in probs]
        ),
    }


def curve(rows: list[dict[str, Any]], cal: Calibration) -> list[tuple[float, float]]:
    """(coverage, precision) at every confidence floor: the precision/coverage curve."""
    points = m.verdict_curve(
        [r["gold"] for r in rows], [probability_yes(r["features"], cal) for r in rows], CONFIDENCES
    )
    return [(c, p) for _, c, p in points if p is not None]


def fit_model(
    fit_rows: list[dict[str, Any]], choose_rows: list[dict[str, Any]], names: list[str]
) -> Calibration:
    bias, w = fit_logistic(_x(fit_rows, names), _y(fit_rows), l2=0.5)
    weights = dict(zip(names, w, strict=True))
    for c in CONFIDENCES:
        fig = verdict_figures(choose_rows, Calibration(True, bias, weights, c))
        given = round((fig["coverage"] or 0) * fig["n"])
        if given >= MIN_VERDICTS and (fig["precision"] or 0) >= MIN_PRECISION:
            return Calibration(True, bias, weights, c, fig["precision"])
    return Calibration(False, bias, weights, 0.5)


def fit_faq(rows: list[dict[str, Any]]) -> FaqMatch:
    fit = [r for r in rows if r["split"] == "fit" and r["faq"] is not None]
    right = [r["faq_similarity"] for r in fit if r["faq"] == r["gold"]]
    wrong = [r["faq_similarity"] for r in fit if r["faq"] != r["gold"]]
    if not right:
        return FaqMatch()
    floor = min((s for s in right if all(s > w for w in wrong)), default=None)
    if floor is None:
        return FaqMatch(measured="fit: no similarity separates right FAQ answers from wrong")
    return FaqMatch(round(floor - 1e-4, 4), f"fit: {len(right)} right, {len(wrong)} wrong")


def faq_figures(rows: list[dict[str, Any]], match: FaqMatch) -> dict[str, int]:
    """FAQ verdicts as answers give them: close enough, and no condition the
    player's question lacks (the floor is fitted without that check)."""
    given = [
        r
        for r in rows
        if r["faq"]
        and r.get("faq_conditions")
        and (r["faq_similarity"] or 0) >= match.min_similarity
    ]
    return {"given": len(given), "right": sum(1 for r in given if r["faq"] == r["gold"])}


def report(
    models: list[str], names: list[str] = NAMES
) -> tuple[dict[str, Any], dict[str, Calibration], FaqMatch]:
    """Fit, choose and report per model, on the features ``names`` (an ablation
    needs no new scoring: every feature is collected, and cached, either way)."""
    out: dict[str, Any] = {"machine": machine(), "models": {}, "features": names}
    cals: dict[str, Calibration] = {}
    rows_by_model = {model: collect(model) for model in models}
    for model, rows in rows_by_model.items():
        by = {s: [r for r in rows if r["split"] == s] for s in VERDICT_SPLITS}
        cal = fit_model(by["fit"], by["choose"], names)
        # the fit questions about the seed games only (not the rulebooks written
        # for the evals: Brass & Bayonet, Tidewater)
        corpora_games = {c.game for c in CORPORA.values()}
        other = {item.id for item, _ in questions("fit") if item.game in corpora_games}
        seeds_fit = [r for r in by["fit"] if r["id"] not in other]
        cross_cal = fit_model(seeds_fit, by["choose"], names)
        other_game = [r for s in UNSEEN_OTHER_GAME for r in by[s]]
        rb, rw = fit_logistic(_x(other_game, names), _y(other_game), l2=0.5)
        reverse = Calibration(True, rb, dict(zip(names, rw, strict=True)), 0.5)
        always = Calibration(True, cal.bias, cal.weights, 0.5)
        per_q = float(np.mean([r["seconds"] for r in rows])) if rows else 0.0
        out["models"][model] = {
            "enabled": cal.enabled,
            "confidence": cal.confidence,
            "weights": cal.weights,
            "splits": {s: verdict_figures(by[s], cal) for s in VERDICT_SPLITS},
            "curves": {s: curve(by[s], always) for s in VERDICT_SPLITS},
            "seeds_to_other_game": verdict_figures(other_game, replace(cross_cal, enabled=True)),
            "other_game_to_seeds": verdict_figures(
                [r for s in UNSEEN_SEEDS for r in by[s]], reverse
            ),
            "scoring_s_per_question": round(per_q, 2),
        }
        cals[model] = cal
    # The FAQ match does not depend on the model: fitted once, on any model's rows.
    rows = next(iter(rows_by_model.values()), [])
    faq = fit_faq(rows)
    out["faq"] = {
        "min_similarity": faq.min_similarity,
        **{s: faq_figures([r for r in rows if r["split"] == s], faq) for s in VERDICT_SPLITS},
    }
    return out, cals, faq


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.0%}"


def print_report(r: dict[str, Any]) -> None:
    print(f"Verdict calibration ({r['machine']})")
    for model, fig in r["models"].items():
        state = f"enabled, floor {fig['confidence']:.2f}" if fig["enabled"] else "DISABLED"
        print(f"\n{model}: {state}; scoring {fig['scoring_s_per_question']} s/question")
        print(
            f"  {'split':12s} {'n':>4s} {'coverage':>9s} {'precision':>10s} {'wrong':>7s} {'bal. if always':>15s}"
        )
        for s, f in fig["splits"].items():
            print(
                f"  {s:12s} {f['n']:4d} {_pct(f['coverage']):>9s} {_pct(f['precision']):>10s} "
                f"{_pct(f['wrong']):>7s} {_pct(f['balanced_if_always']):>15s}"
            )
        for name in ("seeds_to_other_game", "other_game_to_seeds"):
            f = fig[name]
            print(
                f"  {name}: balanced if always {_pct(f['balanced_if_always'])}, coverage "
                f"{_pct(f['coverage'])}, precision {_pct(f['precision'])}, wrong {_pct(f['wrong'])}"
            )
    faq = r.get("faq", {})
    if faq:
        print(f"\nFAQ literal answers (similarity >= {faq['min_similarity']}):")
        for s in VERDICT_SPLITS:
            print(f"  {s:12s} {faq[s]['right']} right of {faq[s]['given']} given")


def write_chart(r: dict[str, Any], folder: Path) -> list[Path]:
    """One precision/coverage chart per model, a line per split (what always-answering
    at each floor would give: the curve the operating point was picked from)."""
    paths = []
    for model, fig in r["models"].items():
        path = folder / f"verdict-curve-{model}.png"
        curves = {s: fig["curves"][s] for s in ("choose", *UNSEEN_SEEDS, *UNSEEN_OTHER_GAME)}
        save_verdict_curves(curves, f"{model} verdicts", path, MIN_PRECISION)
        paths.append(path)
    return paths


def write_calibration(
    cals: dict[str, Calibration], faq: FaqMatch, r: dict[str, Any], path: Path = CALIBRATION_FILE
) -> None:
    """Write this run's models (and the FAQ match) to ``path``, keeping the entries
    of models this run did not measure: calibrating one model must not wipe another's."""
    day = time.strftime("%Y-%m-%d")
    kept = unmeasured_entries(
        path,
        {entry_name(m) for m in cals},
        lambda name: Calibration.for_model(name, path).to_toml(name),
    )
    lines = [
        "# Written by `python -m benchmarks calibrate --write`; see ruleslawyer/verdict.py.",
        "# Fitted on the fit split, floors chosen on choose; test/cross figures in the README.",
        "",
        "[faq]",
        f"min_similarity = {faq.min_similarity!r}",
        f'measured = "{day}: {faq.measured}"',
        "",
        *kept,
    ]
    for model, cal in cals.items():
        f = r["models"][model]["splits"]
        note = (
            f"{day}: choose precision {_pct(f['choose']['precision'])} at coverage "
            f"{_pct(f['choose']['coverage'])}; test {_pct(f['test']['precision'])} at "
            f"{_pct(f['test']['coverage'])}; cross {_pct(f['cross']['precision'])} at "
            f"{_pct(f['cross']['coverage'])}"
            if cal.enabled
            else f"{day}: disabled, no floor reached {MIN_PRECISION:.0%} precision on choose"
        )
        cal = Calibration(cal.enabled, cal.bias, cal.weights, cal.confidence, cal.precision, note)
        lines.append(cal.to_toml(entry_name(model)))
    path.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks calibrate", description=__doc__)
    ap.add_argument("--models", default="qwen2.5-0.5b")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--charts", type=Path, default=Path("artifacts"), help="folder for the charts")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--features",
        default=",".join(NAMES),
        help=f"comma-separated features to fit on (an ablation); default all: {','.join(NAMES)}",
    )
    args = ap.parse_args(argv)
    names = list(dict.fromkeys(n for n in args.features.split(",") if n))
    unknown = sorted(set(names) - set(NAMES))
    if unknown:
        ap.error(f"unknown feature {unknown[0]!r}; known: {', '.join(NAMES)}")
    if args.write and set(names) != set(NAMES):
        # an ablation is a measurement; what ships is fitted on every signal
        ap.error("--write fits on every feature; leave out --features")
    r, cals, faq = report(args.models.split(","), names)
    print_report(r)
    charts = write_chart(r, args.charts)
    print("\nprecision/coverage charts: " + ", ".join(map(str, charts)))
    if args.json:
        args.json.write_text(json.dumps(r, indent=1), encoding="utf-8")
    if args.write:
        write_calibration(cals, faq, r)
        print(f"wrote {CALIBRATION_FILE}")
