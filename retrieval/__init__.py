"""Question -> the rule units that answer it (dense + BM25 + exact lookup, fused)."""
