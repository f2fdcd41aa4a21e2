"""Agents for the graph tests: the sample support agent, and one that fails on purpose."""

from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.sample_agent.app import run_item

CRASHING = "python:eval_pipeline_tests.defs.agents:fails_on_first_item?agent_build=baseline"
"""Runner of a build that crashes on one item (add ``&fail_item=<item id>``)."""


def fails_on_first_item(item: DatasetItem, context: Any) -> dict[str, Any]:
    """Raise for the first item of the mini dataset; behave like the baseline otherwise."""
    if item.item_id == context.params.get("fail_item"):
        raise RuntimeError(f"simulated crash on {item.item_id}")
    return run_item(item, context)
