"""BFCL model results ingest as a replay build, through the one ingest function.

BFCL model results ingest as a replay build: one run per question with the eval context on
the root span and one execute_tool span per call in the model output; both BFCL output styles
parse, unparseable output yields a run without calls, and bad lines are reported. The spans go
through ``traces.ingest.ingest``: redacted with the given policy (personal data in kept
arguments becomes tokens) and judged for completeness (runs without recorded usage say so).
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.importers.benchmarks.bfcl_results import ingest_bfcl_results, parse_output
from eval_pipeline.traces.redact.redactor import load_policy
from eval_pipeline.traces.store.trace_store import TraceStore

DATA = Path(__file__).resolve().parents[3] / "data/bfcl_questions"
QUESTIONS = DATA / "BFCL_v4_simple_python.jsonl.gz"
ANSWERS = DATA / "BFCL_v4_simple_python_possible_answer.jsonl.gz"
RESULTS = DATA / "synthetic_results/BFCL_v4_simple_python_result.json"


def test_both_bfcl_output_styles_parse() -> None:
    assert parse_output("[math.factorial(number=5), f(x='a')]") == [
        ("math.factorial", {"number": 5}),
        ("f", {"x": "a"}),
    ]
    assert parse_output([{"math.hypot": '{"x": 4, "y": 5}'}]) == [("math.hypot", {"x": 4, "y": 5})]
    assert parse_output("I cannot help with that.") is None
    assert parse_output([{"f": "not json"}]) is None


def test_synthetic_results_become_one_run_per_question(tmp_path: Path) -> None:
    store = TraceStore(tmp_path / "store")
    report = ingest_bfcl_results(
        [RESULTS],
        questions=QUESTIONS,
        answers=ANSWERS,
        build="bfcl-synth",
        store=store,
        policy=load_policy("keep-tools"),
    )
    assert report.ok, report.errors
    assert len(report.ingest.traces) == 400
    runs = {run.eval_context.item_id: run for run in store.runs("bfcl-synth")}
    assert len(runs) == 400
    first = runs["simple_python_0"]
    assert first.eval_context.build_id == "bfcl-synth"
    assert first.eval_context.dataset == "benchmark/bfcl-simple-python"
    assert first.tool_calls[0].name == "calculate_triangle_area"
    assert first.tool_calls[0].arguments == {"base": 10, "height": 5, "unit": "units"}
    assert runs["simple_python_7"].tool_names[0].endswith("_v2")
    assert runs["simple_python_19"].tool_calls == ()
    assert len(runs["simple_python_23"].tool_calls) == 2
    again = ingest_bfcl_results(
        [RESULTS], questions=QUESTIONS, answers=ANSWERS, build="bfcl-synth", store=store
    )
    assert again.ingest.spans_stored == 0


def test_unknown_and_repeated_ids_are_reported(tmp_path: Path) -> None:
    results = tmp_path / "result.json"
    rows = [
        {"id": "simple_python_1", "result": "[math.factorial(number=5)]"},
        {"id": "simple_python_1", "result": "[math.factorial(number=5)]"},
        {"id": "nope_1", "result": "[]"},
    ]
    results.write_text("\n".join(json.dumps(r) for r in rows))
    report = ingest_bfcl_results(
        [results], questions=QUESTIONS, answers=ANSWERS, build="b", store=TraceStore(tmp_path / "s")
    )
    assert len(report.ingest.traces) == 1
    assert [e.field for e in report.errors] == ["line 2", "line 3"]
    assert "answered twice" in str(report.errors[0])


def test_ingest_cli_with_bfcl_format() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "ingest",
            "--format",
            "bfcl",
            "--questions",
            str(QUESTIONS),
            "--answers",
            str(ANSWERS),
            str(RESULTS),
            "--build",
            "bfcl-cli",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "400 trace(s)" in result.output
    runs = TraceStore(current_home().store).runs("bfcl-cli")
    assert len(runs) == 400
    # The default redaction policy drops tool arguments unless tools are opted in.
    assert all(call.arguments is None for run in runs for call in run.tool_calls)


def test_bfcl_spans_are_redacted_and_judged_by_ingest(tmp_path: Path) -> None:
    results = tmp_path / "result.json"
    rows = [
        {"id": "simple_python_1", "result": [{"send": {"to": "ada@example.com"}}]},
        {
            "id": "simple_python_2",
            "result": "[math.factorial(number=5)]",
            "input_token_count": 90,
            "output_token_count": 12,
        },
    ]
    results.write_text("\n".join(json.dumps(r) for r in rows))
    store = TraceStore(tmp_path / "s")
    report = ingest_bfcl_results(
        [results],
        questions=QUESTIONS,
        answers=ANSWERS,
        build="b",
        store=store,
        policy=load_policy("keep-tools"),
    )
    assert report.ok and len(report.ingest.traces) == 2
    runs = {run.eval_context.item_id: run for run in store.runs("b")}
    (call,) = runs["simple_python_1"].tool_calls
    assert str(call.arguments["to"]).startswith("[EMAIL:")
    # The first line records no token usage: the report names its trace, the second is complete.
    assert set(report.ingest.incomplete) == {runs["simple_python_1"].trace_id}
    assert "no token usage" in report.ingest.incomplete[runs["simple_python_1"].trace_id][0]
