"""Yes/no verdicts, given only when the evidence and the model earn them.

Tiny local models cannot be trusted to *write* a verdict, but asked the right
way they carry a signal: the difference between the log-probabilities of
" Yes" and " No" as the next token of a few-shot prompt that holds the
deciding rule sentence and the question. That margin is combined with two
cues read straight off the text (negations in the quoted rule, negation in
the question) by a small logistic model whose weights are fitted on the dev
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
_NEG_RULE = re.compile(
    r"\b(?:cannot|can't|can not|not|never|no|unless|except|instead|lost|fails?|excluding)\b", re.I
)
_NEG_QUESTION = re.compile(r"\b(?:not|n't|no longer|never|without|instead)\b|n't\b", re.I)


def is_yes_no(question: str) -> bool:
    """True for questions a yes or a no answers ("Can a unit...", "..., can it shoot?")."""
    q = question.strip().lower()
    clauses = [
        c.strip()
        for c in re.split(r"[,;:?!.\-\u2013\u2014]+|\band\b|\bbut\b|\bso\b", q)
        if c.strip()
    ]
    if not clauses:
        return False
    if re.match(rf"{_WH}\b", clauses[0]) or (
        len(clauses) > 1 and re.match(rf"{_WH}\b", clauses[-1])
    ):
        return False
    return any(re.match(rf"{_AUX}\b", c) for c in clauses)


@dataclass(frozen=True)
class Calibration:
    """Logistic weights over (margin, rule negations, question negation) and the confidence floor."""

    bias: float = 0.0
    w_margin: float = 1.0
    w_neg_rule: float = 0.0
    w_neg_question: float = 0.0
    confidence: float = 0.5  # min probability of the chosen answer; 0.5 = always answer
    measured: str = ""

    @classmethod
    def for_model(cls, name: str, path: Path = CALIBRATION_FILE) -> Calibration:
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
        return cls(
            bias=num.get("bias", 0.0),
            w_margin=num.get("w_margin", 1.0),
            w_neg_rule=num.get("w_neg_rule", 0.0),
            w_neg_question=num.get("w_neg_question", 0.0),
            confidence=num.get("confidence", 0.5),
            measured=str(entry.get("measured", "")),
        )


@dataclass(frozen=True)
class VerdictFeatures:
    margin: float  # logP(" Yes") - logP(" No")
    neg_rule: float  # negations in the quoted rule
    neg_question: float  # 1 when the question is phrased negatively

    def as_tuple(self) -> tuple[float, float, float]:
        return (self.margin, self.neg_rule, self.neg_question)


def features(llm: LLM, question: str, evidence: Sequence[str]) -> VerdictFeatures | None:
    """Score the question against the evidence; None when the backend gives no log-probs."""
    rule = " ".join(" ".join(e.split()) for e in evidence)[:1200]
    prompt = render("verdict", evidence=rule, question=" ".join(question.split())[:600])
    probs = llm.next_token_logprobs(prompt, [" Yes", " No"])
    if not probs or " Yes" not in probs or " No" not in probs:
        return None
    margin = probs[" Yes"] - probs[" No"]
    if not math.isfinite(margin):
        raise ModelError("the model returned invalid log-probabilities")
    neg_rule = min(3, len(_NEG_RULE.findall(rule))) / 3
    neg_q = 1.0 if _NEG_QUESTION.search(question) else 0.0
    return VerdictFeatures(margin, neg_rule, neg_q)


def probability_yes(f: VerdictFeatures, cal: Calibration) -> float:
    z = (
        cal.bias
        + cal.w_margin * f.margin
        + cal.w_neg_rule * f.neg_rule
        + cal.w_neg_question * f.neg_question
    )
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def decide(p_yes: float, cal: Calibration) -> Verdict:
    """'yes', 'no', or 'depends' when neither side reaches the calibrated confidence."""
    if p_yes >= cal.confidence and p_yes > 0.5:
        return "yes"
    if 1 - p_yes >= cal.confidence and p_yes < 0.5:
        return "no"
    return "depends"
