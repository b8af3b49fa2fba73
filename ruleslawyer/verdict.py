"""Yes/no verdicts, given only where they have been measured to be right.

A wrong "yes" badge is the worst thing this product can do: a player trusts
the badge more than the quote under it. So a verdict comes from one of two
places, and otherwise the answer is the quote ("The rule says: ..."):

1. **The rulebook's own answer.** An FAQ entry ("Q: ... A: No. ...") that
   is the deciding evidence and whose question is the player's question
   (MiniLM cosine at least ``FaqMatch.min_similarity``, fitted so no FAQ
   answered a question it was not asked on the fit questions). The badge
   then says "Yes"/"No": the book said so.
2. **The model, where it has earned it.** Tiny models cannot write a
   verdict, but asked the right way they carry some signal: the
   log-probability margin of " Yes" over " No" as the next token of a
   few-shot prompt holding the deciding rule sentences (``margin``), the
   same with no rule (``baseline``, the model's prior), a zero-shot
   phrasing (``zero_shot``), whether the rule supports "the answer is yes"
   more than "the answer is no" (``claim``, contrastive), and cues read off
   the text. A logistic model
   per LLM combines them (``python -m benchmarks calibrate``: fitted on the
   *fit* questions; the confidence floor chosen on *choose* as the lowest
   whose precision there is at least 90%). A model with no such floor gets
   ``enabled = false`` and is never asked: measured, the shipped 0.5B model
   is no better than chance on questions it was not fitted on, and a
   verdict it cannot earn is not worth its seconds. Its verdicts are worded
   "likely yes"/"likely no", never a bare YES.

Features are computed lazily by name, so a model whose calibration gives a
feature no weight never pays for its prompt.
"""

from __future__ import annotations

import functools
import math
import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ruleslawyer.errors import ModelError
from ruleslawyer.llm.base import LLM
from ruleslawyer.prompts.templates import render
from ruleslawyer.records import Verdict

# Beside the prompt templates, in the installed package as in a checkout.
CALIBRATION_FILE = Path(str(resources.files("ruleslawyer.prompts"))) / "calibration.toml"
# An auxiliary opens a yes/no question, negated too ("Doesn't that mean...",
# "isn't it?"); a wh-word opens an open one.
_AUX = (
    r"(?:(?:can|could|does|do|did|is|are|was|were|may|might|must|should|will|would|has"
    r"|have|had|am|shall)(?:n't|nt)?|can't|cannot|won't|ain't)"
)
_WH = r"(?:what|whats|what's|how|which|who|whom|whose|when|where|why)"
_CONDITION = r"(?:when|if|once|after|while|before|what if|whats if|what's if)"
# Clauses of a question sentence: where a tag ("..., right?") or a second
# question ("... or what happens?") starts.
_CLAUSE = r"[,;:\-\u2013\u2014]+|\band\b|\bbut\b|\bso\b|\bor\b|\bthen\b"
_NEG_RULE = re.compile(
    r"\b(?:cannot|can't|can not|not|never|no|unless|except|instead|lost|fails?|excluding)\b", re.I
)
_NEG_QUESTION = re.compile(r"\b(?:not|n't|no longer|never|without|instead)\b|n't\b", re.I)
_FAQ = re.compile(r"\bQ:\s*(?P<q>.+?)\s*A:\s*(?P<a>Yes|No)\b", re.S)
# an answer's first word, set apart from what follows: "No. A Leader...", "Yes, but";
# not "No. of dice" or "No. 3" (the abbreviation of "number")
_OPENS_ANSWER = re.compile(r"\s*(?P<a>Yes|No)\b(?:[,;:]|[.!](?=\s*(?:$|[A-Z\"(\u201c])))")
# a yes or a no however written ("YES.", "yes, it can", "No \u2014 but"), for
# saying whose question an entry answers; not "No. of dice", "No one", "Nobody"
_LOOSE_ANSWER = re.compile(
    r"(?i)\s*(?:yes|no)\b(?![.]\s*(?:of\b|\d))(?=\s*(?:[-\u2013\u2014,;:.!]|$))"
)
# what follows the yes or no, when it makes the answer conditional: the rest
# of its clause ("No, unless the unit has the Assault ability"), or a next
# sentence or clause that opens with the exception ("No. Unless it...", "Yes;
# but only...")
_QUALIFIED = re.compile(
    r"(?i)(?:\s*[,\u2013\u2014-][^.!?;:\n]*\b(?:unless|only|except|but|if|provided|as long as|when|until)\b"
    r"|[.!;:]\s*(?:unless|only|except|but)\b)"
)
NO_RULE = "(no rule given)"


