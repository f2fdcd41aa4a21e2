"""Library judge metrics run in a suite, through the suite's judge and nothing else.

A suite whose ``judge:`` block names a model served by an OpenAI-compatible endpoint (here a
scripted server on loopback) and lists a judged DeepEval metric and a judged RAGAS metric gets
them scored by ``eval-pipeline score``: every library LLM call goes through the suite's judge,
so the rows carry its fingerprint, a 503 from the endpoint is retried by the judge, and scoring
the same runs again is answered from the judge cache (no request reaches the endpoint).
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext, Message, Operation, StatusCode
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.scoring.builders import make_span
from eval_pipeline_tests.scoring.scripted_endpoint import scripted_endpoint

ITEM = "v1-test-5"  # an item of the shipped golden/support-agent-refunds-v1
METRICS = ("deepeval.faithfulness", "ragas.faithfulness")


def _suite(tmp_path: Path, base_url: str) -> Path:
    path = tmp_path / "library-judges.yaml"
    path.write_text(
        "suite: library-judges\n"
        "risk_tier: low\n"
        "datasets:\n  - name: golden/support-agent-refunds-v1\n"
        "runs_per_item: 1\n"
        "judge:\n"
        "  model: gpt-4o\n"
        "  rubric_version: '1'\n"
        "  calibration_set: human-labels/agent-faithfulness-v1\n"
        f"  base_url: '{base_url}'\n"
        "metrics:\n"
        + "".join(f"  - {{id: {m}, threshold: 0.5, max_regression: 0.1}}\n" for m in METRICS)
    )
    return path


def _store_run(build: str) -> None:
    trace = f"{1:032x}"
    context = EvalContext(build_id=build, suite="library-judges", item_id=ITEM, run_index=0)
    root = make_span(
        Operation.INVOKE_AGENT,
        trace_id=trace,
        agent_name="support",
        name="invoke_agent support",
        start_time_unix_nano=1_000,
        end_time_unix_nano=2_000_000,
        attributes=eval_context.to_attributes(context),
        input_messages=(Message("user", ({"type": "text", "content": "Where is my order W1?"},)),),
    )
    tool = make_span(
        Operation.EXECUTE_TOOL,
        trace_id=trace,
        parent_span_id=root.span_id,
        name="execute_tool get_order",
        tool_name="get_order",
        tool_arguments={"order_id": "W1"},
        tool_result='{"order_id": "W1", "status": "shipped"}',
        status_code=StatusCode.OK,
        start_time_unix_nano=2_000,
        end_time_unix_nano=3_000,
    )
    chat = make_span(
        Operation.CHAT,
        trace_id=trace,
        parent_span_id=root.span_id,
        name="chat gpt-4.1",
        model="gpt-4.1",
        start_time_unix_nano=4_000,
        end_time_unix_nano=5_000,
        output_messages=(
            Message("assistant", ({"type": "text", "content": "Order W1 has shipped."},)),
        ),
    )
    TraceStore(current_home().ensure().store).write_spans([root, tool, chat], build=build)


def _rows(runner: CliRunner) -> dict[str, dict[str, object]]:
    out = runner.invoke(cli, ["scores", "--build", "cand", "--format", "json"])
    assert out.exit_code == 0, out.output
    return {
        str(r["metric_id"]): r
        for r in json.loads(out.output)
        if r["item_id"] == ITEM and r["run_index"] == 0
    }


def test_judged_deepeval_and_ragas_metrics_score_through_the_suite_judge(tmp_path: Path) -> None:
    runner = CliRunner()
    _store_run("cand")
    with scripted_endpoint(fail_first=1) as endpoint:
        suite = _suite(tmp_path, endpoint.url)
        first = runner.invoke(cli, ["score", "--suite", str(suite), "--build", "cand"])
        assert first.exit_code == 0, first.output
        rows = _rows(runner)
        asked = len(endpoint.requests)

        again = runner.invoke(cli, ["score", "--suite", str(suite), "--build", "cand"])
        assert again.exit_code == 0, again.output
        assert len(endpoint.requests) == asked  # every library call answered by the cache
        assert _rows(runner) == rows

    for metric in METRICS:
        row = rows[metric]
        assert row["status"] == "scored", (metric, row["reason"])
        assert 0.0 <= float(row["value"]) <= 1.0  # type: ignore[arg-type]
        assert row["judge_backend"] == "openai-compatible"
    assert rows[METRICS[0]]["judge_fingerprint"] == rows[METRICS[1]]["judge_fingerprint"]
    assert all(r["model"] == "gpt-4o" for r in endpoint.requests)
