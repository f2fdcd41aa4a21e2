"""Faults under load on a real NATS JetStream server: nothing acknowledged is ever lost.

Contract: while the stream's NATS server is down the receiver answers 503 with
``Retry-After`` (stored but not published is never acknowledged), and once it is back every
span the receiver acknowledged is in the store and on the stream; a receiver killed with
SIGKILL under load loses no acknowledged span (store and stream). The NATS server is the
test's own process (``nats_process``), stopped and started under load.
"""

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from eval_pipeline.home import current_home
from eval_pipeline.realtime.stream import REALTIME_PLANE, SpanEvent, open_stream
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.nats_process import NatsProcess
from eval_pipeline_tests.realtime.receiver.receivers import running_receiver, traces_request
from eval_pipeline_tests.realtime.receiver.serve_process import start_serve

pytestmark = pytest.mark.nats
TRACES_PER_REQUEST = 5
SPANS_PER_TRACE = 2


def _span_ids(first: int) -> set[tuple[str, str]]:
    """(trace id, span id) of ``traces_request(first, TRACES_PER_REQUEST)``."""
    keys = set()
    for index in range(first, first + TRACES_PER_REQUEST):
        trace_id = (index + 1).to_bytes(16, "big").hex()
        root = (index + 1) * 1000
        keys.add((trace_id, root.to_bytes(8, "big").hex()))
        keys.add((trace_id, (root + 1).to_bytes(8, "big").hex()))
    return keys


class Load:
    """One sender posting requests of fresh traces; records what was acknowledged."""

    def __init__(self, base_url: str, *, retry: bool) -> None:
        self.url = f"{base_url}/v1/traces"
        self.retry = retry
        self.acknowledged: set[tuple[str, str]] = set()
        self.statuses: list[int] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        first = 0
        with httpx.Client(timeout=30) as client:
            while not self.stop.is_set():
                body = traces_request(first, TRACES_PER_REQUEST)
                try:
                    reply = client.post(
                        self.url, content=body, headers={"content-type": "application/x-protobuf"}
                    )
                except httpx.HTTPError:
                    if not self.retry:
                        return
                    time.sleep(0.1)
                    continue
                self.statuses.append(reply.status_code)
                if reply.status_code == 200:
                    self.acknowledged |= _span_ids(first)
                    first += TRACES_PER_REQUEST
                elif not self.retry:
                    return
                else:
                    time.sleep(float(reply.headers.get("retry-after", "0.1")) / 10)


def _streamed(url: str) -> set[tuple[str, str]]:
    stream = open_stream(current_home(), url)
    consumer = stream.consumer(REALTIME_PLANE)
    seen: set[tuple[str, str]] = set()
    while deliveries := consumer.fetch(1000, timeout_s=2.0):
        for delivery in deliveries:
            if isinstance(delivery.event, SpanEvent):
                seen.add((delivery.event.span.trace_id, delivery.event.span.span_id))
        consumer.ack(deliveries)
    consumer.close()
    stream.close()
    return seen


def _stored() -> set[tuple[str, str]]:
    spans = TraceStore(current_home().store).read_spans(PRODUCTION)
    return {(span.trace_id, span.span_id) for span in spans}


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[NatsProcess]:
    """A NATS JetStream server of this test's own, stopped whatever the test does."""
    server = NatsProcess(tmp_path / "nats")
    server.start()
    yield server
    server.stop()


def test_nats_restarted_under_load_gives_503_and_loses_nothing(nats: NatsProcess) -> None:
    stream = open_stream(current_home().ensure(), nats.url)
    try:
        with running_receiver(stream=stream, workers=2) as receiver:
            load = Load(f"http://127.0.0.1:{receiver.http_port}", retry=True)
            load.thread.start()
            time.sleep(1.0)
            nats.stop()
            while 503 not in load.statuses:
                time.sleep(0.1)
            nats.start()
            acknowledged_before = len(load.acknowledged)
            while len(load.acknowledged) <= acknowledged_before + 50:
                time.sleep(0.1)  # acknowledgements resumed after the restart
            load.stop.set()
            load.thread.join(timeout=60)
    finally:
        stream.close()
    assert 503 in load.statuses and load.acknowledged
    assert load.acknowledged <= _stored()
    assert load.acknowledged <= _streamed(nats.url)


def test_a_receiver_killed_under_load_loses_no_acknowledged_span(
    nats: NatsProcess, tmp_path: Path
) -> None:
    server, port = start_serve(["--no-grpc", "--stream", nats.url], tmp_path / "serve.log")
    try:
        load = Load(f"http://127.0.0.1:{port}", retry=False)
        load.thread.start()
        while len(load.acknowledged) < 100 and load.thread.is_alive():
            time.sleep(0.05)
        server.send_signal(signal.SIGKILL)
        load.thread.join(timeout=60)
        server.wait(timeout=20)
    finally:
        if server.poll() is None:
            server.kill()
    assert len(load.acknowledged) >= 100
    assert load.acknowledged <= _stored()
    assert load.acknowledged <= _streamed(nats.url)