def is_yes_no(question: str) -> bool:
    """True for questions a yes or a no answers ("Can a unit...", "..., can it
    shoot?", "cav can't go on overwatch, right?", "...in the same activation.
    legal?", "so only one unit at a time can be on a bridge?").

    Players ask yes/no questions as statements with a question mark, with a
    tag ("right?", "isn't it?", "yeah?") or after a situation, as often as
    with an auxiliary up front. So a question that ends in "?" is a yes/no
    question unless one of its question sentences asks a wh-question: a
    clause that opens with a wh-word ("how far...", "or what happens?"), or
    has "what", "how" or "why" inside it ("my ship moves how far?", "whats
    the least distance"). A leading condition ("when my unit retreats, can
    it...", "if I roll a 1 does it still hit?") is no wh-question; "when can
    I..." is. Without a "?", an auxiliary opening a clause decides.
    """
    q = " ".join(question.strip().lower().split())
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", q) if s.strip()]
    asked = [s for s in sentences if s.endswith("?")]
    if not asked:
        return _opens_with_auxiliary(q)
    clauses = [c.strip(" ?") for s in asked for c in re.split(_CLAUSE, s) if c.strip(" ?")]
    if len(sentences) == 1 and len(clauses) == 1 and len(clauses[0].split()) <= 3:
        # A few words alone, typed like a search ("Charge distance?"): a yes/no
        # question only with an auxiliary ("Can I charge?"); a tag ("legal?")
        # follows a statement.
        return _opens_with_auxiliary(q)
    return bool(clauses) and not any(_asks_wh(c) for c in clauses)


def _asks_wh(clause: str) -> bool:
    """Does a clause ask a wh-question (not state a condition: "when it moves")?"""
    if re.search(r"\b(?:what|whats|what's|how|why)\b", clause[1:]):
        return True  # inside the clause: "my ship moves how far", "whats the least"
    if not re.match(rf"{_WH}\b", clause):
        return False
    if re.match(rf"{_CONDITION}\b", clause):  # a condition, unless it asks: "when can I..."
        return bool(re.match(rf"(?:when|once|after|before|while)\s+{_AUX}\b", clause))
    return True


def _opens_with_auxiliary(q: str) -> bool:
    """The rule for a question written without a "?": an auxiliary opens one of
    its clauses, after any leading condition, and no wh-word opens it."""
    clauses = [
        c.strip()
        for c in re.split(r"[,;:?!.\-\u2013\u2014]+|\band\b|\bbut\b|\bso\b", q)
        if c.strip()
    ]
    if not clauses:
        return False
    if re.match(rf"{_CONDITION}\b", clauses[0]):
        return any(re.match(rf"{_AUX}\b", c) for c in clauses[1:])
    if re.match(rf"{_WH}\b", clauses[0]) or (
        len(clauses) > 1 and re.match(rf"{_WH}\b", clauses[-1])
    ):
        return False
    return any(re.match(rf"{_AUX}\b", c) for c in clauses)


# --- the model's signals ------------------------------------------------------------
class _NoLogprobs(Exception):
    pass


def yes_no_margin(llm: LLM, prompt: str) -> float | None:
    """logP(" Yes") - logP(" No") as the next token after ``prompt``; None when the
    backend gives no log-probabilities. Raises ``ModelError`` on failure."""
    probs = llm.next_token_logprobs(prompt, [" Yes", " No"])
    if not probs or " Yes" not in probs or " No" not in probs:
        return None
    margin = probs[" Yes"] - probs[" No"]
    if not math.isfinite(margin):
        raise ModelError("the model returned invalid log-probabilities")
    return margin


def _margin(llm: LLM, template: str, evidence: str, question: str, **fields: str) -> float:
    margin = yes_no_margin(llm, render(template, evidence=evidence, question=question, **fields))
    if margin is None:
        raise _NoLogprobs
    return margin


def _claim(llm: LLM, rule: str, question: str) -> float:
    """Contrastive: how much more the rule is read as supporting "the answer is
    yes" than "the answer is no". Both claims are judged with the same " Yes"
    token, so a model's lean towards answering "Yes" cancels out of the
    difference, which the plain margin keeps."""
    yes = _margin(llm, "verdict_claim", rule, question, claim="yes")
    return yes - _margin(llm, "verdict_claim", rule, question, claim="no")


FeatureFn = Callable[[LLM, str, str], float]
# name -> f(llm, rule text, question); the LLM-free ones ignore the model.
FEATURES: dict[str, FeatureFn] = {
    "margin": lambda llm, rule, q: _margin(llm, "verdict", rule, q),
    "baseline": lambda llm, rule, q: _margin(llm, "verdict", NO_RULE, q),
    "zero_shot": lambda llm, rule, q: _margin(llm, "verdict_zero_shot", rule, q),
    "claim": _claim,
    "neg_rule": lambda llm, rule, q: min(3, len(_NEG_RULE.findall(rule))) / 3,
    "neg_question": lambda llm, rule, q: 1.0 if negated(q) else 0.0,
}


