"""Real-time plane's front door: the OTLP receiver (HTTP and gRPC). Never imports dagster.

``receiver`` (OTLP/HTTP app), ``grpc_receiver`` (OTLP/gRPC services), ``server`` (both, bound
and run together), ``write_path`` (bounded worker pool, build guard, durable write, stream
publication), ``http_body`` (bounded body reading), ``slow_clients`` (header deadline),
``auth`` (tokens and scopes), ``rpc_status`` (refusals and their ``google.rpc.Status``).
The stream, detectors and alerts live in ``stream``, ``detectors`` and ``alerts``.
"""
