"""Whether the rules found answer the question: the model's second opinion on relevance.

Retrieval's relevance (``retrieval/hybrid.py``) judges from scores alone:
how well the best rule matches by meaning and by words, against a
background. A question the rulebook does not cover but whose words it uses
("how does a battle-shock test work?" against rules that mention
battle-shock once) scores like one it does. Reading the picked rule text
against the question tells them apart better: a few-shot prompt asks
whether the rule text answers the question, and the log-probability margin
of " Yes" over " No" as the next token is the signal (``margin``).

Neither signal is trusted alone. A logistic model per LLM combines the
retrieval relevance (as a logit) with the margin; its weights are fitted on
the *fit* questions and its floor is the highest at which *fit* and
*choose* together get no more false abstentions than relevance alone (at
*choose*'s 5% bound it bought turned-away questions with false
abstentions), by ``python -m benchmarks answerable``, which also reports
the unseen splits, keeps the check only if it helps there, and writes
``prompts/answerable.toml``. A model never measured this way has no check,
and relevance alone decides, as it does with ``--no-llm``.

The margin is clipped to the range seen on *fit*, so the check is skipped
when it cannot change the outcome: relevance so high (an exact rule
lookup, a clear match) that the lowest margin still passes, or so low that
the highest cannot. The probe costs one scoring pass (~0.6 s with the 0.5B
model on 2 cores); a question it turns away needs no generation at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ruleslawyer.llm.base import LLM
from ruleslawyer.prompts.templates import render
from ruleslawyer.verdict import model_entry, rule_text, sigmoid, yes_no_margin

CHECK_FILE = Path(str(resources.files("ruleslawyer.prompts"))) / "answerable.toml"
_EPS = 1e-9


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


@dataclass(frozen=True)
class AnswerCheck:
    """One LLM's answerability model: p = sigmoid(bias + w_relevance * logit(relevance)
    + w_margin * clip(margin, margin_low, margin_high)), answered when p >= floor.

    ``enabled`` is False for a model never measured, and for one whose check
    did not turn away more unanswerable questions on *choose* than relevance
    alone at the same false-abstention bound.
    """

    enabled: bool = False
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
        return cls(
            enabled=bool(entry.get("enabled", False)),
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
            f"bias = {self.bias!r}\n"
            f"w_relevance = {self.w_relevance!r}\n"
            f"w_margin = {self.w_margin!r}\n"
            f"margin_low = {self.margin_low!r}\n"
            f"margin_high = {self.margin_high!r}\n"
            f"floor = {self.floor!r}\n"
            f'measured = "{self.measured}"\n'
        )
