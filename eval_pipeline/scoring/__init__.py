"""Scoring: the Scorer protocol, the registry, scorers and library adapters. Pure: no dagster."""
