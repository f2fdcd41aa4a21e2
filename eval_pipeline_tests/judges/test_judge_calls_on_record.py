"""Every judge call on the record: a chat span per request, named by the rows it made.

A build is scored by ``eval-pipeline score`` with a judged metric (``faithfulness``) and a
library judge metric (``ragas.faithfulness``) over a real OpenAI-compatible server on loopback
(``benchmarks.fake_llm``). The scoring job's judge calls are stored as OTel GenAI ``chat`` spans
under one trace, in the build's judge partition, redacted like any span (the run's question
carries an e-mail address that must not be stored raw); every judged row names the spans of the
calls that made it; a rescore answered by the cache makes no call and keeps the names; and
``traces show`` and the HTML report link a score to its calls and show the judge's cost. The
offline judge makes no call: its rows name none and no judge trace is written.
"""

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from benchmarks.fake_llm import FakeLLM, fake_llm
from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.home import current_home
from eval_pipeline.judges.call_refs import split_call
from eval_pipeline.judges.judge_trace import judge_build
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext, Message, Operation, Span, StatusCode
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.scoring.builders import make_span

ITEMS = ("v1-test-5", "v1-test-11", "v1-test-13")  # of golden/support-agent-refunds-v1
EMAIL = "jane.doe@example.com"
JUDGED = ("faithfulness", "ragas.faithfulness", "deepeval.faithfulness")
MODEL = "gpt-4o"


def _suite(tmp_path: Path, judge: str, base_url: str | None = None) -> Path:
    path = tmp_path / f"judged-{judge}.yaml"
    endpoint = f"  base_url: '{base_url}'\n" if base_url else ""
    metrics = JUDGED if base_url else ("faithfulness",)
    path.write_text(
        "suite: judged\n"
        "risk_tier: low\n"
        "datasets:\n  - name: golden/judged-v1\n"
        "runs_per_item: 1\n"
        "judge:\n"
        f"  model: {judge}\n"
        "  rubric_version: '1'\n"
        "  calibration_set: human-labels/agent-faithfulness-v1\n"
        f"{endpoint}"
        "metrics:\n"
        + "".join(f"  - {{id: {m}, threshold: 0.5, max_regression: 0.1}}\n" for m in metrics)
    )
    return path


def _publish_items() -> None:
    """The suite's dataset: three items of the shipped support dataset (each one evidence)."""
    shipped = DatasetStore(shipped_datasets_dir()).load("golden/support-agent-refunds", "v1")
    items = tuple(i for i in shipped.items if i.item_id in ITEMS)
    subset = replace(shipped, name="golden/judged", items=items, content_hash="")
    DatasetStore(current_home().ensure().datasets).publish(subset)


def _store_runs(build: str) -> list[str]:
    """One run per item, its question carrying an e-mail address; the trace ids."""
    _publish_items()
    traces = []
    for n, item in enumerate(ITEMS, start=1):
        trace = f"{n:032x}"
        context = EvalContext(build_id=build, suite="judged", item_id=item, run_index=0)
        question = f"Where is my order W{n}? Write to me at {EMAIL}."
        root = make_span(
            Operation.INVOKE_AGENT,
            trace_id=trace,
            agent_name="support",
            name="invoke_agent support",
            start_time_unix_nano=1_000,
            end_time_unix_nano=2_000_000,
            attributes=eval_context.to_attributes(context),
            input_messages=(Message("user", ({"type": "text", "content": question},)),),
            output_messages=(
                Message("assistant", ({"type": "text", "content": f"Order W{n} has shipped."},)),
            ),
        )
        tool = make_span(
            Operation.EXECUTE_TOOL,
            trace_id=trace,
            parent_span_id=root.span_id,
            name="execute_tool get_order",
            tool_name="get_order",
            tool_arguments={"order_id": f"W{n}"},
            tool_result=f'{{"order_id": "W{n}", "status": "shipped"}}',
            status_code=StatusCode.OK,
            start_time_unix_nano=2_000,
            end_time_unix_nano=3_000,
        )
        TraceStore(current_home().ensure().store).write_spans([root, tool], build=build)
        traces.append(trace)
    return traces


def _ok(runner: CliRunner, args: list[str]) -> str:
    out = runner.invoke(cli, args)
    assert out.exit_code == 0, out.output
    return out.output


def _judge_spans(build: str) -> list[Span]:
    return TraceStore(current_home().store).read_spans(judge_build(build))


def _rows(build: str) -> dict[tuple[str, str], Any]:
    return {(s.item_id or "", s.metric_id): s for s in ScoreStore(current_home().store).read(build)}


def _score(runner: CliRunner, server: FakeLLM, suite: Path) -> dict[str, Any]:
    return json.loads(
        _ok(runner, ["score", "--suite", str(suite), "--build", "cand", "--format", "json"])
    )


