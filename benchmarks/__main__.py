"""python -m benchmarks NAME [...]: see benchmarks/__init__.py for the list."""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "retrieval": "benchmarks.retrieval",
    "tune": "benchmarks.tune",
    "calibrate": "benchmarks.calibrate",
    "answerable": "benchmarks.answerable",
    "answer": "benchmarks.answer",
    "perf": "benchmarks.perf",
    "report": "benchmarks.report",
    "contention": "benchmarks.contention",
    "embedder": "benchmarks.embedder",
    "relevance": "benchmarks.relevance",
    "followups": "benchmarks.followups",
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(f"usage: python -m benchmarks {{{'|'.join(COMMANDS)}}} [options]", file=sys.stderr)
        sys.exit(2)
    module = importlib.import_module(COMMANDS[sys.argv[1]])
    module.main(sys.argv[2:])


if __name__ == "__main__":
    main()
