"""The span stream between the receiver and the planes (docs/DESIGN.md section 10).

``open_stream(home, url)`` gives a ``SpanStream``: the embedded log in the home's state
database by default, NATS JetStream for a ``nats://`` URL, with the same behaviour.
"""

from eval_pipeline.realtime.stream.events import SpanEvent, StreamUnavailable, TraceCompleted
from eval_pipeline.realtime.stream.open import open_stream
from eval_pipeline.realtime.stream.protocol import (
    BATCH_PLANE,
    REALTIME_PLANE,
    Delivery,
    SpanStream,
    StreamConsumer,
)

__all__ = [
    "BATCH_PLANE",
    "REALTIME_PLANE",
    "Delivery",
    "SpanEvent",
    "SpanStream",
    "StreamConsumer",
    "StreamUnavailable",
    "TraceCompleted",
    "open_stream",
]
