"""The relevance benchmark's figures on made-up probabilities: AUC, the shipped
floor's counts, and the bound (the best any floor does within the allowed false
abstentions) of ``benchmarks/relevance.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.relevance import auc, load_tuning, main, separation

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


def test_ties_at_the_bound_floor_abstain_on_none_of_them() -> None:
    # two answerable questions share the lowest score; a floor there turns
    # away only what is strictly below it, as the product's ``>= floor`` does
    s = separation([0.3, 0.3, 0.8, 0.9], [0.3, 0.1], floor=0.5, max_false_abstention=0.25)
    assert s.bound_floor == 0.3
    assert (s.bound_turned_away, s.bound_false_abstentions) == (1, 0)
    assert (s.turned_away, s.false_abstentions) == (2, 2)


def test_no_answerable_questions_means_every_floor_is_allowed() -> None:
    s = separation([], [0.2, 0.4], floor=0.3, max_false_abstention=0.10)
    assert s.bound_floor == float("inf") and s.bound_turned_away == 2
    assert s.auc is None and s.turned_away == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--splits", "fit,nope"], "unknown split(s) nope"),
        (["--max-false-abstention", "-0.1"], "--max-false-abstention must be"),
        (["--max-false-abstention", "nan"], "--max-false-abstention must be"),
    ],
)
def test_bad_arguments_exit_with_one_line(args: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    assert message in str(info.value)


def test_a_tuning_file_that_is_not_one_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    for text, message in (("[retrieval\n", "not valid TOML"), ("x = 1\n", "no [retrieval] table")):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(SystemExit, match=message.replace("[", r"\[")):
            load_tuning(bad)
    with pytest.raises(SystemExit, match="cannot read"):
        load_tuning(tmp_path / "missing.toml")
    bad.write_text("[retrieval]\nfloor = 0.4\n", encoding="utf-8")
    assert load_tuning(bad).floor == 0.4
