"""The shipped datasets are reproducible and fit the sample agent.

The datasets shipped as package data (``eval_pipeline/datasets/shipped``) are exactly what the
curation tool rebuilds from the repository's fixtures (``data/``, passed in explicitly); the
golden refunds set matches the sample agent's task subset and carries expected calls,
check-before-write ordering, order ids and intent/language/tool slices.
"""

import json
from pathlib import Path

import pytest

from eval_pipeline.datasets.item import OrderingConstraint
from eval_pipeline.datasets.store import DatasetStore, default_dataset_store
from eval_pipeline.importers.datasets.curation import (
    banking_injection_set,
    main,
    publish_shipped,
    retail_refunds_golden,
)

DATA = Path(__file__).resolve().parents[3] / "data"


def test_shipped_datasets_are_reproducible_from_fixtures() -> None:
    store = default_dataset_store()
    for rebuilt in (retail_refunds_golden(DATA), banking_injection_set(DATA)):
        shipped = store.load(rebuilt.name, rebuilt.version)
        assert shipped.content_hash == rebuilt.content_hash, rebuilt.ref


def test_curation_publishes_from_the_fixtures_folder_it_is_given(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path / "store")
    published = publish_shipped(DATA, store)
    assert [d.ref for d in published] == [
        "golden/retail-refunds@v1",
        "adversarial/banking-injection@v1",
    ]
    assert store.list() == [
        ("adversarial/banking-injection", "v1"),
        ("golden/retail-refunds", "v1"),
    ]


def test_curation_without_a_fixtures_folder_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--data", str(tmp_path / "nowhere")])
    assert exited.value.code == 2
    assert f"fixtures folder {tmp_path / 'nowhere'} does not exist" in capsys.readouterr().err


def test_golden_refunds_match_the_sample_agent_tasks() -> None:
    golden = default_dataset_store().load("golden/retail-refunds", "v1")
    tasks = json.loads(
        (DATA.parent / "eval_pipeline/sample_agent/retail_data/tasks.json").read_text()
    )["tasks"]
    assert list(golden.item_ids) == [t["task_id"] for t in tasks]
    schema_tools = {s["name"] for s in golden.tool_schemas}
    for item in golden.items:
        writes = {c.name for c in item.expected_tool_calls} & {
            "return_delivered_order_items",
            "cancel_pending_order",
        }
        assert writes and writes <= schema_tools
        assert item.required_entities and all(e.startswith("#W") for e in item.required_entities)
        assert {"intent", "language", "tool"} <= set(item.slices)
        looked_up = any(c.name == "get_order_details" for c in item.expected_tool_calls)
        if "return_delivered_order_items" in writes and looked_up:
            assert OrderingConstraint("get_order_details", "return_delivered_order_items") in (
                item.ordering
            )


def test_banking_injection_set_covers_every_injection_task() -> None:
    dataset = default_dataset_store().load("adversarial/banking-injection", "v1")
    assert dataset.kind == "adversarial"
    assert len(dataset.items) == 21
    injections = {i.provenance["injection_task_id"] for i in dataset.items}
    assert len(injections) == 9
    assert all(i.forbidden_calls for i in dataset.items)
