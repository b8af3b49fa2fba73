"""Ask every evaluation question through a service and score the answers.

The runner is shared by the CLI (``ruleslawyer eval``), the tests (with a
fake service) and the benchmarks, so it depends on nothing but the
``AnswerService`` protocol: ``ask``, ``lookup`` and ``describe``.

Scoring is deliberately unforgiving where a player would be misled and
lenient where only wording differs:

- a citation is valid only if its rule exists, was among the retrieved hits,
  and its quote is an exact substring of the rule's original text (no
  normalisation: a quote is what the player will search for in their book);
- facts are matched with normalisation (case, hyphens, quotes, number words);
- a question that raised a domain error counts as answered wrongly in every
  metric (it is not dropped), so a crashing bot cannot score well;
- retrieved and cited rules of another game never match an expected rule;
- a yes/no question answered with the quote and no verdict ("The rule says:")
  is fully correct when the right rule and facts are shown: the quote is a
  complete answer. A wrong yes/no is never correct, and verdict accuracy
  (balanced accuracy, coverage) still counts a withheld verdict as missing.

Metrics are computed per game and "overall" from the per-question records,
so a saved report can be re-scored or compared without re-asking.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from tqdm import tqdm

from ruleslawyer.errors import RulesLawyerError
from ruleslawyer.evals import metrics as m
from ruleslawyer.evals.dataset import EvalItem
from ruleslawyer.records import Answer, RuleUnit
from ruleslawyer.verdict import is_yes_no

REPORT_FORMAT = 1
OVERALL = "overall"
ABSTAIN_VERDICT = "not_found"
ERROR_VERDICT = "error"  # recorded as the verdict of a question whose ask() raised


class AnswerService(Protocol):
    """What the runner needs from the answering service."""

    def ask(self, question: str, game: str | None = None) -> Answer: ...

    def lookup(self, game: str, rule_id: str) -> RuleUnit | None: ...

    def describe(self) -> dict[str, Any]: ...  # model name and settings for the report


# Fields a report written before they existed may lack; they keep their defaults.
OPTIONAL_RESULT_FIELDS = (
    "answer",
    "error",
    "verdict_source",
    "p_yes",
    "explanation",
    "explanation_holds_fact",
)


@dataclass(frozen=True)
class QuestionResult:
    """How one question was answered and scored."""

    id: str
    game: str
    question: str
    unanswerable: bool
    expected_verdict: str
    verdict: str  # what the bot said; "error" when ask() raised
    expected_rules: tuple[str, ...]
    cited_rules: tuple[str, ...]
    cited_games: tuple[str, ...]  # parallel to cited_rules
    retrieved_rules: tuple[str, ...]  # answer.search.hits order
    retrieved_games: tuple[str, ...]  # parallel to retrieved_rules
    expected_facts: tuple[str, ...]
    missing_facts: tuple[str, ...]
    abstained: bool
    citations_total: int
    citations_invalid: int
    citation_problems: tuple[str, ...]
    citations_valid: bool
    expected_rule_cited: bool
    fully_correct: bool
    latency_ms: float
    answer: str = ""
    error: str = ""
    verdict_source: str = ""  # "faq" | "model" | ""
    p_yes: float | None = None  # the model's probability of "yes", when it was asked
    explanation: str = ""  # the model's explanation shown, "" when none
    # Whether the explanation states one of the expected facts (None: no
    # explanation, or an answerable question with no facts to check it by).
    explanation_holds_fact: bool | None = None

    @property
    def verdict_correct(self) -> bool | None:
        """Whether a yes/no gold was matched; ``None`` when the gold is not yes/no."""
        if self.expected_verdict not in m.YES_NO:
            return None
        return self.verdict == self.expected_verdict

    def ranked_for_game(self) -> list[str]:
        """Retrieved rule ids with other games' hits blanked, so they keep their rank
        but can never match an expected rule."""
        return [
            rid if g == self.game else ""
            for rid, g in zip(self.retrieved_rules, self.retrieved_games, strict=True)
        ]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, tuple):
                d[k] = list(v)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> QuestionResult:
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in d:
                if f.name in OPTIONAL_RESULT_FIELDS:
                    continue
                raise KeyError(f.name)
            v = d[f.name]
            kwargs[f.name] = tuple(v) if isinstance(v, list) else v
        return cls(**kwargs)


@dataclass(frozen=True)
class Metrics:
    """Aggregate scores for one game or overall. Rates are in [0, 1]; ``None``
    means the denominator was empty (nothing to measure)."""

    n: int
    answerable: int
    unanswerable: int
    errors: int
    error_rate: float | None
    recall_at_1: float | None  # answerable questions with expected rules
    recall_at_5: float | None
    mrr: float | None
    yes_no_accuracy: float | None  # questions with gold yes/no
    balanced_accuracy: float | None
    verdict_coverage: float | None
    verdict_precision: float | None
    wrong_verdict_rate: float | None  # yes/no questions given the opposite yes/no
    facts_recall: float | None  # answerable questions with expected facts
    expected_rule_cited_rate: float | None  # answerable questions with expected rules
    citation_validity: float | None  # answers with at least one citation
    citations_total: int
    citations_invalid: int
    abstention_rate: float | None  # unanswerable questions
    false_abstention_rate: float | None  # answerable questions
    fully_correct_rate: float | None
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    # Open questions answered: the ones the model explains, so the wait for an
    # explanation (a yes/no question with no earnable verdict takes no model call).
    latency_open_p50_ms: float | None = None
    # Answers shown with a model explanation, and the share of those (on
    # questions with facts, or none to find) that state an expected fact: a
    # lower bound on how often the explanation a player reads first is right.
    explanations: int | None = None
    explanation_fact_rate: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Metrics:
        # reports written before a metric existed read it as "not measured"
        values: dict[str, Any] = {f.name: d.get(f.name) for f in fields(cls)}
        return cls(**values)


METRIC_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Metrics))


@dataclass(frozen=True)
class EvalReport:
    """One evaluation run: what was asked of which service, and how it scored."""

    dataset: str
    timestamp: str  # ISO 8601, UTC
    service: dict[str, Any]  # service.describe()
    settings: dict[str, Any]  # runner settings, e.g. pass_game
    metrics: dict[str, Metrics]  # per game in dataset order, then "overall"
    results: tuple[QuestionResult, ...]

    @property
    def games(self) -> list[str]:
        """The games with metrics, without "overall"."""
        return [g for g in self.metrics if g != OVERALL]

    @property
    def failures(self) -> list[QuestionResult]:
        return [r for r in self.results if not r.fully_correct]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "dataset": self.dataset,
            "timestamp": self.timestamp,
            "service": self.service,
            "settings": self.settings,
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
            "results": [r.to_dict() for r in self.results],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EvalReport:
        """Inverse of ``to_dict``; raises KeyError/TypeError/ValueError on a bad shape."""
        if d.get("format") != REPORT_FORMAT:
            raise ValueError(f"unsupported report format {d.get('format')!r}")
        return cls(
            dataset=str(d["dataset"]),
            timestamp=str(d["timestamp"]),
            service=dict(d["service"]),
            settings=dict(d["settings"]),
            metrics={str(k): Metrics.from_dict(v) for k, v in d["metrics"].items()},
            results=tuple(QuestionResult.from_dict(r) for r in d["results"]),
        )


def _check_citations(answer: Answer, service: AnswerService) -> list[str]:
    """One problem string per invalid citation (empty when all are valid)."""
    retrieved = {(h.unit.game, h.unit.rule_id) for h in answer.search.hits}
    problems = []
    for c in answer.citations:
        game, rid = c.unit.game, c.unit.rule_id
        unit = service.lookup(game, rid)
        if unit is None:
            problems.append(f"{game} {rid}: no such rule")
        elif (game, rid) not in retrieved:
            problems.append(f"{game} {rid}: not among the retrieved rules")
        elif not c.quote.strip():
            problems.append(f"{game} {rid}: empty quote")
        elif c.quote not in unit.text:
            problems.append(f"{game} {rid}: quote is not verbatim rule text: {c.quote[:60]!r}")
    return problems


def score_answer(
    item: EvalItem, answer: Answer, service: AnswerService, latency_ms: float
) -> QuestionResult:
    """Score one answer against its item (see the module docstring for the rules)."""
    cited = [(c.unit.rule_id, c.unit.game) for c in answer.citations]
    problems = _check_citations(answer, service)
    citations_valid = not problems
    abstained = answer.verdict == ABSTAIN_VERDICT
    # Facts count if the player can see them: in the answer or in a quote.
    shown = "\n".join([answer.answer, *(c.quote for c in answer.citations)])
    missing = m.missing_facts(item.expected_facts, shown)
    expected_cited = any(
        g == item.game and m.same_rule(rid, e) for rid, g in cited for e in item.expected_rules
    )
    if item.unanswerable:
        fully = abstained
    else:
        fully = (
            not abstained
            and (
                item.expected_verdict not in m.YES_NO
                or answer.verdict in (item.expected_verdict, "quote")
            )
            and not missing
            and (expected_cited or not item.expected_rules)
            and citations_valid
        )
    return QuestionResult(
        id=item.id,
        game=item.game,
        question=item.question,
        unanswerable=item.unanswerable,
        expected_verdict=item.expected_verdict,
        verdict=answer.verdict,
        expected_rules=item.expected_rules,
        cited_rules=tuple(rid for rid, _ in cited),
        cited_games=tuple(g for _, g in cited),
        retrieved_rules=tuple(h.unit.rule_id for h in answer.search.hits),
        retrieved_games=tuple(h.unit.game for h in answer.search.hits),
        expected_facts=item.expected_facts,
        missing_facts=tuple(missing),
        abstained=abstained,
        citations_total=len(answer.citations),
        citations_invalid=len(problems),
        citation_problems=tuple(problems),
        citations_valid=citations_valid,
        expected_rule_cited=expected_cited,
        fully_correct=fully,
        latency_ms=latency_ms,
        answer=answer.answer,
        verdict_source=answer.verdict_source,
        p_yes=answer.p_yes,
        explanation=answer.explanation,
        explanation_holds_fact=_holds_fact(item, answer.explanation),
    )


def _holds_fact(item: EvalItem, explanation: str) -> bool | None:
    """Does the explanation state an expected fact? An explanation of a question
    the rules do not answer states none (whatever it says was not in them)."""
    if not explanation or (not item.unanswerable and not item.expected_facts):
        return None
    if item.unanswerable:
        return False
    return len(m.missing_facts(item.expected_facts, explanation)) < len(item.expected_facts)


def error_result(item: EvalItem, error: str, latency_ms: float) -> QuestionResult:
    """The record of a question whose ask() raised: wrong on every count."""
    return QuestionResult(
        id=item.id,
        game=item.game,
        question=item.question,
        unanswerable=item.unanswerable,
        expected_verdict=item.expected_verdict,
        verdict=ERROR_VERDICT,
        expected_rules=item.expected_rules,
        cited_rules=(),
        cited_games=(),
        retrieved_rules=(),
        retrieved_games=(),
        expected_facts=item.expected_facts,
        missing_facts=item.expected_facts,
        abstained=False,
        citations_total=0,
        citations_invalid=0,
        citation_problems=(),
        citations_valid=True,
        expected_rule_cited=False,
        fully_correct=False,
        latency_ms=latency_ms,
        error=error,
    )


def _rate(flags: Sequence[bool]) -> float | None:
    return m.mean([1.0 if f else 0.0 for f in flags])


def compute_metrics(results: Sequence[QuestionResult]) -> Metrics:
    """Aggregate per-question records into ``Metrics`` (see field comments for denominators)."""
    answerable = [r for r in results if not r.unanswerable]
    with_rules = [r for r in answerable if r.expected_rules]
    with_facts = [r for r in answerable if r.expected_facts]
    cited = [r for r in results if r.citations_total > 0]
    golds = [r.expected_verdict for r in results]
    preds = [r.verdict for r in results]
    unans = [r.unanswerable for r in results]
    abst = [r.abstained for r in results]
    latencies = [r.latency_ms for r in results]
    # Per-question share of facts shown, from the stored missing list, so a
    # saved report re-scores without the answer text.
    facts = [1.0 - len(r.missing_facts) / len(r.expected_facts) for r in with_facts]
    return Metrics(
        n=len(results),
        answerable=len(answerable),
        unanswerable=len(results) - len(answerable),
        errors=sum(1 for r in results if r.error),
        error_rate=_rate([bool(r.error) for r in results]),
        recall_at_1=m.mean(
            [m.recall_at_k(r.ranked_for_game(), r.expected_rules, 1) for r in with_rules]
        ),
        recall_at_5=m.mean(
            [m.recall_at_k(r.ranked_for_game(), r.expected_rules, 5) for r in with_rules]
        ),
        mrr=m.mean([m.reciprocal_rank(r.ranked_for_game(), r.expected_rules) for r in with_rules]),
        yes_no_accuracy=m.yes_no_accuracy(golds, preds),
        balanced_accuracy=m.balanced_accuracy(golds, preds),
        verdict_coverage=m.verdict_coverage(golds, preds),
        verdict_precision=m.verdict_precision(golds, preds),
        wrong_verdict_rate=m.wrong_verdict_rate(golds, preds),
        facts_recall=m.mean(facts),
        expected_rule_cited_rate=_rate([r.expected_rule_cited for r in with_rules]),
        citation_validity=_rate([r.citations_valid for r in cited]),
        citations_total=sum(r.citations_total for r in results),
        citations_invalid=sum(r.citations_invalid for r in results),
        abstention_rate=m.abstention_rate(unans, abst),
        false_abstention_rate=m.false_abstention_rate(unans, abst),
        fully_correct_rate=_rate([r.fully_correct for r in results]),
        latency_p50_ms=m.percentile(latencies, 50),
        latency_p95_ms=m.percentile(latencies, 95),
        latency_open_p50_ms=m.percentile(
            [
                r.latency_ms
                for r in results
                if not r.abstained and not r.error and not is_yes_no(r.question)
            ],
            50,
        ),
        explanations=sum(1 for r in results if r.explanation),
        explanation_fact_rate=_rate(
            [r.explanation_holds_fact for r in results if r.explanation_holds_fact is not None]
        ),
    )


def metrics_by_game(results: Sequence[QuestionResult]) -> dict[str, Metrics]:
    """Metrics for each game present (in the order they first appear), then overall."""
    order = list(dict.fromkeys(r.game for r in results))
    out = {g: compute_metrics([r for r in results if r.game == g]) for g in order}
    out[OVERALL] = compute_metrics(results)
    return out


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    # describe() may hold Paths or other objects; the report must stay JSON.
    out: dict[str, Any] = json.loads(json.dumps(d, default=str))
    return out


def run_eval(
    items: Sequence[EvalItem],
    service: AnswerService,
    *,
    pass_game: bool = False,
    progress: bool = True,
    dataset: str | Path = "",
) -> EvalReport:
    """Ask each item's question through ``service`` and score the answers.

    ``pass_game`` gives the service the item's game (otherwise it must detect
    it, as with a player's question). ``progress`` shows a tqdm bar on stderr.
    ``dataset`` is only recorded in the report. Domain errors
    (``RulesLawyerError``) from ``ask`` are recorded as failed questions;
    anything else is a bug and propagates.
    """
    results: list[QuestionResult] = []
    for item in tqdm(items, desc="eval", unit="q", file=sys.stderr, disable=not progress):
        start = time.perf_counter()
        try:
            answer = service.ask(item.question, item.game if pass_game else None)
        except RulesLawyerError as err:
            elapsed = (time.perf_counter() - start) * 1000
            results.append(error_result(item, str(err) or type(err).__name__, elapsed))
            continue
        elapsed = (time.perf_counter() - start) * 1000
        results.append(score_answer(item, answer, service, elapsed))
    return EvalReport(
        dataset=str(dataset),
        timestamp=datetime.now(UTC).isoformat(timespec="seconds"),
        service=_jsonable(service.describe()),
        settings={"pass_game": pass_game},
        metrics=metrics_by_game(results),
        results=tuple(results),
    )
