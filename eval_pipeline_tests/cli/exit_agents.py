"""Agents for the exit-code tests: one whose every run raises, one whose second runs raise."""

from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline_tests.runners.fault_agents import good


def always_fails(item: DatasetItem, context: Any) -> str:
    """Every run raises, as an agent with a missing API key would."""
    raise RuntimeError("no API key configured")


def second_run_fails(item: DatasetItem, context: Any) -> str:
    """Run 0 of each item is a good run; run 1 raises."""
    if context.run_index == 1:
        raise RuntimeError("upstream timeout")
    return good(item, context)
