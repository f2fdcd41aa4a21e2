"""The general ingest path run up to one stage, for per-stage instruction counts (issue 15).

``benchmarks.ingest.general_path`` times its stages with the process clock, which swings on a
shared machine. Run::

    valgrind --tool=callgrind python bench/general_stages.py STAGE [SPANS]

with STAGE ``none`` (set-up only), ``decode``, ``normalise``, ``redact``, ``completeness`` or
``store``: the path runs up to and including that stage, so a stage's count is its run's total
minus the previous stage's (same SPANS, default 4,000). Every run first takes a small request
the whole way, so imports and first-call set-up are in the ``none`` count too.
"""

import sys
import tempfile
from pathlib import Path

from eval_pipeline.benchmarks.ingest import general_path, make_payload
from eval_pipeline.traces.decode.otlp import PROTOBUF, decode_otlp
from eval_pipeline.traces.ingest.completeness import incomplete_traces
from eval_pipeline.traces.ingest.ingest import bulk_allocation
from eval_pipeline.traces.normalise.messages import clear_parse_cache
from eval_pipeline.traces.normalise.normaliser import normalise_batch
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.store.span_table import span_row
from eval_pipeline.traces.store.trace_store import TraceStore

STAGES = ("none", "decode", "normalise", "redact", "completeness", "store")


def main(stage: str, spans: int) -> None:
    """Set up (warm), then run the general path on ``spans`` spans up to ``stage``."""
    if stage not in STAGES:
        raise SystemExit(f"unknown stage {stage!r}: {', '.join(STAGES)}")
    last = STAGES.index(stage)
    payload = make_payload(spans)
    policy = load_policy("default")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        general_path(make_payload(16), policy, root / "warm")
        clear_parse_cache()
        with bulk_allocation():
            if last < 1:
                return
            spans_ = decode_otlp(payload, content_type=PROTOBUF, source="bench").spans
            if last < 2:
                return
            spans_ = normalise_batch(spans_)
            if last < 3:
                return
            spans_ = Redactor(policy).redact_batch(spans_)
            if last < 4:
                return
            rows = list(map(span_row, spans_))
            incomplete_traces(rows)
            if last < 5:
                return
            TraceStore(root / "general").write_rows(rows, day="2026-01-01")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4000)
