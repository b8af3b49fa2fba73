"""Whether the rules found answer the question: the model's second opinion on relevance.

Retrieval's relevance (``retrieval/hybrid.py``) judges from scores alone:
how well the best rule matches by meaning and by words, against a
background. A question the rulebook does not cover but whose words it uses
("how does a battle-shock test work?" against rules that mention
battle-shock once) scores like one it does. The model reads the picked rule
text against the question, in one of two ways (``SIGNALS``):

- ``explained``: how much more likely the model finds the player's question
  after the rule than after a prompt with no rule, summed over the
  question's tokens (a log-likelihood ratio; the two prompts' wording
  differs around the rule, which shifts every question alike and is
  absorbed by the fitted bias). A rule that answers the question predicts
  its words; a rule on a related topic that lacks the asked detail predicts
  the topic but not the detail. It needs no instruction the model must
  follow, only its likelihood, which small models have (two scoring
  passes, the second a short one);
- ``margin``: a few-shot prompt asks whether the rule text answers the
  question, and the log-probability margin of " Yes" over " No" as the next
  token is the signal (one scoring pass).

Neither reading is trusted alone. A logistic model per LLM combines the
retrieval relevance (as a logit) with the reading; its weights are fitted on
the *fit* questions and its floor is the highest at which *fit* and
*choose* together get no more false abstentions than relevance alone, by
``python -m benchmarks answerable``, which fits each signal, keeps the one
that turns away the most on *fit* + *choose*, reports the unseen splits,
keeps the check only if it helps there, and writes
``prompts/answerable.toml``. A model never measured this way has no check,
and relevance alone decides, as it does with ``--no-llm``.

The reading is clipped to the range seen on *fit*, so the check is skipped
when it cannot change the outcome: relevance so high (an exact rule
lookup, a clear match) that the lowest reading still passes, or so low that
the highest cannot. A question it turns away needs no generation at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ruleslawyer.errors import ModelError
from ruleslawyer.llm.base import LLM
from ruleslawyer.prompts.templates import render
from ruleslawyer.verdict import model_entry, rule_text, sigmoid, yes_no_margin

CHECK_FILE = Path(str(resources.files("ruleslawyer.prompts"))) / "answerable.toml"
SIGNALS = ("explained", "margin")
_EPS = 1e-9
# The question as the prompts show it (a longer one is cut).
QUESTION_CHARS = 600


def logit(p: float) -> float:
    p = min(1.0 - _EPS, max(_EPS, p))
    return math.log(p / (1.0 - p))


def check_prompt(question: str, quotes: Sequence[str]) -> str:
    """The probe: the answer's first two quotes as one prompt-sized text (as the
    verdict prompts show them), and the question."""
    return render("answerable", rule=rule_text(quotes[:2]), question=" ".join(question.split()))


def margin(llm: LLM, question: str, quotes: Sequence[str]) -> float | None:
    """logP(" Yes") - logP(" No") that ``quotes`` answer ``question``; None when
    the backend gives no log-probabilities. Raises ``ModelError`` on failure."""
    return yes_no_margin(llm, check_prompt(question, quotes))


def explained_prompts(
    question: str, quotes: Sequence[str], title: str = ""
) -> tuple[str, str, str]:
    """(prompt with the rule, prompt without it, the question as their continuation)."""
    rule = rule_text(quotes[:2])
    if title:
        rule = f"{' '.join(title.split())}: {rule}"
    continuation = " " + " ".join(question.split())[:QUESTION_CHARS]
    return render("explained", rule=rule), render("explained_base"), continuation


def explained(llm: LLM, question: str, quotes: Sequence[str], title: str = "") -> float | None:
    """How much more likely the model finds ``question`` after the rule text than
    without it: the sum over its tokens of log P(token | rule, question so far) -
    log P(token | question so far). None when the backend cannot score text.
    Raises ``ModelError`` on failure."""
    with_rule, without_rule, continuation = explained_prompts(question, quotes, title)
    a = llm.continuation_logprobs(with_rule, continuation)
    if a is None:
        return None
    b = llm.continuation_logprobs(without_rule, continuation)
    if b is None:
        return None
    value = sum(a) - sum(b)
    if not math.isfinite(value):
        raise ModelError("the model returned invalid log-probabilities")
    return value


def reading_prompt(signal: str, question: str, quotes: Sequence[str], title: str = "") -> str:
    """All the text ``reading`` scores for ``signal``: what a cached reading is keyed on."""
    if signal == "explained":
        return "".join(explained_prompts(question, quotes, title))
    return check_prompt(question, quotes)


def reading(
    llm: LLM, signal: str, question: str, quotes: Sequence[str], title: str = ""
) -> float | None:
    """The model's reading of ``quotes`` against ``question`` by ``signal``."""
    if signal == "explained":
        return explained(llm, question, quotes, title)
    if signal == "margin":
        return margin(llm, question, quotes)
    raise ValueError(f"unknown answerability signal {signal!r} (one of {', '.join(SIGNALS)})")


