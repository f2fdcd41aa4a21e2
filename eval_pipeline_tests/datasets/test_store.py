"""Dataset versions are immutable artefacts.

Dataset versions are immutable artefacts: items round-trip through JSONL, republishing the
same version with other content is refused, an edit is a new version while the old one stays
readable, tampering is detected by the content hash, and the default store layers the home over
the shipped datasets.
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from eval_pipeline.datasets.artefact import Dataset, DatasetError
from eval_pipeline.datasets.codec import item_from_json, item_to_json
from eval_pipeline.datasets.item import ExpectedToolCall, ForbiddenCall
from eval_pipeline.datasets.store import (
    DatasetImmutableError,
    DatasetNotFoundError,
    DatasetStore,
    default_dataset_store,
)
from eval_pipeline_tests.datasets.builders import make_dataset, make_item


def test_item_round_trips_through_json() -> None:
    item = make_item(
        "x",
        reference_answer="Refunded.",
        alternative_trajectories=((ExpectedToolCall("get_order_details", {}, optional=True),),),
        forbidden_calls=(ForbiddenCall("send_money", {"recipient": "US13"}, "attacker"),),
        required_outputs=("10",),
        canaries=("SECRET-1",),
        expected_end_state={"write_actions": [{"name": "a", "arguments": {"k": [1, 2]}}]},
        assertions=("says sorry",),
        tool_schemas=({"name": "t", "parameters": {}},),
        provenance={"source": "unit"},
    )
    assert item_from_json(item_to_json(item)) == item


def test_publish_then_load_returns_the_same_dataset(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    dataset = make_dataset()
    published = store.publish(dataset)
    assert published == dataset
    assert store.load("golden/support", "v1").content_hash == dataset.content_hash
    assert store.item("golden/support", "v1", "2") == dataset.items[1]
    assert store.list() == [("golden/support", "v1")]


def test_edit_needs_a_new_version_and_the_old_one_stays_readable(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    original = store.publish(make_dataset())
    edited_item = replace(original.items[0], required_outputs=("refund issued",))
    edited = original.revised("v1", (edited_item, original.items[1]))
    with pytest.raises(DatasetImmutableError, match="next free: v2"):
        store.publish(edited)
    assert store.publish(original) == original  # same content: a no-op
    second = store.publish(
        original.revised(store.next_version("golden/support"), (edited_item, original.items[1]))
    )
    assert second.version == "v2"
    assert second.content_hash != original.content_hash
    assert store.versions("golden/support") == ["v1", "v2"]
    assert store.load("golden/support", "v1").items[0].required_outputs == ()
    assert store.load("golden/support", "v2").items[0].required_outputs == ("refund issued",)


def test_versions_sort_naturally(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    for number in (1, 2, 10):
        store.publish(make_dataset(version=f"v{number}", description=str(number)))
    assert store.versions("golden/support") == ["v1", "v2", "v10"]
    assert store.next_version("golden/support") == "v11"
    assert store.latest("golden/support").version == "v10"


def test_tampered_items_are_detected(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    store.publish(make_dataset())
    items_path = tmp_path / "golden/support/v1/items.jsonl"
    lines = items_path.read_text().splitlines()
    row = json.loads(lines[0])
    row["required_entities"] = ["#W999"]
    items_path.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    with pytest.raises(DatasetError, match="modified after publication"):
        store.load("golden/support", "v1")


def test_missing_version_lists_the_known_ones(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    store.publish(make_dataset())
    with pytest.raises(DatasetNotFoundError, match=r"golden/support@v3 not found.*v1"):
        store.load("golden/support", "v3")


def test_name_kind_and_owner_are_checked() -> None:
    with pytest.raises(DatasetError, match="contradicts the name's prefix"):
        make_dataset(kind="adversarial")
    with pytest.raises(DatasetError, match="expected '<kind>/<slug>'"):
        make_dataset(name="Support")
    with pytest.raises(DatasetError, match="owner is required"):
        make_dataset(owner="")


def test_default_store_reads_shipped_datasets_and_writes_to_home(isolated_home: Path) -> None:
    store = default_dataset_store()
    shipped = store.load("golden/retail-refunds", "v1")
    assert len(shipped.items) == 31
    assert ("adversarial/banking-injection", "v1") in store.list()
    revised = shipped.revised("v2", shipped.items[:5])
    store.publish(revised)
    assert (isolated_home / "datasets/golden/retail-refunds/v2/manifest.json").is_file()
    assert store.versions("golden/retail-refunds") == ["v1", "v2"]
    with pytest.raises(DatasetImmutableError):
        store.publish(shipped.revised("v1", shipped.items[:3]))


def test_dataset_item_lookup_names_the_dataset() -> None:
    with pytest.raises(KeyError, match=r"golden/support@v1: no item 'nope'"):
        make_dataset().item("nope")
    assert isinstance(make_dataset(), Dataset)
