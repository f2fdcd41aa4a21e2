"""The native OTLP reader (``wire_spans``) changes nothing that is stored or reported.

Each request is taken through ``fast_path.decode_rows`` twice, with the native reader and with
it switched off (the generated classes, as before), and the stored rows and the errors must be
equal; so must the raw spans and errors of ``decode_wire`` and ``otlp_protobuf.decode_protobuf``
(the general decoder before the native reader), attribute order included. Both hold on every
OTLP file in ``data/otel``, on the benchmark payload, on requests damaged at random, and on
hand-made wire oddities the native reader must decline (hand back).
"""

import json
import math
import random
import struct
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from eval_pipeline.benchmarks.ingest import make_payload
from eval_pipeline.traces.decode.errors import MAX_ATTRIBUTE_BYTES
from eval_pipeline.traces.decode.otlp_protobuf import decode_protobuf
from eval_pipeline.traces.decode.wire_spans import decode_wire, wire_scopes
from eval_pipeline.traces.ingest import fast_path
from eval_pipeline.traces.normalise.messages import clear_parse_cache
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.store.span_table import rows_table
from eval_pipeline_tests.traces.builders import OTEL, otlp_protobuf

OTLP_FILES = sorted(OTEL.rglob("*.otlp.json"))
PB_FILES = sorted(OTEL.rglob("*.otlp.pb"))


def _decoded(payload: bytes, policy: str, limit: int) -> Any:
    clear_parse_cache()
    batch = fast_path.decode_rows(payload, "s", limit, Redactor(load_policy(policy)))
    if batch is None:
        return None
    try:
        stored = rows_table(batch.rows, ["b"] * len(batch.rows), None).to_pylist()
    except OverflowError:  # a damaged time out of the column's range (ingest rejects it)
        stored = None
    return batch.rows, stored, [str(e) for e in batch.errors], batch.tool_calls


def _assert_same(
    payload: bytes, monkeypatch: Any, policy: str = "default", limit: int = MAX_ATTRIBUTE_BYTES
) -> bool:
    """Both readers give the same result; True when the native one took the request."""
    native = _decoded(payload, policy, limit)
    with monkeypatch.context() as patch:
        patch.setattr(fast_path, "wire_scopes", lambda *args: None)
        generated = _decoded(payload, policy, limit)
    assert native == generated
    general = decode_wire(payload, "s", limit)
    if general is not None:
        before = decode_protobuf(payload, "s", limit)
        assert general.spans == before.spans
        assert [list(s.attributes) for s in general.spans] == [
            list(s.attributes) for s in before.spans
        ]
        assert general.errors == before.errors
    return wire_scopes(payload, limit) is not None


def _protobuf(path: Path) -> bytes:
    try:
        return otlp_protobuf(json.loads(path.read_text()))
    except Exception as exc:  # a bad-input sample the protobuf JSON mapping rejects
        pytest.skip(f"not expressible as protobuf: {exc}")


@pytest.mark.parametrize("policy", ("default", "keep-tools"))
@pytest.mark.parametrize("path", OTLP_FILES + PB_FILES, ids=lambda p: p.name)
def test_every_otlp_data_file_gives_the_same_rows(path: Path, policy: str, monkeypatch: Any):
    payload = path.read_bytes() if path.suffix == ".pb" else _protobuf(path)
    _assert_same(payload, monkeypatch, policy)


@pytest.mark.parametrize("policy", ("default", "keep-tools"))
def test_the_benchmark_payload_is_read_natively_with_the_same_rows(policy: str, monkeypatch: Any):
    assert _assert_same(make_payload(400), monkeypatch, policy)


