"""Two answering processes on one machine: how much of its solo speed each keeps.

    python -m benchmarks contention [--questions 8] [--variants default,passive,...]

Each variant runs ``ruleslawyer ask --batch`` over the same questions
(``--no-server``, so each process has its own model) first alone, then
twice at the same time. The figure is solo time / concurrent time for each
of the two: 0.5 would be a fair half of the machine each; 0.4 is the
target. Variants differ only in environment: the OpenMP wait policy
llama.cpp's threads use while waiting for each other, and the threads per
process. The CPU model is printed with the figures, which hold only for it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import DEV, items, machine
from ruleslawyer.verdict import is_yes_no

# name -> environment overrides (an empty value removes the variable)
VARIANTS: dict[str, dict[str, str]] = {
    "spin (OpenMP default)": {"OMP_WAIT_POLICY": "ACTIVE"},
    "passive": {"OMP_WAIT_POLICY": "PASSIVE"},
    "shipped": {},  # whatever ruleslawyer sets by itself
    "1 thread": {"RULESLAWYER_THREADS": "1"},
}


def _batch_file(n: int) -> Path:
    # Open questions: the model explains those, while a yes/no question with no
    # earnable verdict is answered from the quotes alone and contends for nothing.
    qs = [q for q in items(DEV) if not q.unanswerable and not is_yes_no(q.question)][:n]
    path = Path(tempfile.mkdtemp(prefix="rl-contention-")) / "questions.jsonl"
    path.write_text(
        "".join(json.dumps({"id": q.id, "question": q.question}) + "\n" for q in qs),
        encoding="utf-8",
    )
    return path


def _env(overrides: dict[str, str]) -> dict[str, str]:
    # Explained answers: what makes two processes contend for the cores.
    env = dict(os.environ, RULESLAWYER_AUTO_SERVE="0", RULESLAWYER_EXPLAIN="1")
    for k, v in overrides.items():
        if v:
            env[k] = v
        else:
            env.pop(k, None)
    return env


def _batch(batch: Path, env: dict[str, str]) -> float:
    from benchmarks.perf import _checked, run_child

    args = [sys.executable, "-m", "ruleslawyer.cli", "ask", "--batch", str(batch), "--no-server"]
    return float(_checked(run_child(args, env), "ask --batch")["ms"]) / 1000


def _timed(batch: Path, env: dict[str, str], copies: int) -> list[float]:
    """Seconds each of ``copies`` simultaneous batch runs took."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(copies) as pool:
        return list(pool.map(lambda _: _batch(batch, env), range(copies)))


def measure(overrides: dict[str, str], batch: Path) -> dict[str, Any]:
    env = _env(overrides)
    # A warm-up run loads files into the page cache, so solo is not the cold one.
    _timed(batch, env, 1)
    solo = _timed(batch, env, 1)[0]
    pair = _timed(batch, env, 2)
    return {
        "solo_s": round(solo, 1),
        "concurrent_s": [round(t, 1) for t in pair],
        "kept": [round(solo / t, 2) for t in pair],
    }


def run(n: int, variants: list[str]) -> dict[str, Any]:
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise SystemExit(f"unknown variant(s) {unknown}; choose from {', '.join(VARIANTS)}")
    batch = _batch_file(n)
    return {
        "machine": machine(),
        "questions": n,
        "variants": {v: measure(VARIANTS[v], batch) for v in variants},
    }


def print_table(r: dict[str, Any]) -> None:
    print(f"Two answering processes at once ({r['machine']}; {r['questions']} questions each)")
    print(f"  {'variant':24s} {'solo s':>7s} {'together s':>14s} {'share of solo kept':>20s}")
    for name, v in r["variants"].items():
        together = " / ".join(f"{t:.1f}" for t in v["concurrent_s"])
        kept = " / ".join(f"{k:.2f}" for k in v["kept"])
        print(f"  {name:24s} {v['solo_s']:7.1f} {together:>14s} {kept:>20s}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks contention", description=__doc__)
    ap.add_argument("--questions", type=int, default=8)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    r = run(args.questions, args.variants.split(","))
    print_table(r)
    if args.json:
        args.json.write_text(json.dumps(r, indent=2), encoding="utf-8")
