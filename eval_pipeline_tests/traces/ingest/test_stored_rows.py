"""What ingest stores is pinned: every OTLP data file and the benchmark payloads, both policies.

``stored_digests.json`` records, per policy and input, a digest of the stored rows (every
column, read back from the Parquet parts), the spans stored and rejected, the errors and the
incomplete traces, as the store wrote them before ingest had one path. Existing homes keep
working only while this holds (the store's schema and values unchanged).
"""

import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from benchmarks.ingest import make_json_payload, make_payload
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.redact.redactor import load_policy
from eval_pipeline.traces.store.trace_store import TraceStore

DATA = Path(__file__).parents[3] / "data" / "otel"
RECORDED = json.loads((Path(__file__).parent / "stored_digests.json").read_text())


def _inputs() -> dict[str, tuple[bytes, str]]:
    inputs = {
        path.name: (path.read_bytes(), JSON if path.suffix == ".json" else PROTOBUF)
        for path in sorted(DATA.rglob("*"))
        if path.is_file() and path.suffix in (".json", ".pb")
    }
    inputs["bench.pb"] = (make_payload(400), PROTOBUF)
    inputs["bench.json"] = (make_json_payload(400), JSON)
    return inputs


def _digest(root: Path) -> str:
    rows = []
    for part in sorted((root / "spans").glob("build=*/day=*/part-*.parquet")):
        rows += pq.read_table(part).to_pylist()
    rows.sort(key=lambda r: (r["trace_id"], r["span_id"]))
    text = json.dumps(rows, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize("policy", ["default", "keep-tools"])
def test_ingest_stores_what_it_stored_before(
    policy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_PIPELINE_REDACTION_KEY", "fixed-test-key")
    inputs = _inputs()
    assert {key.split(":", 1)[1] for key in RECORDED} == set(inputs)
    for name, (payload, media) in inputs.items():
        root = tmp_path / policy / name
        report = ingest(
            [OtlpRequest(payload, media, name)],
            store=TraceStore(root),
            policy=load_policy(policy),
            day="2026-01-01",
        )
        found = [
            _digest(root),
            report.spans_stored,
            report.spans_rejected,
            len(report.errors),
            [[trace, list(reasons)] for trace, reasons in sorted(report.incomplete.items())],
        ]
        assert found == RECORDED[f"{policy}:{name}"], name