@dataclass(frozen=True)
class AnswerCheck:
    """One LLM's answerability model: p = sigmoid(bias + w_relevance * logit(relevance)
    + w_margin * clip(reading, margin_low, margin_high)), answered when p >= floor,
    where the reading is the model's by ``signal`` (``SIGNALS``; the field names
    date from when the Yes/No margin was the only one).

    ``enabled`` is False for a model never measured, and for one whose check
    did not turn away more unanswerable questions on *choose* than relevance
    alone at the same false-abstention bound.
    """

    enabled: bool = False
    signal: str = "margin"
    bias: float = 0.0
    w_relevance: float = 1.0
    w_margin: float = 0.0
    margin_low: float = 0.0
    margin_high: float = 0.0
    floor: float = 0.5
    measured: str = ""

    def probability(self, relevance: float, margin: float) -> float:
        m = min(self.margin_high, max(self.margin_low, margin))
        return sigmoid(self.bias + self.w_relevance * logit(relevance) + self.w_margin * m)

    def settled(self, relevance: float) -> bool | None:
        """The outcome when no margin in the fitted range could change it
        (True: answered, False: turned away), else None: ask the model."""
        lows = [self.probability(relevance, m) for m in (self.margin_low, self.margin_high)]
        if min(lows) >= self.floor:
            return True
        if max(lows) < self.floor:
            return False
        return None

    def answered(self, relevance: float, margin: float | None, relevant: bool) -> bool:
        """The decision: settled where no margin could change it, else by the margin;
        with no margin (a backend without log-probabilities), ``relevant`` (relevance
        alone) stands."""
        settled = self.settled(relevance)
        if settled is not None:
            return settled
        if margin is None:
            return relevant
        return self.probability(relevance, margin) >= self.floor

    @classmethod
    def for_model(cls, name: str, path: Path = CHECK_FILE) -> AnswerCheck:
        """The check for ``name`` ("qwen2.5-0.5b (llama.cpp)"); disabled if none."""
        entry = model_entry(path, name)
        if entry is None:
            return cls()
        signal = str(entry.get("signal", "margin"))
        return cls(
            enabled=bool(entry.get("enabled", False)) and signal in SIGNALS,
            signal=signal,
            bias=float(entry.get("bias", 0.0)),
            w_relevance=float(entry.get("w_relevance", 1.0)),
            w_margin=float(entry.get("w_margin", 0.0)),
            margin_low=float(entry.get("margin_low", 0.0)),
            margin_high=float(entry.get("margin_high", 0.0)),
            floor=float(entry.get("floor", 0.5)),
            measured=str(entry.get("measured", "")),
        )

    def to_toml(self, model: str) -> str:
        return (
            f'[models."{model}"]\n'
            f"enabled = {str(self.enabled).lower()}\n"
            f'signal = "{self.signal}"\n'
            f"bias = {self.bias!r}\n"
            f"w_relevance = {self.w_relevance!r}\n"
            f"w_margin = {self.w_margin!r}\n"
            f"margin_low = {self.margin_low!r}\n"
            f"margin_high = {self.margin_high!r}\n"
            f"floor = {self.floor!r}\n"
            f'measured = "{self.measured}"\n'
        )
