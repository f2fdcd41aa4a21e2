"""CLI contract for ingest, traces list/show and bench ingest.

CLI contract for `ingest`, `traces list`, `traces show` and `bench ingest`: every OTel
sample ingests; a batch with bad files exits 2 naming file, span and field while the good
data is stored; `traces list --format json` has the contract keys; `traces show` prints the
tree.
"""

import json
import shutil

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline_tests.traces.builders import AGENTS, OTEL, TAU, json_span, otlp_json

DEMO_FILE = AGENTS / "test_agent_with_function_tool_spans.otlp.json"


def _invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _list(*args):
    result = _invoke("traces", "list", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_every_otel_file_ingests():
    result = _invoke("ingest", OTEL, "--redaction-policy", "keep-tools")
    assert result.exit_code == 0, result.output
    assert "0 rejected" in result.output
    rows = _list()
    agent_rows = [r for r in rows if r["root_agent"]]
    # the eight OpenAI Agents scenarios + 4 synthetic runs + the SDK run with links
    assert len(agent_rows) == 8 + 4 + 1
    assert {r["dialect"] for r in rows} >= {"otel-genai", "openinference", "traceloop"}
    weather = next(r for r in rows if r["root_agent"] == "WeatherAgent")
    assert weather["tool_calls"] == ["get_weather"]
    assert weather["final_answer"].startswith("The weather in London is currently cloudy")
    triage = next(r for r in rows if r["root_agent"] == "TriageAgent")
    assert triage["handoffs"] == ["AgentA"] and triage["complete"] is True
    again = _invoke("ingest", OTEL)
    assert again.exit_code == 0 and "0 span(s) stored" in again.output


def test_demo_file_and_traces_show(tmp_path):
    result = _invoke("ingest", DEMO_FILE, "--build", "demo", "--redaction-policy", "keep-tools")
    assert result.exit_code == 0, result.output
    (row,) = _list("--build", "demo")
    assert set(row) == {
        "trace_id",
        "build",
        "item_id",
        "run_index",
        "root_agent",
        "tool_calls",
        "handoffs",
        "final_answer",
        "complete",
        "dialect",
        "start_time",
        "duration_s",
        "input_tokens",
        "output_tokens",
        "error",
    }
    assert (row["build"], row["tool_calls"]) == ("demo", ["get_weather"])
    text = _invoke("traces", "show", row["trace_id"])
    assert text.exit_code == 0
    assert "execute_tool get_weather [execute_tool]" in text.output
    assert 'args: {"city": "London"}' in text.output
    tree = json.loads(_invoke("traces", "show", row["trace_id"], "--format", "json").output)
    (top,) = tree["spans"]
    assert top["name"] == "Agent workflow" and tree["tool_calls"] == ["get_weather"]
    missing = _invoke("traces", "show", "ff" * 16)
    assert missing.exit_code == 2 and "not in the trace store" in missing.output


def test_default_policy_drops_tool_arguments():
    assert _invoke("ingest", DEMO_FILE, "--build", "d").exit_code == 0
    tree = json.loads(_invoke("traces", "show", _list()[0]["trace_id"], "--format", "json").output)
    text = json.dumps(tree)
    assert "get_weather" in text and '"tool_arguments"' not in text


def test_bad_files_exit_2_and_good_data_is_stored(tmp_path):
    shutil.copy(DEMO_FILE, tmp_path / "good.otlp.json")
    (tmp_path / "broken.json").write_text('{"resourceSpans": [')
    (tmp_path / "badid.json").write_bytes(
        otlp_json([json_span("not-hex-span-id!"), json_span("00000000000000b2")])
    )
    result = CliRunner().invoke(cli, ["ingest", str(tmp_path)])
    assert result.exit_code == 2
    assert "broken.json: payload: field line 1 column 20: invalid JSON" in result.output
    assert "badid.json: span not-hex-span-id!: field spanId" in result.output
    assert "the good data was stored" in result.output
    rows = _list()
    assert {r["root_agent"] for r in rows} == {"WeatherAgent", None}
    assert len(rows) == 2  # the weather run, and the valid span of badid.json


def test_tau2_and_taubench_ingest_with_build():
    result = _invoke(
        "ingest", TAU / "tau2_gpt-4.1_airline_3sims.json", "--format", "tau2", "--build", "cand"
    )
    assert result.exit_code == 0, result.output
    assert "imported 3 recorded score(s)" in result.output
    summary = _invoke("summary", "--build", "cand", "--format", "json")
    assert json.loads(summary.output)["metrics"]["task_success"]["n"] == 3
    taubench = _invoke("ingest", TAU / "taubench_airline_task0_2trials.json")
    assert taubench.exit_code == 0
    # tau-bench records no token usage: the report says so per trace, and stores them anyway
    assert "2 trace(s) incomplete:" in taubench.output
    assert "has no token usage" in taubench.output
    rows = _list("--build", "cand")
    assert sorted(r["item_id"] for r in rows) == ["13", "2", "6"]
    assert {r["dialect"] for r in rows} == {"tau2-bench"}
    assert any(r["build"].startswith("taubench:") for r in _list())


def test_unknown_build_and_bfcl_seam():
    assert _invoke("traces", "list", "--build", "nope", "--format", "json").exit_code == 2
    result = CliRunner().invoke(cli, ["ingest", str(DEMO_FILE), "--format", "bfcl"])
    assert result.exit_code in (0, 2)
    if result.exit_code == 2:
        assert "bfcl" in result.output


def test_traces_show_names_every_build_holding_a_trace_and_build_selects_one():
    from eval_pipeline.home import current_home
    from eval_pipeline.traces.decode.otlp import JSON, decode_otlp
    from eval_pipeline.traces.normalise.normaliser import normalise_spans
    from eval_pipeline.traces.store.trace_store import TraceStore

    spans = normalise_spans(
        decode_otlp(DEMO_FILE.read_bytes(), content_type=JSON, source="t").spans
    )
    store = TraceStore(current_home().ensure().store)
    store.write_spans(spans, build="a")
    store.write_spans(spans, build="b")  # the same trace stored for two builds
    trace_id = spans[0].trace_id
    shown = _invoke("traces", "show", trace_id, "--format", "json")
    assert shown.exit_code == 0, shown.output
    document = json.loads(shown.output)
    assert document["build"] == "a" and document["stored_under"] == {"a": "root", "b": "root"}
    text = _invoke("traces", "show", trace_id)
    assert "stored under 2 builds: a (root), b (root); --build B shows one" in text.output
    assert (
        json.loads(_invoke("traces", "show", trace_id, "--build", "b", "--format", "json").output)[
            "build"
        ]
        == "b"
    )
    missing = _invoke("traces", "show", trace_id, "--build", "c")
    assert missing.exit_code == 2 and "stored under: a, b" in missing.output


def test_traces_compact_and_clean_commands():
    first = _invoke("ingest", DEMO_FILE, "--build", "demo")
    assert first.exit_code == 0
    _invoke("ingest", AGENTS / "test_agent_spans.otlp.json", "--build", "demo")
    before = _list("--build", "demo")
    compacted = _invoke("traces", "compact")
    assert compacted.exit_code == 0 and "2 small part(s) compacted" in compacted.output
    assert _list("--build", "demo") == before
    cleaned = _invoke("traces", "clean", "--min-age", "0")
    assert cleaned.exit_code == 0 and "0 orphan part(s) removed" in cleaned.output


def test_ingest_goes_on_past_a_file_that_crashed_it_before(tmp_path):
    # "a_" sorts first: before the fix its nesting raised RecursionError and stopped the run.
    depth = 100_000
    deep = '{"kvlistValue":{"values":[{"key":"k","value":' * depth
    deep += '{"stringValue":"x"}' + "}]}}" * depth
    text = otlp_json([json_span("00000000000000b1")]).decode()
    (tmp_path / "a_deep.json").write_text(text.replace('{"stringValue": "chat"}', deep, 1))
    shutil.copy(DEMO_FILE, tmp_path / "good.otlp.json")
    result = CliRunner().invoke(cli, ["ingest", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert "a_deep.json" in result.output
    assert {r["root_agent"] for r in _list()} == {"WeatherAgent"}


def test_a_build_name_too_long_for_the_file_system_exits_2(tmp_path):
    result = CliRunner().invoke(cli, ["ingest", str(DEMO_FILE), "--build", "b" * 300])
    assert result.exit_code == 2 and "--build" in result.output


def test_an_object_as_scope_name_exits_2_naming_span_and_field(tmp_path):
    document = json.loads(otlp_json([json_span("00000000000000b1")]))
    document["resourceSpans"][0]["scopeSpans"][0]["scope"] = {"name": {"x": 1}}
    (tmp_path / "scope.json").write_text(json.dumps(document))
    result = CliRunner().invoke(cli, ["ingest", str(tmp_path / "scope.json")])
    assert result.exit_code == 2, result.output
    assert "scope.json: span 00000000000000b1: field" in result.output
    assert "scope.name" in result.output and "must be a string" in result.output
