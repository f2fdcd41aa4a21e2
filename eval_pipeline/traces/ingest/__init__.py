"""Ingest: the one way spans enter the trace store (``ingest.ingest``).

decode -> normalise -> redact -> completeness -> store, for OTLP request bodies (files, the
receiver) and for spans decoded or built elsewhere (importers, runners). ``rows`` turns each
decoded record or span handed in into its redacted store row; ``completeness`` judges each
trace of a batch; ``report`` is what an ingestion returns.
"""