def test_every_judge_call_is_a_chat_span_named_by_the_rows_it_made(tmp_path: Path) -> None:
    runner = CliRunner()
    traces = _store_runs("cand")
    with fake_llm(latency=0.01) as server:
        suite = _suite(tmp_path, MODEL, server.url)
        first = _score(runner, server, suite)
        asked = server.requests
        rows = _rows("cand")
        spans = _judge_spans("cand")

        text = _ok(runner, ["score", "--suite", str(suite), "--build", "cand"])
        assert "judge calls" not in text  # the cache answered all: this job made none
        again = _score(runner, server, suite)
        assert server.requests == asked  # the cache answered: no new call
        assert again["judge_calls"] == 0
        assert {k: r.judge_calls for k, r in _rows("cand").items()} == {
            k: r.judge_calls for k, r in rows.items()
        }
        assert len(_judge_spans("cand")) == len(spans)  # the rescore stored no call

    chats = [s for s in spans if s.operation == Operation.CHAT]
    assert asked > 0 and len(chats) == asked  # one chat span per request the server saw
    assert len({s.trace_id for s in spans}) == 1  # one trace for the scoring job
    assert first["judge_calls"] == asked and first["judge_trace_id"] == spans[0].trace_id
    for span in chats:
        assert span.model == MODEL and span.attributes.get("gen_ai.request.model") == MODEL
        assert span.input_tokens == 1 and span.output_tokens == 1  # the server's usage
        assert span.end_time_unix_nano > span.start_time_unix_nano
        assert span.input_messages and span.input_messages[-1].role == "user"
        assert span.output_messages and span.output_messages[0].text  # the raw reply
    stored = json.dumps([[m.parts for m in s.input_messages] for s in chats])
    assert "Where is my order W1?" in stored  # the rendered prompt is on the record ...
    assert EMAIL not in stored  # ... redacted like any span
    assert "[EMAIL:" in stored

    known = {(s.trace_id, s.span_id) for s in chats}
    for item in ITEMS:
        for metric in JUDGED:
            row = rows[(item, metric)]
            assert row.status == "scored", (metric, row.reason)
            assert row.judge_calls, (item, metric)
            assert {split_call(ref) for ref in row.judge_calls} <= known

    exported = json.loads(_ok(runner, ["scores", "--build", "cand", "--format", "json"]))
    assert {(r["item_id"], r["metric_id"]): tuple(r["judge_calls"]) for r in exported} == {
        k: r.judge_calls for k, r in rows.items()
    }  # the export names them too

    # The cost of the build's judge calls: tokens x the price table, in the score summary.
    assert first["judge_input_tokens"] == asked and first["judge_output_tokens"] == asked
    assert abs(first["judge_cost_usd"] - asked * (2.50 + 10.00) / 1e6) < 1e-12

    # traces show: the judge trace shows the calls; an agent trace links its scores to them.
    judge_trace = spans[0].trace_id
    shown = _ok(runner, ["traces", "show", judge_trace, "--format", "json"])
    document = json.loads(shown)
    assert document["build"] == judge_build("cand")
    assert len(document["spans"][0]["children"]) == asked
    listed = json.loads(_ok(runner, ["traces", "list", "--format", "json"]))
    assert {r["build"] for r in listed} == {"cand"}  # judge calls never mix with agent runs
    judged = _ok(runner, ["traces", "list", "--build", judge_build("cand"), "--format", "json"])
    assert [r["trace_id"] for r in json.loads(judged)] == [judge_trace]
    agent = json.loads(_ok(runner, ["traces", "show", traces[0], "--format", "json"]))
    linked = {s["metric_id"]: s for s in agent["scores"]}
    assert linked["faithfulness"]["judge_calls"] == list(
        rows[(ITEMS[0], "faithfulness")].judge_calls
    )
    text = _ok(runner, ["traces", "show", traces[0]])
    first_call = rows[(ITEMS[0], "faithfulness")].judge_calls[0]
    assert split_call(first_call)[1] in text and judge_trace in text

    # The report: the trace pages link each score to its judge calls; the judge's cost shown.
    gated = runner.invoke(cli, ["gate", "--suite", str(suite), "--candidate", "cand"])
    assert gated.exit_code in (0, 1), gated.output  # decided (pass or fail), not broken
    page = Path(_ok(runner, ["report", "--build", "cand"]).strip().splitlines()[-1])
    html = page.read_text()
    assert "Judge calls" in html and f"{first['judge_cost_usd']:.6f}" in html
    assert f'id="trace-{traces[0]}"' in html  # the run's trace page (every item is evidence)
    for ref in rows[(ITEMS[0], "faithfulness")].judge_calls:
        trace_id, span_id = split_call(ref)  # its score links each call to its judge-trace line
        assert f'href="#span-{trace_id}-{span_id}"' in html
        assert f'id="span-{trace_id}-{span_id}"' in html


def test_the_offline_judge_makes_no_call_and_its_rows_name_none(tmp_path: Path) -> None:
    runner = CliRunner()
    _store_runs("cand")
    summary = json.loads(
        _ok(
            runner,
            [
                "score",
                "--suite",
                str(_suite(tmp_path, "offline-minilm")),
                "--build",
                "cand",
                "--format",
                "json",
            ],
        )
    )
    rows = _rows("cand")
    assert all(r.judge_calls == () for r in rows.values())
    assert summary["judge_calls"] == 0 and summary["judge_trace_id"] is None
    assert _judge_spans("cand") == []
