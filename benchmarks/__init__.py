"""Benchmarks: commands that measure and print figures (never timed unit tests).

python -m benchmarks retrieval [--scale 100]   recall/MRR per retriever + latency
python -m benchmarks tune                      choose fusion weights + floor on dev
"""
