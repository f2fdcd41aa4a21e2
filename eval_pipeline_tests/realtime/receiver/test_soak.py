"""Soak: the real ``serve`` under mixed good and hostile traffic, with its workers killed.

Contract (issue 30, marked ``slow``): for ``EVAL_PIPELINE_SOAK_S`` seconds (600 by default; 60
is enough while developing) two senders post fresh traces and retry each refused request as an
exporter does (429 and 503 with ``Retry-After``), two attackers send compression bombs, stalled
inflating bodies, trailing garbage, bodies that are no trace request, oversized resource
attributes and trickled headers, and a killer SIGKILLs a write-path worker every few seconds.
Afterwards every span the receiver acknowledged is in the store's ledger exactly once, nothing
was ever answered 500, the receiver says it is healthy, and its memory is back under the
in-flight budget above where it started.
"""

import contextlib
import gzip
import os
import random
import signal
import socket
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pyarrow.parquet as pq
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans

from eval_pipeline.home import current_home
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import MB, agent_trace, traces_request
from eval_pipeline_tests.realtime.receiver.serve_process import start_serve

SOAK_S = float(os.environ.get("EVAL_PIPELINE_SOAK_S", "600"))
BUDGET_MB = 64
PROTOBUF = {"content-type": "application/x-protobuf"}

pytestmark = [pytest.mark.slow, pytest.mark.timeout(SOAK_S + 600)]


def _rss_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MB


