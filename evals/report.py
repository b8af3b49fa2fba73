"""Present an evaluation run: files, terminal tables, comparisons and floors.

``write_reports`` writes three views of one ``EvalReport``: ``report.json``
(the full record, reloadable with ``load_report`` so two runs can be compared
later without re-asking), ``report.md`` (metric table and the failed
questions, for a pull request) and ``chart.png`` (the headline metrics per
game). With ``compare`` every table cell shows before -> after and the delta.

``check_thresholds`` is the CI gate: ``thresholds.toml`` holds one table per
profile (e.g. ``[default_model]``, ``[no_llm]``) of floors for the overall
metrics, optionally per-game sub-tables (``[no_llm.aos]``); a key ending in
``_max`` is a ceiling instead (latency, false abstentions). An unknown metric
name is an error, not a silent pass, so a typo cannot disable a gate.

matplotlib is imported inside ``write_reports`` and drawn on an Agg canvas
without pyplot: importing this module stays cheap, and no global backend or
figure state is touched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ruleslawyer.errors import InputError, read_toml
from ruleslawyer.evals import metrics as m
from ruleslawyer.evals.runner import METRIC_NAMES, OVERALL, EvalReport, Metrics, QuestionResult

DEFAULT_THRESHOLDS = Path(__file__).resolve().parent / "thresholds.toml"

# Row label for each metric, in table order.
METRIC_LABELS: dict[str, str] = {
    "n": "questions",
    "answerable": "answerable",
    "unanswerable": "unanswerable",
    "errors": "errors",
    "error_rate": "error rate",
    "recall_at_1": "retrieval recall@1",
    "recall_at_5": "retrieval recall@5",
    "mrr": "retrieval MRR",
    # a yes/no question answered with the quote alone (no badge) counts as not right
    # here: these measure the badges, "fully correct" the answers
    "yes_no_accuracy": "yes/no badges right (of all yes/no)",
    "balanced_accuracy": "badges' balanced accuracy",
    "verdict_coverage": "verdict coverage",
    "verdict_precision": "verdict precision",
    "wrong_verdict_rate": "wrong yes/no",
    "facts_recall": "facts recall",
    "expected_rule_cited_rate": "expected rule cited",
    "citation_validity": "citation validity",
    "citations_total": "citations",
    "citations_invalid": "invalid citations",
    "abstention_rate": "abstention (unanswerable)",
    "false_abstention_rate": "false abstention",
    "fully_correct_rate": "fully correct",
    "latency_p50_ms": "latency p50 ms",
    "latency_p95_ms": "latency p95 ms",
    "latency_open_p50_ms": "latency p50 ms, open answered",
    "explanations": "explanations shown",
    "explanation_fact_rate": "explanations stating a fact",
}

_COUNTS = {
    "n",
    "answerable",
    "unanswerable",
    "errors",
    "citations_total",
    "citations_invalid",
    "explanations",
}
_MS = {"latency_p50_ms", "latency_p95_ms", "latency_open_p50_ms"}
LOWER_IS_BETTER = frozenset(
    {
        "errors",
        "error_rate",
        "citations_invalid",
        "false_abstention_rate",
        "wrong_verdict_rate",
        *_MS,
    }
)

CHART_METRICS: tuple[str, ...] = (
    "recall_at_5",
    "balanced_accuracy",
    "expected_rule_cited_rate",
    "fully_correct_rate",
    "abstention_rate",
)


def _fmt(name: str, value: float | None) -> str:
    if value is None:
        return "n/a"
    if name in _COUNTS:
        return str(int(value))
    if name in _MS:
        return f"{value:.1f}"
    return f"{value:.3f}"


def _fmt_delta(name: str, before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return ""
    delta = after - before
    if name in _COUNTS:
        return f"{int(delta):+d}"
    return f"{delta:+.1f}" if name in _MS else f"{delta:+.3f}"


def _value(metrics: Metrics | None, name: str) -> float | None:
    return None if metrics is None else getattr(metrics, name)


def _columns(report: EvalReport, compare: EvalReport | None) -> list[str]:
    games = list(report.games)
    if compare is not None:
        games += [g for g in compare.games if g not in games]
    return [*games, OVERALL]


def _cells(report: EvalReport, compare: EvalReport | None, arrow: str) -> list[list[str]]:
    """Header row then one row per metric: label, then a cell per column."""
    columns = _columns(report, compare)
    rows = [["metric", *columns]]
    for name in METRIC_NAMES:
        label = METRIC_LABELS[name] + (" (lower is better)" if name in LOWER_IS_BETTER else "")
        row = [label]
        for col in columns:
            after = _value(report.metrics.get(col), name)
            if compare is None:
                row.append(_fmt(name, after))
                continue
            before = _value(compare.metrics.get(col), name)
            cell = f"{_fmt(name, before)} {arrow} {_fmt(name, after)}"
            delta = _fmt_delta(name, before, after)
            row.append(f"{cell} ({delta})" if delta else cell)
        rows.append(row)
    return rows


def format_table(report: EvalReport, compare: EvalReport | None = None) -> str:
    """Plain-text metric table for the terminal: rows = metrics, columns = games + overall.

    With ``compare`` (an earlier run) each cell is ``before -> after (delta)``.
    """
    rows = _cells(report, compare, "->")
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        first = row[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        lines.append("  ".join([first, *rest]).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _markdown_table(report: EvalReport, compare: EvalReport | None) -> str:
    rows = _cells(report, compare, "→")
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" + "---:|" * (len(rows[0]) - 1)]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def _quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f'"{v}"' for v in values) if values else "none"


def _failure_lines(r: QuestionResult) -> list[str]:
    """Expected-vs-got lines for one failed question (no header)."""
    if r.unanswerable:
        expected = "abstain (unanswerable)"
    else:
        expected = (
            f"verdict {r.expected_verdict}; rules {_quoted(r.expected_rules)}; "
            f"facts {_quoted(r.expected_facts)}"
        )
    cited = [
        rid if g == r.game else f"{g} {rid}"
        for rid, g in zip(r.cited_rules, r.cited_games, strict=True)
    ]
    got = f"verdict {r.verdict}; cited {_quoted(tuple(cited))}"
    if not r.unanswerable:
        got += f"; missing facts {_quoted(r.missing_facts)}"
    lines = [f"expected: {expected}", f"got:      {got}"]
    if r.answer:
        short = " ".join(r.answer.split())
        lines.append(f"answer:   {short[:200]}{'...' if len(short) > 200 else ''}")
    if r.citation_problems:
        lines.append("citation problems: " + "; ".join(r.citation_problems))
    if r.error:
        lines.append(f"error: {r.error}")
    return lines


def format_failures(report: EvalReport) -> str:
    """Every question that was not fully correct: id, question, expected vs got, error."""
    failures = report.failures
    if not failures:
        return f"All {len(report.results)} questions fully correct."
    blocks = [f"{len(failures)} of {len(report.results)} questions not fully correct:"]
    for r in failures:
        body = "\n".join("    " + line for line in _failure_lines(r))
        blocks.append(f"[{r.id}] ({r.game}) {r.question}\n{body}")
    return "\n\n".join(blocks)


def _describe(report: EvalReport) -> str:
    service = ", ".join(f"{k}={v}" for k, v in report.service.items()) or "n/a"
    settings = ", ".join(f"{k}={v}" for k, v in report.settings.items()) or "n/a"
    dataset = f"`{report.dataset}`" if report.dataset else "n/a"
    return f"dataset {dataset}, run {report.timestamp}; service: {service}; {settings}"


def _markdown(report: EvalReport, compare: EvalReport | None) -> str:
    parts = ["# Evaluation report", "", f"- This run: {_describe(report)}"]
    if compare is not None:
        parts.append(f"- Compared with: {_describe(compare)}")
        parts.append("- Cells read before → after (delta).")
    parts += ["", _markdown_table(report, compare), ""]
    parts += _verdict_section(report)
    failures = report.failures
    parts.append(f"## Failures ({len(failures)} of {len(report.results)})")
    parts.append("")
    if not failures:
        parts.append("None: every question was fully correct.")
    for r in failures:
        parts.append(f"- **{r.id}** ({r.game}): {r.question}")
        parts += [f"  - {line}" for line in _failure_lines(r)]
    return "\n".join(parts) + "\n"


CURVE_FLOORS = tuple(round(0.5 + 0.05 * i, 2) for i in range(10))


def _verdict_section(report: EvalReport) -> list[str]:
    """How often a yes/no verdict was given and how often it was right, by source,
    and the model's precision/coverage curve (chart: verdicts.png)."""
    yes_no = [r for r in report.results if r.expected_verdict in m.YES_NO]
    if not yes_no:
        return []
    lines = ["## Verdicts", ""]
    for source, label in (("faq", "the rulebook's own FAQ answer"), ("model", "the model")):
        given = [r for r in yes_no if r.verdict_source == source and r.verdict in m.YES_NO]
        right = sum(1 for r in given if r.verdict == r.expected_verdict)
        lines.append(
            f"- From {label}: {len(given)} of {len(yes_no)} yes/no questions, "
            f"{right} right, {len(given) - right} wrong."
        )
    asked = [r for r in yes_no if r.p_yes is not None]
    if not asked:
        lines += [
            "- The model was not asked for verdicts: its calibration gives it none "
            "(no confidence floor reached the required precision on the choose questions).",
            "",
        ]
        return lines
    lines += ["", "| confidence floor | coverage | precision |", "|---|---|---|"]
    golds = [r.expected_verdict for r in yes_no]
    for floor, coverage, precision in m.verdict_curve(
        golds, [r.p_yes for r in yes_no], CURVE_FLOORS
    ):
        shown = "n/a" if precision is None else f"{precision:.3f}"
        lines.append(f"| {floor:.2f} | {coverage:.3f} | {shown} |")
    lines += ["", "![precision/coverage](verdicts.png)", ""]
    return lines


