"""The answer-quality figures on every split, and across corpora and formats.

    python -m benchmarks report [--splits fit,choose,test,cross,cross-html,cross-fresh,
                                          test-fresh,cross-fresh2,long,long-odt,ember,ember-html,
                                          ember-print,ember-fresh,cross-fresh3,
                                          cross-fresh3-html,cinder,cinder-md,cinder-odt,
                                          cinder-docx,cinder-weasyprint,cards,cards-txt,
                                          faq,faq2,faq3]
                                [--no-llm | --default-model NAME | --model PATH | --llm-url URL]
                                [--given-game] [--json OUT]

Each split's questions are asked through the real pipeline, on the corpus
they belong to (``benchmarks/splits.py``), and scored by the eval suite's
own metrics. All but *fit* and *choose* are the figures to quote (*test*,
*cross*, the fresh sets, *long* in Markdown and ODT, the Ember book in three
formats, the Cinder Reach book in five, a card game's comprehensive rules
as a PDF and as text, three FAQ books' yes/no questions): nothing was
fitted or chosen on them. The CPU model is printed with the latencies.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from benchmarks.common import machine
from benchmarks.splits import SPLITS, questions, service
from ruleslawyer.evals.runner import OVERALL, EvalReport, metrics_by_game, run_eval

ROWS = (
    ("recall_at_5", "recall@5"),
    ("expected_rule_cited_rate", "rule cited"),
    ("facts_recall", "facts"),
    ("verdict_coverage", "verdict coverage"),
    ("verdict_precision", "verdict precision"),
    ("balanced_accuracy", "balanced acc."),
    ("wrong_verdict_rate", "wrong yes/no"),
    ("abstention_rate", "unanswerable turned away"),
    ("false_abstention_rate", "false abstention"),
    ("citations_invalid", "invalid citations"),
    ("fully_correct_rate", "fully correct"),
    ("latency_p50_ms", "latency p50 ms"),
    ("latency_open_p50_ms", "p50 ms, open answered"),
    ("explanations", "explanations shown"),
    ("explanation_fact_rate", "explanations with a fact"),
)


def run_split(split: str, llm: dict[str, Any], given_game: bool) -> EvalReport:
    by_corpus: dict[str, list[Any]] = {}
    for item, corpus in questions(split):
        by_corpus.setdefault(corpus, []).append(item)
    results: list[Any] = []
    describe: dict[str, Any] = {}
    for corpus, items in by_corpus.items():
        svc = service(corpus, **llm)
        svc.check_llm()
        report = run_eval(items, svc, pass_game=given_game, progress=sys.stderr.isatty())
        results += report.results
        describe = report.service
        svc.close()
    return EvalReport(
        dataset=split,
        timestamp="",
        service=describe,
        settings={"pass_game": given_game},
        metrics=metrics_by_game(results),
        results=tuple(results),
    )


def _cell(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.0f}" if value > 10 else f"{value:.3f}"
    return str(value)


def print_table(reports: dict[str, EvalReport]) -> None:
    names = list(reports)
    print(f"{'':26s}" + "".join(f" {n:>12s}" for n in names))
    print(f"{'questions':26s}" + "".join(f" {reports[n].metrics[OVERALL].n:>12d}" for n in names))
    for key, label in ROWS:
        cells = [_cell(getattr(reports[n].metrics[OVERALL], key, None)) for n in names]
        print(f"{label:26s}" + "".join(f" {c:>12s}" for c in cells))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks report", description=__doc__)
    ap.add_argument("--splits", default=",".join(SPLITS))
    ap.add_argument("--no-llm", action="store_true")
    ap.add_argument("--default-model")
    ap.add_argument("--model", type=Path)
    ap.add_argument("--llm-url")
    ap.add_argument("--given-game", action="store_true")
    ap.add_argument(
        "--explain",
        action="store_true",
        help="have the model explain open questions even where its entry in "
        "prompts/explanations.toml turns that off (to measure the explanations)",
    )
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    llm: dict[str, Any] = {}
    if args.no_llm:
        llm = {"llm": "none"}
    elif args.llm_url:
        llm = {"llm": "openai", "llm_url": args.llm_url}
    elif args.model:
        llm = {"llm": "llama_cpp", "model_path": args.model}
    elif args.default_model:
        llm = {"llm": "llama_cpp", "default_model": args.default_model}
    if args.explain:
        llm["explain"] = True
    splits = [s for s in args.splits.split(",") if s]
    unknown = [s for s in splits if s not in SPLITS]
    if unknown:
        raise SystemExit(f"unknown split(s) {unknown}; choose from {', '.join(SPLITS)}")
    reports = {s: run_split(s, llm, args.given_game) for s in splits}
    model = next(iter(reports.values())).service.get("llm_name", "")
    mode = "game given" if args.given_game else "game detected"
    print(f"Answer quality by split ({mode}; model {model}; {machine()})")
    print_table(reports)
    if args.json:
        args.json.write_text(
            json.dumps({s: r.to_dict() for s, r in reports.items()}, indent=1), encoding="utf-8"
        )
