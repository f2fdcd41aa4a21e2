"""OTLP protobuf requests read natively (``_otlp_wire``), for the ingestion fast path.

Parsing a request with the generated classes and reading each span's fields through them
cost more per span than a plain protobuf-to-Parquet walk does in all. ``_otlp_wire`` reads
the plain request (the one nearly all traffic sends) in one pass straight to what the fast
path needs: each span's head (ids as hex, name, kind and status by name, times) and its
attributes as a dict, each distinct attribute converted once per request.

It declines (returns None for) any request that is not plain: a field of unexpected type or
given twice, text that is not UTF-8, a bad id, spans with events or links. Those are parsed
as before (``otlp_protobuf``, ``raw_attributes``), so what is stored and every error stay the
same. An attribute it does not convert itself (lists, maps, bytes, over-long or non-finite
values, any oddity in its bytes) leaves the span's attributes as their wire bytes, converted
(or rejected, naming the attribute) by the Python reader as before. Without the extension
built, every request is parsed as before (``test_wire_spans`` fails, so it is noticed).
"""

from collections.abc import Callable
from typing import Any

from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult, FieldError
from eval_pipeline.traces.decode.otlp_protobuf import (
    KIND_NAMES,
    NO_URLS,
    STATUS_NAMES,
    attribute_reader,
)
from eval_pipeline.traces.decode.raw_attributes import AttributeReader, DamagedAttribute
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.span_factory import RAW_DEFAULTS as _RAW_DEFAULTS
from eval_pipeline.traces.span_factory import span_from_state

Head = tuple[Any, ...]
"""``(trace_id, span_id, parent_span_id, name, kind, start, end, status_code, status_message)``
as a store row begins (ids as hex, parent None when unset, kind and status by name)."""
WireSpan = tuple[Head, dict[str, Any] | None, dict[str, Any] | None, list[bytes] | None, str | None]
"""``(head, attributes, lifted, raw attributes, trace state)``. ``raw attributes``: the span's
attributes left as their wire bytes, for ``AttributeReader`` (the others None). Else
``attributes`` holds them all, in order; or, with ``lifted`` not None, the ones outside the
``lifted`` keys asked for (``wire_scopes``), the others being in ``lifted``."""
WireScope = tuple[dict[str, Any], str | None, str | None, str | None, list[WireSpan]]
"""``(resource attributes, scope name, scope schema URL, resource schema URL, spans)``."""
_NO_KEYS: frozenset[str] = frozenset()

_native: Callable[..., list[Any] | None] | None
try:
    from eval_pipeline.traces.decode._otlp_wire import decode as _native
except ImportError:  # not built (``setup.py build_ext``): every request is parsed as before
    _native = None
_raw_spans: Callable[..., list[Span] | None] | None
try:
    # ``wire_span`` of each span of a scope, in C (``test_raw_spans`` holds the two equal).
    from eval_pipeline.traces.decode._raw_spans import raw_spans as _raw_spans
except ImportError:  # not built: each span is built by ``wire_span``
    _raw_spans = None


def wire_scopes(
    payload: bytes,
    limit: int,
    lifted: frozenset[str] | None = None,
    declined: frozenset[str] = _NO_KEYS,
) -> list[WireScope] | None:
    """The scopes of a plain protobuf request; None for any other request (module docstring).

    One resource dict per resource's spans, shared by its scopes, as the other decoders do.
    ``lifted``: each span's attributes with these keys are set apart (``WireSpan``), as
    ``AttributeReader.split`` does, unless one of its keys is in ``declined``.
    """
    if _native is None:
        return None
    scopes: list[WireScope] | None = _native(
        payload, limit, KIND_NAMES, STATUS_NAMES, lifted, declined
    )
    return scopes


def span_attributes(span: WireSpan, reader: AttributeReader) -> dict[str, Any]:
    """All the span's attributes, in order; a value the decoders reject raises its error.

    Not for a span whose attributes were split (``lifted`` not None).
    """
    raw = span[3]
    if raw is not None:
        return reader.split(raw, _NO_KEYS)[0]
    attributes = span[1]
    assert attributes is not None and span[2] is None
    return attributes


def wire_span(
    span: WireSpan,
    resource: dict[str, Any],
    scope: str | None,
    limit: int,
    urls: tuple[str | None, str | None],
    reader: AttributeReader,
) -> Span:
    """``otlp_protobuf.pb_span`` of the same span: the raw ``Span`` (``FieldError`` if bad).

    ``attributes`` of the tuple is the span's own (changed in place later, as any raw span's).
    """
    head = span[0]
    return span_from_state(
        {
            **_RAW_DEFAULTS,
            "trace_id": head[0],
            "span_id": head[1],
            "parent_span_id": head[2],
            "name": head[3],
            "kind": head[4],
            "start_time_unix_nano": head[5],
            "end_time_unix_nano": head[6],
            "status_code": head[7],
            "status_message": head[8],
            "attributes": span_attributes(span, reader),
            "events": (),
            "resource": resource,
            "scope_name": scope,
            "convention_version": None,
            "links": (),
            "trace_state": span[4],
            "schema_url": urls[0],
            "resource_schema_url": urls[1],
        }
    )


def wire_rejected(span: WireSpan, exc: Any, source: str) -> DecodeError:
    """``otlp_protobuf.rejected`` for a span read here (its ids are always valid)."""
    head = span[0]
    return DecodeError(source, exc.field_name, exc.message, head[1], head[0])


def decode_wire(payload: bytes, source: str, limit: int) -> DecodeResult | None:
    """``otlp_protobuf.decode_protobuf`` of a plain request; None for any other request.

    The spans of a scope whose attributes the native reader converted are built in C
    (``_raw_spans``, ``wire_span``'s equal). A damaged attribute (``DamagedAttribute``) also
    gives None: the request is then salvaged by ``decode_protobuf`` as before.
    """
    scopes = wire_scopes(payload, limit)
    if scopes is None:
        return None
    reader = attribute_reader(limit)
    result = DecodeResult()
    keep = result.spans.append
    build = _raw_spans
    try:
        for resource, name, scope_url, resource_url, spans in scopes:
            urls = (scope_url, resource_url) if scope_url or resource_url else NO_URLS
            built = None
            if build is not None:
                built = build(spans, resource, name, urls[0], urls[1], _RAW_DEFAULTS, Span)
            if built is not None:  # no span's attributes left as wire bytes
                result.spans.extend(built)
                continue
            for span in spans:
                try:
                    keep(wire_span(span, resource, name, limit, urls, reader))
                except FieldError as exc:
                    result.errors.append(wire_rejected(span, exc, source))
    except DamagedAttribute:
        return None
    return result