def _workers(serve: int) -> list[int]:
    """The write path's workers: the children of ``serve``'s fork server."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
                )
            except (OSError, IndexError, ValueError):
                continue
    servers = {pid for pid, parent in parents.items() if parent == serve}
    return [pid for pid, parent in parents.items() if parent in servers]


class Soak:
    """The traffic of one soak run and what it saw."""

    def __init__(self, base: str, port: int) -> None:
        self.base = base
        self.port = port
        self.stop = threading.Event()
        self.acknowledged: set[tuple[str, str]] = set()
        self.statuses: Counter[int] = Counter()
        self.kills = 0
        self.lock = threading.Lock()

    def _note(self, status: int) -> None:
        with self.lock:
            self.statuses[status] += 1

    def good(self, first: int) -> None:
        with httpx.Client(timeout=60) as client:
            while not self.stop.is_set():
                count = random.randint(1, 20)
                body = traces_request(first, count, tools=2)
                while not self.stop.is_set():
                    try:
                        reply = client.post(
                            f"{self.base}/v1/traces", content=body, headers=PROTOBUF
                        )
                    except httpx.HTTPError:
                        time.sleep(0.2)
                        continue
                    self._note(reply.status_code)
                    if reply.status_code == 200:
                        with self.lock:
                            self.acknowledged |= _keys(first, count)
                        break
                    assert reply.status_code in (429, 503), reply.content
                    time.sleep(float(reply.headers.get("retry-after", "1")) / 4)
                first += count

    def hostile(self, seed: int) -> None:
        rng = random.Random(seed)
        attacks = [self._bomb, self._stall, self._garbage, self._not_a_request, self._oversized]
        with httpx.Client(timeout=60) as client:
            while not self.stop.is_set():
                # The receiver may close an attacker's connection: that is its right.
                with contextlib.suppress(httpx.HTTPError):
                    rng.choice([*attacks, self._slow_headers])(client)
                time.sleep(rng.random() / 2)

    def _post(self, client: httpx.Client, body: bytes, **headers: str) -> None:
        reply = client.post(f"{self.base}/v1/traces", content=body, headers=PROTOBUF | headers)
        self._note(reply.status_code)

    def _bomb(self, client: httpx.Client) -> None:
        self._post(client, BOMB, **{"content-encoding": "gzip"})

    def _garbage(self, client: httpx.Client) -> None:
        self._post(client, GARBAGE, **{"content-encoding": "gzip"})

    def _not_a_request(self, client: httpx.Client) -> None:
        self._post(client, b'{"hello": "world"}', **{"content-type": "application/json"})

    def _oversized(self, client: httpx.Client) -> None:
        self._post(client, OVERSIZED)

    def _stall(self, _: httpx.Client) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            sock.sendall(STALL_HEADERS + STALL)
            sock.settimeout(3)
            with contextlib.suppress(TimeoutError):
                sock.recv(100)

    def _slow_headers(self, _: httpx.Client) -> None:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            sock.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\n")
            time.sleep(1)

    def killer(self, serve: int) -> None:
        while not self.stop.wait(random.uniform(5, 15)):
            workers = _workers(serve)
            if workers:
                os.kill(random.choice(workers), signal.SIGKILL)
                self.kills += 1


def _keys(first: int, count: int) -> set[tuple[str, str]]:
    return {
        (span.trace_id.hex(), span.span_id.hex())
        for index in range(first, first + count)
        for span in agent_trace(index, tools=2)
    }


BOMB = gzip.compress(b"\0" * (40 * MB))
GARBAGE = gzip.compress(traces_request(10**8, 1)) + b"garbage"
STALL = gzip.compress(b"\0" * (12 * MB))[:-8]
STALL_HEADERS = (
    b"POST /v1/traces HTTP/1.1\r\nHost: x\r\ncontent-type: application/x-protobuf\r\n"
    b"content-encoding: gzip\r\ncontent-length: %d\r\n\r\n" % (2 * len(STALL))
)
OVERSIZED = ExportTraceServiceRequest(
    resource_spans=[
        ResourceSpans(
            resource=Resource(
                attributes=[KeyValue(key="big", value=AnyValue(string_value="x" * 1_000_001))]
            ),
            scope_spans=[ScopeSpans(spans=agent_trace(10**8 + 1))],
        )
    ]
).SerializeToString()


def test_mixed_traffic_with_worker_kills_loses_nothing_and_memory_comes_back(
    tmp_path: Path,
) -> None:
    log = tmp_path / "serve.log"
    args = ["--no-grpc", "--no-detect", "--max-body-mb", "16", "--max-inflight-mb", str(BUDGET_MB)]
    server, port = start_serve([*args, "--body-timeout", "5"], log)
    try:
        soak = Soak(f"http://127.0.0.1:{port}", port)
        httpx.post(f"{soak.base}/v1/traces", content=traces_request(10**9, 1), headers=PROTOBUF)
        started_mb = _rss_mb(server.pid)
        threads = [threading.Thread(target=soak.good, args=(i * 10**7,)) for i in range(2)]
        threads += [threading.Thread(target=soak.hostile, args=(i,)) for i in range(2)]
        threads.append(threading.Thread(target=soak.killer, args=(server.pid,)))
        for thread in threads:
            thread.start()
        peak_mb = started_mb
        deadline = time.monotonic() + SOAK_S
        while time.monotonic() < deadline and all(t.is_alive() for t in threads):
            peak_mb = max(peak_mb, _rss_mb(server.pid))
            time.sleep(0.5)
        soak.stop.set()
        for thread in threads:
            thread.join(timeout=120)
        time.sleep(6)  # stalled bodies time out, the last replacement pool starts
        health = httpx.get(f"{soak.base}/healthz", timeout=30)
        final_mb = _rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)
    store = TraceStore(current_home().store)
    stored: Counter[tuple[str, str]] = Counter()
    for path, _, _ in store.ledger.parts(PRODUCTION):
        table = pq.read_table(store.spans_dir / path, columns=["trace_id", "span_id"])
        stored.update(
            zip(*(table.column(c).to_pylist() for c in ("trace_id", "span_id")), strict=True)
        )
    print(
        f"soak {SOAK_S:g} s: {soak.kills} workers killed, {len(soak.acknowledged)} spans "
        f"acknowledged, answers {dict(soak.statuses)}; RSS {started_mb:.0f} MB at start, "
        f"{peak_mb:.0f} peak, {final_mb:.0f} after"
    )
    assert soak.kills >= SOAK_S // 20 and soak.acknowledged, log.read_text()[-3000:]
    assert 500 not in soak.statuses, dict(soak.statuses)
    assert all(stored[key] == 1 for key in soak.acknowledged)
    assert max(stored.values()) == 1
    assert health.status_code == 200, health.text
    assert final_mb < started_mb + BUDGET_MB, (started_mb, peak_mb, final_mb)
