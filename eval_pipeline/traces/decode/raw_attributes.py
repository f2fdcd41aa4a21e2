"""OTLP requests parsed with each span's attributes left as their wire bytes, read once each.

Reading an attribute through the generated classes builds three Python objects (the
``KeyValue``, its ``AnyValue``, the string) each time, and a span has five to ten of them.
Most attributes repeat byte for byte across the spans of a request (operation and model names,
providers, token counts, the history every inference span of a run carries), so here the
request is parsed (by the same upb parser) with a copy of the OTLP descriptors in which
``Span.attributes`` is ``repeated bytes`` (the same wire format as a repeated message), and
each distinct attribute is decoded once per request (``AttributeReader``).

Everything else parses and is validated as before. An attribute that is not a valid
``KeyValue`` (invalid UTF-8, damaged bytes) raises ``DamagedAttribute``: the generated parser
would have rejected the whole request, so the caller hands the request to the salvage path,
which reports it exactly as before.
"""

from collections.abc import Callable, Iterable
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError as ProtobufDecodeError
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.resource.v1 import resource_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from eval_pipeline.traces.decode.errors import FieldError

_SCALARS = (str, int, float, bool, type(None))
_NESTED = frozenset({"array_value", "kvlist_value"})
_MAX_KEY_VALUE_DEPTH = 97
"""Messages a span attribute may nest (itself included) for the generated parser to take its
request: upb takes 101 nested messages from the request down, four of them above the
attribute (request, resource spans, scope spans, span)."""


class DamagedAttribute(ValueError):
    """A span attribute whose bytes are not a valid ``KeyValue``."""


def _raw_request_class() -> Any:
    """``ExportTraceServiceRequest`` in a private pool, ``Span.attributes`` as bytes."""
    pool = descriptor_pool.DescriptorPool()
    for module in (common_pb2, resource_pb2, trace_pb2, trace_service_pb2):
        proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(proto)
        if module is trace_pb2:
            (span,) = (m for m in proto.message_type if m.name == "Span")
            (field,) = (f for f in span.field if f.name == "attributes")
            field.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
            field.ClearField("type_name")
        pool.Add(proto)
    name = trace_service_pb2.ExportTraceServiceRequest.DESCRIPTOR.full_name
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(name))


RawRequest = _raw_request_class()
"""Parses an ``ExportTraceServiceRequest`` body; its spans' ``attributes`` are bytes."""
_key_value = common_pb2.KeyValue.FromString


class AttributeReader:
    """Span attributes from their wire bytes, each distinct one decoded once (one request).

    ``value`` is the decoders' conversion of an ``AnyValue`` (``protobuf_values``), raising
    ``FieldError`` for a value it rejects. Only scalar values are remembered: a list or a map
    is built afresh for each span, as every span owns its attribute values.
    """

    def __init__(self, value: Callable[[Any, str, int], Any], limit: int) -> None:
        self._value = value
        self._limit = limit
        self._pairs: dict[bytes, tuple[str, Any]] = {}

    def pair(self, item: bytes) -> tuple[str, Any]:
        """``(key, value)`` of one attribute's bytes."""
        pair = self._pairs.get(item)
        if pair is not None:
            return pair
        kv = _parsed(item)
        key = kv.key
        pair = (key, self._value(kv.value, key, self._limit))
        if type(pair[1]) in _SCALARS:
            self._pairs[item] = pair
        return pair

    def read(self, items: Iterable[bytes]) -> dict[str, Any]:
        """The attributes as a dict (same values and order as ``protobuf_values.attributes``).

        A value the decoders reject raises its ``FieldError`` only once every attribute of
        the span is known to be undamaged (damage decides first, as in the generated parse).
        """
        out: dict[str, Any] = {}
        get = self._pairs.get
        try:
            for item in items:
                key, value = get(item) or self.pair(item)
                out[key] = value
        except FieldError:
            for item in items:
                _parsed(item)
            raise
        return out


def _parsed(item: bytes) -> Any:
    """The ``KeyValue`` of an attribute's bytes (``DamagedAttribute``: its request would fail).

    The generated parse would fail on bytes that are no ``KeyValue``, and on one nested
    deeper than its request allows (``_MAX_KEY_VALUE_DEPTH``).
    """
    try:
        kv = _key_value(item)
    except ProtobufDecodeError as exc:
        raise DamagedAttribute(str(exc)) from None
    value = kv.value
    if value.WhichOneof("value") in _NESTED and 1 + _depth(value) > _MAX_KEY_VALUE_DEPTH:
        raise DamagedAttribute(f"attributes[{kv.key}] nested too deep for its request")
    return kv


def _depth(value: Any) -> int:
    """Nested messages in an ``AnyValue``, itself included."""
    which = value.WhichOneof("value")
    if which == "array_value":
        return 2 + max(map(_depth, value.array_value.values), default=0)
    if which == "kvlist_value":
        return 3 + max((_depth(kv.value) for kv in value.kvlist_value.values), default=-1)
    return 1