def rule_text(evidence: Sequence[str]) -> str:
    """The deciding quotes as one prompt-sized text."""
    return " ".join(" ".join(e.split()) for e in evidence)[:1200]


def features(
    llm: LLM, question: str, evidence: Sequence[str], names: Sequence[str]
) -> dict[str, float] | None:
    """The named features for one question; None when the backend gives no log-probs."""
    rule = rule_text(evidence)
    q = " ".join(question.split())[:600]
    try:
        return {name: FEATURES[name](llm, rule, q) for name in names}
    except _NoLogprobs:
        return None


# --- the calibrated decision --------------------------------------------------------
@dataclass(frozen=True)
class Calibration:
    """One LLM's verdict model: logistic weights by feature name and the floor.

    ``enabled`` is False for a model with no operating point that reached the
    required precision on the choose questions, and for any model never
    calibrated (a verdict must be measured before it is shown).
    """

    enabled: bool = False
    bias: float = 0.0
    weights: dict[str, float] = field(default_factory=dict)
    confidence: float = 0.5  # min probability of the chosen answer
    precision: float | None = None  # measured on choose at ``confidence``
    measured: str = ""

    @property
    def needed(self) -> list[str]:
        """The features to compute: those with a weight."""
        return [name for name, w in self.weights.items() if w]

    @classmethod
    def for_model(cls, name: str, path: Path = CALIBRATION_FILE) -> Calibration:
        """The calibration for ``name`` ("qwen2.5-0.5b (llama.cpp)"); disabled if none."""
        entry = model_entry(path, name)
        if entry is None:
            return cls()
        return cls(
            enabled=bool(entry.get("enabled", False)),
            bias=float(entry.get("bias", 0.0)),
            weights={k: float(v) for k, v in entry.get("weights", {}).items() if k in FEATURES},
            confidence=float(entry.get("confidence", 0.5)),
            precision=(None if entry.get("precision") is None else float(entry["precision"])),
            measured=str(entry.get("measured", "")),
        )

    def to_toml(self, model: str) -> str:
        lines = [f'[models."{model}"]', f"enabled = {str(self.enabled).lower()}"]
        lines += [f"bias = {self.bias!r}", f"confidence = {self.confidence!r}"]
        if self.precision is not None:
            lines.append(f"precision = {self.precision!r}")
        lines.append(f'measured = "{self.measured}"')
        lines.append(f'[models."{model}".weights]')
        lines += [f"{k} = {v!r}" for k, v in self.weights.items()]
        return "\n".join(lines) + "\n"


def sigmoid(z: float) -> float:
    """The logistic function, clamped so a large ``z`` cannot overflow ``exp``."""
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def probability_yes(f: dict[str, float], cal: Calibration) -> float:
    return sigmoid(cal.bias + sum(w * f.get(name, 0.0) for name, w in cal.weights.items()))


def decide(p_yes: float, cal: Calibration) -> Verdict:
    """'yes', 'no', or 'quote' when neither side reaches the calibrated confidence."""
    if p_yes >= cal.confidence and p_yes > 0.5:
        return "yes"
    if 1 - p_yes >= cal.confidence and p_yes < 0.5:
        return "no"
    return "quote"


# --- the rulebook's own answer -------------------------------------------------------
@dataclass(frozen=True)
class FaqMatch:
    """When an FAQ's literal answer is the answer: its question must be the player's."""

    min_similarity: float = 1.01  # above any cosine: off until calibrated
    measured: str = ""

    @classmethod
    def load(cls, path: Path = CALIBRATION_FILE) -> FaqMatch:
        entry = _table(path).get("faq", {})
        if not isinstance(entry, dict) or "min_similarity" not in entry:
            return cls()
        return cls(float(entry["min_similarity"]), str(entry.get("measured", "")))


def faq_answer(quote: str, heading: str = "") -> tuple[str, Verdict] | None:
    """(the FAQ's question, its literal yes/no) when ``quote`` is an FAQ entry:
    "Q: ... A: No." in its text, or, where an FAQ page sets each question as a
    heading (``heading``, ending in "?"), a quote that opens its answer with a
    "Yes" or a "No" ("No. A Leader stays with...")."""
    m = _FAQ.search(quote)
    if m:
        asked, answer, end = m.group("q"), m.group("a"), m.end("a")
    else:
        m = _OPENS_ANSWER.match(quote)
        # one question, asked for a yes or a no ("How many dice...?" over "No. of
        # dice: ..." is none; two questions over one answer answer neither alone)
        if m is None or heading.count("?") != 1 or not heading.rstrip().endswith("?"):
            return None
        if not is_yes_no(heading):
            return None
        asked, answer, end = heading, m.group("a"), m.end("a")
    # "No, unless the unit has the Assault ability": the answer turns on a
    # condition the player's question may hold; the quote says which, a badge cannot
    if _QUALIFIED.match(quote[end:]):
        return None
    return " ".join(asked.split()), "yes" if answer == "Yes" else "no"


