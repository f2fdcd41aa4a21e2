"""Traces: span model, OTLP decoding, dialect normalisation, redaction, completeness, store.

Pure package: never imports dagster.
"""
