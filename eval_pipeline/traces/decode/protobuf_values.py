"""Protobuf ``AnyValue`` and ``KeyValue`` lists -> plain Python values, and span links.

Strings and ints, nearly every attribute, are told apart with one read; bytes become base64
text, kvlists dicts, arrays lists. A string or bytes value over ``limit`` and a non-finite
double raise ``FieldError`` naming the attribute.
"""

import base64
import math
from typing import Any

from eval_pipeline.traces.decode.errors import FieldError
from eval_pipeline.traces.decode.raw_attributes import AttributeReader
from eval_pipeline.traces.model import SpanLink

ZERO_TRACE = "0" * 32
ZERO_SPAN = "0" * 16


def value_of(value: Any, key: str, limit: int) -> Any:
    """One ``AnyValue`` as a Python value (None when unset); ``key`` names it in errors."""
    which = value.WhichOneof("value")
    if which == "string_value":
        text = value.string_value
        if len(text) > limit:
            raise FieldError(f"attributes[{key}]", f"value of {len(text)} chars exceeds {limit}")
        return text
    if which == "int_value":
        return value.int_value
    if which == "double_value":
        double = value.double_value
        if not math.isfinite(double):
            raise FieldError(f"attributes[{key}]", f"doubleValue must be finite, got {double}")
        return double
    if which == "bool_value":
        return value.bool_value
    if which == "array_value":
        return [value_of(item, key, limit) for item in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: value_of(kv.value, key, limit) for kv in value.kvlist_value.values}
    if which == "bytes_value":
        raw = value.bytes_value
        if len(raw) > limit:
            raise FieldError(f"attributes[{key}]", f"value of {len(raw)} bytes exceeds {limit}")
        return base64.b64encode(raw).decode("ascii")
    return None


def attributes(pairs: Any, limit: int) -> dict[str, Any]:
    """Protobuf ``KeyValue`` list -> dict (bytes as base64 text, kvlists as dicts)."""
    out: dict[str, Any] = {}
    for kv in pairs:
        value = kv.value
        key = kv.key
        # A oneof reads as "" when another member is set: one read finds non-empty strings.
        read = value.string_value
        if read:
            if len(read) > limit:
                raise FieldError(
                    f"attributes[{key}]", f"value of {len(read)} chars exceeds {limit}"
                )
            out[key] = read
        else:
            out[key] = value_of(value, key, limit)
    return out


def attribute_reader(limit: int) -> AttributeReader:
    """A reader of one ``RawRequest``'s span attributes (values converted as here)."""
    return AttributeReader(value_of, limit)


def links(pb_links: Any, limit: int) -> tuple[SpanLink, ...]:
    """Protobuf ``Span.Link`` list -> ``SpanLink`` tuple; raises ``FieldError`` for a bad id."""
    out = []
    for index, link in enumerate(pb_links):
        trace_id = link.trace_id.hex()
        span_id = link.span_id.hex()
        if len(trace_id) != 32 or trace_id == ZERO_TRACE:
            raise FieldError(f"links[{index}].trace_id", "must be 16 non-zero bytes")
        if len(span_id) != 16 or span_id == ZERO_SPAN:
            raise FieldError(f"links[{index}].span_id", "must be 8 non-zero bytes")
        out.append(
            SpanLink(
                trace_id, span_id, link.trace_state or None, attributes(link.attributes, limit)
            )
        )
    return tuple(out)
