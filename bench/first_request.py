"""First request after a restart on a store of N parts (issue 15's figure).

``PYTHONPATH=. python bench/first_request.py [PARTS]`` fills a fresh store with PARTS parts
(one small OTLP request each, as the receiver writes them), then in a new process times the
receiver app's first ``POST /v1/traces`` (a child of a stored trace, so the build lookup runs).
Before the span ledger, the first request read every part (7.7 s for 4,912 parts).
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans

from eval_pipeline.benchmarks.ingest import _trace
from eval_pipeline.traces.decode.otlp import PROTOBUF
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore

FIRST = """
import sys, time
from pathlib import Path
from starlette.testclient import TestClient
from eval_pipeline.benchmarks.ingest import make_payload
started = time.perf_counter()
from eval_pipeline.realtime.receiver.http_receiver import make_app
with TestClient(make_app(Path(sys.argv[1]))) as client:
    ready = time.perf_counter()
    headers = {"content-type": "application/x-protobuf"}
    reply = client.post("/v1/traces", content=make_payload(100), headers=headers)
    done = again = time.perf_counter()
    client.post("/v1/traces", content=make_payload(200), headers=headers)
    second = time.perf_counter() - again
assert reply.status_code == 200, reply.text
print(f"first request {done - ready:.3f} s, second {second:.3f} s")
print(f"app start {ready - started:.3f} s")
"""


def main(parts: int) -> None:
    """Fill a store with ``parts`` parts, then time a restarted receiver's first request."""
    root = Path(tempfile.mkdtemp()) / "store"
    store = TraceStore(root)
    filled = time.perf_counter()
    for n in range(parts):
        # Two new traces per request, into the production build over 50 days.
        spans = [*_trace(100_000 + 2 * n), *_trace(100_001 + 2 * n)]
        request = ExportTraceServiceRequest(
            resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=spans)])]
        )
        ingest(
            [OtlpRequest(request.SerializeToString(), PROTOBUF, "fill")],
            store=store,
            default_build=PRODUCTION,
            day=f"2026-11-{n % 50:02d}",
        )
    print(f"{parts} parts written in {time.perf_counter() - filled:.1f} s")
    subprocess.run([sys.executable, "-c", FIRST, str(root)], check=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
