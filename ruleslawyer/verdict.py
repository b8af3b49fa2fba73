"""Yes/no verdicts, given only when the evidence and the model earn them.

Tiny local models cannot be trusted to *write* a verdict, but asked the right
way they carry a signal: the difference between the log-probabilities of
" Yes" and " No" as the next token of a few-shot prompt that holds the
deciding rule sentence and the question. That margin, the same margin with
no rule given (the model's prior for the question, so only the rule's effect
counts), and three cues read straight off the text (negations in the quoted
rule, negation in the question, an FAQ's literal "A: Yes"/"A: No") are
combined by a small logistic model whose weights are fitted on the dev
set (``python -m benchmarks calibrate --write``), per model. A verdict is
given only when the model's probability clears the chosen confidence, so
the operating point (coverage vs precision) is a measured setting; below it
the answer says "depends" and lets the quote speak.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ruleslawyer.errors import ModelError
from ruleslawyer.llm.base import LLM
from ruleslawyer.prompts.templates import render
from ruleslawyer.records import Verdict

CALIBRATION_FILE = Path(__file__).resolve().parent.parent / "prompts" / "calibration.toml"
_AUX = r"(?:can|could|does|do|did|is|are|was|were|may|might|must|should|will|would|has|have|had|am|shall)"
_WH = r"(?:what|whats|what's|how|which|who|whom|whose|when|where|why)"
_CONDITION = r"when|if|once|after|while|before|what if|whats if|what's if"
_NEG_RULE = re.compile(
    r"\b(?:cannot|can't|can not|not|never|no|unless|except|instead|lost|fails?|excluding)\b", re.I
)
_FAQ_YES = re.compile(r"\bA: Yes\b")
_FAQ_NO = re.compile(r"\bA: No\b")
_NEG_QUESTION = re.compile(r"\b(?:not|n't|no longer|never|without|instead)\b|n't\b", re.I)


def is_yes_no(question: str) -> bool:
    """True for questions a yes or a no answers ("Can a unit...", "..., can it shoot?").

    A leading condition ("When my unit retreats, can it...", "What if it fell
    back - is it...") does not make a question open: the clauses after it decide.
    """
    q = question.strip().lower()
    clauses = [
        c.strip()
        for c in re.split(r"[,;:?!.\-\u2013\u2014]+|\band\b|\bbut\b|\bso\b", q)
        if c.strip()
    ]
    if not clauses:
        return False
    if re.match(rf"(?:{_CONDITION})\b", clauses[0]):
        return any(re.match(rf"{_AUX}\b", c) for c in clauses[1:])
    if re.match(rf"{_WH}\b", clauses[0]) or (
        len(clauses) > 1 and re.match(rf"{_WH}\b", clauses[-1])
    ):
        return False
    return any(re.match(rf"{_AUX}\b", c) for c in clauses)


FEATURES = ("margin", "baseline", "neg_rule", "neg_question", "faq")


@dataclass(frozen=True)
class Calibration:
    """Logistic weights over the verdict features, and the confidence floor."""

    bias: float = 0.0
    w_margin: float = 1.0
    w_baseline: float = 0.0
    w_neg_rule: float = 0.0
    w_neg_question: float = 0.0
    w_faq: float = 0.0
    confidence: float = 0.5  # min probability of the chosen answer; 0.5 = always answer
    measured: str = ""

    @property
    def weights(self) -> tuple[float, ...]:
        return (self.w_margin, self.w_baseline, self.w_neg_rule, self.w_neg_question, self.w_faq)

    @classmethod
    def for_model(cls, name: str, path: Path = CALIBRATION_FILE) -> Calibration:
        """The fitted calibration for ``name`` (e.g. "qwen2.5-0.5b (llama.cpp)"), else raw margins."""
        if not path.exists():
            return cls()
        data = tomllib.loads(path.read_text(encoding="utf-8")).get("models", {})
        entry = data.get(name) or data.get(name.split(" ")[0])
        if not entry:
            return cls()
        num = {
            k: float(v)
            for k, v in entry.items()
            if k in cls.__dataclass_fields__ and k != "measured"
        }
        return cls(**num, measured=str(entry.get("measured", "")))


@dataclass(frozen=True)
class VerdictFeatures:
    margin: float  # logP(" Yes") - logP(" No") with the rule
    baseline: float  # the same margin with no rule: the model's prior for this question
    neg_rule: float  # negations in the quoted rule (0..1)
    neg_question: float  # 1 when the question is phrased negatively
    faq: float  # +1 / -1 when the quoted rule is an FAQ answering "A: Yes" / "A: No"

    def as_tuple(self) -> tuple[float, ...]:
        return (self.margin, self.baseline, self.neg_rule, self.neg_question, self.faq)


def _margin(llm: LLM, evidence: str, question: str) -> float:
    prompt = render("verdict", evidence=evidence, question=question)
    probs = llm.next_token_logprobs(prompt, [" Yes", " No"])
    if not probs or " Yes" not in probs or " No" not in probs:
        raise _NoLogprobs
    margin = probs[" Yes"] - probs[" No"]
    if not math.isfinite(margin):
        raise ModelError("the model returned invalid log-probabilities")
    return margin


class _NoLogprobs(Exception):
    pass


def features(llm: LLM, question: str, evidence: Sequence[str]) -> VerdictFeatures | None:
    """Score the question against the evidence; None when the backend gives no log-probs."""
    rule = " ".join(" ".join(e.split()) for e in evidence)[:1200]
    q = " ".join(question.split())[:600]
    try:
        margin = _margin(llm, rule, q)
        baseline = _margin(llm, "(no rule given)", q)
    except _NoLogprobs:
        return None
    neg_rule = min(3, len(_NEG_RULE.findall(rule))) / 3
    neg_q = 1.0 if _NEG_QUESTION.search(question) else 0.0
    faq = 1.0 if _FAQ_YES.search(rule) else (-1.0 if _FAQ_NO.search(rule) else 0.0)
    return VerdictFeatures(margin, baseline, neg_rule, neg_q, faq)


def probability_yes(f: VerdictFeatures, cal: Calibration) -> float:
    z = cal.bias + sum(w * x for w, x in zip(cal.weights, f.as_tuple(), strict=True))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def decide(p_yes: float, cal: Calibration) -> Verdict:
    """'yes', 'no', or 'depends' when neither side reaches the calibrated confidence."""
    if p_yes >= cal.confidence and p_yes > 0.5:
        return "yes"
    if 1 - p_yes >= cal.confidence and p_yes < 0.5:
        return "no"
    return "depends"
