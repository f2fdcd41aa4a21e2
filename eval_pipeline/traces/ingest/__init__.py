"""Ingest: the one way spans enter the trace store (``ingest.ingest``).

decode -> normalise -> redact -> completeness -> store, for OTLP request bodies (files, the
receiver) and for spans decoded or built elsewhere (importers, runners). ``fast_path`` takes
current-conventions requests from the wire to redacted store rows in one pass;
``completeness`` judges each trace of a batch; ``report`` is what an ingestion returns.
"""
