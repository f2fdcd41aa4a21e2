"""Benchmark: what one bad span costs a request (the poison-row ratio).

A request of ``n_spans`` small spans is ingested into a fresh store twice in the same run:
as it is, and with one more span the store cannot hold (``BAD_SPANS``: a lone surrogate in its
name, which only the store's Arrow conversion rejects; or an integer scope name, which the
decoder rejects). The ratio is the process CPU time of the second over the first; the bad span
must be rejected alone and the good ones stored. Goal: ratio < 3 (a small constant, whatever
``n_spans``).
"""

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.store.trace_store import TraceStore

SPANS_PER_TRACE = 4


def _span(index: int, **fields: Any) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": f"{index // SPANS_PER_TRACE + 1:032x}",
        "spanId": f"{index + 1:016x}",
        "name": "chat m",
        "kind": 3,
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + index),
        "endTimeUnixNano": str(1_700_000_000_000_000_500 + index),
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
    }
    span.update(fields)
    return span


BAD_SPANS = {
    "name-surrogate": ({"name": "\ud800"}, None),
    "scope-int": ({}, 5),
}
"""Kind of bad span -> (its fields, its scope's name when not the good scope's)."""


def request(n_spans: int, bad: str | None = None) -> bytes:
    """An OTLP/JSON request of ``n_spans`` good spans, plus one ``BAD_SPANS[bad]`` span."""
    spans = [_span(i) for i in range(n_spans)]
    scopes: list[dict[str, Any]] = [{"scope": {"name": "s"}, "spans": spans}]
    if bad is not None:
        fields, scope = BAD_SPANS[bad]
        extra = _span(n_spans, **fields)
        if scope is None:
            spans.append(extra)
        else:
            scopes.append({"scope": {"name": scope}, "spans": [extra]})
    document = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": scopes}]}
    return json.dumps(document).encode()


def timed_ingest(payload: bytes) -> tuple[float, IngestReport]:
    """Process CPU seconds to ingest ``payload`` into a fresh store, and the report."""
    with tempfile.TemporaryDirectory() as folder:
        store = TraceStore(Path(folder))
        start = time.process_time()
        report = ingest([OtlpRequest(payload, "application/json", "bench")], store=store)
        return time.process_time() - start, report


def run(n_spans: int = 80_000, bad: str = "name-surrogate") -> dict[str, Any]:
    """CPU seconds with and without one bad span, their ratio, and what was stored."""
    timed_ingest(request(200, bad))  # warm what both runs use (imports, compiled patterns)
    clean_s, clean = timed_ingest(request(n_spans))
    poisoned_s, poisoned = timed_ingest(request(n_spans, bad))
    return {
        "spans": n_spans,
        "bad_span": bad,
        "cpu_s_without": round(clean_s, 3),
        "cpu_s_with_one_bad": round(poisoned_s, 3),
        "ratio": round(poisoned_s / clean_s, 3),
        "stored_without": clean.spans_stored,
        "stored_with": poisoned.spans_stored,
        "rejected_with": poisoned.spans_rejected,
        "errors_with": [str(e) for e in poisoned.errors][:3],
    }
