"""Benchmarks: commands that measure and print figures (never timed unit tests).

python -m benchmarks perf [--json OUT] [--compare PREV]   speed, memory, scaling vs targets
python -m benchmarks retrieval [--scale 100]   recall/MRR per retriever + latency
python -m benchmarks tune [--write]              fusion weights, game choice, relevance (fit/choose)
python -m benchmarks calibrate [--write]         the verdict calibration per model
python -m benchmarks answerable [--write]        the model's answerability check per model
python -m benchmarks relevance                   how well relevance separates; the best any floor could do
python -m benchmarks report [--no-llm]           answer quality on every split
python -m benchmarks contention                  two answering processes sharing the CPU
python -m benchmarks answer                      answer latency only (warm, dev set)
python -m benchmarks embedder --path DIR         would a second, bigger embedder help?
python -m benchmarks followups                   the page's follow-up detection on a labelled set
"""
