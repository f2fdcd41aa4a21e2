"""A dead worker or a store that cannot write: retried, reported, recovered, never a 500.

Contract (issue 30's attack run, as tests): kill -9 one write-path worker process and the
receiver replaces its pool: the requests after it are stored (within seconds; the time to the
first 200 is printed), never refused for good (before: 500, then 429 forever, as the slots of
failed submits were never given back), and ``/healthz`` says so while it cannot write; a store
that cannot be opened while the workers start answers 503 with ``Retry-After`` (not 500), says
why on ``/healthz`` and ``/readyz``, and takes every request once it can; a store that refuses
a write answers 503 with ``Retry-After`` over HTTP and ``UNAVAILABLE`` with ``RetryInfo`` over
gRPC; a write path whose pool refuses every job gives each slot back (it stays unsaturated);
a ``serve`` killed with SIGKILL leaves none of its processes behind.
"""

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2, status_pb2

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.auth import Grant, Scope
from eval_pipeline.realtime.receiver.write_path import WritePath
from eval_pipeline.realtime.receiver.writer import Writer
from eval_pipeline.traces.ingest.ingest import OtlpRequest
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import (
    running_receiver,
    traces_request,
    url,
    worker_processes,
)
from eval_pipeline_tests.realtime.receiver.serve_process import start_serve

PROTOBUF = {"content-type": "application/x-protobuf"}
TRACE_SERVICE = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


def _post(base: str, first: int) -> httpx.Response:
    return httpx.post(base, content=traces_request(first, 1), headers=PROTOBUF, timeout=60)


def _stored_traces() -> int:
    return len({s.trace_id for s in TraceStore(current_home().store).read_spans(PRODUCTION)})


def test_a_killed_worker_is_replaced_and_every_later_request_is_stored() -> None:
    with running_receiver(processes=True, workers=2, queue=8) as receiver:
        base = url(receiver)
        assert _post(base, 0).status_code == 200
        (victim, *_) = sorted(worker_processes())
        os.kill(victim, signal.SIGKILL)
        killed = time.monotonic()
        health = httpx.get(url(receiver, "/healthz"), timeout=10)
        statuses = []
        recovered_s = None
        for first in range(1, 41):  # more requests than workers + queue: no slot may leak
            reply = _post(base, first)
            statuses.append(reply.status_code)
            if reply.status_code == 200 and recovered_s is None:
                recovered_s = time.monotonic() - killed
            if reply.status_code != 200:
                assert reply.status_code == 503 and "retry-after" in reply.headers
                time.sleep(0.1)
        healthy = httpx.get(url(receiver, "/healthz"), timeout=10)
        ready = httpx.get(url(receiver, "/readyz"), timeout=10)
    print(f"worker killed: first 200 after {recovered_s:.2f} s; statuses {statuses}")
    assert recovered_s is not None and recovered_s < 15
    assert statuses[-30:] == [200] * 30, statuses
    assert victim not in worker_processes()
    assert health.status_code in (200, 503)  # 503 while the new pool starts, 200 once it is up
    if health.status_code == 503:
        assert "worker" in health.json()["reason"]
    assert healthy.status_code == 200 and ready.status_code == 200, healthy.text
    assert _stored_traces() == 1 + statuses.count(200)


def test_a_store_unusable_while_the_workers_start_answers_503_then_takes_everything() -> None:
    ledger = current_home().ensure().store / "ledger.db"
    ledger.mkdir()  # a folder where the store's ledger goes: the workers cannot open the store
    with running_receiver(processes=True, workers=2, queue=8) as receiver:
        base = url(receiver)
        refused = _post(base, 0)
        health = httpx.get(url(receiver, "/healthz"), timeout=10)
        ready = httpx.get(url(receiver, "/readyz"), timeout=10)
        ledger.rmdir()
        statuses = [_post(base, first).status_code for first in range(1, 21)]
        healthy = httpx.get(url(receiver, "/healthz"), timeout=10)
    assert refused.status_code == 503, refused.content
    assert refused.headers["retry-after"] == "1"
    assert "cannot open the store" in status_pb2.Status.FromString(refused.content).message
    assert health.status_code == 503 and "store" in health.json()["reason"]
    assert ready.status_code == 503 and ready.json()["status"] == "unavailable"
    assert statuses == [200] * 20
    assert healthy.status_code == 200
    assert _stored_traces() == 20


@contextmanager
def _unwritable_production() -> Iterator[None]:
    """The production build's folder is a file: every write to it fails (an OSError)."""
    blocker = current_home().store / "spans" / f"build={PRODUCTION}"
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("")
    try:
        yield
    finally:
        blocker.unlink()


def test_a_store_that_refuses_a_write_is_a_503_over_http_and_unavailable_over_grpc() -> None:
    with running_receiver(grpc=True) as receiver:
        channel = grpc.insecure_channel(f"127.0.0.1:{receiver.grpc_port}")
        export = channel.unary_unary(TRACE_SERVICE)
        with _unwritable_production():
            refused = _post(url(receiver), 0)
            health = httpx.get(url(receiver, "/healthz"), timeout=10)
            with pytest.raises(grpc.RpcError) as failed:
                export(traces_request(1, 1), timeout=30)
        recovered = _post(url(receiver), 0)
        healthy = httpx.get(url(receiver, "/healthz"), timeout=10)
        channel.close()
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert health.status_code == 503 and "store cannot take" in health.json()["reason"]
    assert failed.value.code() == grpc.StatusCode.UNAVAILABLE
    details = dict(failed.value.trailing_metadata() or ())["grpc-status-details-bin"]
    info = error_details_pb2.RetryInfo()
    assert status_pb2.Status.FromString(details).details[0].Unpack(info)
    assert info.retry_delay.seconds == 1
    assert recovered.status_code == 200 and healthy.status_code == 200
    assert _stored_traces() == 1


def test_every_slot_comes_back_when_the_pool_refuses_the_job(isolated_home: Path) -> None:
    home = current_home().ensure()
    writer = Writer(TraceStore(home.store), registry=BuildRegistry(home.state_url))
    path = WritePath(writer, workers=1, queue=1)
    path.close()  # the pool now refuses every job (RuntimeError)
    request = OtlpRequest(traces_request(0, 1), PROTOBUF["content-type"], "test")
    for _ in range(10):
        with pytest.raises(RuntimeError):  # never a 429: no slot was kept by a failed start
            path.submit_traces(request, Grant(Scope.PRODUCTION))
    assert not path.saturated
    with pytest.raises(RuntimeError):
        path.submit(lambda: None)
    assert not path.saturated


def _states() -> dict[int, tuple[str, int]]:
    """Every process's (state, parent), from /proc."""
    states = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            states[int(entry.name)] = (fields[0], int(fields[1]))
    return states


def _descendants(root: int) -> set[int]:
    """Every process below ``root`` (children, their children, ...)."""
    states = _states()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, (_, parent) in states.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pids: set[int]) -> set[int]:
    return {pid for pid, (state, _) in _states().items() if pid in pids and state != "Z"}


def test_a_receiver_killed_with_sigkill_leaves_no_process_behind(tmp_path: Path) -> None:
    server, port = start_serve(["--no-grpc"], tmp_path / "serve.log")
    try:
        assert _post(f"http://127.0.0.1:{port}/v1/traces", 0).status_code == 200
        below = _descendants(server.pid)
        assert len(below) >= 2, below  # the write path's workers (and their fork server)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=20)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and _alive(below):
            time.sleep(0.1)
    finally:
        if server.poll() is None:
            server.kill()
    assert _alive(below) == set(), (tmp_path / "serve.log").read_text()
