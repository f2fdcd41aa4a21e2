"""The trace files people have: Collector JSON Lines, gzip files, folders of them.

The Collector's file exporter writes one OTLP/JSON request per line; rotated files are often
gzipped. Each line is one request (its errors name the file and line); a ``.gz`` file is read
decompressed whatever it holds, and a corrupt one is named as bad gzip, not as a truncated
protobuf; a folder's ``.jsonl`` and ``.gz`` files are ingested, not skipped.
"""

import gzip
import json

from eval_pipeline.importers.traces.files import expand, ingest_files
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import AGENTS, OTEL

COLLECTOR = OTEL / "collector_file_exporter"


def _span_ids(store: TraceStore) -> set[str]:
    return {s.span_id for b in store.builds() for s in store.read_spans(b)}


def _originals(tmp_path, *names: str) -> set[str]:
    store = TraceStore(tmp_path / "originals")
    ingest_files([AGENTS / name for name in names], store=store)
    return _span_ids(store)


def test_collector_json_lines_ingest_one_request_per_line(tmp_path):
    store = TraceStore(tmp_path / "s")
    result = ingest_files([COLLECTOR / "traces.jsonl"], store=store)
    assert result.ingest.errors == [] and result.ingest.batches == 2
    assert _span_ids(store) == _originals(
        tmp_path, "test_agent_spans.otlp.json", "test_agent_with_function_tool_spans.otlp.json"
    )


def test_a_gzipped_rotated_file_is_read_decompressed(tmp_path):
    store = TraceStore(tmp_path / "s")
    result = ingest_files([COLLECTOR / "traces-rotated.jsonl.gz"], store=store)
    assert result.ingest.errors == []
    assert _span_ids(store) == _originals(tmp_path, "test_agent_with_handoff_spans.otlp.json")


def test_a_gzipped_protobuf_or_json_request_is_read_too(tmp_path):
    source = AGENTS / "test_agent_spans.otlp.json"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "request.json.gz").write_bytes(gzip.compress(source.read_bytes()))
    store = TraceStore(tmp_path / "s")
    assert ingest_files([tmp_path / "in"], store=store).ingest.errors == []
    assert _span_ids(store) == _originals(tmp_path, source.name)


def test_a_corrupt_gzip_file_is_named_as_such(tmp_path):
    bad = tmp_path / "traces.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"resourceSpans": []}\n')[:12])
    result = ingest_files([bad], store=TraceStore(tmp_path / "s"))
    (error,) = result.ingest.errors
    assert str(bad) in str(error) and "gzip" in str(error) and "protobuf" not in str(error)


def test_a_bad_line_is_named_and_the_other_lines_are_stored(tmp_path):
    lines = (COLLECTOR / "traces.jsonl").read_text().splitlines()
    path = tmp_path / "traces.jsonl"
    path.write_text(lines[0] + "\n{not json\n" + lines[1] + "\n")
    store = TraceStore(tmp_path / "s")
    result = ingest_files([path], store=store)
    (error,) = result.ingest.errors
    assert f"{path}:2" in str(error)
    assert len(_span_ids(store)) == sum(
        len(rs["spans"])
        for line in lines
        for r in json.loads(line)["resourceSpans"]
        for rs in r["scopeSpans"]
    )


def test_folders_include_json_lines_and_gzip_files():
    found = {p.name for p in expand([COLLECTOR])}
    assert found == {"traces.jsonl", "traces-rotated.jsonl.gz"}
