"""Benchmark: the receiver's persisted spans/s, and alert latency from ack to webhook.

Throughput: ``eval-pipeline serve`` runs as a process of its own (embedded stream, the
default, or NATS JetStream with ``--stream nats://host:port``); 4 client connections post
OTLP/HTTP protobuf requests of ``bench ingest``'s payload (fresh trace ids per request) as
fast as they are acknowledged, and every acknowledgement means stored (fsynced) and
published. The reference, measured in the same run on the same payload, is ``bench ingest``'s
plain protobuf parse walked into Python objects and written to Parquet (``ingest.reference``),
in this process: ``reference_ratio`` = ``persisted_spans_per_s / reference_spans_per_s``.
The same load with the detectors on (``serve --detect``) gives
``persisted_detecting_spans_per_s``; ``ratio`` = that over the receiver alone. Goal: at
least 0.5.

Alert latency: ``serve --alert-webhook`` with its detector worker; requests are paced to a
sustained ``alert_rate`` spans/s for ``duration_s``, with 1% of the tool calls failed. Each
failed call's latency is from the acknowledgement of its request to the receipt of its
``tool_error`` alert at a webhook in this process: ``alert_p50_s``, ``alert_p99_s``. Goal:
p99 under 1 s. The paced load starts once a warm-up request's failed call has alerted (the
detector process, started beside the receiver, is running). ``detector_cpu_us_per_span`` is
the detector workers' CPU over the spans they processed in that run (``serve`` logs it on
exit): less load-dependent than the rest.
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from benchmarks.ingest import make_payload, reference

PROTOBUF = {"content-type": "application/x-protobuf"}
FAILED_TOOL_SHARE = 0.01
WARM_FAILED_SHARE = 1.0
"""Every tool call of the warm-up request fails: an alert to wait for at any request size."""
WARM_TIMEOUT_S = 120.0


def payloads(
    spans_per_request: int, count: int, failed_share: float = 0.0, first: int = 1
) -> list[bytes]:
    """``count`` requests of ``make_payload``, each with its own trace ids (from ``first``).

    ``failed_share`` of the ``execute_tool`` spans (evenly spread) get an error status.
    """
    template = ExportTraceServiceRequest.FromString(make_payload(spans_per_request))
    for resource in template.resource_spans:
        for scope in resource.scope_spans:
            # Each trace of the payload ends with a chat requesting a tool no span runs (an
            # incomplete trace, one alert each): without it, alerts are the failed calls'.
            last = {span.trace_id: index for index, span in enumerate(scope.spans)}
            kept = [span for i, span in enumerate(scope.spans) if last[span.trace_id] != i]
            del scope.spans[:]
            scope.spans.extend(kept)
    every = round(1 / failed_share) if failed_share else 0
    bodies = []
    tool_index = 0
    for number in range(count):
        request = ExportTraceServiceRequest()
        request.CopyFrom(template)
        prefix = (first + number).to_bytes(8, "big")
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    span.trace_id = prefix + span.trace_id[8:]
                    if every and span.name.startswith("execute_tool"):
                        tool_index += 1
                        if tool_index % every == 0:
                            span.status.code = Status.STATUS_CODE_ERROR
                            span.status.message = "upstream timeout"
        bodies.append(request.SerializeToString())
    return bodies


def spans_in(body: bytes) -> int:
    """How many spans a request holds."""
    request = ExportTraceServiceRequest.FromString(body)
    return sum(len(scope.spans) for r in request.resource_spans for scope in r.scope_spans)


def failed_traces(body: bytes) -> set[str]:
    """Hex ids of the traces in ``body`` holding a failed tool call."""
    request = ExportTraceServiceRequest.FromString(body)
    return {
        span.trace_id.hex()
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
        if span.status.code == Status.STATUS_CODE_ERROR
    }


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve_log(home: Path) -> Path:
    """Where ``serving(home)`` writes the receiver's output."""
    return home.parent / f"serve-{home.name}.log"


