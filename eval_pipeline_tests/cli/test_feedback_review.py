"""``feedback``, ``review list`` and ``review label`` through the CLI (contract).

A thumbs-down on a stored trace opens a review item (never a failure: nothing is scored);
``review list`` prints it as JSON or a table; ``review label`` records the verdict, who
(``--reviewer``, else ``$USER``) and when, and with ``--dataset`` turns a defect into a
regression case. Bad input is one ``error:`` line and exit 2 naming it: an unknown trace id, a
rating outside the scale, a label for a trace not in review; a state database that cannot be
reached is ours (exit 3).
"""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.home import current_home
from eval_pipeline.traces.model import Message
from eval_pipeline.traces.store.span_table import row_span, span_row
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

TRACE = "d4" * 16


def _store_trace(trace_id: str = TRACE) -> None:
    """A live trace whose lookup failed; its root carries the user's request."""
    root, *rest = agent_trace_rows(trace_id, tool_error=True, answer="I have refunded your order.")
    asked = Message(role="user", parts=({"type": "text", "content": "Refund order 0, please"},))
    rows = [span_row(replace(row_span(root), input_messages=(asked,))), *rest]
    TraceStore(current_home().ensure().store).write_rows(rows, build="production")


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.output


def test_a_thumbs_down_routes_a_stored_trace_to_review_and_a_label_records_who() -> None:
    _store_trace()
    code, out = invoke("feedback", TRACE, "--rating", "down", "--note", "refund never came")
    assert code == 0 and "review opened" in out
    assert invoke("feedback", TRACE, "--rating", "0.8")[0] == 0
    code, out = invoke("review", "list", "--format", "json")
    (item,) = json.loads(out)
    assert code == 0 and item["status"] == "open" and item["trace_stored"] is True
    assert item["negative_feedback"] == 1 and item["feedback_notes"] == ["refund never came"]
    code, table = invoke("review", "list")
    assert code == 0 and TRACE in table and "refund never came" in table
    code, out = invoke(
        "review",
        "label",
        TRACE,
        "--verdict",
        "needs-info",
        "--format",
        "json",
        env={"USER": "ana"},
    )
    labelled = json.loads(out)["review"]
    assert code == 0 and labelled["reviewer"] == "ana" and labelled["labelled_at"]
    code, out = invoke("review", "label", TRACE, "--verdict", "not-defect", "--reviewer", "bo")
    assert code == 0 and "labelled" in out and "by bo" in out
    assert json.loads(invoke("review", "list", "--format", "json")[1]) == []
    (done,) = json.loads(invoke("review", "list", "--status", "labelled", "--format", "json")[1])
    assert done["verdict"] == "not-defect" and done["reviewer"] == "bo"


def _publish_lookup_tools(tmp_path: Path) -> None:
    """A golden set defining the trace's ``lookup_order`` tool (a trace carries no schema)."""
    tool = {
        "name": "lookup_order",
        "description": "Look an order up.",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "integer"}}},
    }
    item = {
        "item_id": "look-1",
        "input": "Where is order 1?",
        "expected_tool_calls": [{"name": "lookup_order", "arguments": {"order_id": 1}}],
        "tool_schemas": [tool],
        "slices": {"intent": "status"},
    }
    (tmp_path / "orders.jsonl").write_text(json.dumps(item) + "\n")
    code, out = invoke("datasets", "import", "orders", str(tmp_path / "orders.jsonl"))
    assert code == 0, out


def _label_defect(*extra: str) -> tuple[int, str]:
    return invoke(
        "review",
        "label",
        TRACE,
        "--verdict",
        "defect",
        "--reviewer",
        "ana",
        "--note",
        "refund claimed after a failed lookup",
        "--dataset",
        "regression/support",
        "--slice",
        "intent=return",
        "--format",
        "json",
        *extra,
    )


def test_a_defect_label_with_a_dataset_becomes_a_valid_regression_case(tmp_path: Path) -> None:
    _store_trace()
    invoke("feedback", TRACE, "--rating", "down")
    _publish_lookup_tools(tmp_path)
    code, out = _label_defect("--tool-schemas-from", "golden/orders")
    assert code == 0, out
    summary = json.loads(out)
    assert summary["review"]["verdict"] == "defect"
    assert summary["triage"]["must_not_recur"] == ["lookup_order"]
    case = default_dataset_store().item("regression/support", "v1", f"trace-{TRACE}")
    assert case.slices["intent"] == "return" and case.slices["tool"] == "lookup_order"
    assert case.provenance["trace_id"] == TRACE
    code, out = invoke("datasets", "validate", "regression/support", "v1")
    assert code == 0, out


