"""The relevance benchmark's figures on made-up probabilities: AUC, the shipped
floor's counts, and the bound (the best any floor does within the allowed false
abstentions) of ``benchmarks/relevance.py``."""

from __future__ import annotations

import pytest

from benchmarks.relevance import auc, separation

ANSWERABLE = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05]
UNANSWERABLE = [0.35, 0.15, 0.02]


def test_auc_counts_pairs_ranked_right_and_ties_as_half() -> None:
    # 6 + 8 + 10 of the 30 pairs put the answerable question above
    assert auc(ANSWERABLE, UNANSWERABLE) == pytest.approx(24 / 30)
    assert auc([0.5], [0.5]) == 0.5
    assert auc([0.9], []) is None


def test_shipped_floor_and_bound() -> None:
    s = separation(ANSWERABLE, UNANSWERABLE, floor=0.25, max_false_abstention=0.10)
    assert (s.turned_away, s.false_abstentions) == (2, 3)
    # one false abstention of ten allowed: the floor can sit at 0.1 at most,
    # which turns away only the 0.02 question
    assert (s.bound_turned_away, s.bound_false_abstentions) == (1, 1)
    assert s.bound_floor == 0.1


def test_bound_turns_everything_away_when_the_scores_separate() -> None:
    s = separation([0.6, 0.7, 0.8], [0.1, 0.2], floor=0.0, max_false_abstention=0.0)
    assert (s.bound_turned_away, s.bound_false_abstentions) == (2, 0)
    assert s.auc == 1.0
    assert (s.turned_away, s.false_abstentions) == (0, 0)