_STOPPED = re.compile(
    rb"detectors stopped: (\d+) spans.*?([0-9.]+) s CPU(?: \(([0-9.]+) s process CPU\))?"
)


def detector_cpu_us_per_span(home: Path) -> dict[str, float | None]:
    """The detectors' CPU per span, from the line they logged on exit.

    ``detector_cpu_us_per_span``: the worker threads' CPU; ``detector_process_cpu_us_per_span``:
    the whole detector process's (its stream client, webhook sender and collector too), when
    the detectors run in a process of their own.
    """
    found = _STOPPED.findall(serve_log(home).read_bytes())
    spans = sum(int(n) for n, _, _ in found)
    threads = sum(float(c) for _, c, _ in found)
    process = sum(float(p) for _, _, p in found if p)
    return {
        "detector_cpu_us_per_span": round(threads / spans * 1e6, 1) if spans else None,
        "detector_process_cpu_us_per_span": (
            round(process / spans * 1e6, 1) if spans and process else None
        ),
    }


@contextmanager
def serving(home: Path, *extra: str, stream_url: str | None = None) -> Iterator[str]:
    """``eval-pipeline serve`` on a free loopback port over ``home``; its base URL.

    Its output goes to ``serve_log(home)``.

    With ``stream_url`` (``nats://host:port``) the receiver publishes to a JetStream stream
    of its own (a fresh prefix in the URL), deleted afterwards: no backlog of another run
    reaches its detectors.
    """
    port = _free_port()
    env = os.environ | {"EVAL_PIPELINE_HOME": str(home)}
    command = [sys.executable, "-c", "from eval_pipeline.cli import main; main()", "serve"]
    command += ["--port", str(port), "--no-grpc", *extra]
    if not {"--detect", "--alert-webhook"} & set(extra):
        command.append("--no-detect")  # serve runs the detectors by default: the receiver alone
    own_stream = None
    if stream_url is not None:
        own_stream = f"{stream_url.rstrip('/')}/bench{uuid.uuid4().hex[:12]}"
        command += ["--stream", own_stream]
    with serve_log(home).open("ab") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"{base}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the receiver did not start") from None
                time.sleep(0.1)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=60)
        if own_stream is not None:
            _delete_stream(home, own_stream)


def _delete_stream(home: Path, url: str) -> None:
    """Delete the benchmark's JetStream stream (its messages and consumers)."""
    from eval_pipeline.realtime.stream import open_stream
    from eval_pipeline.realtime.stream.jetstream import JetStreamStream

    stream = open_stream(home, url)
    assert isinstance(stream, JetStreamStream)
    try:
        stream.delete_stream()
    finally:
        stream.close()


def _post_all(base: str, bodies: list[bytes], client: httpx.Client | None = None) -> None:
    """Post each body until it is acknowledged (retrying 429 and 503, as exporters do)."""
    if client is None:
        with httpx.Client(timeout=120) as own:
            _post_all(base, bodies, own)
        return
    for body in bodies:
        while True:
            reply = client.post(f"{base}/v1/traces", content=body, headers=PROTOBUF)
            if reply.status_code == 200:
                break
            if reply.status_code not in (429, 503):
                raise RuntimeError(f"receiver answered {reply.status_code}: {reply.text}")
            time.sleep(0.05)


def persisted_rate(
    home: Path,
    bodies: list[bytes],
    connections: int,
    stream_url: str | None = None,
    *extra: str,
) -> float:
    """Acknowledged spans/s with ``connections`` clients posting ``bodies`` (after warm-up)."""
    with serving(home, *extra, stream_url=stream_url) as base:
        _post_all(base, bodies[:connections])  # warm: imports, first parts, ledger tables
        rest = bodies[connections:]
        shares = [rest[i::connections] for i in range(connections)]
        start = time.perf_counter()
        with ThreadPoolExecutor(connections) as pool:
            list(pool.map(lambda share: _post_all(base, share), shares))
        elapsed = time.perf_counter() - start
    return len(rest) * spans_in(bodies[0]) / elapsed


