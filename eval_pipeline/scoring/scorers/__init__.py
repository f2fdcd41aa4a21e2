"""Deterministic and judge-based scorers, one module each."""