def test_randomly_damaged_requests_give_the_same_rows_and_errors(monkeypatch: Any):
    payload = make_payload(24)
    rng = random.Random(15)
    native = 0
    for attempt in range(300):
        damaged = bytearray(payload)
        for _ in range(rng.randint(1, 3)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        if attempt % 5 == 0:
            damaged = damaged[: rng.randrange(len(damaged))]
        native += _assert_same(bytes(damaged), monkeypatch)
    assert 0 < native < 300  # both ways were taken


def test_a_small_limit_rejects_the_same_attributes(monkeypatch: Any):
    assert _assert_same(make_payload(16), monkeypatch, limit=40)


def _with_span_bytes(extra: bytes) -> bytes:
    """The benchmark request with ``extra`` appended to its first span's bytes."""
    request = ExportTraceServiceRequest.FromString(make_payload(8))
    spans = request.resource_spans[0].scope_spans[0].spans
    first = spans[0].SerializeToString() + extra
    del spans[0]
    rest = request.SerializeToString()
    # Field 1 of ExportTraceServiceRequest > field 2 of ResourceSpans > field 2 of ScopeSpans.
    scope = _len_field(1, b"") + _len_field(2, first)
    wrapped = _len_field(1, _len_field(2, scope))
    return wrapped + rest


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _len_field(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _attribute(key: bytes, any_value: bytes) -> bytes:
    return _len_field(9, _len_field(1, key) + _len_field(2, any_value))


_DECLINED = {
    "an event": _len_field(11, _len_field(2, b"e")),
    "a link": _len_field(13, _len_field(1, b"\x01" * 16) + _len_field(2, b"\x02" * 8)),
    "the name twice": _len_field(5, b"again"),
    "a name not UTF-8": _len_field(5, b"\xff"),
    "an unknown field": _len_field(40, b"x"),
    "a field of another wire type": _varint(5 << 3 | 0) + b"\x01",
    "a status twice": _len_field(15, b"") + _len_field(15, b""),
    "a negative kind": _varint(6 << 3) + _varint((1 << 64) - 1),
    "a truncated attribute": b"\x4a\x05\x0a\x01",
}
_RAW = {
    "a list value": _attribute(b"l", _len_field(5, _len_field(1, _len_field(1, b"x")))),
    "a map value": _attribute(b"m", _len_field(6, b"")),
    "a bytes value": _attribute(b"b", _len_field(7, b"\x00\x01")),
    "a non-finite double": _attribute(b"d", b"\x21" + struct.pack("<d", math.inf)),
    "two values": _attribute(b"t", _len_field(1, b"a") + _varint(3 << 3) + b"\x01"),
    "a value not UTF-8": _attribute(b"u", _len_field(1, b"\xc3")),
    "a damaged attribute": _len_field(9, b"\x0a\x09x"),
    "an unknown attribute field": _len_field(
        9, _len_field(1, b"k") + _varint(3 << 3 | 5) + b"1234"
    ),
}


@pytest.mark.parametrize("extra", _DECLINED.values(), ids=_DECLINED.keys())
def test_a_request_off_the_plain_shape_is_declined_with_the_same_result(
    extra: bytes, monkeypatch: Any
):
    assert not _assert_same(_with_span_bytes(extra), monkeypatch)


@pytest.mark.parametrize("extra", _RAW.values(), ids=_RAW.keys())
def test_an_attribute_left_as_bytes_gives_the_same_result(extra: bytes, monkeypatch: Any):
    payload = _with_span_bytes(extra)
    scopes = wire_scopes(payload, MAX_ATTRIBUTE_BYTES)
    assert scopes is not None
    first = scopes[0][4][0]
    assert first[1] is None and first[2] is None and first[3]  # left to the reader
    _assert_same(payload, monkeypatch)


def test_scalar_values_convert_as_the_generated_classes_do(monkeypatch: Any):
    extra = (
        _attribute(b"s", _len_field(1, "héllo".encode()))
        + _attribute(b"i", _varint(3 << 3) + _varint((1 << 64) - 5))
        + _attribute(b"f", b"\x21" + struct.pack("<d", 2.5))
        + _attribute(b"t", _varint(2 << 3) + b"\x02")
        + _attribute(b"e", b"")
        + _attribute(b"s", _len_field(1, b"again"))
    )
    payload = _with_span_bytes(extra)
    scopes = wire_scopes(payload, MAX_ATTRIBUTE_BYTES)
    assert scopes is not None
    attributes = scopes[0][4][0][1]  # whole: no lifted keys asked for
    assert attributes is not None
    assert list(attributes.items())[-5:] == [
        ("s", "again"),
        ("i", -5),
        ("f", 2.5),
        ("t", True),
        ("e", None),
    ]
    _assert_same(payload, monkeypatch)


def test_lifted_attributes_are_set_apart_as_the_reader_does():
    payload = _with_span_bytes(_attribute(b"gen_ai.conversation.id", _len_field(1, b"C")))
    lifted = frozenset({"gen_ai.conversation.id", "gen_ai.operation.name"})
    scopes = wire_scopes(payload, MAX_ATTRIBUTE_BYTES, lifted, frozenset({"declined"}))
    assert scopes is not None
    _, rest, apart, raw, _ = scopes[0][4][0]
    assert raw is None and rest is not None and apart is not None
    assert apart == {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "C"}
    assert list(rest) == ["gen_ai.agent.name", "gen_ai.provider.name", "gen_ai.input.messages"]
    declined = wire_scopes(
        payload, MAX_ATTRIBUTE_BYTES, lifted, frozenset({"gen_ai.conversation.id"})
    )
    assert declined is not None
    _, whole, apart, raw, _ = declined[0][4][0]
    assert apart is None and raw is None and whole is not None
    keys = list(whole)
    assert keys[0] == "gen_ai.operation.name" and keys[-1] == "gen_ai.conversation.id"