def reference_rate(body: bytes, repeats: int, folder: Path) -> float:
    """``bench ingest``'s plain protobuf -> Parquet walk on one request: median spans/s."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        reference(body, folder)
        times.append(time.perf_counter() - start)
    return spans_in(body) / statistics.median(times)


class _Webhook:
    """A webhook on loopback noting when each trace's first ``tool_error`` alert arrived."""

    def __init__(self) -> None:
        self.received: dict[str, float] = {}
        self.detected: dict[str, float] = {}
        self.alerts = 0
        received = self.received
        detected = self.detected
        counter = self

        class Hook(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as webhook services answer

            def do_POST(self) -> None:
                alert = orjson.loads(self.rfile.read(int(self.headers["content-length"])))
                now = time.perf_counter()
                counter.alerts += 1
                if str(alert.get("detector", "")).startswith("tool_error"):
                    received.setdefault(alert["trace_id"], now)
                    detected.setdefault(alert["trace_id"], _perf_of(alert["detected_at"]))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/alerts"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def _await_alert(webhook: _Webhook, traces: set[str], timeout_s: float) -> None:
    """Wait until a ``tool_error`` alert of one of ``traces`` reached the webhook."""
    deadline = time.perf_counter() + timeout_s
    while not traces & webhook.received.keys():
        if time.perf_counter() > deadline:
            raise RuntimeError(f"no alert of the warm-up request within {timeout_s} s")
        time.sleep(0.05)


def _perf_of(iso: str) -> float:
    """A wall-clock ISO time (the receiver's ``detected_at``) on this process's perf clock."""
    return datetime.fromisoformat(iso).timestamp() - time.time() + time.perf_counter()


def _quantile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile of sorted ``values``; None when empty or an infinite one is reached."""
    if not values:
        return None
    value = values[min(len(values) - 1, int(q * len(values)))]
    return None if value == float("inf") else round(max(0.0, value), 3)


def alert_latency(
    home: Path,
    rate: int,
    duration_s: float,
    spans_per_request: int,
    connections: int,
    stream_url: str | None = None,
) -> dict[str, Any]:
    """Paced load at ``rate`` spans/s; latencies from ack to webhook receipt (seconds)."""
    bodies = payloads(spans_per_request, 1, FAILED_TOOL_SHARE)
    per_second = max(1, round(rate / spans_in(bodies[0])))
    count = max(1, round(per_second * duration_s))
    bodies = payloads(spans_per_request, count, FAILED_TOOL_SHARE)
    # Parsed before the load: the senders share the machine with the receiver and detectors.
    failing = [failed_traces(body) for body in bodies]
    webhook = _Webhook()
    acknowledged: dict[str, float] = {}
    with serving(home, "--alert-webhook", webhook.url, stream_url=stream_url) as base:
        # Warm (ids not reused), and wait for a failed call of it to alert: the detector
        # process starts beside the receiver, and its start-up (imports, connecting) is not
        # the latency of a plane under sustained load.
        warm = payloads(spans_per_request, 1, WARM_FAILED_SHARE, first=10**6)
        _post_all(base, warm)
        _await_alert(webhook, failed_traces(warm[0]), WARM_TIMEOUT_S)
        interval = 1 / per_second
        start = time.perf_counter()
        late = [0]

        def send(lane: int) -> None:
            with httpx.Client(timeout=120) as client:
                for number in range(lane, len(bodies), connections):
                    wait = start + number * interval - time.perf_counter()
                    if wait > 0:
                        time.sleep(wait)
                    else:
                        late[0] += 1
                    _post_all(base, [bodies[number]], client)
                    now = time.perf_counter()
                    for trace_id in failing[number]:
                        acknowledged[trace_id] = now

        with ThreadPoolExecutor(connections) as pool:
            list(pool.map(send, range(connections)))
        sent_s = time.perf_counter() - start
        deadline = time.perf_counter() + 30
        while len(webhook.received) < len(acknowledged) and time.perf_counter() < deadline:
            time.sleep(0.1)
    webhook.server.shutdown()
    # A call whose alert never arrived (within 30 s of the last request) counts as infinitely
    # late, so a quantile it reaches is unknown (None) rather than flattered.
    latencies = sorted(
        webhook.received[t] - acked if t in webhook.received else float("inf")
        for t, acked in acknowledged.items()
    )
    # Where the time went: ack -> detected (stream and worker), detected -> webhook receipt.
    seen = [t for t in webhook.detected if t in acknowledged]
    detecting = sorted(webhook.detected[t] - acknowledged[t] for t in seen)
    delivering = sorted(webhook.received[t] - webhook.detected[t] for t in seen)
    return {
        "alert_p50_s": _quantile(latencies, 0.50),
        "alert_p99_s": _quantile(latencies, 0.99),
        "alert_detect_p50_s": _quantile(detecting, 0.50),
        "alert_detect_p99_s": _quantile(detecting, 0.99),
        "alert_deliver_p50_s": _quantile(delivering, 0.50),
        "alert_deliver_p99_s": _quantile(delivering, 0.99),
        "alert_sustained_spans_per_s": round(count * spans_in(bodies[0]) / sent_s, 1),
        "alert_requests_late": late[0],
        "alert_failed_tool_calls": len(acknowledged),
        "alert_tool_errors_received": sum(t in webhook.received for t in acknowledged),
        "alert_webhook_posts": webhook.alerts,
        **detector_cpu_us_per_span(home),
    }


def run(
    *,
    requests: int = 60,
    spans_per_request: int = 2000,
    connections: int = 4,
    alert_rate: int = 5000,
    duration_s: float = 60.0,
    alert_spans_per_request: int = 500,
    repeats: int = 5,
    stream_url: str | None = None,
) -> dict[str, Any]:
    """Both measurements on fresh homes (module docstring); JSON-safe.

    ``stream_url`` (``nats://host:port``) runs the receiver on NATS JetStream, a fresh stream
    per measurement; None on the embedded stream.
    """
    bodies = payloads(spans_per_request, requests + connections)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        reference_before = reference_rate(bodies[0], repeats, root)
        persisted = persisted_rate(root / "home", bodies, connections, stream_url)
        detecting = persisted_rate(
            root / "detect-home", bodies, connections, stream_url, "--detect"
        )
        reference_after = reference_rate(bodies[0], repeats, root)
        reference_spans = statistics.median([reference_before, reference_after])
        latency = alert_latency(
            root / "alerts-home",
            alert_rate,
            duration_s,
            alert_spans_per_request,
            connections,
            stream_url,
        )
    return {
        "benchmark": "serve",
        "persisted_spans_per_s": round(persisted, 1),
        "reference_spans_per_s": round(reference_spans, 1),
        "reference_ratio": round(persisted / reference_spans, 3),
        "persisted_detecting_spans_per_s": round(detecting, 1),
        "ratio": round(detecting / persisted, 3),
        "goal_ratio": 0.5,
        "connections": connections,
        "spans_per_request": spans_in(bodies[0]),
        "requests": requests,
        "alert_rate_spans_per_s": alert_rate,
        "alert_duration_s": duration_s,
        **latency,
        "goal_alert_p99_s": 1.0,
        "receiver": "eval-pipeline serve (own process, durable acknowledgement)",
        "stream": "NATS JetStream" if stream_url else "embedded (SQL state database)",
        "ratio_of": "receiver with detectors on (serve --detect) / receiver alone",
        "reference": "in-process plain protobuf parse -> Python dicts -> Parquet (bench ingest)",
    }
