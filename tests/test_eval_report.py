"""Eval reports: files, tables, comparison, reloading and threshold checks."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

import pytest
from test_eval_metrics import ITEMS, FakeService, answer

from ruleslawyer.errors import InputError
from ruleslawyer.evals.report import (
    DEFAULT_THRESHOLDS,
    METRIC_LABELS,
    check_thresholds,
    format_failures,
    format_table,
    load_report,
    threshold_profiles,
    write_reports,
)
from ruleslawyer.evals.runner import METRIC_NAMES, EvalReport, run_eval

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def report() -> EvalReport:
    return run_eval(ITEMS, FakeService(), progress=False, dataset="tiny.jsonl")


@pytest.fixture(scope="module")
def abstaining_report() -> EvalReport:
    """An earlier run of a bot that abstains on everything (asked for q1..q6)."""
    canned = {
        f"question q{i}?": answer(f"question q{i}?", "not_found", "Not in the rules.", [], [])
        for i in range(1, 7)
    }
    return run_eval(ITEMS, FakeService(canned), progress=False, dataset="tiny.jsonl")


def test_every_metric_has_a_label() -> None:
    assert list(METRIC_LABELS) == list(METRIC_NAMES)


def test_write_reports_writes_three_files(report: EvalReport, tmp_path: Path) -> None:
    paths = write_reports(report, tmp_path / "out")
    assert set(paths) == {"json", "markdown", "chart"}
    assert all(p.is_file() and p.parent == tmp_path / "out" for p in paths.values())
    assert paths["chart"].read_bytes()[:8] == PNG_SIGNATURE
    md = paths["markdown"].read_text(encoding="utf-8")
    assert "| metric | 40k | aos | warmachine | overall |" in md
    assert "| badges' balanced accuracy | 1.000 | 0.000 | 0.000 | 0.417 |" in md
    assert "## Failures (4 of 7)" in md
    assert "**q3** (aos)" in md and "**q1**" not in md
    assert "error: model crashed" in md


def test_json_round_trips(report: EvalReport, tmp_path: Path) -> None:
    paths = write_reports(report, tmp_path)
    loaded = load_report(paths["json"])
    assert loaded == report
    assert loaded.to_dict() == json.loads(paths["json"].read_text(encoding="utf-8"))
    assert EvalReport.from_dict(report.to_dict()) == report


def test_compare_mode(report: EvalReport, abstaining_report: EvalReport, tmp_path: Path) -> None:
    paths = write_reports(report, tmp_path, compare=abstaining_report)
    md = paths["markdown"].read_text(encoding="utf-8")
    # before: q5 and q6 (unanswerable, abstained) fully correct, 2/7; after: 3/7
    assert "| fully correct | " in md
    assert "0.286 → 0.429 (+0.143)" in md
    assert "Compared with:" in md
    assert paths["chart"].read_bytes()[:8] == PNG_SIGNATURE
    table = format_table(report, compare=abstaining_report)
    assert "0.286 -> 0.429 (+0.143)" in table
    # the false-abstention rate fell from 4/5 (q7 errored, not abstained) to 1/5
    assert "0.800 -> 0.200 (-0.600)" in table


def test_format_table_plain(report: EvalReport) -> None:
    table = format_table(report)
    lines = table.splitlines()
    assert lines[0].split() == ["metric", "40k", "aos", "warmachine", "overall"]
    assert set(lines[1]) <= {"-", " "}
    row = next(line for line in lines if line.startswith("retrieval MRR"))
    assert row.split()[-4:] == ["0.667", "0.500", "0.000", "0.467"]
    assert len(lines) == 2 + len(METRIC_NAMES)


def test_format_failures(report: EvalReport) -> None:
    text = format_failures(report)
    assert text.startswith("4 of 7 questions not fully correct:")
    q3 = text.split("[q3]")[1].split("\n\n")[0]
    assert 'expected: verdict yes; rules "all‑out Defence"; facts "1 to save", "each turn"' in q3
    assert 'got:      verdict no; cited "All-out defence"; missing facts "each turn"' in q3
    assert "answer:   No, but it can use it." in q3
    assert "expected: abstain (unanswerable)" in text.split("[q6]")[1]
    assert "citation problems: 40k 10.01: quote is not verbatim" in text
    assert "error: model crashed" in text.split("[q7]")[1]
    perfect = dataclasses.replace(report, results=report.results[:2])
    assert format_failures(perfect) == "All 2 questions fully correct."


def test_load_report_rejects_bad_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read report"):
        load_report(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not a JSON eval report"):
        load_report(bad)
    bad.write_text("[]", encoding="utf-8")
    with pytest.raises(InputError, match="not an eval report"):
        load_report(bad)
    bad.write_text(json.dumps({"format": 1, "dataset": "x"}), encoding="utf-8")
    with pytest.raises(InputError, match="not an eval report: missing 'timestamp'"):
        load_report(bad)


def test_check_thresholds_reports_breaches(report: EvalReport, tmp_path: Path) -> None:
    path = tmp_path / "thresholds.toml"
    path.write_text(
        "[strict]\n"
        "balanced_accuracy = 0.7\n"
        "recall_at_5 = 0.6\n"  # exactly met: passes
        "false_abstention_rate_max = 0.1\n"
        "latency_p95_ms_max = 100000.0\n"
        "[strict.aos]\n"
        "fully_correct_rate = 0.9\n"
        "[strict.warmachine]\n"
        "abstention_rate = 0.5\n"  # not measured (no unanswerable warmachine items)
        "citation_validity = 0.0\n"  # not measured, floor 0: passes
        "[lenient]\n"
        "balanced_accuracy = 0.4\n",
        encoding="utf-8",
    )
    assert check_thresholds(report, path, "strict") == [
        "overall balanced_accuracy 0.417 < floor 0.700",
        "overall false_abstention_rate 0.200 > max 0.100",
        "aos fully_correct_rate 0.333 < floor 0.900",
        "warmachine abstention_rate not measured < floor 0.500",
    ]
    assert check_thresholds(report, path, "lenient") == []
    assert threshold_profiles(path) == ["strict", "lenient"]


def test_check_thresholds_rejects_bad_files(report: EvalReport, tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text("[p]\nbalanced_acc = 0.5\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown metric 'balanced_acc'"):
        check_thresholds(report, path, "p")
    with pytest.raises(InputError, match=r"no profile \[nope\] \(profiles: p\)"):
        check_thresholds(report, path, "nope")
    path.write_text('[p]\nmrr = "high"\n', encoding="utf-8")
    with pytest.raises(InputError, match="mrr must be a number"):
        check_thresholds(report, path, "p")
    path.write_text("[p\n", encoding="utf-8")
    with pytest.raises(InputError, match="not valid TOML"):
        check_thresholds(report, path, "p")


def test_shipped_thresholds_are_valid_and_bite(report: EvalReport) -> None:
    """Both shipped profiles name only known metrics and fail a bad report."""
    data = tomllib.loads(DEFAULT_THRESHOLDS.read_text(encoding="utf-8"))
    assert {"default_model", "no_llm"} <= set(data)
    for profile in ("default_model", "no_llm"):
        floors = {
            k
            for k in data[profile]
            if not k.endswith("_max") and isinstance(data[profile][k], float)
        }
        assert {"recall_at_5", "fully_correct_rate"} <= floors
        # the toy report of this module is far below the real floors
        problems = check_thresholds(report, DEFAULT_THRESHOLDS, profile)
        assert any("recall_at_5" in p and "< floor" in p for p in problems)
