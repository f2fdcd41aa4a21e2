"""Adapters that run DeepEval and RAGAS metrics behind the Scorer protocol."""
