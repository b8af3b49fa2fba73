"""Benchmarks: commands that measure and print figures (never timed unit tests).

python -m benchmarks perf [--json OUT] [--compare PREV]   speed, memory, scaling vs targets
python -m benchmarks retrieval [--scale 100]   recall/MRR per retriever + latency
python -m benchmarks tune                      choose fusion weights + floor on dev
python -m benchmarks calibrate [--write]       fit the verdict calibration per model
python -m benchmarks answer                    answer latency only (warm, dev set)
"""
