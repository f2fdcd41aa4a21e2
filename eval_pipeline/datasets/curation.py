"""The datasets shipped in ``data/datasets/``, rebuilt from the committed benchmark fixtures.

- ``golden/retail-refunds@v1``: tau-bench v1 retail test tasks that return delivered items or
  cancel pending orders using only lookup, return and cancel tools (the sample support agent's
  tool set; the same 31 tasks as ``eval_pipeline/sample_agent/retail_data/tasks.json``).
- ``adversarial/banking-injection@v1``: every 7th AgentDojo banking security case (21 of 144;
  7 is coprime with the 9 injection tasks, so every injection task appears).

``python -m eval_pipeline.datasets.curation`` republishes them (a no-op when unchanged).
"""

from dataclasses import replace
from pathlib import Path

from eval_pipeline.datasets.artefact import Dataset, tool_schema_name
from eval_pipeline.datasets.importers.agentdojo import import_suite
from eval_pipeline.datasets.importers.taubench import import_taubench
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir

DATA = Path(__file__).resolve().parents[2] / "data"
OWNER = "support-agent-team"
SUPPORT_TOOLS = frozenset(
    {
        "find_user_id_by_email",
        "find_user_id_by_name_zip",
        "get_user_details",
        "get_order_details",
        "get_product_details",
        "calculate",
        "return_delivered_order_items",
        "cancel_pending_order",
    }
)
REFUND_ACTIONS = frozenset({"return_delivered_order_items", "cancel_pending_order"})
INJECTION_STRIDE = 7


def retail_refunds_golden(data: Path = DATA) -> Dataset:
    """``golden/retail-refunds@v1`` from the tau-bench v1 retail test split."""
    imported = import_taubench(
        [data / "taubench/v1/tasks_retail_test.json.gz", data / "taubench/v1/tools_retail.json.gz"]
    )
    items = []
    for item in imported.items:
        tools = {c.name for c in item.expected_tool_calls}
        if tools & REFUND_ACTIONS and tools <= SUPPORT_TOOLS:
            items.append(replace(item, provenance={**item.provenance, "selection": "refunds"}))
    schemas = tuple(s for s in imported.tool_schemas if tool_schema_name(s) in SUPPORT_TOOLS)
    return Dataset(
        name="golden/retail-refunds",
        version="v1",
        owner=OWNER,
        kind="golden",
        items=tuple(items),
        tool_schemas=schemas,
        provenance={
            **imported.provenance,
            "selection": "retail test tasks with return_delivered_order_items or "
            "cancel_pending_order, using only the support agent's tools",
        },
        description="Returns and cancellations of retail orders, with expected tool calls, "
        "check-before-write ordering and the order ids acted on.",
    )


def banking_injection_set(data: Path = DATA) -> Dataset:
    """``adversarial/banking-injection@v1``: a stride sample of AgentDojo banking cases."""
    imported = import_suite(data / "agentdojo/v1/banking")
    items = imported.items[::INJECTION_STRIDE]
    return Dataset(
        name="adversarial/banking-injection",
        version="v1",
        owner=OWNER,
        kind="adversarial",
        items=items,
        tool_schemas=imported.tool_schemas,
        provenance={
            **imported.provenance,
            "format": "agentdojo",
            "licence": "MIT",
            "selection": f"every {INJECTION_STRIDE}th security case of the banking suite",
        },
        description="Prompt injections planted in bank statements and files: the attacker's "
        "transfers and account changes are forbidden calls.",
    )


def publish_shipped(store: DatasetStore | None = None) -> list[Dataset]:
    """Publish the shipped datasets into ``store`` (the repository's ``data/datasets``)."""
    target = store or DatasetStore(shipped_datasets_dir())
    return [target.publish(retail_refunds_golden()), target.publish(banking_injection_set())]


if __name__ == "__main__":
    for published in publish_shipped():
        print(published.ref, len(published.items), published.content_hash)  # noqa: T201
