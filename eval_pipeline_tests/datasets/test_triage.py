"""Triage turns a failing run into a regression case (contract).

Triage turns a stored failing run into a regression case with its trace attached, published
as a new version of the regression dataset while earlier versions stay readable; a run from an
offline evaluation inherits its dataset item's reference.
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.datasets.validation import validate_dataset
from eval_pipeline.home import current_home
from eval_pipeline.importers.conversation import Turn, conversation_spans
from eval_pipeline.traces.model import EvalContext, Span
from eval_pipeline.traces.store.trace_store import TraceStore


def _store_run(key: str, context: EvalContext, build: str) -> list[Span]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {
            "name": "return_delivered_order_items",
            "arguments": json.dumps(
                {
                    "order_id": "#W6390527",
                    "item_ids": ["8538875209"],
                    "payment_method_id": "paypal_7644869",
                }
            ),
        },
    }
    turns = [
        Turn({"role": "user", "content": "Return my water bottle from #W6390527"}, 1_000),
        Turn({"role": "assistant", "content": None, "tool_calls": [call]}, 2_000, 50, 20),
        Turn({"role": "tool", "tool_call_id": "c1", "content": '{"status": "returned"}'}, 3_000),
        Turn({"role": "assistant", "content": "Done, refund issued."}, 4_000, 80, 10),
    ]
    spans = conversation_spans(
        key=key,
        agent_name="support_agent",
        model="gpt-4.1-mini",
        turns=turns,
        context=context,
        dialect="otel-genai",
    )
    TraceStore(current_home().ensure().store).write_spans(spans, build=build)
    return spans


def _triage(trace_id: str, note: str) -> dict[str, object]:
    result = CliRunner().invoke(
        cli,
        ["triage", trace_id, "--dataset", "regression/support", "--note", note, "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    parsed: dict[str, object] = json.loads(result.output)
    return parsed


def test_production_failure_becomes_a_new_version_with_its_trace() -> None:
    spans = _store_run("prod-1", EvalContext(build_id="prod"), "prod")
    trace_id = spans[0].trace_id
    summary = _triage(trace_id, "refunded without asking for confirmation")
    assert summary["version"] == "v1"
    store = default_dataset_store()
    case = store.item("regression/support", "v1", f"trace-{trace_id}")
    assert case.user_input == "Return my water bottle from #W6390527"
    assert case.provenance["trace_id"] == trace_id
    assert case.provenance["build"] == "prod"
    assert case.provenance["note"] == "refunded without asking for confirmation"
    assert [c["name"] for c in case.provenance["observed_tool_calls"]] == [
        "return_delivered_order_items"
    ]
    assert {s["span_id"] for s in case.provenance["spans"]} == {s.span_id for s in spans}
    assert "refunded without asking for confirmation" in case.assertions[0]

    second = _store_run("prod-2", EvalContext(build_id="prod"), "prod")
    assert _triage(second[0].trace_id, "same defect, other order")["version"] == "v2"
    assert store.versions("regression/support") == ["v1", "v2"]
    assert len(store.load("regression/support", "v1").items) == 1
    assert len(store.load("regression/support", "v2").items) == 2


def test_offline_failure_inherits_the_item_reference() -> None:
    context = EvalContext(
        build_id="cand",
        dataset="golden/retail-refunds",
        dataset_version="v1",
        item_id="v1-test-5",
        run_index=0,
    )
    spans = _store_run("cand-1", context, "cand")
    summary = _triage(spans[0].trace_id, "skipped get_order_details before the return")
    assert summary["inherited_reference"] is True
    case = default_dataset_store().item("regression/support", "v1", f"trace-{spans[0].trace_id}")
    golden = default_dataset_store().item("golden/retail-refunds", "v1", "v1-test-5")
    assert case.expected_tool_calls == golden.expected_tool_calls
    assert case.ordering == golden.ordering
    assert case.slices["origin"] == "offline"
    assert case.provenance["source_item"]["item_id"] == "v1-test-5"
    assert {s["name"] for s in case.tool_schemas} == {c.name for c in golden.expected_tool_calls}
    regression = default_dataset_store().load("regression/support", "v1")
    assert validate_dataset(regression, required_slices=("intent", "tool")).success


def test_triage_errors_exit_2(isolated_home: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(cli, ["triage", "f" * 32, "--dataset", "regression/x", "--note", "n"])
    assert missing.exit_code == 2
    assert "not in the trace store" in missing.output
    spans = _store_run("prod-3", EvalContext(build_id="prod"), "prod")
    wrong_kind = runner.invoke(
        cli, ["triage", spans[0].trace_id, "--dataset", "golden/x", "--note", "n"]
    )
    assert wrong_kind.exit_code == 2
    assert "regression/<name>" in wrong_kind.output
    runner.invoke(cli, ["triage", spans[0].trace_id, "--dataset", "regression/x", "--note", "n"])
    again = runner.invoke(
        cli, ["triage", spans[0].trace_id, "--dataset", "regression/x", "--note", "n"]
    )
    assert again.exit_code == 2
    assert "already a case of regression/x@v1" in again.output
