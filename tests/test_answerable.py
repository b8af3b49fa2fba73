"""The model's answerability check: its arithmetic, its file, and how the answer uses it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from ruleslawyer.answer import Answerer
from ruleslawyer.answerable import AnswerCheck, explained, explained_prompts, logit, margin
from ruleslawyer.llm.fake import FakeLLM
from ruleslawyer.verdict import Calibration

QUESTION = "Can a battle-shocked unit start an action?"
# Weights of the sign a fit gives: both signals push towards "answered".
CHECK = AnswerCheck(
    enabled=True,
    bias=0.0,
    w_relevance=1.0,
    w_margin=1.0,
    margin_low=-3.0,
    margin_high=1.0,
    floor=0.5,
)


class NoScoring(FakeLLM):
    """A backend that can give next-token log-probabilities but cannot score a text."""

    def continuation_logprobs(self, prompt: str, continuation: str) -> None:  # type: ignore[override]
        return None


class NoLogprobs(FakeLLM):
    """A backend that cannot score (some OpenAI-compatible servers)."""

    def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> None:  # type: ignore[override]
        return None


def test_probability_grows_with_both_signals_and_clips_the_margin() -> None:
    assert CHECK.probability(0.3, -1.0) < CHECK.probability(0.6, -1.0)
    assert CHECK.probability(0.5, -1.0) < CHECK.probability(0.5, 0.5)
    # outside the range seen when fitting, a margin counts as its edge
    assert CHECK.probability(0.5, -40.0) == CHECK.probability(0.5, -3.0)
    assert CHECK.probability(0.5, 9.0) == CHECK.probability(0.5, 1.0)
    assert abs(logit(0.5)) < 1e-12 and logit(1.0) > 20 and logit(0.0) < -20


def test_settled_only_where_no_margin_could_change_the_outcome() -> None:
    assert CHECK.settled(0.999) is True  # even the lowest margin passes
    assert CHECK.settled(0.001) is False  # even the highest cannot lift it
    assert CHECK.settled(0.5) is None  # the model decides
    for relevance in (0.999, 0.001):
        outcomes = {
            CHECK.probability(relevance, m) >= CHECK.floor
            for m in (CHECK.margin_low, 0.0, CHECK.margin_high)
        }
        assert outcomes == {CHECK.settled(relevance)}
    # where the model decides, its margin does; without one, relevance alone
    assert CHECK.answered(0.5, 1.0, relevant=False) is True
    assert CHECK.answered(0.5, -3.0, relevant=True) is False
    assert CHECK.answered(0.5, None, relevant=True) is True
    assert CHECK.answered(0.999, None, relevant=False) is True  # settled


def test_check_file_round_trips_and_matches_the_model_name(tmp_path: Path) -> None:
    path = tmp_path / "answerable.toml"
    path.write_text(replace(CHECK, measured="today").to_toml("tiny-model"), encoding="utf-8")
    loaded = AnswerCheck.for_model("tiny-model (llama.cpp)", path)
    assert loaded == replace(CHECK, measured="today")
    assert AnswerCheck.for_model("another-model", path).enabled is False
    assert AnswerCheck.for_model("tiny-model", tmp_path / "missing.toml").enabled is False


def test_shipped_file_gives_each_entry_a_usable_check() -> None:
    import tomllib

    from ruleslawyer.answerable import CHECK_FILE

    models = tomllib.loads(CHECK_FILE.read_text(encoding="utf-8"))["models"]
    assert models, "the shipped check file names no model"
    for name in models:
        check = AnswerCheck.for_model(name)
        assert check.measured, name
        assert 0.0 < check.floor < 1.0 and check.margin_low < check.margin_high, name


def test_margin_is_yes_minus_no() -> None:
    assert margin(FakeLLM(verdict="yes"), QUESTION, ["A rule."]) == pytest.approx(1.6)
    assert margin(FakeLLM(verdict="no"), QUESTION, ["A rule."]) == pytest.approx(-1.6)
    assert margin(NoLogprobs(), QUESTION, ["A rule."]) is None


def test_explained_is_how_much_the_rule_raises_the_questions_likelihood() -> None:
    llm = FakeLLM()
    rule = ["A battle-shocked unit cannot start an action."]
    other = ["Roll two dice for the charge distance."]
    covered = explained(llm, QUESTION, rule, "Actions")
    uncovered = explained(llm, QUESTION, other, "Charges")
    assert covered is not None and uncovered is not None
    assert covered > uncovered  # the rule that holds the question's words explains it
    # with vs without the rule, over the same continuation: a rule the question
    # shares no word with explains nothing
    assert explained(llm, "zebra xylophone", other) == pytest.approx(0.0)
    with_rule, without, continuation = explained_prompts(QUESTION, rule, "Actions")
    assert "Actions: A battle-shocked unit" in with_rule and "battle" not in without
    assert continuation == " " + QUESTION
    assert explained(NoScoring(), QUESTION, rule) is None


def test_check_file_keeps_the_signal_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    path = tmp_path / "answerable.toml"
    check = replace(CHECK, signal="explained", measured="today")
    path.write_text(check.to_toml("tiny-model"), encoding="utf-8")
    assert AnswerCheck.for_model("tiny-model", path) == check
    path.write_text(
        check.to_toml("tiny-model").replace('"explained"', '"telepathy"'), encoding="utf-8"
    )
    assert AnswerCheck.for_model("tiny-model", path).enabled is False


def test_explained_check_turns_away_a_question_the_rules_do_not_explain(seeded_service) -> None:
    # The fake model finds a word likelier after a prompt that holds it, so the
    # check's reading is high for a question retrieval found rules for, and a
    # floor above that reading turns it away; below it lets it through.
    search = _borderline(seeded_service)
    check = replace(CHECK, signal="explained", margin_low=-5.0, margin_high=40.0, w_margin=0.02)
    quotes = [ev.quote for ev in seeded_service.answerer().evidence(QUESTION, search)]
    value = explained(FakeLLM(), QUESTION, quotes, search.hits[0].unit.title)
    assert value is not None and value > 0
    high = check.probability(search.relevance, value)
    assert 0.05 < high < 0.95
    away = _answerer(seeded_service, FakeLLM(), replace(check, floor=high + 0.0005))
    through = _answerer(seeded_service, FakeLLM(), replace(check, floor=high - 0.0005))
    assert away.answer(QUESTION, search).verdict == "not_found"
    assert through.answer(QUESTION, search).verdict != "not_found"


def _answerer(service, llm: FakeLLM, check: AnswerCheck) -> Answerer:  # type: ignore[no-untyped-def]
    return Answerer(llm, service.answerer().picker, Calibration(), check=check)


def _borderline(service):  # type: ignore[no-untyped-def]
    """A real search, its relevance set where the check decides."""
    result = service.search(QUESTION)
    assert result.hits
    return replace(result, relevance=0.5, relevant=True)


def test_model_that_reads_no_answer_turns_the_question_away(seeded_service) -> None:
    search = _borderline(seeded_service)
    answer = _answerer(seeded_service, FakeLLM(verdict="no"), CHECK).answer(QUESTION, search)
    assert answer.verdict == "not_found"
    assert answer.citations == ()
    assert search.hits[0].unit.label in answer.answer  # the closest rules are still listed
    assert "check" in answer.timings_ms
    assert any("not settling" in n for n in answer.notes)  # says why, though relevance passed


def test_model_that_reads_an_answer_lets_it_through(seeded_service) -> None:
    search = replace(_borderline(seeded_service), relevant=False)
    answer = _answerer(seeded_service, FakeLLM(verdict="yes"), CHECK).answer(QUESTION, search)
    assert answer.verdict != "not_found"
    assert answer.citations


@pytest.mark.parametrize(
    "llm, check, evidence_only",
    [
        (FakeLLM(verdict="no"), replace(CHECK, enabled=False), False),  # never measured
        (FakeLLM(verdict="no"), CHECK, True),  # --no-llm: relevance alone
        (NoLogprobs(verdict="no"), CHECK, False),  # cannot score
    ],
)
def test_relevance_alone_decides_without_a_usable_check(
    seeded_service, llm: FakeLLM, check: AnswerCheck, evidence_only: bool
) -> None:
    from ruleslawyer.answer import AnswerOptions

    search = _borderline(seeded_service)
    answer = _answerer(seeded_service, llm, check).answer(
        QUESTION, search, options=AnswerOptions(evidence_only=evidence_only)
    )
    assert answer.verdict != "not_found"


def test_failing_model_falls_back_to_relevance_with_a_note(seeded_service) -> None:
    search = _borderline(seeded_service)
    answer = _answerer(seeded_service, FakeLLM(fail=True), CHECK).answer(QUESTION, search)
    assert answer.verdict != "not_found"
    assert any("answerability not checked" in n for n in answer.notes)


def test_an_uncalibrated_model_is_not_checked(seeded_service) -> None:
    # The fake model has no entry in prompts/answerable.toml.
    assert seeded_service.answerer().check.enabled is False
