"""How well the page tells a follow-up from a question of its own.

    python -m benchmarks followups [--dataset evals/followups/followups.jsonl] [--misses]

The page glues a follow-up ("Can it still charge?", "how far?", "and
vehicles?") to the previous question before it searches; a question of its
own is searched alone. Gluing a new question to the last one searches the
wrong rules; leaving a follow-up alone searches for "it". This prints, on
each half of a labelled set (``evals/followups/followups.jsonl``: 240 pairs of
a previous question and a message, in seven games' words, labelled by a
helper session that never saw the code), how many ``ui.format.is_follow_up``
gets right, how many questions of their own it glues and how many follow-ups
it misses. The grammar was chosen on the first half (fu-001..120); the second
half is the figure to quote. Short messages are checked against the shipped
seeds' rule names, as the page checks them against the loaded rules.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from benchmarks.common import settings_for
from benchmarks.splits import PROJECT_ROOT
from ruleslawyer.service import RulesService
from ruleslawyer.ui.format import is_follow_up

HALF = 120  # fu-001..fu-120 chose the grammar; the rest report it


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks followups", description=__doc__)
    ap.add_argument(
        "--dataset", type=Path, default=PROJECT_ROOT / "evals" / "followups" / "followups.jsonl"
    )
    ap.add_argument("--misses", action="store_true", help="list each pair it gets wrong")
    args = ap.parse_args(argv)
    rows = [
        json.loads(line)
        for line in args.dataset.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    data = PROJECT_ROOT / ".ruleslawyer" / "bench" / "followups"
    service = RulesService(settings_for(data, embedder="fake", llm="none"))
    service.ingest()  # the seeds: the names short messages are looked up in
    halves = {
        "choose (fu-001..120)": [r for r in rows if int(r["id"].split("-")[1]) <= HALF],
        "test (fu-121..240)": [r for r in rows if int(r["id"].split("-")[1]) > HALF],
    }
    print("Follow-up detection (ui.format.is_follow_up)")
    print(f"{'half':<22}{'pairs':>7}{'right':>8}{'glued':>8}{'missed':>8}")
    for name, part in halves.items():
        said = [is_follow_up(r["message"], r["previous"], service.names_a_rule) for r in part]
        glued = [r for r, s in zip(part, said, strict=True) if s and not r["follow_up"]]
        missed = [r for r, s in zip(part, said, strict=True) if not s and r["follow_up"]]
        right = len(part) - len(glued) - len(missed)
        share = right / len(part) if part else 0.0
        print(f"{name:<22}{len(part):>7}{right:>5} ({share:.3f}){len(glued):>4}{len(missed):>8}")
        if args.misses:
            for r in glued:
                print(f"    glued:  {r['message']!r} after {r['previous']!r}")
            for r in missed:
                print(f"    missed: {r['message']!r} after {r['previous']!r}")
    service.close()


if __name__ == "__main__":
    main()