def negated(question: str) -> bool:
    """Does ``question`` ask with a negation ("Can a unit that did not advance
    shoot?", "...without a leader?")?"""
    return _NEG_QUESTION.search(question) is not None


# A clause that narrows a question to a time or a case: "...in the turn after it
# charged?", "...if it is Heavy?". English, in any game's questions.
# ("once" as a count narrows nothing: "more than once per phase", "once a
# turn", "at once"; any other "once" opens a clause, "once all its models have
# Advanced" too. "since" likewise, but for "since the start of the game". A
# relative clause is not counted: "a banner that was dropped" is "a dropped
# banner", and counting it lost that right badge on *faq2*, where it was
# tried; so "Can a unit shoot if it Advanced?" gets no badge from "Can a unit
# that Advanced shoot?")
_NARROWS = re.compile(
    r"\b(?:if|when|whenever|while|after|before|unless|until|during|except)\b"
    r"|(?<!\bthan )(?<!\bat )\bonce\b(?!\s+(?:per|a|an|each|every|more|again|only|or|and)\b)"
    r"|\bsince\b(?!\s+the\s+(?:start|beginning)\b)",
    re.I,
)


def narrowed(question: str) -> bool:
    """Does ``question`` narrow itself to a case ("...in the turn after it
    charged?") with a clause of time or condition?"""
    return _NARROWS.search(question) is not None


def word_swapped(question: str, asked: str, words: Callable[[str], list[str]]) -> bool:
    """Does each of ``question`` and ``asked`` have a word the other lacks (``words``
    gives a text's words as the search compares them)? "Can a unit shoot twice
    in one activation?" is "Can a unit Move twice in one activation?" with its
    verb swapped, and the answer turns on that verb; words most rules use
    ("shoot", "move") slip past the conditions check."""
    light = _light_verbs(words)
    mine, theirs = set(words(question)) - light, set(words(asked)) - light
    return bool(mine - theirs) and bool(theirs - mine)


# Auxiliaries and light verbs, in the forms a stemmer does not join ("after it
# has made a scout move" asks what "after making a scout move" asks)
_LIGHT_VERBS = (
    "has have had having is are was were be been being get gets got getting make makes "
    "made making take takes took taken taking go goes went gone going done doing"
)


@functools.lru_cache(maxsize=4)
def _light_verbs(words: Callable[[str], list[str]]) -> frozenset[str]:
    """``_LIGHT_VERBS`` as ``words`` gives them, once per way of giving words."""
    return frozenset(words(_LIGHT_VERBS))


def roles_swapped(question: str, asked: str, words: Callable[[str], list[str]]) -> bool:
    """Do ``question`` and ``asked`` put two words they share the other way
    round, across a third (``words`` gives a text's words as the search compares
    them)? "Can another unit join a Leader?" has every word of "Can a Leader
    join another unit?" with the roles swapped: the FAQ's answer is not its
    answer. Two words swapped side by side are one thing named another way ("a
    Beasts unit", "a unit of Beasts")."""
    mine, theirs = words(question), words(asked)
    shared = set(mine) & set(theirs)
    first = [w for w in dict.fromkeys(mine) if w in shared]
    second = [w for w in dict.fromkeys(theirs) if w in shared]
    at = {w: i for i, w in enumerate(second)}
    return any(
        at[x] > at[y] and (j - i > 1 or at[x] - at[y] > 1)
        for i, x in enumerate(first)
        for j, y in enumerate(first)
        if i < j
    )


def answers_its_heading(quote: str, heading: str) -> bool:
    """Does ``quote`` open with a yes or a no to the question its ``heading`` asks
    (an FAQ page's entry)? Quoted for another question, its "Yes." reads as the
    answer to the player's."""
    return heading.rstrip().endswith("?") and _LOOSE_ANSWER.match(quote) is not None


def model_entry(path: Path, name: str) -> dict[str, Any] | None:
    """The ``[models."NAME"]`` table of a per-model TOML file for the LLM called
    ``name`` ("qwen2.5-0.5b (llama.cpp)" finds "qwen2.5-0.5b"); None if absent."""
    models = _table(path).get("models", {})
    entry = models.get(name) or models.get(name.split(" ")[0])
    return entry if isinstance(entry, dict) else None


def _table(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    return tomllib.loads(path.read_text(encoding="utf-8"))
