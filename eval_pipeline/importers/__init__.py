"""Importers of recorded results: files and benchmark outputs -> spans + imported scores.

Every importer produces spans (and, when the benchmark recorded its own verdict, imported
scores) and hands the spans to the one ingest function (``traces.ingest.ingest``), so imported
traces are normalised, redacted, judged for completeness and stored like any other.

- ``files``: trace files by format (OTLP JSON/protobuf, tau2-bench, tau-bench, flat spans).
- ``tau2`` / ``taubench``: recorded benchmark runs, with their rewards as ``task_success``.
- ``bfcl_results``: BFCL model result files, one run per question.
- ``conversation``: a recorded conversation -> the GenAI spans of one run (shared by the above).
- ``report``: what an import returns (the ingest report and the imported scores).
"""
