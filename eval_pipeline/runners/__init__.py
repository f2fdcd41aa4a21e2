"""Runners: execute a build over dataset items and capture its traces (docs/DESIGN.md section 7).

- ``base.Runner``: the interface and everything common (plan, resumption, concurrency,
  progress, timeout, faults as failed runs); ``outcome``: what a batch returns.
- ``python_entry.PythonEntryPointRunner``: ``module:function`` in process, spans through the
  OpenTelemetry SDK (``otel_capture``) and the OTLP encode/decode path (``otlp_spans``).
- ``http_endpoint.HttpEndpointRunner``: POST + W3C ``traceparent``; spans collected by the
  runner's OTLP/HTTP receiver (``otlp_receiver``).
- ``replay.ReplayRunner``: recorded results (imports) as runs of a build.
- ``failure``: how a failed run is recorded; ``sink``: where traces go, what is stored.

Every sink stores a run's spans through the one ingest function (``traces.ingest.ingest``)
with its ``RedactionPolicy``, so runner spans are redacted like any other trace.
"""
