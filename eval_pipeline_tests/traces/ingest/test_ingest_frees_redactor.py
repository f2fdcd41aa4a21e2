"""``ingest`` frees its redactor and the redactor's caches when it returns, not at a later GC.

A redactor caught in a reference cycle would be left to the cyclic collector: every cached
text of the request walked and freed by the first collection after ``ingest``, and memory held
until then.
"""

import gc
from pathlib import Path

from benchmarks.ingest import make_payload
from eval_pipeline.traces.decode.otlp import PROTOBUF
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline.traces.redact.redactor import Redactor
from eval_pipeline.traces.store.trace_store import TraceStore


def _alive() -> int:
    return sum(1 for o in gc.get_objects() if type(o) in (Redactor, Tokeniser))


def test_no_redactor_outlives_ingest(tmp_path: Path) -> None:
    store = TraceStore(tmp_path)
    gc.collect()
    before = _alive()
    gc.disable()
    try:
        report = ingest([OtlpRequest(make_payload(64), PROTOBUF, "t")], store=store)
        assert report.spans_stored == 64
        assert _alive() == before
    finally:
        gc.enable()
