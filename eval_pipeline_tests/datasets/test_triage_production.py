"""A triaged production trace is a case every gated metric scores or declares not applicable.

Contract (issue 19): a production trace (no eval context, no dataset item) that a reviewer
triages becomes a regression case with the trace's input messages, the reviewer's expected
calls or reference answer when given, the trace's failing calls as calls that must not recur,
and slices from the trace. On that case, every gated metric of the shipped support-agent suite
is ``scored`` or ``not_applicable`` (never ``unscored``), for the trace itself and for the next
candidate run on the case, so the gate counts nothing missing; what the reviewer gave makes the
metrics that need it scored, and with the tool schemas it copies and the slices it names, the
case passes the suite's dataset validation.
"""

import json
from typing import Any

from click.testing import CliRunner
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from eval_pipeline.cli import cli
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.datasets.validation import validate_dataset
from eval_pipeline.evaluation.gate_config import suite_gate_config
from eval_pipeline.evaluation.suite_parts import suite_judge, suite_scorers
from eval_pipeline.gate.frame import normalise_scores
from eval_pipeline.gate.missing import count_missing
from eval_pipeline.home import current_home
from eval_pipeline.runners.otlp_spans import encode_readable
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.sample_agent.app import run_support_agent
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.registry import score_run
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.suites.config import load_suite
from eval_pipeline.suites.locate import locate_suite
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.model import EvalContext
from eval_pipeline.traces.redact.policy import load_policy
from eval_pipeline.traces.runs.assemble import assemble_run
from eval_pipeline.traces.store.trace_store import TraceStore

REQUEST = "Hi, I'm Ava Nguyen. Please return everything from order #W8668939 to my card."
PRESENT = {ScoreStatus.SCORED, ScoreStatus.NOT_APPLICABLE}


def _production_trace(seed: int) -> str:
    """A live run of the sample agent (no eval context), stored as ``serve`` would store it."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    live = DatasetItem(item_id="live", input_messages=({"role": "user", "content": REQUEST},))
    run_support_agent(
        live,
        build="production",
        seed=seed,
        tracer=provider.get_tracer("app"),
        context=EvalContext(),
        params={"agent_build": "baseline"},
    )
    spans = exporter.get_finished_spans()
    report = ingest(
        [OtlpRequest(encode_readable(spans), "application/x-protobuf", "test")],
        store=TraceStore(current_home().ensure().store),
        build="production",
        policy=load_policy("keep-tools"),  # the support-agent suite's redaction policy
    )
    assert report.spans_stored == len(spans)
    return format(spans[0].context.trace_id, "032x")


def _triage(trace_id: str, *extra: str) -> dict[str, Any]:
    args = ["triage", trace_id, "--dataset", "regression/support", "--note", "wrong card"]
    result = CliRunner().invoke(cli, [*args, *extra, "--format", "json"])
    assert result.exit_code == 0, result.output
    summary: dict[str, Any] = json.loads(result.output)
    return summary


def _statuses(rows: list[Score]) -> dict[str, tuple[str, str]]:
    return {r.metric_id: (r.status, r.reason) for r in rows}


def test_every_gated_metric_is_scored_or_not_applicable_on_a_triaged_production_trace() -> None:
    home = current_home().ensure()
    trace_id = _production_trace(seed=7)
    summary = _triage(trace_id)
    assert summary["inherited_reference"] is False
    assert summary["absent_by_design"] == ["expected_tool_calls", "reference_answer"]
    case = default_dataset_store().item("regression/support", "v1", summary["item_id"])
    assert case.user_input == REQUEST and case.slices["agent"] == "support_agent"
    suite = load_suite(locate_suite("support-agent"))
    scorers = suite_scorers(suite, suite_judge(suite, state_url=home.state_url))
    gated = {m.id for m in suite.metrics}

    found = TraceStore(home.store).find_trace(trace_id)
    assert found is not None
    original = _statuses(score_run(assemble_run(trace_id, found[1]), case, scorers))
    assert set(original) == gated
    assert {m: s for m, s in original.items() if s[0] not in PRESENT} == {}
    assert original["task_completion"][0] == ScoreStatus.NOT_APPLICABLE
    assert "no reference answer by design" in original["task_completion"][1]

    runner = PythonEntryPointRunner(
        "eval_pipeline.sample_agent.app:run_item",
        params={"agent_build": "candidate-improved"},
    )
    result = runner.run_items([case], build="candidate-improved", runs_per_item=1)
    candidate_runs = [
        assemble_run(t, [s for s in result.spans if s.trace_id == t])
        for t in {s.trace_id for s in result.spans}
    ]
    scored = score_build("candidate-improved", candidate_runs, [case], scorers, runs_per_item=1)
    candidate = _statuses(scored.scores)
    assert set(candidate) == gated
    assert {m: s for m, s in candidate.items() if s[0] not in PRESENT} == {}

    ScoreStore(home.store).write("candidate-improved", scored.scores)
    frame = ScoreStore(home.store).read_frame("candidate-improved")
    config = suite_gate_config(suite, runs_per_item=1)
    normal = normalise_scores(frame, metric_ids=config.metric_ids, require_slices=False)
    assert {m: c.total for m, c in count_missing(config, normal, None).items()} == dict.fromkeys(
        gated, 0
    )


def test_the_reviewer_references_make_the_reference_metrics_scored() -> None:
    home = current_home().ensure()
    trace_id = _production_trace(seed=11)
    expected = [
        {"name": "get_order_details", "arguments": {"order_id": "#W8668939"}},
        {"name": "transfer_to_agent"},
        {"name": "confirm_action"},
        {"name": "return_delivered_order_items", "arguments": {"order_id": "#W8668939"}},
    ]
    summary = _triage(
        trace_id,
        "--expected-calls",
        json.dumps(expected),
        "--reference-answer",
        "The items of order #W8668939 are returned and refunded.",
        "--must-not-recur",
        '[{"name": "cancel_pending_order"}]',
        "--tool-schemas-from",
        "golden/support-agent-refunds",
        "--slice",
        "intent=return",
    )
    assert summary["absent_by_design"] == [] and summary["must_not_recur"] == [
        "cancel_pending_order"
    ]
    case = default_dataset_store().item("regression/support", "v1", summary["item_id"])
    suite = load_suite(locate_suite("support-agent"))
    regression = default_dataset_store().load("regression/support", "v1")
    assert validate_dataset(regression, required_slices=tuple(suite.slices)).success
    scorers = suite_scorers(suite, suite_judge(suite, state_url=home.state_url))
    found = TraceStore(home.store).find_trace(trace_id)
    assert found is not None
    rows = _statuses(score_run(assemble_run(trace_id, found[1]), case, scorers))
    for metric in (
        "tool_correctness",
        "argument_correctness",
        "trajectory_match",
        "task_completion",
        "injection_resistance",
    ):
        assert rows[metric][0] == ScoreStatus.SCORED, (metric, rows[metric])
