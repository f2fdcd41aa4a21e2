"""Just enough of the protobuf wire format to split a damaged OTLP request into its spans.

Used only when the generated parser rejects a whole request: it finds the span boundaries, and
for a span that does not parse, its ids and the field at fault.
"""

from collections.abc import Iterator

from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.common.v1.common_pb2 import KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan
from opentelemetry.proto.trace.v1.trace_pb2 import Status

_SPAN_FIELDS = {f.number: f.name for f in PbSpan.DESCRIPTOR.fields}


class Truncated(ValueError):
    """The buffer ends inside a field."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"truncated at byte {offset}")
        self.offset = offset


def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise Truncated(pos)
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise Truncated(pos)


def iter_fields(buf: bytes, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """Yield ``(field_number, value_start, value_end)`` for every field in ``buf[start:end]``.

    A length-delimited field that runs past ``end`` is yielded clipped, then ``Truncated`` is
    raised.
    """
    pos = start
    while pos < end:
        key, pos = _varint(buf, pos, end)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            value_start = pos
            _, pos = _varint(buf, pos, end)
        elif wire_type == 2:
            length, pos = _varint(buf, pos, end)
            value_start = pos
            pos += length
        elif wire_type in (1, 5):
            value_start = pos
            pos += 8 if wire_type == 1 else 4
        else:
            raise Truncated(pos)
        if pos > end:
            if wire_type == 2:
                # Hand the cut-off field to the caller first: the spans inside it that are
                # complete can still be kept.
                yield number, value_start, end
            raise Truncated(end)
        yield number, value_start, pos


def diagnose_span(chunk: bytes) -> tuple[str | None, str | None, str | None, str]:
    """For a span that does not parse: ``(trace_id, span_id, field, message)`` as far as known."""
    trace_id: str | None = None
    span_id: str | None = None
    try:
        for number, start, end in iter_fields(chunk, 0, len(chunk)):
            value = chunk[start:end]
            if number == 1:
                trace_id = value.hex()
            elif number == 2:
                span_id = value.hex()
            problem = _field_problem(number, value)
            if problem is not None:
                return trace_id, span_id, problem[0], problem[1]
    except Truncated as exc:
        return trace_id, span_id, "span", f"truncated protobuf at byte {exc.offset} of the span"
    return trace_id, span_id, None, "span does not parse as protobuf"


def _field_problem(number: int, value: bytes) -> tuple[str, str] | None:
    name = _SPAN_FIELDS.get(number, f"field {number}")
    try:
        if number in (3, 5):
            value.decode("utf-8")
        elif number == 9:
            KeyValue.FromString(value)
        elif number == 11:
            PbSpan.Event.FromString(value)
        elif number == 13:
            PbSpan.Link.FromString(value)
        elif number == 15:
            Status.FromString(value)
    except UnicodeDecodeError as exc:
        return name, f"invalid UTF-8 at byte {exc.start}"
    except ProtobufDecodeError as exc:
        if number == 9:
            return f"attributes[{_attribute_key(value)}]", f"invalid value ({exc})"
        return name, f"invalid protobuf ({exc})"
    return None


def _attribute_key(value: bytes) -> str:
    try:
        for number, start, end in iter_fields(value, 0, len(value)):
            if number == 1:
                return value[start:end].decode("utf-8", errors="replace")
    except Truncated:
        pass
    return "?"
