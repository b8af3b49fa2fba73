"""One-off experiment: the 1.5B model reasons first, then answers yes, no or unclear.

    PYTHONPATH=. .venv/bin/python docs/experiments/verdict_reasoned.py [--model M] [--splits ...]

The issue's last verdict signal, "reasoning-then-answer with the bigger model,
where the player opts in". Measured before only with free text (a quarter of
replies unparseable); here the reply is held to a JSON schema by llama.cpp's
grammar, reasoning first, so every reply parses. Each yes/no question runs
through the real pipeline (game detected, evidence picked); the model reads
the same two quotes the verdict features read. A verdict is "yes"/"no"; an
"unclear" is no verdict (the quote alone, as shipped).

Nothing is fitted: the prompt was written once, before any figure was seen.
It would be kept only if its precision on *choose* is at least 90% over at
least 10 verdicts; the other splits are printed beside it, not chosen on.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.answerable import model_settings
from benchmarks.common import machine
from benchmarks.splits import questions, service

SYSTEM = (
    "You are a strict rules judge for a tabletop game. You get rule text and a player's "
    "question. Decide only from the rule text. First write one or two short sentences of "
    "reasoning that name the words of the rule that decide the question (watch for 'only', "
    "'unless', 'except', 'cannot', numbers and conditions). Then answer \"yes\" or \"no\". "
    'If the rule text does not settle the question, answer "unclear".'
)
SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 400},
        "answer": {"type": "string", "enum": ["yes", "no", "unclear"]},
    },
    "required": ["reasoning", "answer"],
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="qwen2.5-1.5b")
    ap.add_argument("--splits", default="choose,test,test-fresh,cross,cross-fresh,cross-fresh2")
    ap.add_argument("--out", default="artifacts/verdict-reasoned.json")
    args = ap.parse_args()
    services: dict[str, object] = {}
    rows = []
    for split in args.splits.split(","):
        for item, corpus in questions(split):
            if item.expected_verdict not in ("yes", "no"):
                continue
            if corpus not in services:
                services[corpus] = service(corpus, **model_settings(args.model))
            svc = services[corpus]
            result = svc.search(item.question)  # type: ignore[attr-defined]
            answerer = svc.answerer()  # type: ignore[attr-defined]
            evidence = answerer.evidence(item.question, result) if result.hits else []
            quotes = "\n".join(f'- "{e.quote}"' for e in evidence[:2])
            t0 = time.perf_counter()
            reply, answer = "", "unclear"
            if quotes:
                reply = svc.llm().complete(  # type: ignore[attr-defined]
                    [
                        {"role": "system", "content": SYSTEM},
                        {
                            "role": "user",
                            "content": f"Rule text:\n{quotes}\n\nQuestion: {item.question}",
                        },
                    ],
                    max_tokens=220,
                    json_schema=SCHEMA,
                )
                try:
                    answer = json.loads(reply)["answer"]
                except (ValueError, KeyError, TypeError):
                    answer = "unparseable"
            rows.append(
                {
                    "split": split,
                    "id": item.id,
                    "gold": item.expected_verdict,
                    "answer": answer,
                    "reply": reply,
                    "seconds": time.perf_counter() - t0,
                }
            )
            print(split, item.id, item.expected_verdict, answer, f"{rows[-1]['seconds']:.1f}s")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(f"\n{args.model}, reasoning first; {machine()}")
    print(f"{'split':14s} {'n':>4s} {'coverage':>9s} {'precision':>10s} {'wrong':>7s} {'s/q':>5s}")
    for split in args.splits.split(","):
        r = [x for x in rows if x["split"] == split]
        given = [x for x in r if x["answer"] in ("yes", "no")]
        right = sum(x["answer"] == x["gold"] for x in given)
        prec = f"{right / len(given):.3f}" if given else "n/a"
        secs = sum(x["seconds"] for x in r) / max(1, len(r))
        print(
            f"{split:14s} {len(r):4d} {len(given) / max(1, len(r)):9.3f} {prec:>10s} "
            f"{(len(given) - right) / max(1, len(r)):7.3f} {secs:5.1f}"
        )


if __name__ == "__main__":
    main()
