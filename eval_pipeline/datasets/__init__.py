"""Datasets: items, versioned artefacts, validation and triage. Pure: never imports dagster.

Benchmark sources become datasets through ``importers.datasets``.
"""
