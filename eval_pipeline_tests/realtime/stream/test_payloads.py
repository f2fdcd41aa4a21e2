"""Span payloads round-trip every value the store keeps: NaN, infinities, integers past 64 bits.

Contract: a stored row with non-finite floats or integers beyond 64 bits (in attributes, tool
arguments and results, event attributes) decodes to the same span, value for value (compared
by ``repr``: NaN is not equal to itself), on its own and together in one span; ordinary rows
still take orjson's path both ways; a payload that is not one of ours is a clean
``ValueError`` naming it, never a half-decoded event.
"""

import dataclasses

import pytest

from eval_pipeline.realtime.stream.decoding import decode
from eval_pipeline.realtime.stream.encoding import encode_rows
from eval_pipeline.realtime.stream.events import SpanEvent
from eval_pipeline.traces.model import SpanEvent as RecordedEvent
from eval_pipeline.traces.store.span_table import row_span, span_row
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

DAY = "2026-12-01"
BIG = 2**70 + 1  # beyond 64 bits, and beyond a float's 53-bit mantissa


def _round_trip(rows: list) -> list:
    messages = encode_rows("t", rows, ["prod"] * len(rows), DAY)
    events = decode([m.payload for m in messages])
    return [e.span for e in events if isinstance(e, SpanEvent)]


def _with(**values: object) -> list:
    tool = row_span(agent_trace_rows("a1" * 16)[1])
    span = dataclasses.replace(
        tool,
        attributes={**tool.attributes, **values},
        tool_arguments={"order_id": values.get("big", 1), "weights": list(values.values())},
        tool_result={"score": values.get("nan", 0.5)},
        events=(RecordedEvent("retry", 5, dict(values)),),
    )
    return [span_row(span)]


@pytest.mark.parametrize(
    "values",
    [
        {"nan": float("nan")},
        {"inf": float("inf"), "minus_inf": float("-inf")},
        {"big": BIG, "negative_big": -BIG},
        {"nan": float("nan"), "big": BIG},
    ],
    ids=["nan", "infinities", "big-ints", "nan-and-big-int"],
)
def test_values_the_store_keeps_round_trip(values: dict) -> None:
    rows = _with(**values)
    assert repr(_round_trip(rows)) == repr([row_span(row) for row in rows])


def test_ordinary_rows_round_trip_equal() -> None:
    rows = agent_trace_rows("b2" * 16, tool_error=True)
    assert _round_trip(rows) == [row_span(row) for row in rows]


@pytest.mark.parametrize("payload", [b"{not json", b'{"kind": "nonsense"}', b"[1, 2]"])
def test_a_foreign_payload_is_a_clean_value_error(payload: bytes) -> None:
    with pytest.raises(ValueError, match="stream payload"):
        decode([payload])
