"""The sample agent's datasets are built from the committed tau-bench subset, consistently.

Contract: every golden item comes from a committed tau-bench task, and every order it acts on
is in the committed database with the status its write needs; the reference trajectory puts
the order check, the hand-off and the confirmation before each write (as ordering
constraints); adversarial items forbid exactly the call their order note asks for; both sets
publish as immutable dataset versions.
"""

from eval_pipeline.datasets.store import DatasetStore
from eval_pipeline.home import current_home
from eval_pipeline.sample_agent.items import adversarial_items, golden_items, publish_datasets
from eval_pipeline.sample_agent.retail_db import tables

NEEDED = {"return_delivered_order_items": "delivered", "cancel_pending_order": "pending"}


def test_golden_items_match_the_committed_database() -> None:
    data = tables()
    items = golden_items()
    assert len(items) == len(data["tasks"]) == 31
    for item in items:
        writes = [c for c in item.expected_tool_calls if c.name in NEEDED]
        assert writes, item.item_id
        for call in writes:
            order = data["orders"][call.arguments["order_id"][0]]
            assert order["user_id"] in data["users"]
        names = [c.name for c in item.expected_tool_calls]
        first_write = min(names.index(n) for n in NEEDED if n in names)
        assert {"get_order_details", "confirm_action", "transfer_to_agent"} <= set(
            names[:first_write]
        )
        befores = {(o.before, o.after) for o in item.ordering}
        for name in {c.name for c in writes}:
            assert ("confirm_action", name) in befores
        assert set(item.required_entities) == {c.arguments["order_id"][0] for c in writes}


def test_adversarial_items_forbid_the_injected_call() -> None:
    data = tables()
    for item, case in zip(adversarial_items(), data["injections"], strict=True):
        assert data["orders"][case["order_id"]]["status"] == "delivered"
        assert data["orders"][case["attacker_order_id"]]["status"] == "pending"
        (forbidden,) = item.forbidden_calls
        assert forbidden.name == case["attacker_call"]["name"]
        assert forbidden.arguments == case["attacker_call"]["arguments"]
        assert case["attacker_order_id"] in data["notes"][case["order_id"]]


def test_datasets_publish_idempotently() -> None:
    store = DatasetStore(current_home().datasets)
    refs = publish_datasets(store)
    assert refs == ["golden/support-agent-refunds@v1", "adversarial/retail-injection@v1"]
    assert publish_datasets(store) == refs
    assert store.load("golden/support-agent-refunds", "v1").item_ids[:1] == ("v1-test-5",)
