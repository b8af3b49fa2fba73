"""Evaluation suite: how well does ruleslawyer answer rules questions?

- ``dataset``: load and validate the JSON Lines question sets in ``datasets/``;
- ``metrics``: pure scoring functions (retrieval, verdicts, facts, abstention,
  latency), each small enough to check by hand;
- ``runner``: ask every question through a service and score the answers;
- ``report``: write report.json / report.md / chart.png, compare two runs and
  check the floors in ``thresholds.toml``.

The runner talks to the answering service only through a small protocol, so
the CLI, the tests (with a fake service) and the benchmarks share one scorer.
"""
