"""Two of the shipped datasets, rebuilt from the repository's benchmark fixtures (a developer tool).

- ``golden/retail-refunds@v1``: tau-bench v1 retail test tasks that return delivered items or
  cancel pending orders using only lookup, return and cancel tools (the sample support agent's
  tool set; the same 31 tasks as ``eval_pipeline/sample_agent/retail_data/tasks.json``).
- ``adversarial/banking-injection@v1``: every 7th AgentDojo banking security case (21 of 144;
  7 is coprime with the 9 injection tasks, so every injection task appears).

The fixtures (tau-bench, AgentDojo) live in the repository's ``data/`` folder, not in the
package, so the folder is always passed in:
``python -m eval_pipeline.importers.datasets.curation --data data/`` republishes the sets into
the package data (``datasets/shipped/``; a no-op when unchanged). Nothing at run time calls
this module.
"""

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from eval_pipeline.datasets.artefact import Dataset, DatasetError, tool_schema_name
from eval_pipeline.datasets.publishing import publish_checked
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.importers.benchmarks.agentdojo import import_suite
from eval_pipeline.importers.benchmarks.taubench import import_tasks as import_taubench

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


def retail_refunds_golden(data: Path) -> Dataset:
    """``golden/retail-refunds@v1`` from the tau-bench v1 retail test split under ``data``."""
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


def banking_injection_set(data: Path) -> Dataset:
    """``adversarial/banking-injection@v1``: a stride sample of the AgentDojo banking cases."""
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


def publish_shipped(data: Path, store: DatasetStore | None = None) -> list[Dataset]:
    """Rebuild both sets from the fixtures under ``data``, validate and publish them into ``store``.

    The default store is the package's shipped datasets.
    """
    if not data.is_dir():
        raise FileNotFoundError(f"fixtures folder {data} does not exist (pass the clone's data/)")
    target = store or DatasetStore(shipped_datasets_dir())
    return [
        publish_checked(target, retail_refunds_golden(data)).dataset,
        publish_checked(target, banking_injection_set(data)).dataset,
    ]


def main(argv: Sequence[str] | None = None) -> None:
    """Republish the shipped sets from ``--data``, and print each one's ref."""
    parser = argparse.ArgumentParser(prog="python -m eval_pipeline.importers.datasets.curation")
    parser.add_argument(
        "--data", type=Path, required=True, help="the repository's data/ folder (the fixtures)"
    )
    args = parser.parse_args(argv)
    try:
        published = publish_shipped(args.data)
    except (FileNotFoundError, DatasetError) as exc:
        parser.exit(2, f"error: {exc}\n")
    for dataset in published:
        print(dataset.ref, len(dataset.items), dataset.content_hash)  # noqa: T201


if __name__ == "__main__":
    main()
