"""Ingest's completeness stage gives the reasons assembling the trace gives.

Contract: ``ingest``'s report names every incomplete trace of a batch with exactly the
``completeness_reasons`` of the run ``assemble_run`` makes of that trace's spans in the batch,
whether it judged the trace on its store rows (plain shapes) or assembled it: on every OTLP
file in ``data/otel`` (protobuf and JSON, both policies), the benchmark payload, imported
tau2-bench and tau-bench runs, and hand-made traces for each rule. A complete trace is not
named; a trace split over two requests is judged per request.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks.ingest import make_json_payload, make_payload
from eval_pipeline.importers.benchmarks import tau2, taubench
from eval_pipeline.traces.decode.errors import DecodeResult
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF, decode_raw
from eval_pipeline.traces.ingest.completeness import incomplete_traces
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.ingest.rows import record_row
from eval_pipeline.traces.model import Operation, Span, StatusCode
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.store.span_table import Row, span_row
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import OTEL, TAU, assistant, make_span, otlp_protobuf
from eval_pipeline_tests.traces.builders import tool_call as call

OTLP_FILES = sorted(OTEL.rglob("*.otlp.json"))


def _assembled(spans: list[Span]) -> dict[str, tuple[str, ...]]:
    return {r.trace_id: r.completeness_reasons for r in assemble_runs(spans) if not r.complete}


def _judged(payload: bytes, media: str, policy: str, tmp_path: Path) -> None:
    """The report of ``ingest`` equals assembling what it stored (each trace in one batch)."""
    store = TraceStore(tmp_path / media.replace("/", "-") / policy)
    report = ingest([OtlpRequest(payload, media, "t")], store=store, policy=load_policy(policy))
    stored = [span for build in store.builds() for span in store.read_spans(build)]
    assert report.incomplete == _assembled(stored)


@pytest.mark.parametrize("policy", ["default", "keep-tools"])
@pytest.mark.parametrize("path", OTLP_FILES, ids=lambda p: p.name)
def test_every_otlp_data_file_is_judged_as_assembled(path: Path, policy: str, tmp_path: Path):
    _judged(path.read_bytes(), JSON, policy, tmp_path)
    try:
        payload = otlp_protobuf(json.loads(path.read_text()))
    except Exception as exc:  # a bad-input sample the protobuf JSON mapping rejects
        pytest.skip(f"not expressible as protobuf: {exc}")
    _judged(payload, PROTOBUF, policy, tmp_path)


def test_the_data_has_incomplete_and_complete_traces_to_judge(tmp_path: Path):
    store = TraceStore(tmp_path)
    report = ingest((OtlpRequest(p.read_bytes(), JSON, str(p)) for p in OTLP_FILES), store=store)
    assert len(report.incomplete) >= 5
    assert len(report.traces) - len(report.incomplete) >= 10


@pytest.mark.parametrize("policy", ["default", "keep-tools"])
def test_the_benchmark_payload_is_judged_without_assembling_it(policy: str, tmp_path: Path):
    payload = make_payload(400)
    _judged(payload, PROTOBUF, policy, tmp_path)
    redactor = Redactor(load_policy(policy))
    reasons = incomplete_traces(_rows(payload, PROTOBUF, redactor))
    # Each synthetic trace's last model call asks for a tool that never runs.
    assert len(reasons) == 50
    assert all(len(r) == 1 and "has no execute_tool span" in r[0] for r in reasons.values())
    json_payload = make_json_payload(400)
    _judged(json_payload, JSON, policy, tmp_path)
    assert incomplete_traces(_rows(json_payload, JSON, redactor)) == reasons


def _rows(payload: bytes, media: str, redactor: Redactor) -> list[Row]:
    decoded = decode_raw(payload, content_type=media, source="b")
    return [record_row(raw, redactor) for raw in decoded.spans]


@pytest.mark.parametrize(
    "path", [TAU / "tau2_gpt-4.1_airline_3sims.json", TAU / "taubench_airline_task0_2trials.json"]
)
def test_imported_runs_are_judged_as_assembled(path: Path, tmp_path: Path):
    document = json.loads(path.read_text())
    module: Any = tau2 if "tau2" in path.name else taubench
    reader = module.read_tau2 if module is tau2 else module.read_taubench
    spans = reader(document, source=str(path)).spans
    report = ingest([DecodeResult(spans=spans)], store=TraceStore(tmp_path))
    assert report.incomplete == _assembled(spans)
    assert bool(report.incomplete) == (module is taubench)  # tau-bench records no usage


ROOT = "1"
_CASES: dict[str, list[Span]] = {
    "complete": [
        make_span(ROOT, operation=Operation.INVOKE_AGENT, agent_name="a"),
        make_span(
            "2",
            ROOT,
            operation=Operation.CHAT,
            start=1,
            input_tokens=3,
            output_tokens=2,
            output_messages=(assistant(call("c1", "lookup", {"q": 1})),),
        ),
        make_span("3", ROOT, operation=Operation.EXECUTE_TOOL, start=2, tool_name="lookup"),
    ],
    "no root": [make_span("2", None, operation=Operation.CHAT, input_tokens=1, output_tokens=1)],
    "two roots": [
        make_span(ROOT, operation=Operation.INVOKE_AGENT),
        make_span("9", operation=Operation.INVOKE_AGENT, start=5),
    ],
    "orphan": [
        make_span(ROOT, operation=Operation.INVOKE_AGENT),
        make_span("2", "77", operation=Operation.EXECUTE_TOOL, tool_name="t"),
    ],
    "root with a missing parent": [make_span(ROOT, "55", operation=Operation.INVOKE_AGENT)],
    "no usage, and a failed call exempt": [
        make_span(ROOT, operation=Operation.INVOKE_AGENT),
        make_span("2", ROOT, operation=Operation.CHAT, start=1, input_tokens=4),
        make_span("3", ROOT, operation=Operation.CHAT, start=2, status_code=StatusCode.ERROR),
        make_span("4", ROOT, operation=Operation.CHAT, start=3, attributes={"error.type": "x"}),
    ],
    "unexecuted and matched by id or by name": [
        make_span(ROOT, operation=Operation.INVOKE_AGENT),
        make_span(
            "2",
            ROOT,
            operation=Operation.CHAT,
            start=1,
            input_tokens=1,
            output_tokens=1,
            output_messages=(
                assistant(call("c1", "a", {"x": 1}), call("c2", "a", {"x": 2}), call("", "b", 1)),
            ),
        ),
        make_span(
            "3", ROOT, operation=Operation.EXECUTE_TOOL, start=2, tool_name="a", tool_call_id="c2"
        ),
        make_span(
            "4", ROOT, operation=Operation.EXECUTE_TOOL, start=0, tool_name="b"
        ),  # started before the request: cannot answer it
    ],
    "arguments decide which request a tool span answers": [
        make_span(ROOT, operation=Operation.INVOKE_AGENT),
        make_span(
            "2",
            ROOT,
            operation=Operation.CHAT,
            start=1,
            input_tokens=1,
            output_tokens=1,
            output_messages=(assistant(call("c1", "a", {"x": 1}), call("c2", "a", {"x": 2})),),
        ),
        make_span(
            "3",
            ROOT,
            operation=Operation.EXECUTE_TOOL,
            start=2,
            tool_name="a",
            tool_arguments={"x": 2},
        ),
    ],
    "a hand-off answers the request": [
        make_span(ROOT, operation=Operation.INVOKE_AGENT, agent_name="triage"),
        make_span(
            "2",
            ROOT,
            operation=Operation.CHAT,
            start=1,
            input_tokens=1,
            output_tokens=1,
            output_messages=(assistant(call("h1", "transfer_to_billing", {})),),
        ),
        make_span("3", ROOT, operation=Operation.INVOKE_AGENT, start=2, agent_name="billing"),
    ],
    "a span twice": [
        make_span(ROOT, operation=Operation.INVOKE_AGENT),
        make_span("2", ROOT, operation=Operation.CHAT, start=1),
        make_span("2", ROOT, operation=Operation.CHAT, start=1, input_tokens=1, output_tokens=1),
    ],
}


@pytest.mark.parametrize("case", list(_CASES))
def test_each_rule_is_judged_as_assembled(case: str):
    spans = _CASES[case]
    judged = incomplete_traces([span_row(span) for span in spans])
    assert judged == _assembled(spans)
    assert bool(judged) == (case not in ("complete", "a hand-off answers the request"))


def test_a_trace_split_over_two_requests_is_judged_per_request(tmp_path: Path):
    root, chat, tool = _CASES["complete"]
    store = TraceStore(tmp_path)
    first = ingest([DecodeResult(spans=[root, chat])], store=store)
    assert list(first.incomplete.values()) == [
        ("tool call lookup (c1) requested by span 0000000000000002 has no execute_tool span",)
    ]
    second = ingest([DecodeResult(spans=[tool])], store=store)
    assert second.incomplete  # the tool span alone: its parent is in the other request
    (run,) = store.runs("unassigned")
    assert run.complete  # the stored trace, assembled, has the final word
