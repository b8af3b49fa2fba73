"""Scoring functions for the evaluation suite: pure, no I/O, checkable by hand.

Each function scores one thing and says in its docstring exactly what. Rates
are floats in [0, 1]; a rate with an empty denominator is ``None`` ("not
measured"), never 0 or 1, so a dataset without e.g. unanswerable questions
does not report a perfect or a failing abstention rate.

Verdict metrics only count questions whose gold verdict is yes/no: those are
the ones with a checkable answer. Any other predicted verdict ("quote",
"answer", "not_found", an error) on such a question is wrong, so a bot cannot
raise its accuracy by hedging. Balanced accuracy is reported next to plain
accuracy because the datasets lean towards "no" and an always-"no" bot would
otherwise look good.

Fact matching normalises both sides (case, quote and hyphen styles, spacing,
number words -> digits) but keeps hyphens as hyphens: "-1 to hit" must not
match "+1 to hit".
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ruleslawyer.ingest.normalize import normalize_for_match

YES_NO: tuple[str, ...] = ("yes", "no")

# Index = value.
_NUMBER_WORDS: list[str] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
_NUMBER_RE = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b")
_CELL_RE = re.compile(r" \|(?: \|)* ")  # empty cells too: "Veteran | | 5"


def same_rule(a: str, b: str) -> bool:
    """True when two rule ids or ability names name the same rule.

    Compared after ``normalize_for_match``: case, curly quotes, hyphen styles
    and runs of whitespace are ignored ("All‑out defence" == "all-out defence").
    """
    return normalize_for_match(a) == normalize_for_match(b)


def _first_match_rank(ranked: Sequence[str], expected: Sequence[str]) -> int | None:
    wanted = {normalize_for_match(e) for e in expected}
    for rank, rule_id in enumerate(ranked, start=1):
        if normalize_for_match(rule_id) in wanted:
            return rank
    return None


def recall_at_k(ranked: Sequence[str], expected: Sequence[str], k: int) -> float:
    """1.0 if any expected id (``same_rule``) is among the first ``k`` of ``ranked``, else 0.0.

    With no expected ids the result is 0.0: callers leave such questions out
    of retrieval metrics rather than scoring them.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    rank = _first_match_rank(ranked, expected)
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(ranked: Sequence[str], expected: Sequence[str]) -> float:
    """1 / (1-based rank of the first id in ``ranked`` matching an expected id), 0.0 if none."""
    rank = _first_match_rank(ranked, expected)
    return 0.0 if rank is None else 1.0 / rank


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean of ``values``; ``None`` for an empty sequence."""
    return sum(values) / len(values) if values else None


def _yes_no_pairs(golds: Sequence[str], preds: Sequence[str]) -> list[tuple[str, str]]:
    if len(golds) != len(preds):
        raise ValueError(f"{len(golds)} gold verdicts but {len(preds)} predictions")
    return [(g, p) for g, p in zip(golds, preds, strict=True) if g in YES_NO]


def yes_no_accuracy(golds: Sequence[str], preds: Sequence[str]) -> float | None:
    """Share of questions with gold yes/no whose prediction equals the gold.

    Questions with any other gold ("n/a") are ignored; a prediction other than
    yes/no counts as wrong. ``None`` when no gold is yes/no.
    """
    pairs = _yes_no_pairs(golds, preds)
    return mean([1.0 if g == p else 0.0 for g, p in pairs])


def balanced_accuracy(golds: Sequence[str], preds: Sequence[str]) -> float | None:
    """Mean over the gold classes present (yes, no) of that class's recall.

    Recall of class c = questions with gold c predicted c / questions with
    gold c. Only yes/no golds count; other predictions are wrong. An always-"no"
    bot scores 0.5 whatever the class balance. ``None`` when no gold is yes/no.
    """
    pairs = _yes_no_pairs(golds, preds)
    recalls = []
    for cls in YES_NO:
        of_class = [p for g, p in pairs if g == cls]
        if of_class:
            recalls.append(sum(1 for p in of_class if p == cls) / len(of_class))
    return mean(recalls)


def verdict_coverage(golds: Sequence[str], preds: Sequence[str]) -> float | None:
    """Share of questions with gold yes/no that were answered yes or no (right or wrong).

    ``None`` when no gold is yes/no.
    """
    pairs = _yes_no_pairs(golds, preds)
    return mean([1.0 if p in YES_NO else 0.0 for _, p in pairs])


def verdict_precision(golds: Sequence[str], preds: Sequence[str]) -> float | None:
    """Among questions with gold yes/no that were answered yes or no, the share answered right.

    ``None`` when none was answered yes or no.
    """
    answered = [(g, p) for g, p in _yes_no_pairs(golds, preds) if p in YES_NO]
    return mean([1.0 if g == p else 0.0 for g, p in answered])


def wrong_verdict_rate(golds: Sequence[str], preds: Sequence[str]) -> float | None:
    """Share of questions with gold yes/no that got the *opposite* yes/no (lower is better).

    A withheld verdict ("quote", a quote) is not wrong here: this is the
    rate of confidently misleading badges. ``None`` when no gold is yes/no.
    """
    pairs = _yes_no_pairs(golds, preds)
    return mean([1.0 if p in YES_NO and p != g else 0.0 for g, p in pairs])


def verdict_curve(
    golds: Sequence[str], p_yes: Sequence[float | None], floors: Sequence[float]
) -> list[tuple[float, float, float | None]]:
    """(floor, coverage, precision) of a model's verdicts at each confidence floor.

    Only questions with a gold yes/no count. A question is given a verdict at
    ``floor`` when the model was asked and max(p, 1 - p) >= floor; the verdict
    is "yes" when p > 0.5. Coverage is over all yes/no questions (a question the
    model was not asked is never covered); precision is None with nothing given.
    """
    pairs = [(g, p) for g, p in zip(golds, p_yes, strict=True) if g in YES_NO]
    out: list[tuple[float, float, float | None]] = []
    for floor in floors:
        given = [(g, p) for g, p in pairs if p is not None and max(p, 1 - p) >= floor]
        right = sum(1 for g, p in given if (p > 0.5) == (g == "yes"))
        coverage = len(given) / len(pairs) if pairs else 0.0
        out.append((floor, coverage, right / len(given) if given else None))
    return out


def normalize_fact_text(text: str) -> str:
    """The form facts and answers are compared in.

    ``normalize_for_match`` (lower case, ASCII quotes and hyphens, single
    spaces) then number words zero..twenty replaced by digits ("seven" -> "7"),
    and a table's cell separator read as a space: the HTML and Markdown readers
    join a row's cells with " | ", the PDF reader with a space, so "Veteran 5"
    is the same fact in "Veteran | 5" (it was missed in every HTML table).
    """
    flat = _CELL_RE.sub(" ", normalize_for_match(text))
    return _NUMBER_RE.sub(lambda m: str(_NUMBER_WORDS.index(m.group(1))), flat)


def fact_present(fact: str, text: str) -> bool:
    """True when ``fact`` occurs in ``text``, both in ``normalize_fact_text`` form.

    The match must start at a word start, and a fact ending in a digit must not
    be followed by another digit, so "1" is not found in "12" or "21" and
    "charge" is still found in "charges".
    """
    needle = normalize_fact_text(fact)
    if not needle:
        return True
    pattern = re.escape(needle)
    if needle[0].isalnum():
        pattern = r"(?<![a-z0-9])" + pattern
    if needle[-1].isdigit():
        pattern += r"(?![0-9])"
    return re.search(pattern, normalize_fact_text(text)) is not None


def missing_facts(expected_facts: Sequence[str], text: str) -> list[str]:
    """The expected facts not present in ``text`` (see ``fact_present``), in order."""
    return [f for f in expected_facts if not fact_present(f, text)]


def facts_recall(expected_facts: Sequence[str], text: str) -> float | None:
    """Share of ``expected_facts`` present in ``text`` (see ``fact_present``).

    ``None`` when there are no expected facts.
    """
    if not expected_facts:
        return None
    return 1.0 - len(missing_facts(expected_facts, text)) / len(expected_facts)


def _pairs(unanswerable: Sequence[bool], abstained: Sequence[bool]) -> list[tuple[bool, bool]]:
    if len(unanswerable) != len(abstained):
        raise ValueError(f"{len(unanswerable)} flags but {len(abstained)} abstentions")
    return list(zip(unanswerable, abstained, strict=True))


def abstention_rate(unanswerable: Sequence[bool], abstained: Sequence[bool]) -> float | None:
    """Share of unanswerable questions on which the bot abstained (higher is better).

    ``None`` when no question is unanswerable.
    """
    return mean([1.0 if a else 0.0 for u, a in _pairs(unanswerable, abstained) if u])


def false_abstention_rate(unanswerable: Sequence[bool], abstained: Sequence[bool]) -> float | None:
    """Share of answerable questions on which the bot abstained (lower is better).

    ``None`` when every question is unanswerable.
    """
    return mean([1.0 if a else 0.0 for u, a in _pairs(unanswerable, abstained) if not u])


def percentile(values: Sequence[float], p: float) -> float | None:
    """The ``p``-th percentile (0..100) by linear interpolation between closest ranks.

    Same as numpy's default (``method="linear"``): sorted values x[0..n-1],
    position h = (n - 1) * p / 100, result x[floor h] + (h - floor h) *
    (x[floor h + 1] - x[floor h]). ``None`` for no values.
    """
    if not 0 <= p <= 100:
        raise ValueError(f"percentile must be within 0..100, got {p}")
    if not values:
        return None
    xs = sorted(values)
    h = (len(xs) - 1) * p / 100
    lo = math.floor(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])
