"""Many stalled inflating requests at once: the receiver's request memory stays under its budget.

Contract (issue 30's attack run, as tests): connections that each send a small gzip body
inflating to tens of MB and then stall (their declared length never arrives) are held only up
to the receiver's in-flight budget: past it, each is answered 429 with ``Retry-After`` at once
(not after the body deadline), the receiver's memory grows by about the budget, not by the sum
of the bodies (12 x 24 MB here; 24 x 63 MB took a receiver from 471 MB to 1.97 GB), and once
the connections are gone the budget is free again: a normal request is stored. Over gRPC, a
request that would take the receiver past the budget (held by requests in progress) is
``RESOURCE_EXHAUSTED`` with ``RetryInfo``, and stored once the budget is free.
"""

import gzip
import socket

import grpc
import httpx
from google.rpc import error_details_pb2, status_pb2

from eval_pipeline.realtime.receiver.http_body import BodyLimits
from eval_pipeline.realtime.receiver.inflight import InflightBudget
from eval_pipeline_tests.realtime.receiver.receivers import (
    MB,
    rss_growth,
    running_receiver,
    traces_request,
    url,
)

TRACE_SERVICE = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
CONNECTIONS = 12
INFLATED_MB = 24
BUDGET_MB = 48


def _stall(port: int, compressed: bytes) -> socket.socket:
    """A connection that sends ``compressed`` and declares twice as many bytes: it stalls."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(
        b"POST /v1/traces HTTP/1.1\r\nHost: x\r\ncontent-type: application/x-protobuf\r\n"
        b"content-encoding: gzip\r\ncontent-length: %d\r\n\r\n" % (2 * len(compressed)) + compressed
    )
    return sock


def _answer(sock: socket.socket, timeout_s: float) -> bytes:
    sock.settimeout(timeout_s)
    try:
        return sock.recv(4096)
    except TimeoutError:
        return b""


def test_stalled_inflating_requests_are_held_only_up_to_the_budget() -> None:
    # The members inflate to zeros: the body is a valid gzip stream that never ends.
    compressed = gzip.compress(b"\0" * (INFLATED_MB * MB))[:-8]
    limits = BodyLimits(max_decompressed_bytes=32 * MB, body_timeout_s=30)
    budget = InflightBudget(BUDGET_MB * MB)
    with running_receiver(limits=limits, budget=budget) as receiver, rss_growth() as growth:
        stalled = [_stall(receiver.http_port, compressed) for _ in range(CONNECTIONS)]
        answers = [_answer(sock, 10) for sock in stalled]
        held = budget.held
        for sock in stalled:
            sock.close()
        refused = [a for a in answers if a.startswith(b"HTTP/1.1 429")]
        assert len(refused) >= CONNECTIONS - BUDGET_MB // INFLATED_MB, answers
        assert all(b"retry-after: 1" in a.lower() for a in refused)
        assert held <= BUDGET_MB * MB
        after = httpx.post(
            url(receiver),
            content=traces_request(0, 1),
            headers={"content-type": "application/x-protobuf"},
            timeout=30,
        )
        assert after.status_code == 200
    print(f"RSS grew {growth[0]:.0f} MB for {CONNECTIONS} x {INFLATED_MB} MB (budget {BUDGET_MB})")
    assert growth[0] < BUDGET_MB + 64, f"RSS grew {growth[0]:.0f} MB (budget {BUDGET_MB} MB)"


def test_grpc_past_the_budget_is_resource_exhausted_with_retry_info() -> None:
    budget = InflightBudget(4 * MB)
    body = traces_request(0, 1)
    with running_receiver(grpc=True, budget=budget) as receiver:
        channel = grpc.insecure_channel(f"127.0.0.1:{receiver.grpc_port}")
        export = channel.unary_unary(TRACE_SERVICE)
        assert budget.try_take(4 * MB - len(body) + 1)  # requests in progress hold the rest
        try:
            export(body, timeout=30)
        except grpc.RpcError as exc:
            failed = exc
        budget.give_back(4 * MB - len(body) + 1)
        export(body, timeout=30)
        channel.close()
    assert failed.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = dict(failed.trailing_metadata() or ())["grpc-status-details-bin"]
    info = error_details_pb2.RetryInfo()
    assert status_pb2.Status.FromString(details).details[0].Unpack(info)
    assert info.retry_delay.seconds == 1
    assert budget.held == 0