def test_a_trace_without_input_needs_the_reviewer_to_say_what_was_asked(tmp_path: Path) -> None:
    rows = agent_trace_rows(TRACE, tool_error=True, answer="I have refunded your order.")
    TraceStore(current_home().ensure().store).write_rows(rows, build="production")
    invoke("feedback", TRACE, "--rating", "down")
    _publish_lookup_tools(tmp_path)
    code, out = _label_defect("--tool-schemas-from", "golden/orders")
    assert code == 2 and "input has user text" in out, out
    assert "hint: the trace holds no user input" in out and "--tool-schemas-from DATASET" not in out
    code, out = _label_defect("--tool-schemas-from", "golden/orders", "--input", "Refund order 0")
    assert code == 0, out
    case = default_dataset_store().item("regression/support", "v1", f"trace-{TRACE}")
    assert case.user_input == "Refund order 0"


def test_a_case_validate_would_mark_invalid_is_refused_before_publishing() -> None:
    _store_trace()
    invoke("feedback", TRACE, "--rating", "down")
    code, out = _label_defect()
    assert code == 2, out
    assert f"trace {TRACE}: item 'trace-{TRACE}': expected tools exist in the tool schema" in out
    assert "hint: a trace carries no tool schemas" in out and "nothing published" in out
    assert default_dataset_store().versions("regression/support") == []
    (item,) = json.loads(invoke("review", "list", "--format", "json")[1])
    assert item["status"] == "open"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["feedback", "ef" * 16, "--rating", "down"],
            f"TRACE_ID {'ef' * 16}: not in the trace store",
        ),
        (["feedback", "nope", "--rating", "down"], "TRACE_ID: 'nope' is not a trace id"),
        (["feedback", TRACE, "--rating", "1.5"], "--rating: '1.5' is outside the scale"),
        (["feedback", TRACE, "--rating", "meh"], "--rating: 'meh' is not up, down"),
        (["review", "label", TRACE, "--verdict", "defect", "--reviewer", "a"], "not in review"),
    ],
)
def test_bad_input_is_exit_2_naming_it(args: list[str], message: str) -> None:
    _store_trace()
    code, out = invoke(*args)
    assert code == 2 and out.startswith("error: ") and message in out, out


def test_a_dataset_with_another_verdict_or_a_bad_reference_is_exit_2_and_labels_nothing() -> None:
    _store_trace()
    invoke("feedback", TRACE, "--rating", "down")
    label = ["review", "label", TRACE, "--reviewer", "ana", "--note", "n"]
    code, out = invoke(*label, "--verdict", "not-defect", "--dataset", "regression/x")
    assert code == 2 and "only a defect becomes a regression case" in out
    code, out = invoke(
        *label,
        "--verdict",
        "defect",
        "--dataset",
        "regression/x",
        "--expected-calls",
        '[{"arguments": {}}]',
    )
    assert code == 2 and "--expected-calls[0].name: required" in out
    code, out = invoke(*label, "--verdict", "defect", "--reference-answer", "x")
    assert code == 2 and "--reference-answer: only with --dataset" in out
    (item,) = json.loads(invoke("review", "list", "--format", "json")[1])
    assert item["status"] == "open"


def test_an_unreachable_state_database_is_an_internal_error(tmp_path: Path) -> None:
    _store_trace()
    env = {"EVAL_PIPELINE_STATE_URL": "postgresql+psycopg://127.0.0.1:1/nowhere"}
    command = [sys.executable, "-c", "from eval_pipeline.cli import main; main()"]
    done = subprocess.run(
        [*command, "feedback", TRACE, "--rating", "down"],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, **env},
        timeout=120,
        check=False,
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("internal error: ")


def test_tool_schemas_from_a_dataset_that_lacks_a_tool_is_exit_2_naming_it() -> None:
    _store_trace()
    code, out = invoke(
        "triage",
        TRACE,
        "--dataset",
        "regression/x",
        "--note",
        "n",
        "--tool-schemas-from",
        "golden/support-agent-refunds",
    )
    assert code == 2 and "defines no tool lookup_order" in out
    code, out = invoke(
        "triage",
        TRACE,
        "--dataset",
        "regression/x",
        "--note",
        "n",
        "--tool-schemas-from",
        "golden/nothing-here",
    )
    assert code == 2 and "--tool-schemas-from golden/nothing-here: no such dataset" in out
