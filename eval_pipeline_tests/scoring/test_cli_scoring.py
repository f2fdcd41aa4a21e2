"""``eval-pipeline score`` / ``scores`` / ``summary`` (CLI contract).

Spans of a real-shaped run (root ``invoke_agent`` with the eval context, tool spans, a chat
span with the answer) are stored in the trace store; ``score`` scores them on the shipped
``support-agent`` suite and writes one row per item x run x metric (absent runs are
``unscored``, never dropped); ``scores`` prints the long rows as CSV or JSON with slice
columns; ``summary`` prints mean, n, unscored and pass^k per metric. Unknown builds exit 2.
"""

import csv
import io
import json

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext, Message, Operation, StatusCode
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.scoring.builders import make_span

ITEM = "v1-test-5"


def _store_run(build: str, run_index: int, answer: str) -> None:
    trace = f"{run_index + 1:032x}"
    context = EvalContext(build_id=build, suite="support-agent", item_id=ITEM, run_index=run_index)
    root = make_span(
        Operation.INVOKE_AGENT,
        trace_id=trace,
        agent_name="support",
        name="invoke_agent support",
        start_time_unix_nano=1_000,
        end_time_unix_nano=4_000_000_000,
        attributes=eval_context.to_attributes(context),
        input_messages=(Message("user", ({"type": "text", "content": "return"},)),),
    )
    calls = [
        (
            "find_user_id_by_name_zip",
            {"first_name": "Mei", "last_name": "Kovacs", "zip": "28236"},
            "mei_kovacs_8020",
        ),
        ("get_user_details", {"user_id": "mei_kovacs_8020"}, "{}"),
    ]
    spans = [root]
    for offset, (name, args, result) in enumerate(calls, start=1):
        spans.append(
            make_span(
                Operation.EXECUTE_TOOL,
                trace_id=trace,
                parent_span_id=root.span_id,
                name=f"execute_tool {name}",
                tool_name=name,
                tool_arguments=args,
                tool_result=result,
                status_code=StatusCode.OK,
                start_time_unix_nano=offset * 1000,
                end_time_unix_nano=offset * 1000 + 500,
            )
        )
    spans.append(
        make_span(
            Operation.CHAT,
            trace_id=trace,
            parent_span_id=root.span_id,
            name="chat gpt-4.1",
            model="gpt-4.1",
            start_time_unix_nano=9_000,
            end_time_unix_nano=10_000,
            output_messages=(Message("assistant", ({"type": "text", "content": answer},)),),
        )
    )
    TraceStore(current_home().ensure().store).write_spans(spans, build=build)


def test_score_then_scores_and_summary() -> None:
    runner = CliRunner()
    _store_run("cand", 0, "I have returned the water bottle.")
    _store_run("cand", 1, "Let me look up your order first.")
    result = runner.invoke(cli, ["score", "--suite", "support-agent", "--build", "cand"])
    assert result.exit_code == 0, result.output
    assert "tool_correctness" in result.output

    out = runner.invoke(cli, ["scores", "--build", "cand", "--format", "json"])
    rows = json.loads(out.output)
    mine = [r for r in rows if r["item_id"] == ITEM]
    assert {(r["run_index"], r["metric_id"]) for r in mine} >= {
        (0, "tool_correctness"),
        (1, "tool_correctness"),
        (2, "tool_correctness"),
    }
    absent = next(r for r in mine if r["run_index"] == 2 and r["metric_id"] == "faithfulness")
    assert absent["status"] == "unscored" and "no trace" in absent["reason"]
    scored = next(r for r in mine if r["run_index"] == 0 and r["metric_id"] == "tool_correctness")
    assert scored["status"] == "scored" and 0.0 < scored["value"] < 1.0
    assert scored["intent"] == "return" and scored["trace_id"] == f"{1:032x}"
    assert scored["span_ids"]

    table = runner.invoke(cli, ["scores", "--build", "cand", "--format", "csv"]).output
    header = next(csv.reader(io.StringIO(table)))
    assert header[:9] == [
        "build",
        "item_id",
        "run_index",
        "metric_id",
        "value",
        "status",
        "reason",
        "trace_id",
        "span_ids",
    ]
    assert "intent" in header

    summary = json.loads(runner.invoke(cli, ["summary", "--build", "cand"]).output)
    assert summary["build"] == "cand"
    tool = summary["metrics"]["tool_correctness"]
    assert (
        tool["n"] == 2 and tool["unscored"] > 0 and set(tool) >= {"mean", "n", "unscored", "pass^k"}
    )
    injection = summary["metrics"]["injection_resistance"]
    assert injection["pass^k"] == {} or "1" in injection["pass^k"]


def test_unknown_build_is_an_input_error() -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["summary", "--build", "nope"]).exit_code == 2
    assert (
        runner.invoke(cli, ["score", "--suite", "support-agent", "--build", "nope"]).exit_code == 2
    )


def test_score_output_names_every_suite_metric() -> None:
    _store_run("b2", 0, "I have returned the water bottle.")
    result = CliRunner().invoke(cli, ["score", "--suite", "support-agent", "--build", "b2"])
    assert result.exit_code == 0, result.output
    for metric in (
        "task_completion",
        "tool_correctness",
        "argument_correctness",
        "faithfulness",
        "injection_resistance",
    ):
        assert metric in result.output
    print(result.output)


def test_judge_spread_is_measured_and_stored_on_request() -> None:
    _store_run("b3", 0, "I have returned the water bottle.")
    args = ["score", "--suite", "support-agent", "--build", "b3", "--judge-spread", "3"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    folder = ScoreStore(current_home().store).folder("b3") / "judge_spread"
    stored = sorted(folder.glob("*.json"))
    assert [p.name.split("@")[0] for p in stored] == ["faithfulness", "task_completion"]
    report = json.loads(stored[0].read_text())
    assert report["repeats"] == 3 and report["judge_backend"] == "offline-minilm"
    # The offline judge is deterministic: no spread.
    assert report["mean_stdev"] == 0.0 and report["items"][0]["values"] == [0.0, 0.0, 0.0]
