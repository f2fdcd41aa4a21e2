"""The receiver is bounded: in memory per request, in time per client, off the event loop.

Contract: a 200 MB body streamed to a 4 MB limit is refused with 413 while it streams, and
the receiver's peak memory grows by far less than the body; 300 connections that trickle
their headers are closed after the header deadline, and a client that trickles its body gets
408, without holding memory; ``/healthz`` answers while four 1 MB requests are being
ingested (the write path's workers run off the event loop). Memory is the process's peak RSS
(the receiver runs in the test's process), bounded by a generous limit, not a timing.
"""

import socket
import threading
import time

import httpx

from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.http_body import BodyLimits
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import (
    rss_growth,
    running_receiver,
    traces_request,
    url,
)

MB = 1024 * 1024


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_200_mb_body_is_refused_while_it_streams_with_bounded_memory() -> None:
    limits = BodyLimits(max_body_bytes=4 * MB, max_decompressed_bytes=8 * MB)
    with running_receiver(limits=limits) as receiver, rss_growth() as growth:

        def body() -> bytes:  # chunked: no Content-Length to refuse it up front
            for _ in range(200):
                yield b"\0" * MB

        try:
            reply = httpx.post(
                url(receiver),
                content=body(),
                headers={"content-type": "application/x-protobuf"},
                timeout=60,
            )
            status = reply.status_code
        except httpx.HTTPError:  # the receiver answered 413 and closed while we were sending
            status = 413
        assert status == 413
    assert growth[0] < 64, f"RSS grew {growth[0]:.0f} MB for a 200 MB body (limit 4 MB)"
    assert TraceStore(current_home().store).read_spans(PRODUCTION) == []


def test_slow_clients_are_dropped_and_hold_no_memory() -> None:
    limits = BodyLimits(body_timeout_s=1.0)
    with running_receiver(limits=limits, header_timeout_s=1.0) as receiver, rss_growth() as growth:
        slow = []
        for _ in range(300):
            sock = socket.create_connection(("127.0.0.1", receiver.http_port), timeout=20)
            sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\n")  # headers never finished
            slow.append(sock)
        trickle = socket.create_connection(("127.0.0.1", receiver.http_port), timeout=20)
        trickle.sendall(
            b"POST /v1/traces HTTP/1.1\r\nHost: x\r\ncontent-type: application/x-protobuf\r\n"
            b"content-length: 1000\r\n\r\n" + b"\0" * 10
        )
        closed = sum(1 for sock in slow if _read_all(sock) == b"")  # recv b"": server closed
        assert closed == 300
        answer = _read_all(trickle)
        assert answer.startswith(b"HTTP/1.1 408")
        for sock in [*slow, trickle]:
            sock.close()
        assert httpx.get(url(receiver, "/healthz")).status_code == 200
    assert growth[0] < 64, f"RSS grew {growth[0]:.0f} MB for 300 slow clients"


class _HeldPublisher:
    """A span stream that holds every publish until ``release``.

    A request is ingested (decoded, normalised, stored, on the write path's threads) and then
    cannot be acknowledged before the test lets it, so the order of the answers tells what
    answered while the requests were in progress.
    """

    def __init__(self) -> None:
        self.released = threading.Event()
        self.waiting = 0

    def publish_rows(self, rows: object, *, builds: object, day: str) -> None:
        self.waiting += 1
        assert self.released.wait(300), "publish held for 300 s"

    def release(self) -> None:
        self.released.set()


def test_liveness_answers_while_big_requests_are_ingested() -> None:
    """``/healthz`` answers while four big requests are in the write path's threads.

    The answer is asked for once the requests are in and must come before any of them is
    acknowledged: ingest does its work and then waits at the stream (held) until the health
    check answered. Without the hold, a request ingested in under the half second (a warm
    process, later in a suite) was acknowledged first, and the order checked nothing.
    """
    payloads = [traces_request(i * 3_000, 3_000, tools=3) for i in range(4)]
    assert all(len(p) > 1 * MB for p in payloads)
    finished: list[str] = []
    held = _HeldPublisher()
    with running_receiver(workers=2, queue=8, stream=held) as receiver:

        def send(body: bytes) -> None:
            reply = httpx.post(
                url(receiver),
                content=body,
                headers={"content-type": "application/x-protobuf"},
                timeout=300,
            )
            finished.append(f"ingest {reply.status_code}")

        senders = [threading.Thread(target=send, args=(p,)) for p in payloads]
        for sender in senders:
            sender.start()
        try:
            time.sleep(0.5)  # the requests are in (their bodies take milliseconds on loopback)
            health = httpx.get(url(receiver, "/healthz"), timeout=60)
            finished.append(f"healthz {health.status_code}")
        finally:
            held.release()
            for sender in senders:
                sender.join()
    assert finished[0] == "healthz 200", finished
    assert sorted(finished[1:]) == ["ingest 200"] * 4
    assert held.waiting == 4  # each request was stored and reached the stream
