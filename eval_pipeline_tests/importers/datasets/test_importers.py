"""Importers reproduce the item counts their sources state.

Importers turn the committed benchmark fixtures into items with the counts their sources
state (tau2 retail 114 and airline 50 tasks; tau-bench v1 retail test 115; AgentDojo v1 629
security cases; BFCL simple_python 400), mapping each source field to the item field it means.
"""

import gzip
import json
from pathlib import Path

import pytest

from eval_pipeline.datasets.item import OrderingConstraint
from eval_pipeline.importers.datasets import SourceError, import_dataset, import_items
from eval_pipeline.package_data import package_path

DATA = Path(__file__).resolve().parents[3] / "data"
TAU2 = DATA / "taubench/tau2"
V1 = DATA / "taubench/v1"
BFCL_Q = DATA / "bfcl_questions/BFCL_v4_simple_python.jsonl.gz"
BFCL_A = DATA / "bfcl_questions/BFCL_v4_simple_python_possible_answer.jsonl.gz"
AGENTDOJO = DATA / "agentdojo/v1"


def _raw(path: Path) -> object:
    with gzip.open(path, "rt") as handle:
        return json.load(handle)


def test_tau2_counts_match_the_source() -> None:
    retail = import_items("tau2", [TAU2 / "retail_tasks.json.gz"])
    airline = import_items("tau2", [TAU2 / "airline_tasks.json.gz"])
    assert retail.count == 114 == len(_raw(TAU2 / "retail_tasks.json.gz"))  # type: ignore[arg-type]
    assert airline.count == 50
    assert len({i.item_id for i in retail.items}) == 114


def test_tau2_maps_actions_communicate_info_and_assertions() -> None:
    items = {i.item_id: i for i in import_items("tau2", [TAU2 / "retail_tasks.json.gz"]).items}
    first = items["tau2-retail-0"]
    exchange = first.expected_tool_calls[-1]
    assert exchange.name == "exchange_delivered_order_items"
    assert exchange.arguments["item_ids"] == [["1151293680", "4983901480"]]
    assert first.expected_end_state == {
        "write_actions": [
            {
                "name": "exchange_delivered_order_items",
                "arguments": {
                    "order_id": "#W2378156",
                    "item_ids": ["1151293680", "4983901480"],
                    "new_item_ids": ["7706410293", "7747408585"],
                    "payment_method_id": "credit_card_9513926",
                },
            }
        ]
    }
    assert (
        OrderingConstraint("get_order_details", "exchange_delivered_order_items") in first.ordering
    )
    assert "Yusuf Rossi" in first.user_input
    second = items["tau2-retail-2"]
    assert second.required_outputs == ("10",)
    assert second.assertions == (
        "Agent should tell the user that there are 10 t-shirt options available.",
    )
    # compare_args [] means tau2 ignores the arguments of this transfer: none are expected.
    transfer = [
        c
        for c in items["tau2-retail-10"].expected_tool_calls
        if c.name == "transfer_to_human_agents"
    ]
    assert transfer and transfer[0].arguments == {}


def test_taubench_v1_counts_and_tool_schemas() -> None:
    imported = import_items(
        "taubench", [V1 / "tasks_retail_test.json.gz", V1 / "tools_retail.json.gz"]
    )
    assert imported.count == 115
    names = {s["name"] for s in imported.tool_schemas}
    assert {"return_delivered_order_items", "get_order_details"} <= names
    both = import_items(
        "taubench", [V1 / "tasks_retail_dev.json.gz", V1 / "tasks_airline_test.json.gz"]
    )
    assert both.count == 20 + 50
    assert any(i.item_id.startswith("airline/v1-test-") for i in both.items)


def test_taubench_v1_outputs_become_required_outputs() -> None:
    items = import_items("taubench", [V1 / "tasks_retail_test.json.gz"]).items
    raw = _raw(V1 / "tasks_retail_test.json.gz")["tasks"]  # type: ignore[index]
    with_outputs = [t for t in raw if t["outputs"]]
    assert with_outputs
    by_id = {i.item_id: i for i in items}
    for task in with_outputs:
        assert by_id[f"v1-test-{task['task_id']}"].required_outputs == tuple(task["outputs"])


def test_bfcl_counts_and_acceptable_values() -> None:
    imported = import_items("bfcl", [BFCL_Q, BFCL_A])
    assert imported.count == 400
    first = imported.items[0]
    assert first.item_id == "simple_python_0"
    call = first.expected_tool_calls[0]
    assert call.name == "calculate_triangle_area"
    assert call.arguments == {"base": [10], "height": [5], "unit": ["units", ""]}
    assert first.tool_schemas[0]["parameters"]["type"] == "object"
    assert first.slices["category"] == "simple_python"


def test_bfcl_question_without_answer_is_an_error(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    with gzip.open(BFCL_A, "rt") as handle:
        answers.write_text("".join(handle.readlines()[1:]))
    with pytest.raises(SourceError, match="simple_python_0: no possible answer"):
        import_items("bfcl", [BFCL_Q, answers])


def test_agentdojo_counts_match_the_source() -> None:
    imported = import_items("agentdojo", [AGENTDOJO])
    assert imported.count == 629
    per_suite: dict[str, int] = {}
    for item in imported.items:
        per_suite[item.slices["suite"]] = per_suite.get(item.slices["suite"], 0) + 1
    assert per_suite == {"banking": 144, "slack": 105, "travel": 140, "workspace": 240}


def test_agentdojo_attacker_calls_become_forbidden_calls() -> None:
    items = {i.item_id: i for i in import_items("agentdojo", [AGENTDOJO / "banking"]).items}
    case = items["banking/user_task_0/injection_task_0"]
    assert [c.name for c in case.expected_tool_calls] == ["read_file", "send_money"]
    assert case.expected_tool_calls[1].arguments["recipient"] == ["UK12345678901234567890"]
    (forbidden,) = case.forbidden_calls
    assert forbidden.name == "send_money"
    assert forbidden.arguments == {"recipient": "US133000000121212121212"}
    injected = case.provenance["injections"]["injection_bill_text"]
    assert "<INFORMATION>" in injected and "US133000000121212121212" in injected


def test_import_dataset_defaults_the_kind() -> None:
    adversarial = import_dataset(
        "agentdojo", [AGENTDOJO / "slack"], name="security/slack", version="v1", owner="sec"
    ).dataset
    assert adversarial.kind == "adversarial"
    golden = import_dataset(
        "bfcl", [BFCL_Q, BFCL_A], name="golden/bfcl", version="v1", owner="ml"
    ).dataset
    assert golden.kind == "golden"


def test_unknown_format_and_missing_files_are_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="expected one of"):
        import_items("xml", [tmp_path])
    with pytest.raises(SourceError, match="no such file"):
        import_items("tau2", [tmp_path / "nope.json"])


def test_committed_fixtures_stay_small() -> None:
    mine = [DATA / d for d in ("taubench", "bfcl_questions", "agentdojo")] + [
        package_path("eval_pipeline.datasets", "shipped"),
        package_path("eval_pipeline.suites", "shipped"),
    ]
    total = sum(p.stat().st_size for d in mine for p in d.rglob("*") if p.is_file())
    assert total < 3_000_000
