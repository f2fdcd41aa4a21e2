"""One run of the store stage alone, for instruction counts under callgrind (issue 15).

``ingest_instructions.py`` counts whole paths; this counts only ``TraceStore.write_rows`` on
the rows either path hands the store, so a change to the store shows up undiluted. Run::

    valgrind --tool=callgrind python bench/store_instructions.py MODE [SPANS]

with MODE ``none`` (set-up only: both paths' rows made, stores opened and warmed), ``fast``
(write the fast path's rows) or ``general`` (write the general path's rows), with
``PYTHONPATH=.``. The store stage's count is the run's total minus the ``none`` run's (same
SPANS, default 4,000), as in ``benchmarks.ingest.stage_breakdown`` / ``general_path``.
"""

import sys
import tempfile
from pathlib import Path

from eval_pipeline.benchmarks.ingest import make_payload
from eval_pipeline.traces.decode.errors import MAX_ATTRIBUTE_BYTES
from eval_pipeline.traces.decode.otlp import PROTOBUF, decode_otlp
from eval_pipeline.traces.ingest.fast_path import decode_rows
from eval_pipeline.traces.ingest.ingest import bulk_allocation
from eval_pipeline.traces.normalise.normaliser import normalise_batch
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.store.span_table import Row, span_row
from eval_pipeline.traces.store.trace_store import TraceStore


def _rows(payload: bytes) -> tuple[list[Row], list[Row]]:
    """The fast path's rows and the general path's rows of one payload."""
    redactor = Redactor(load_policy("default"))
    batch = decode_rows(payload, "bench", MAX_ATTRIBUTE_BYTES, redactor)
    assert batch is not None
    decoded = decode_otlp(payload, content_type=PROTOBUF, source="bench")
    general = list(map(span_row, redactor.redact_batch(normalise_batch(decoded.spans))))
    return batch.rows, general


def main(mode: str, spans: int) -> None:
    """Set up (rows made, stores warm), then store the rows ``mode`` names."""
    if mode not in ("none", "fast", "general"):
        raise SystemExit(f"unknown mode {mode!r}: none, fast or general")
    fast, general = _rows(make_payload(spans))
    small_fast, small_general = _rows(make_payload(16))
    with tempfile.TemporaryDirectory() as tmp:
        warm = TraceStore(Path(tmp) / "warm")
        store = TraceStore(Path(tmp) / "store")
        with bulk_allocation():
            warm.write_rows(small_fast, day="2026-01-01", build="fast")
            warm.write_rows(small_general, day="2026-01-01", build="general")
            if mode == "fast":
                store.write_rows(fast, day="2026-01-01")
            elif mode == "general":
                store.write_rows(general, day="2026-01-01")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4000)
