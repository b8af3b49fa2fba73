"""How well the relevance model tells answerable from unanswerable questions.

    python -m benchmarks relevance [--splits fit,choose,...] [--tuning FILE]
                                   [--max-false-abstention 0.10]

The relevance probability decides which questions are turned away
("no clear rule"). Its floor is chosen on *choose*; whether any floor
could do better is a separate question, and the one to ask before tuning
the floor again. For each split this prints:

- AUC: the chance that an answerable question scores above an unanswerable
  one (0.5 is a coin flip); the floor cannot fix what this does not separate;
- shipped: turned away and false abstention at the floor in the tuning file;
- bound: the most unanswerable questions any floor turns away while keeping
  false abstention within ``--max-false-abstention`` (10% by default, the
  eval gates' ``false_abstention_rate_max``), with the floor picked on that
  split itself. It is a ceiling, not a figure to quote: within that false
  abstention no floor chosen elsewhere can do better on that split (the
  shipped floor may turn away more where it abstains on more answerable
  questions than that). When it is below a target, no floor meets the
  target with these weights; new weights over the same inputs or new
  evidence (a reader model, a new signal) must.

Questions are asked with the game detected, as players ask, through the
tuner's own signals (``benchmarks/tune.py``). A rule number or a rule's
name looked up outright counts as answerable whatever its score, as in the
product. ``--tuning`` scores another tuning file (an experiment) with the
same splits.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.common import highest_floor, machine
from benchmarks.splits import SPLITS
from benchmarks.tune import fused, signals
from ruleslawyer.errors import InputError, read_toml
from ruleslawyer.retrieval.hybrid import TUNING_FILE, Tuning


@dataclass(frozen=True)
class Separation:
    """One split's figures for a relevance model (see the module docstring)."""

    answerable: int
    unanswerable: int
    auc: float | None
    turned_away: int  # at the shipped floor
    false_abstentions: int
    bound_turned_away: int  # the best any floor does within the allowed false abstentions
    bound_false_abstentions: int
    bound_floor: float


def auc(answerable: Sequence[float], unanswerable: Sequence[float]) -> float | None:
    """P(an answerable question scores above an unanswerable one), ties half."""
    if not answerable or not unanswerable:
        return None
    wins = sum(1.0 if a > u else 0.5 if a == u else 0.0 for a in answerable for u in unanswerable)
    return wins / (len(answerable) * len(unanswerable))


def separation(
    answerable: Sequence[float],
    unanswerable: Sequence[float],
    floor: float,
    max_false_abstention: float,
) -> Separation:
    """Figures for relevance probabilities; a question below ``floor`` is turned away."""
    bound_floor = highest_floor(answerable, max_false_abstention)
    return Separation(
        answerable=len(answerable),
        unanswerable=len(unanswerable),
        auc=auc(answerable, unanswerable),
        turned_away=sum(p < floor for p in unanswerable),
        false_abstentions=sum(p < floor for p in answerable),
        bound_turned_away=sum(p < bound_floor for p in unanswerable),
        bound_false_abstentions=sum(p < bound_floor for p in answerable),
        bound_floor=bound_floor,
    )


def measure(split: str, tuning: Tuning, max_false_abstention: float) -> Separation:
    results = fused(signals(split), replace(tuning, floor=0.0))
    ans = [res.relevance for item, res in results if not item.unanswerable]
    unans = [res.relevance for item, res in results if item.unanswerable]
    return separation(ans, unans, tuning.floor, max_false_abstention)


def load_tuning(path: Path) -> Tuning:
    """``path``'s tuning, or a one-line exit: a file without a ``[retrieval]``
    table would silently score the defaults (``Tuning.load`` allows that, for
    a checkout with no tuning file yet)."""
    try:
        data = read_toml(path, "tuning file")
    except InputError as err:
        raise SystemExit(str(err)) from err
    table = data.get("retrieval")
    if not isinstance(table, dict):
        raise SystemExit(f"tuning file {path} has no [retrieval] table")
    return Tuning.from_table(table)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks relevance",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--splits", default=",".join(SPLITS), help="comma-separated split names")
    ap.add_argument(
        "--tuning", type=Path, default=TUNING_FILE, help="tuning file to score (default: shipped)"
    )
    ap.add_argument(
        "--max-false-abstention",
        type=float,
        default=0.10,
        help="the bound's false abstention cap, a share of answerable questions",
    )
    args = ap.parse_args(argv)
    unknown = [s for s in args.splits.split(",") if s not in SPLITS]
    if unknown:
        raise SystemExit(f"unknown split(s) {', '.join(unknown)}; known: {', '.join(SPLITS)}")
    if not 0.0 <= args.max_false_abstention < 1.0:  # (NaN fails this too)
        raise SystemExit("--max-false-abstention must be at least 0 and below 1, e.g. 0.10")
    tuning = load_tuning(args.tuning)
    cap = args.max_false_abstention
    print(f"Relevance: answerable against unanswerable ({machine()}; game detected)")
    print(
        f"tuning {args.tuning}, floor {tuning.floor:.3f}; bound: at most {cap:.0%} false abstention"
    )
    print(
        f"{'split':13} {'AUC':>5}  {'shipped: turned away':>21}  {'false abst.':>11}  "
        f"{'bound: turned away':>19}  {'false abst.':>11}  {'at floor':>8}"
    )
    for split in args.splits.split(","):
        s = measure(split, tuning, cap)
        a = "n/a" if s.auc is None else f"{s.auc:.3f}"
        print(
            f"{split:13} {a:>5}  {f'{s.turned_away} of {s.unanswerable}':>21}  "
            f"{f'{s.false_abstentions} of {s.answerable}':>11}  "
            f"{f'{s.bound_turned_away} of {s.unanswerable}':>19}  "
            f"{f'{s.bound_false_abstentions} of {s.answerable}':>11}  {s.bound_floor:8.3f}"
        )


if __name__ == "__main__":
    main()
