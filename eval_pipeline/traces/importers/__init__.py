"""Importers of recorded benchmark results into the span model (tau2-bench, tau-bench)."""
