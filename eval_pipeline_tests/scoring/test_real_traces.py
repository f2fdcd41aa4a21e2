"""Every built-in scorer runs on runs assembled from real OpenAI Agents OTLP samples.

The eight committed OpenAI Agents scenarios are decoded, normalised and assembled by the traces
package; each run is scored with every deterministic scorer and every judge-based scorer (a
deterministic test judge) against an item whose expected calls are the tools the sample
executed. No scorer errors; hand-off runs (and only they) get a ``handoff_quality`` score
(to the others it does not apply); the expected tools are found; no real answer is flagged as
a hallucinated action (an answer claiming nothing is not applicable); scoring the same runs
again gives identical rows.
"""

from pathlib import Path

import pytest

from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.scoring.registry import build_scorer, score_run, select_metric_ids
from eval_pipeline.traces.decode.otlp import JSON, decode_otlp
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.normalise.normaliser import normalise_spans
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline_tests.scoring.builders import make_item
from eval_pipeline_tests.scoring.judges_for_tests import OverlapJudge

SAMPLES = sorted(
    (
        Path(__file__).resolve().parents[2]
        / "data"
        / "otel"
        / "openai_agents__otel_contrib_instrumentation"
    ).glob("*.otlp.json")
)


def _run(path: Path) -> AgentRun:
    decoded = decode_otlp(path.read_bytes(), content_type=JSON, source=str(path))
    (run,) = assemble_runs(normalise_spans(decoded.spans))
    return run


def _scorers() -> list:  # type: ignore[type-arg]
    judge = OverlapJudge()
    return [build_scorer(m) for m in select_metric_ids(needs_judge=False)] + [
        build_scorer(m, judge=judge) for m in select_metric_ids(needs_judge=True)
    ]


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name.split(".")[0] for p in SAMPLES])
def test_real_run_scores_without_errors(path: Path) -> None:
    run = _run(path)
    item = make_item(
        path.stem,
        expected_tool_calls=tuple(ExpectedToolCall(name) for name in run.tool_names),
        required_entities=tuple(h.context.split()[0] for h in run.handoffs),
        input_messages=({"role": "user", "content": run.user_input or ""},),
    )
    rows = score_run(run, item, _scorers(), build="real")
    by_metric = {row.metric_id: row for row in rows}
    assert not [r for r in rows if r.status == "error"], [r.reason for r in rows]
    assert all(r.trace_id == run.trace_id for r in rows)
    assert (by_metric["handoff_quality"].status == "scored") == bool(run.handoffs)
    if run.handoffs:
        assert by_metric["handoff_quality"].value == 1.0
    if run.tool_calls:
        assert by_metric["tool_correctness"].value == 1.0
        assert by_metric["trajectory_match"].value == 1.0
    claims = by_metric["hallucinated_actions"]
    assert (claims.status, claims.value) in (("scored", 1.0), ("not_applicable", None)), claims
    assert by_metric["trace_completeness"].value == (1.0 if run.complete else 0.0)
    assert by_metric["answer_relevancy"].status == "scored"
    assert score_run(run, item, _scorers(), build="real") == rows


def test_samples_cover_handoffs_and_tools() -> None:
    runs = [_run(p) for p in SAMPLES]
    assert len(runs) == 8
    assert sum(bool(r.handoffs) for r in runs) >= 2
    assert sum(bool(r.tool_calls) for r in runs) >= 4
