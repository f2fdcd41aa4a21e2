"""The real-time plane's front door: the OTLP receiver (HTTP and gRPC). Never imports dagster.

``http_receiver`` (OTLP/HTTP app), ``grpc_receiver`` (OTLP/gRPC services), ``server`` (both,
bound and run together), ``write_path`` (bounded pool, health), ``worker_pool`` (worker
processes, replaced when one dies), ``writer`` (build guard, durable write, stream
publication), ``request_shape`` (a body that is no trace request), ``http_body`` (bounded body
reading, gzip members), ``inflight`` (the global budget of request bytes), ``slow_clients``
(header deadline), ``auth`` (tokens and scopes), ``rpc_status`` (refusals and their
``google.rpc.Status``), ``feedback_route`` (``POST /v1/feedback`` into ``realtime.feedback``).
The stream, detectors and alerts are the plane's next stages (``realtime.stream``,
``realtime.detectors``, ``realtime.alerts``).
"""
