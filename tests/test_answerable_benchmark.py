"""The answerability benchmark's decisions, on made-up rows: which signal it
picks on fit + choose, the floor that adds no false abstention, and the keep
rule on the unseen splits (``benchmarks/answerable.py``)."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.answerable import KEEP_SPLITS, best_signal, figures, fit, kept


def _rows(n: int, seed: int, *, explained_helps: bool = True) -> list[dict[str, Any]]:
    """Questions whose relevance alone is a coin flip around its floor; the
    "explained" reading tells them apart, the "margin" reading is noise."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        unanswerable = i % 3 == 0
        relevance = rng.uniform(0.3, 0.7)
        good = -5.0 if unanswerable else 5.0
        out.append(
            {
                "id": f"q{i}",
                "unanswerable": unanswerable,
                "relevance": relevance,
                "relevant": relevance >= 0.5,
                "readings": {
                    "explained": (good if explained_helps else -good) + rng.uniform(-1, 1),
                    "margin": rng.uniform(-3, 1),
                },
            }
        )
    return out


def _data(**unseen: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    return {"fit": _rows(90, 1), "choose": _rows(45, 2), **unseen}


def test_the_signal_that_separates_is_picked_and_adds_no_false_abstention() -> None:
    data = _data()
    check = best_signal(data, [fit("m", data, "margin"), fit("m", data, "explained")])
    assert check.signal == "explained" and check.enabled
    pooled = data["fit"] + data["choose"]
    alone, checked = figures(pooled, None), figures(pooled, check)
    assert checked["turned_away"] > alone["turned_away"]
    assert checked["false_abstention"] <= alone["false_abstention"]
    # noise gains nothing it is allowed to keep
    noise = fit("m", data, "margin")
    assert figures(pooled, noise)["false_abstention"] <= alone["false_abstention"]


def test_keep_rule_needs_every_unseen_split_and_help_on_each() -> None:
    good = {split: _rows(30, 10 + i) for i, split in enumerate(KEEP_SPLITS)}
    check = fit("m", _data(**good), "explained")
    assert kept(check, _data(**good)).enabled
    missing = dict(list(good.items())[:-1])
    off = kept(check, _data(**missing))
    assert not off.enabled and "not measured" in off.measured
    # on one unseen split the reading points the wrong way: it costs false
    # abstentions there, and the check is turned off
    bad = {**good, KEEP_SPLITS[-1]: _rows(30, 99, explained_helps=False)}
    off = kept(check, _data(**bad))
    assert not off.enabled and KEEP_SPLITS[-1] in off.measured


def test_a_tie_goes_to_the_cheaper_margin_reading() -> None:
    """When both readings turn away as many, the one-pass margin is shipped."""
    data = _data()
    for row in data["fit"] + data["choose"]:
        row["readings"]["margin"] = row["readings"]["explained"]
    checks = [fit("m", data, "explained"), fit("m", data, "margin")]
    assert best_signal(data, checks).signal == "margin"
    assert best_signal(data, checks[::-1]).signal == "margin"
