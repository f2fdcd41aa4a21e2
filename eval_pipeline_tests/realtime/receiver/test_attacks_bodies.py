"""Hostile request bodies on a real loopback receiver: refused or taken whole, never half.

Contract (issue 30's attack run, as tests): a gzip body of several members is inflated whole,
as ``gzip -d`` does, and every member's spans are stored; bytes after a gzip or deflate body
are a 400, nothing stored; a body that holds no OTLP request (``{"hello": "world"}``, protobuf
of unknown fields, an empty JSON body) is a 400, while an empty but valid export request
stays a 200; one resource with an oversized attribute rejects only that resource's spans,
said in ``partial_success`` (the other resources' spans stored), over protobuf and JSON; and
what already held still holds: a compression bomb is a 413 within its limit, nothing stored.
"""

import gzip
import json
import zlib

import httpx
import pytest
from google.rpc import status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans

from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.http_body import BodyLimits, Inflater
from eval_pipeline.realtime.receiver.rpc_status import Refusal
from eval_pipeline.traces.decode.errors import MAX_ATTRIBUTE_BYTES
from eval_pipeline.traces.decode.otlp_json import to_document
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import (
    agent_trace,
    running_receiver,
    traces_request,
    url,
)

PROTOBUF = {"content-type": "application/x-protobuf"}
GZIP = {**PROTOBUF, "content-encoding": "gzip"}
MB = 1024 * 1024


def _stored_traces() -> set[str]:
    return {span.trace_id for span in TraceStore(current_home().store).read_spans(PRODUCTION)}


def _trace_id(index: int) -> str:
    return (index + 1).to_bytes(16, "big").hex()


def test_every_member_of_a_multi_member_gzip_body_is_stored() -> None:
    body = b"".join(gzip.compress(traces_request(i, 1)) for i in range(3))
    with running_receiver() as receiver:
        reply = httpx.post(url(receiver), content=body, headers=GZIP, timeout=30)
    assert reply.status_code == 200, reply.content
    assert _stored_traces() == {_trace_id(0), _trace_id(1), _trace_id(2)}


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip", gzip.compress(traces_request(0, 1)) + b"garbage"),
        ("gzip", gzip.compress(traces_request(0, 1)) + b"\0" * 16),
        ("deflate", zlib.compress(traces_request(0, 1)) + b"x"),
        ("deflate", zlib.compress(traces_request(0, 1)) + zlib.compress(traces_request(1, 1))),
    ],
)
def test_bytes_after_a_compressed_body_are_a_400_and_nothing_is_stored(
    encoding: str, body: bytes
) -> None:
    with running_receiver() as receiver:
        reply = httpx.post(
            url(receiver), content=body, headers={**PROTOBUF, "content-encoding": encoding}
        )
    assert reply.status_code == 400, reply.content
    assert "after the compressed body" in status_pb2.Status.FromString(reply.content).message
    assert _stored_traces() == set()


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b'{"hello": "world"}', "application/json"),
        (b"", "application/json"),
        (b'{"resource_logs": []}', "application/json"),
        (KeyValue(key="k").SerializeToString(), "application/x-protobuf"),  # field 1 as a string
        (b"\xa0\x06\x01", "application/x-protobuf"),  # field 100 only: parses, holds nothing
    ],
)
def test_a_body_that_is_no_trace_request_is_a_400(body: bytes, content_type: str) -> None:
    with running_receiver() as receiver:
        reply = httpx.post(url(receiver), content=body, headers={"content-type": content_type})
    assert reply.status_code == 400, reply.content


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"{}", "application/json"),
        (b'{"resourceSpans": []}', "application/json"),
        (b"", "application/x-protobuf"),
    ],
)
def test_an_empty_but_valid_export_request_is_a_200(body: bytes, content_type: str) -> None:
    with running_receiver() as receiver:
        reply = httpx.post(url(receiver), content=body, headers={"content-type": content_type})
    assert reply.status_code == 200, reply.content


def _two_resources() -> ExportTraceServiceRequest:
    oversized = KeyValue(key="big", value=AnyValue(string_value="x" * (MAX_ATTRIBUTE_BYTES + 1)))
    return ExportTraceServiceRequest(
        resource_spans=[
            ResourceSpans(
                resource=Resource(attributes=[oversized]),
                scope_spans=[ScopeSpans(spans=agent_trace(10))],
            ),
            ResourceSpans(scope_spans=[ScopeSpans(spans=agent_trace(11))]),
        ]
    )


def test_an_oversized_resource_attribute_rejects_only_that_resources_spans() -> None:
    request = _two_resources()
    with running_receiver() as receiver:
        protobuf = httpx.post(
            url(receiver), content=request.SerializeToString(), headers=PROTOBUF, timeout=30
        )
        assert protobuf.status_code == 200, protobuf.content
        answer = ExportTraceServiceResponse.FromString(protobuf.content).partial_success
        assert answer.rejected_spans == 2
        assert "resource.attributes[big]" in answer.error_message
        assert _stored_traces() == {_trace_id(11)}
        request.resource_spans[1].scope_spans[0].spans[0].trace_id = (99).to_bytes(16, "big")
        request.resource_spans[1].scope_spans[0].spans[1].trace_id = (99).to_bytes(16, "big")
        as_json = httpx.post(
            url(receiver),
            content=json.dumps(to_document(request)),  # OTLP/JSON: hex ids
            headers={"content-type": "application/json"},
            timeout=30,
        )
    assert as_json.status_code == 200, as_json.content
    partial = json.loads(as_json.content)["partialSuccess"]
    assert partial["rejectedSpans"] == "2"
    assert "resourceSpans[0].resource.attributes[big]" in partial["errorMessage"]


def test_a_compression_bomb_is_a_413_and_nothing_is_stored() -> None:
    bomb = gzip.compress(b"\0" * (64 * MB))
    assert len(bomb) < 100_000
    limits = BodyLimits(max_body_bytes=4 * MB, max_decompressed_bytes=8 * MB)
    with running_receiver(limits=limits) as receiver:
        reply = httpx.post(url(receiver), content=bomb, headers=GZIP, timeout=30)
    assert reply.status_code == 413
    assert _stored_traces() == set()


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_members_split_anywhere_across_chunks_inflate_whole(chunk: int) -> None:
    members = [traces_request(i, 2) for i in range(3)]
    body = b"".join(gzip.compress(member) for member in members)
    inflater = Inflater("gzip")
    out = b"".join(
        piece
        for start in range(0, len(body), chunk)
        for piece in inflater.feed(body[start : start + chunk])
    )
    inflater.finish()
    assert out == b"".join(members)
    cut = Inflater("gzip")
    list(cut.feed(body[:-1]))
    with pytest.raises(Refusal, match="truncated"):
        cut.finish()
