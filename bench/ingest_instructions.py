"""One run of an ingest path, for instruction counts under callgrind (issue 15's figures).

Wall and CPU times swing with the load on a shared machine; instruction counts do not. Run::

    valgrind --tool=callgrind python bench/ingest_instructions.py MODE [SPANS]

with MODE ``none`` (set-up only), ``ref`` (the benchmark's plain protobuf-to-Parquet walk),
``fast`` (``ingest``, the fast path) or ``general`` (``benchmarks.ingest.general_path``), with
``PYTHONPATH=.``. A path's count is its run's total minus the ``none`` run's (same SPANS,
default 4,000). Every run first ingests a small request each way, so imports and first-call
set-up are in the ``none`` count too.
"""

import sys
import tempfile
from pathlib import Path

from eval_pipeline.benchmarks.ingest import _pipeline, general_path, make_payload, reference
from eval_pipeline.traces.normalise.messages import clear_parse_cache
from eval_pipeline.traces.redact.redactor import load_policy
from eval_pipeline.traces.store.trace_store import TraceStore


def main(mode: str, spans: int) -> None:
    """Set up (warm), then run the path ``mode`` names on a payload of ``spans`` spans."""
    payload = make_payload(spans)
    small = make_payload(16)
    policy = load_policy("default")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        reference(small, root)
        _pipeline(small, TraceStore(root / "warm"), policy)
        general_path(small, policy, root / "warm-general")
        clear_parse_cache()
        if mode == "ref":
            reference(payload, root)
        elif mode == "fast":
            _pipeline(payload, TraceStore(root / "fast"), policy)
        elif mode == "general":
            general_path(payload, policy, root / "general")
        elif mode != "none":
            raise SystemExit(f"unknown mode {mode!r}: none, ref, fast or general")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4000)
