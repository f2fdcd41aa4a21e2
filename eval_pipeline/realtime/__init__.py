"""The real-time plane: what happens to live traffic, from the wire to the review queue.

Never imports dagster. Each sub-package is one stage; dependencies run down this drawing and
never back up (import-linter's ``realtime-plane`` contract in ``pyproject.toml``)::

    OTLP/HTTP, OTLP/gRPC, POST /v1/feedback
            |                         |
        receiver  ----------------> feedback        ratings -> review queue
    (auth, write path:                  |            (``eval-pipeline review``)
     durable write, then publish)       |
            |                           |
         stream  (embedded log or NATS JetStream; one durable consumer per plane)
            |                           |
        detectors -> alerts  (worker, dedup store, sinks: JSON Lines, webhooks)
            |          |                |
            +----------+----------------+
                       |
        online  sampler (flags, thumbs-down) -> day's sample -> scored by the suite
                -> Hajek estimates per slice, beside the deployed build's offline scores,
                -> drift; the flagged-day sensor's plan

- ``receiver``: the OTLP receiver (HTTP and gRPC servers, tokens and scopes, the bounded
  write path, the feedback route).
- ``stream``: the span stream between the receiver and the planes.
- ``detectors``: bounded checks over spans and completed traces.
- ``alerts``: flags deduplicated into alerts, their store and sinks, the detector worker.
- ``feedback``: user ratings, the review queue they open, pseudonymous ids.
- ``online``: the production sample and the online estimates (the batch side of the plane:
  it scores through ``evaluation``'s stage, so it sits above ``evaluation``, and nothing in
  ``evaluation`` imports it).
"""
