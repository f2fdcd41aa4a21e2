"""The C span builder (``_raw_spans``) builds exactly the spans ``wire_span`` builds.

For scopes of hypothesis-made ``WireSpan`` tuples (ids, names, kinds, status, times, trace
states, attributes of every scalar type, shared resources, scope names and schema URLs),
``raw_spans`` gives spans equal to ``wire_span``'s, with instance dictionaries holding the same
keys in the same order and the same objects (``repr`` compared too); a scope with one span whose
attributes are wire bytes is handed back (None). ``decode_wire`` with and without the builder
gives equal results on the benchmark payload and every OTLP sample.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eval_pipeline.benchmarks.ingest import make_payload
from eval_pipeline.traces.decode import wire_spans
from eval_pipeline.traces.decode.errors import MAX_ATTRIBUTE_BYTES
from eval_pipeline.traces.decode.otlp_protobuf import attribute_reader
from eval_pipeline.traces.decode.wire_spans import decode_wire, wire_span
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.span_factory import RAW_DEFAULTS
from eval_pipeline_tests.traces.builders import OTEL, otlp_protobuf


def test_extension_is_built() -> None:
    assert wire_spans._raw_spans is not None


_TEXT = st.text(max_size=5)
_OPTIONAL = st.one_of(st.none(), _TEXT)
_VALUES = st.one_of(_TEXT, st.integers(), st.booleans(), st.floats(allow_nan=False), st.none())
_HEADS = st.tuples(
    st.text("0123456789abcdef", min_size=32, max_size=32),
    st.text("0123456789abcdef", min_size=16, max_size=16),
    st.one_of(st.none(), st.text("0123456789abcdef", min_size=16, max_size=16)),
    _TEXT,
    st.sampled_from(["internal", "client", "server", "unspecified"]),
    st.integers(0, 2**63 - 1),
    st.integers(0, 2**63 - 1),
    st.sampled_from(["unset", "ok", "error"]),
    _OPTIONAL,
)
_PLAIN_SPANS = st.tuples(
    _HEADS, st.dictionaries(_TEXT, _VALUES, max_size=4), st.none(), st.none(), _OPTIONAL
)
_RAW_SPANS = st.tuples(_HEADS, st.none(), st.none(), st.just([b"\n\x01k"]), _OPTIONAL)


def _python(spans: list[Any], resource: Any, scope: Any, urls: Any) -> list[Span]:
    reader = attribute_reader(MAX_ATTRIBUTE_BYTES)
    return [wire_span(s, resource, scope, MAX_ATTRIBUTE_BYTES, urls, reader) for s in spans]


def _same(native: list[Span], python: list[Span]) -> None:
    assert native == python
    assert [list(s.__dict__.items()) for s in native] == [list(s.__dict__.items()) for s in python]
    assert repr(native) == repr(python)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_PLAIN_SPANS, max_size=5),
    st.dictionaries(_TEXT, _VALUES, max_size=2),
    _OPTIONAL,
    st.tuples(_OPTIONAL, _OPTIONAL),
    st.one_of(st.none(), st.tuples(st.integers(0, 5), _RAW_SPANS)),
)
def test_raw_spans_equal_wire_span(
    spans: list[Any], resource: Any, scope: Any, urls: Any, raw: Any
) -> None:
    build = wire_spans._raw_spans
    assert build is not None
    if raw is not None:
        spans = [*spans[: raw[0]], raw[1], *spans[raw[0] :]]
    native = build(spans, resource, scope, urls[0], urls[1], RAW_DEFAULTS, Span)
    if raw is not None:
        assert native is None
        return
    assert native is not None
    _same(native, _python(spans, resource, scope, urls))
    for span in native:  # the span's own attributes and the scope's resource, not copies
        assert span.resource is resource


def _both(payload: bytes, monkeypatch: Any) -> None:
    native = decode_wire(payload, "s", MAX_ATTRIBUTE_BYTES)
    with monkeypatch.context() as patch:
        patch.setattr(wire_spans, "_raw_spans", None)
        python = decode_wire(payload, "s", MAX_ATTRIBUTE_BYTES)
    if native is None or python is None:
        assert native is python
        return
    _same(native.spans, python.spans)
    assert native.errors == python.errors


def test_benchmark_payload(monkeypatch: Any) -> None:
    _both(make_payload(64), monkeypatch)


@pytest.mark.parametrize("path", sorted(OTEL.rglob("*.otlp.json")), ids=lambda p: p.name)
def test_otlp_samples(path: Path, monkeypatch: Any) -> None:
    try:
        payload = otlp_protobuf(json.loads(path.read_text()))
    except Exception as exc:  # a bad-input sample the protobuf JSON mapping rejects
        pytest.skip(f"not expressible as protobuf: {exc}")
    _both(payload, monkeypatch)