def save_verdict_curves(
    curves: dict[str, list[tuple[float, float]]], title: str, path: Path, target: float = 0.9
) -> None:
    """Precision against coverage, one line per name: the shape of a verdict's trade-off."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.0, 4.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for name, pts in curves.items():
        if pts:
            ax.plot([c for c, _ in pts], [p for _, p in pts], marker="o", label=name)
    ax.axhline(target, color="grey", linestyle="--", linewidth=1)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.05),
        xlabel="coverage (yes/no questions given a verdict)",
        ylabel="precision of the verdicts given",
        title=title,
    )
    if len(curves) > 1:
        ax.legend(fontsize="small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=100)


def _verdict_chart(report: EvalReport, path: Path) -> bool:
    yes_no = [r for r in report.results if r.expected_verdict in m.YES_NO]
    if not any(r.p_yes is not None for r in yes_no):
        return False
    points = m.verdict_curve(
        [r.expected_verdict for r in yes_no], [r.p_yes for r in yes_no], CURVE_FLOORS
    )
    pts = [(c, p) for _, c, p in points if p is not None]
    save_verdict_curves({"model": pts}, "model verdicts: precision vs coverage", path)
    return True


def _chart(report: EvalReport, compare: EvalReport | None, path: Path) -> None:
    # Figure + Agg canvas, not pyplot: no global state, safe inside a server.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = _columns(report, compare)
    runs: list[tuple[str, EvalReport]] = [("after", report)]
    if compare is not None:
        runs = [("before", compare), ("after", report)]
    n_bars = len(CHART_METRICS) * len(runs)
    width = 0.8 / n_bars
    fig = Figure(figsize=(max(8.0, 2.2 * len(columns)), 5.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colors = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3"]
    for mi, name in enumerate(CHART_METRICS):
        for ri, (run_name, run) in enumerate(runs):
            offset = (mi * len(runs) + ri) * width - 0.4 + width / 2
            values = [_value(run.metrics.get(col), name) for col in columns]
            label = METRIC_LABELS[name] + (f" ({run_name})" if compare is not None else "")
            xs = [i + offset for i in range(len(columns))]
            ax.bar(
                xs,
                [0.0 if v is None else v for v in values],
                width,
                label=label,
                color=colors[mi % len(colors)],
                alpha=0.45 if run_name == "before" else 1.0,
                hatch="//" if run_name == "before" else None,
            )
            # Not measured must not read as a score of 0.
            for x, v in zip(xs, values, strict=True):
                if v is None:
                    ax.text(x, 0.01, "n/a", ha="center", va="bottom", rotation=90, fontsize=7)
    ax.set_xticks(range(len(columns)))
    ax.set_xticklabels(columns)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("rate")
    model = report.service.get("model") or report.service.get("llm") or ""
    ax.set_title(f"ruleslawyer eval {model}".strip())
    # Below the axes, so it never hides a bar at 1.0.
    ax.legend(
        fontsize="x-small",
        ncol=len(CHART_METRICS) if compare is None else 3,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.08),
        frameon=False,
    )
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)


def write_reports(
    report: EvalReport, out_dir: Path | str, compare: EvalReport | None = None
) -> dict[str, Path]:
    """Write report.json, report.md and chart.png into ``out_dir`` (created if needed),
    and verdicts.png (the model's precision/coverage curve) when the model was asked.

    ``compare`` is an earlier run: the markdown table and chart then show it
    beside this one. Returns {"json": ..., "markdown": ..., "chart": ...} paths.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "report.json", "markdown": out / "report.md", "chart": out / "chart.png"}
    paths["json"].write_text(
        json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    paths["markdown"].write_text(_markdown(report, compare), encoding="utf-8")
    _chart(report, compare, paths["chart"])
    if _verdict_chart(report, out / "verdicts.png"):
        paths["verdicts"] = out / "verdicts.png"
    return paths


def load_report(path: Path | str) -> EvalReport:
    """Read a report.json written by ``write_reports``; InputError if it is not one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(f"cannot read report {path}: {err.strerror}") from err
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"{path} is not a JSON eval report: {err}") from err
    if not isinstance(data, dict):
        raise InputError(f"{path} is not an eval report: top level is not an object")
    try:
        return EvalReport.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        detail = f"missing {err}" if isinstance(err, KeyError) else str(err)
        raise InputError(f"{path} is not an eval report: {detail}") from err


def _read_thresholds(path: Path) -> dict[str, Any]:
    return read_toml(path, "thresholds")


def threshold_profiles(thresholds_path: Path | str = DEFAULT_THRESHOLDS) -> list[str]:
    """The profile names (top-level tables) in a thresholds file."""
    data = _read_thresholds(Path(thresholds_path))
    return [k for k, v in data.items() if isinstance(v, dict)]


def _check_scope(
    scope: str, metrics: Metrics | None, limits: dict[str, Any], where: str
) -> list[str]:
    failures = []
    for key, limit in limits.items():
        ceiling = key.endswith("_max")
        name = key.removesuffix("_max")
        if name not in METRIC_NAMES:
            raise InputError(f"{where}: unknown metric {key!r}")
        if isinstance(limit, bool) or not isinstance(limit, int | float):
            raise InputError(f"{where}: {key} must be a number, got {limit!r}")
        value = _value(metrics, name)
        if value is None:
            # Not measured (no such questions): only a real floor fails, since
            # the dataset has stopped testing what the floor protects.
            if not ceiling and limit > 0:
                failures.append(f"{scope} {name} not measured < floor {_fmt(name, limit)}")
            continue
        if ceiling and value > limit:
            failures.append(f"{scope} {name} {_fmt(name, value)} > max {_fmt(name, limit)}")
        elif not ceiling and value < limit:
            failures.append(f"{scope} {name} {_fmt(name, value)} < floor {_fmt(name, limit)}")
    return failures


def check_thresholds(
    report: EvalReport,
    thresholds_path: Path | str = DEFAULT_THRESHOLDS,
    profile: str = "default_model",
) -> list[str]:
    """Compare ``report`` with the floors of one profile in ``thresholds_path``.

    Returns one human-readable line per breached limit, e.g.
    ``"overall balanced_accuracy 0.610 < floor 0.700"``; empty means pass.
    Raises InputError for an unreadable file, unknown profile or unknown metric.
    """
    path = Path(thresholds_path)
    data = _read_thresholds(path)
    table = data.get(profile)
    if not isinstance(table, dict):
        known = ", ".join(k for k, v in data.items() if isinstance(v, dict)) or "none"
        raise InputError(f"{path}: no profile [{profile}] (profiles: {known})")
    overall = {k: v for k, v in table.items() if not isinstance(v, dict)}
    failures = _check_scope(OVERALL, report.metrics.get(OVERALL), overall, f"{path} [{profile}]")
    for game, limits in table.items():
        if isinstance(limits, dict):
            where = f"{path} [{profile}.{game}]"
            failures += _check_scope(game, report.metrics.get(game), limits, where)
    return failures
