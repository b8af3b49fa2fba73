"""Eval metrics and the runner, on hand-computed cases."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ruleslawyer.errors import ModelError
from ruleslawyer.evals import metrics as m
from ruleslawyer.evals.dataset import EvalItem
from ruleslawyer.evals.runner import (
    OVERALL,
    EvalReport,
    compute_metrics,
    run_eval,
    score_answer,
)
from ruleslawyer.records import Answer, Citation, Hit, RuleUnit, SearchResult

# --- rule matching and retrieval ------------------------------------------


def test_same_rule_ignores_case_hyphen_style_and_spacing() -> None:
    assert m.same_rule("Any Time abilities 2", "any time abilities 2")
    assert m.same_rule("All‑out defence", "all-out defence")  # non-breaking hyphen
    assert m.same_rule("All-out  defence ", "all-out defence")
    assert not m.same_rule("All-out defence", "All-out attack")
    assert not m.same_rule("24.2", "24.21")


def test_recall_and_reciprocal_rank() -> None:
    ranked = ["10.01", "10.02", "24.21", "24.22"]
    assert m.reciprocal_rank(ranked, ["24.21"]) == pytest.approx(1 / 3)
    assert m.recall_at_k(ranked, ["24.21"], 1) == 0.0
    assert m.recall_at_k(ranked, ["24.21"], 2) == 0.0
    assert m.recall_at_k(ranked, ["24.21"], 3) == 1.0
    # The first of several expected ids counts.
    assert m.reciprocal_rank(ranked, ["24.22", "10.02"]) == 0.5
    assert m.reciprocal_rank(ranked, ["99.9"]) == 0.0
    assert m.recall_at_k(ranked, ["99.9"], 5) == 0.0
    assert m.recall_at_k(["Run", "All‑out Defence"], ["all-out defence"], 2) == 1.0
    assert m.recall_at_k(ranked, [], 5) == 0.0
    with pytest.raises(ValueError):
        m.recall_at_k(ranked, ["10.01"], 0)


def test_mean() -> None:
    assert m.mean([]) is None
    assert m.mean([1.0, 0.0, 0.5]) == 0.5


# --- verdicts ----------------------------------------------------------------


def test_always_no_bot_scores_half_balanced_accuracy() -> None:
    golds = ["yes", "no", "no", "no"]
    preds = ["no"] * 4
    assert m.yes_no_accuracy(golds, preds) == 0.75
    assert m.balanced_accuracy(golds, preds) == 0.5
    assert m.verdict_coverage(golds, preds) == 1.0
    assert m.verdict_precision(golds, preds) == 0.75


def test_hedged_verdicts_are_wrong_and_na_golds_ignored() -> None:
    golds = ["yes", "no", "no", "n/a"]
    preds = ["quote", "no", "not_found", "yes"]
    assert m.yes_no_accuracy(golds, preds) == pytest.approx(1 / 3)
    # yes recall 0/1, no recall 1/2
    assert m.balanced_accuracy(golds, preds) == pytest.approx(0.25)
    assert m.verdict_coverage(golds, preds) == pytest.approx(1 / 3)
    assert m.verdict_precision(golds, preds) == 1.0


def test_balanced_accuracy_uses_only_classes_present() -> None:
    assert m.balanced_accuracy(["no", "no"], ["no", "yes"]) == 0.5
    assert m.balanced_accuracy(["n/a"], ["yes"]) is None
    assert m.yes_no_accuracy([], []) is None
    assert m.verdict_precision(["yes"], ["answer"]) is None
    with pytest.raises(ValueError):
        m.yes_no_accuracy(["yes"], [])


# --- facts -------------------------------------------------------------------


def test_facts_number_words_match_digits_both_ways() -> None:
    assert m.facts_recall(["move 7 inches"], "It can move seven inches.") == 1.0
    assert m.facts_recall(["seven"], "roll 7 or more") == 1.0
    assert m.facts_recall(["twenty"], "within 20 inches") == 1.0
    # "seventeen" is its own word, not "seven" + "teen".
    assert m.facts_recall(["7"], "seventeen") == 0.0


def test_facts_read_a_table_row_the_same_in_every_format() -> None:
    html_row = "Experience | Bonus\nVeteran | 5\nElite | 10"  # HTML and Markdown
    pdf_row = "Experience Bonus\nVeteran 5\nElite 10"  # PDF
    for text in (html_row, pdf_row):
        assert m.facts_recall(["Veteran 5", "elite 10"], text) == 1.0
    assert m.facts_recall(["Veteran 10"], html_row) == 0.0  # cells still in their rows
    assert m.facts_recall(["Veteran 5"], "Veteran | | 5") == 1.0  # an empty cell between


def test_facts_quote_hyphen_case_and_space_styles() -> None:
    text = "Models with  Close‑Quarters weapons may shoot; the unit’s “Move” stat"
    assert m.facts_recall(["close-quarters weapons"], text) == 1.0
    assert m.facts_recall(['unit\'s "move" stat'], text) == 1.0
    assert m.facts_recall(["CLOSE-QUARTERS", "missing fact", "may shoot"], text) == pytest.approx(
        2 / 3
    )
    assert m.missing_facts(["close-quarters", "missing fact"], text) == ["missing fact"]
    assert m.facts_recall([], text) is None


def test_fact_boundaries_keep_numbers_and_signs_distinct() -> None:
    assert not m.fact_present("1", "roll a 12")
    assert not m.fact_present("1", "roll a 21")
    assert not m.fact_present("-1 to hit", "+1 to hit")
    assert m.fact_present("-1 to hit", "subtract: ‑1 to hit")
    assert m.fact_present("charge", "after it charges")  # suffixes still match


# --- abstention and latency ------------------------------------------------


def test_abstention_rates() -> None:
    unanswerable = [True, True, False, False, False, False]
    abstained = [True, False, True, False, False, False]
    assert m.abstention_rate(unanswerable, abstained) == 0.5
    assert m.false_abstention_rate(unanswerable, abstained) == 0.25
    assert m.abstention_rate([False], [True]) is None
    assert m.false_abstention_rate([True], [True]) is None


def test_percentile_linear_interpolation() -> None:
    values = [4.0, 1.0, 3.0, 2.0]
    assert m.percentile(values, 50) == 2.5
    assert m.percentile(values, 95) == pytest.approx(3.85)
    assert m.percentile(values, 0) == 1.0
    assert m.percentile(values, 100) == 4.0
    assert m.percentile([5.0], 95) == 5.0
    assert m.percentile([], 50) is None
    data = [12.0, 250.0, 31.5, 7.0, 99.0, 1000.0, 45.0]
    for p in (5, 25, 50, 90, 95, 99):
        assert m.percentile(data, p) == pytest.approx(float(np.percentile(data, p)))
    with pytest.raises(ValueError):
        m.percentile(values, 101)


# --- runner with a fake service -------------------------------------------


def unit(game: str, rule_id: str, text: str) -> RuleUnit:
    return RuleUnit(rule_id=rule_id, game=game, title=rule_id, text=text)


U_CQ = unit("40k", "10.06", "Non-VEHICLE models can only select [CLOSE‑QUARTERS] weapons.")
U_LANCE = unit(
    "40k", "24.21", "Each time an attack is made with this weapon, add 1 to the Wound roll."
)
U_OTHER = unit("40k", "10.01", "Select one friendly unit that is eligible to shoot.")
U_AOD = unit("aos", "All-out defence", "Add 1 to save rolls for that unit.")
U_RUN = unit("aos", "Run", "Add D6 to the unit's move characteristic.")
UNITS = {u.key: u for u in (U_CQ, U_LANCE, U_OTHER, U_AOD, U_RUN)}


def answer(
    question: str,
    verdict: Any,
    text: str,
    cites: list[tuple[RuleUnit, str]],
    hits: list[RuleUnit],
) -> Answer:
    return Answer(
        question=question,
        game=None,
        verdict=verdict,
        answer=text,
        citations=tuple(Citation(u, q) for u, q in cites),
        search=SearchResult(
            query=question,
            game=None,
            game_detected=True,
            hits=tuple(Hit(u, 1.0 / (i + 1)) for i, u in enumerate(hits)),
            relevant=bool(hits),
        ),
        model="fake",
    )


def item(
    id: str,
    game: str,
    verdict: str,
    facts: tuple[str, ...] = (),
    rules: tuple[str, ...] = (),
    unanswerable: bool = False,
) -> EvalItem:
    return EvalItem(
        id=id,
        game=game,
        question=f"question {id}?",
        expected_verdict=verdict,
        expected_facts=facts,
        expected_rules=rules,
        unanswerable=unanswerable,
        source="test",
        seed_quote="",
    )


ITEMS = [
    # right verdict, fact via non-breaking hyphen, rule ranked 1
    item("q1", "40k", "yes", ("close-quarters",), ("10.06",)),
    # right, fact only in the quote, rule ranked 3
    item("q2", "40k", "no", ("add one",), ("24.21",)),
    # wrong verdict, cites the rule (written differently), half the facts
    item("q3", "aos", "yes", ("1 to save", "each turn"), ("all‑out Defence",)),
    # answerable but the bot abstains, rule not retrieved
    item("q4", "aos", "no", ("d6",), ("Run",)),
    # unanswerable, the bot abstains: correct
    item("q5", "aos", "n/a", unanswerable=True),
    # unanswerable, the bot answers with a made-up quote
    item("q6", "40k", "n/a", unanswerable=True),
    # the service raises a domain error
    item("q7", "warmachine", "no", ("two",), ("Soul Phase 2",)),
]

CANNED = {
    "question q1?": answer(
        "question q1?",
        "yes",
        "Yes, with Close‑Quarters weapons.",
        [(U_CQ, "can only select [CLOSE‑QUARTERS] weapons")],
        [U_CQ, U_LANCE],
    ),
    "question q2?": answer(
        "question q2?",
        "no",
        "No.",
        [(U_LANCE, "add 1 to the Wound roll")],
        [U_CQ, U_OTHER, U_LANCE],
    ),
    "question q3?": answer(
        "question q3?",
        "no",
        "No, but it can use it.",
        [(U_AOD, "Add 1 to save rolls")],
        [U_AOD],
    ),
    "question q4?": answer("question q4?", "not_found", "Not in the rules.", [], [U_AOD]),
    "question q5?": answer("question q5?", "not_found", "Not in the rules.", [], []),
    "question q6?": answer(
        "question q6?",
        "answer",
        "Probably.",
        [(U_OTHER, "select any unit")],
        [U_OTHER],
    ),
}


class FakeService:
    """Canned answers by question; q7 raises a ModelError."""

    def __init__(self, canned: dict[str, Answer] | None = None) -> None:
        self.canned = CANNED if canned is None else canned
        self.games_asked: list[str | None] = []

    def ask(self, question: str, game: str | None = None) -> Answer:
        self.games_asked.append(game)
        if question not in self.canned:
            raise ModelError("model crashed")
        return self.canned[question]

    def lookup(self, game: str, rule_id: str) -> RuleUnit | None:
        return UNITS.get((game, rule_id))

    def describe(self) -> dict[str, Any]:
        return {"model": "fake-1", "top_k": 5}


@pytest.fixture(scope="module")
def report() -> EvalReport:
    return run_eval(ITEMS, FakeService(), progress=False, dataset="tiny.jsonl")


def test_run_eval_records_each_question(report: EvalReport) -> None:
    by_id = {r.id: r for r in report.results}
    assert [r.id for r in report.results] == [i.id for i in ITEMS]
    q1, q2, q3, q4, q5, q6, q7 = (by_id[f"q{i}"] for i in range(1, 8))
    assert q1.fully_correct and q1.citations_valid and q1.expected_rule_cited
    assert q2.fully_correct and q2.missing_facts == ()
    assert q2.retrieved_rules == ("10.06", "10.01", "24.21")
    assert not q3.fully_correct and q3.expected_rule_cited and q3.citations_valid
    assert q3.missing_facts == ("each turn",)
    assert q4.abstained and not q4.fully_correct
    assert q5.abstained and q5.fully_correct
    assert not q6.abstained and not q6.citations_valid and not q6.fully_correct
    assert q6.citations_invalid == 1 and "not verbatim" in q6.citation_problems[0]
    assert q7.verdict == "error" and q7.error == "model crashed" and not q7.fully_correct
    assert all(r.latency_ms >= 0 for r in report.results)
    assert report.service == {"model": "fake-1", "top_k": 5}
    assert report.settings == {"pass_game": False}
    assert report.dataset == "tiny.jsonl"


def test_run_eval_overall_metrics(report: EvalReport) -> None:
    o = report.metrics[OVERALL]
    assert (o.n, o.answerable, o.unanswerable, o.errors) == (7, 5, 2, 1)
    assert o.error_rate == pytest.approx(1 / 7)
    # ranks of the expected rule: q1 1, q2 3, q3 1, q4 none, q7 none (error)
    assert o.recall_at_1 == pytest.approx(2 / 5)
    assert o.recall_at_5 == pytest.approx(3 / 5)
    assert o.mrr == pytest.approx((1 + 1 / 3 + 1) / 5)
    # yes/no golds: q1 yes->yes, q2 no->no, q3 yes->no, q4 no->not_found, q7 no->error
    assert o.yes_no_accuracy == pytest.approx(2 / 5)
    assert o.balanced_accuracy == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert o.verdict_coverage == pytest.approx(3 / 5)
    assert o.verdict_precision == pytest.approx(2 / 3)
    assert o.facts_recall == pytest.approx((1 + 1 + 0.5 + 0 + 0) / 5)
    assert o.expected_rule_cited_rate == pytest.approx(3 / 5)
    assert o.citation_validity == pytest.approx(3 / 4)
    assert (o.citations_total, o.citations_invalid) == (4, 1)
    assert o.abstention_rate == 0.5
    assert o.false_abstention_rate == pytest.approx(1 / 5)
    assert o.fully_correct_rate == pytest.approx(3 / 7)
    latencies = [r.latency_ms for r in report.results]
    assert o.latency_p50_ms == m.percentile(latencies, 50)
    assert o.latency_p95_ms == m.percentile(latencies, 95)
    # the wait for an explanation: answered (q1, q2, q3, q6), not turned away or failed
    by_id = {r.id: r.latency_ms for r in report.results}
    answered = [by_id[i] for i in ("q1", "q2", "q3", "q6")]
    assert o.latency_open_p50_ms == m.percentile(answered, 50)


def test_the_open_question_latency_leaves_out_yes_no_questions(report: EvalReport) -> None:
    from dataclasses import replace

    from ruleslawyer.evals.runner import compute_metrics

    results = [
        replace(r, question="Can a unit shoot after it advanced?", latency_ms=1e6)
        if r.id == "q1"
        else r
        for r in report.results
    ]
    by_id = {r.id: r.latency_ms for r in results}
    got = compute_metrics(results)
    assert got.latency_open_p50_ms == m.percentile([by_id[i] for i in ("q2", "q3", "q6")], 50)
    assert got.latency_p50_ms == m.percentile([r.latency_ms for r in results], 50)


def test_run_eval_per_game_metrics(report: EvalReport) -> None:
    assert list(report.metrics) == ["40k", "aos", "warmachine", OVERALL]
    k40 = report.metrics["40k"]
    assert k40.n == 3
    assert k40.recall_at_1 == 0.5
    assert k40.mrr == pytest.approx((1 + 1 / 3) / 2)
    assert k40.balanced_accuracy == 1.0
    assert k40.abstention_rate == 0.0
    assert k40.citation_validity == pytest.approx(2 / 3)
    assert k40.fully_correct_rate == pytest.approx(2 / 3)
    aos = report.metrics["aos"]
    assert aos.balanced_accuracy == 0.0
    assert aos.abstention_rate == 1.0
    assert aos.false_abstention_rate == 0.5
    assert aos.fully_correct_rate == pytest.approx(1 / 3)
    wm = report.metrics["warmachine"]
    assert (wm.n, wm.errors, wm.error_rate, wm.fully_correct_rate) == (1, 1, 1.0, 0.0)
    assert wm.abstention_rate is None and wm.citation_validity is None


def test_pass_game_forwards_the_items_game() -> None:
    service = FakeService()
    run_eval(ITEMS[:2], service, progress=False)
    assert service.games_asked == [None, None]
    service = FakeService()
    r = run_eval(ITEMS[:2], service, pass_game=True, progress=False)
    assert service.games_asked == ["40k", "40k"]
    assert r.settings == {"pass_game": True}


def test_citation_checks_and_other_game_hits() -> None:
    q = "question c?"
    stray = unit(
        "aos", "24.21", "Each time an attack is made with this weapon, add 1 to the Wound roll."
    )
    ghost = unit("40k", "99.99", "A rule that is not in the index.")
    canned = {
        q: answer(
            q,
            "no",
            "No.",
            [
                (U_LANCE, "add 1 to the Wound roll"),  # valid
                (U_OTHER, "Select one friendly unit"),  # quote fine, but not retrieved
                (ghost, "not in the index"),  # lookup fails
                (U_CQ, "  "),  # empty quote
                (U_CQ, "close-quarters"),  # only matches after normalisation
            ],
            # another game's 24.21 ranked first must not count for a 40k question
            [stray, U_LANCE, U_CQ],
        )
    }
    r = run_eval([item("c", "40k", "no", (), ("24.21",))], FakeService(canned), progress=False)
    res = r.results[0]
    assert res.citations_total == 5 and res.citations_invalid == 4
    problems = " | ".join(res.citation_problems)
    assert "10.01: not among the retrieved rules" in problems
    assert "99.99: no such rule" in problems
    assert "10.06: empty quote" in problems
    assert "quote is not verbatim" in problems
    assert res.expected_rule_cited and not res.fully_correct
    assert r.metrics[OVERALL].mrr == 0.5
    assert r.metrics[OVERALL].recall_at_1 == 0.0


def test_other_games_citation_does_not_count_as_expected_rule() -> None:
    q = "question d?"
    stray = unit("aos", "Run", "Add D6 to the unit's move characteristic.")
    canned = {q: answer(q, "yes", "Yes.", [(stray, "Add D6")], [stray])}
    r = run_eval([item("d", "40k", "yes", (), ("Run",))], FakeService(canned), progress=False)
    # A real, retrieved, verbatim AoS citation is valid, but it does not
    # answer a 40k question that expects a rule named "Run".
    assert r.results[0].citations_valid
    assert not r.results[0].expected_rule_cited
    assert r.results[0].cited_games == ("aos",)


def test_compute_metrics_empty() -> None:
    e = compute_metrics([])
    assert e.n == 0
    assert e.recall_at_5 is None and e.fully_correct_rate is None and e.latency_p50_ms is None


def test_verdict_curve_by_hand() -> None:
    golds = ["yes", "no", "yes", "no", "n/a"]
    p_yes = [0.9, 0.8, 0.4, None, 0.99]
    # floor 0.5: all three asked yes/no questions covered; yes right, no wrong, 0.4->no wrong
    # floor 0.85: only the 0.9 one
    assert m.verdict_curve(golds, p_yes, [0.5, 0.85, 0.95]) == [
        (0.5, 0.75, 1 / 3),
        (0.85, 0.25, 1.0),
        (0.95, 0.0, None),
    ]


def test_the_quote_without_a_verdict_is_a_complete_answer() -> None:
    """A yes/no question answered "The rule says:" with the right rule and facts is
    fully correct; the opposite yes/no with the same quote is not; verdict metrics
    still count the withheld verdict as not given."""
    q = item("q", "40k", "no", ("add one",), ("24.21",))
    quoted = answer(
        "question q?", "quote", "The rule says:", [(U_LANCE, "add 1 to the Wound roll")], [U_LANCE]
    )
    wrong = answer(
        "question q?", "yes", "Likely yes.", [(U_LANCE, "add 1 to the Wound roll")], [U_LANCE]
    )
    service = FakeService()
    r_quote = score_answer(q, quoted, service, 1.0)
    r_wrong = score_answer(q, wrong, service, 1.0)
    assert r_quote.fully_correct and not r_wrong.fully_correct
    metrics = compute_metrics([r_quote, r_wrong])
    assert metrics.verdict_coverage == 0.5 and metrics.wrong_verdict_rate == 0.5
    assert metrics.verdict_precision == 0.0


def test_explanations_are_judged_by_the_facts_they_state() -> None:
    """An explanation that states an expected fact counts for it; one that
    states none, or explains a question the rules do not answer, counts
    against it; one on a question with no facts to check it by is left out.
    The quote shown beside it does not count: the explanation is judged alone."""
    from dataclasses import replace

    cite = [(U_LANCE, "add 1 to the Wound roll")]

    def explained(i: EvalItem, explanation: str) -> Any:
        a = replace(answer(i.question, "answer", "...", cite, [U_LANCE]), explanation=explanation)
        return score_answer(i, a, FakeService(), 1.0)

    right = explained(item("a", "40k", "n/a", ("add 1",), ("24.21",)), "You add 1 to it.")
    wrong = explained(item("b", "40k", "n/a", ("add 1",), ("24.21",)), "You add 2 to it.")
    invented = explained(item("c", "40k", "n/a", unanswerable=True), "You add 1 to it.")
    unchecked = explained(item("d", "40k", "n/a", (), ("24.21",)), "You add 1 to it.")
    plain = score_answer(
        item("e", "40k", "n/a", ("add 1",)),
        answer("question e?", "answer", "...", cite, []),
        FakeService(),
        1.0,
    )
    assert [r.explanation_holds_fact for r in (right, wrong, invented, unchecked, plain)] == [
        True,
        False,
        False,
        None,
        None,
    ]
    metrics = compute_metrics([right, wrong, invented, unchecked, plain])
    assert metrics.explanations == 4
    assert metrics.explanation_fact_rate == pytest.approx(1 / 3)
