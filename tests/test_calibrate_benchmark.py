"""The verdict calibration's decisions, on made-up rows (``benchmarks/calibrate.py``):
a model is enabled only when *choose* shows 90% precision over enough verdicts,
and ``--features`` fits on the named features alone."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from benchmarks.calibrate import (
    MIN_PRECISION,
    MIN_VERDICTS,
    faq_figures,
    fit_faq,
    fit_model,
    main,
    verdict_figures,
    write_calibration,
)
from ruleslawyer.verdict import Calibration, FaqMatch


def _rows(n: int, seed: int, *, signal: bool) -> list[dict[str, Any]]:
    """Yes/no questions whose "claim" feature reads the gold answer when ``signal``
    (and is noise otherwise); "margin" is always noise."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        gold = "yes" if i % 2 else "no"
        sign = 1.0 if gold == "yes" else -1.0
        claim = 4.0 * sign + rng.uniform(-1, 1) if signal else rng.uniform(-3, 3)
        rows.append({"gold": gold, "features": {"claim": claim, "margin": rng.uniform(-3, 3)}})
    return rows


def test_a_feature_that_reads_the_answer_earns_verdicts_on_choose() -> None:
    cal = fit_model(_rows(80, 1, signal=True), _rows(40, 2, signal=True), ["claim", "margin"])
    assert cal.enabled
    figures = verdict_figures(_rows(40, 3, signal=True), cal)
    assert figures["precision"] >= MIN_PRECISION
    assert figures["coverage"] * figures["n"] >= MIN_VERDICTS


def test_noise_gets_no_verdicts_and_the_ablation_drops_the_signal() -> None:
    fit, choose = _rows(80, 1, signal=True), _rows(40, 2, signal=True)
    # margin alone is noise: no floor reaches 90% on choose, so no verdicts
    cal = fit_model(fit, choose, ["margin"])
    assert not cal.enabled and set(cal.weights) == {"margin"}
    assert verdict_figures(choose, cal)["coverage"] == 0.0
    # a signal that is noise on choose is not enabled by what it did on fit
    assert not fit_model(fit, _rows(40, 2, signal=False), ["claim", "margin"]).enabled


def test_an_unknown_feature_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_run(*args: object) -> None:
        raise AssertionError("the arguments were not checked before the models ran")

    monkeypatch.setattr("benchmarks.calibrate.report", no_run)
    with pytest.raises(SystemExit) as err:
        main(["--features", "margin,telepathy"])
    assert err.value.code == 2
    assert "unknown feature 'telepathy'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--features", "margin", "--write"])
    assert "--write" in capsys.readouterr().err


def test_writing_one_model_keeps_the_other_models_entries(tmp_path: Path) -> None:
    """``calibrate --models A --write`` rewrites A and the FAQ match, and keeps B as it was."""
    path = tmp_path / "calibration.toml"
    old_b = Calibration(False, -0.5, {"margin": 0.4}, 0.5, None, "2026-11-30: disabled")
    path.write_text(
        Calibration(True, 9.0, {"margin": 9.0}, 0.9).to_toml("model-a") + old_b.to_toml("model-b"),
        encoding="utf-8",
    )
    new_a = Calibration(False, 0.25, {"claim": 1.5}, 0.5)
    figures = {"models": {"model-a": {"splits": {}}}}
    write_calibration({"model-a": new_a}, FaqMatch(0.7, "fit: 5 right"), figures, path)

    a, b = Calibration.for_model("model-a", path), Calibration.for_model("model-b", path)
    assert (a.enabled, a.bias, a.weights) == (False, 0.25, {"claim": 1.5})
    assert b == old_b
    assert FaqMatch.load(path).min_similarity == 0.7


def _faq(split: str, gold: str, said: str, similarity: float, conditions: bool) -> dict[str, Any]:
    return {
        "split": split,
        "gold": gold,
        "faq": said,
        "faq_similarity": similarity,
        "faq_conditions": conditions,
    }


def test_the_faq_floor_is_fitted_on_every_pair_and_counted_as_answers_use_it() -> None:
    """The floor is the lowest right similarity above every wrong one, over all
    fit FAQ pairs (with the conditions check, fit held one pair: a floor on one
    pair is no measurement); a verdict is counted only where the answer would
    give it, close enough and with no condition the player's question lacks."""
    rows = [
        _faq("fit", "no", "no", 0.99, True),
        _faq("fit", "yes", "yes", 0.80, False),  # another question's FAQ: right by luck
        _faq("fit", "yes", "no", 0.60, False),  # wrong, below the floor
        _faq("fit", "no", "no", 0.70, False),
        _faq("test", "yes", "no", 0.95, False),  # close, but its condition is not asked
        _faq("test", "yes", "yes", 0.75, True),
        _faq("test", "no", "no", 0.65, True),  # below the floor
    ]
    match = fit_faq(rows)
    assert 0.69 < match.min_similarity < 0.70
    assert faq_figures([r for r in rows if r["split"] == "fit"], match) == {"given": 1, "right": 1}
    assert faq_figures([r for r in rows if r["split"] == "test"], match) == {"given": 1, "right": 1}
    # a wrong pair above every right one leaves no floor: no FAQ verdicts
    assert fit_faq([*rows, _faq("fit", "yes", "no", 0.995, True)]).min_similarity > 1.0
