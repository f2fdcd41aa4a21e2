"""The evaluation-context namespace on a run's root span: the one place it is defined.

Offline runs (runners) and live traffic (instrumented agents) write these attributes on the
root ``invoke_agent`` span, so both planes share one schema.
"""

from collections.abc import Mapping
from typing import Any

from eval_pipeline.traces.model import EvalContext

NAMESPACE = "eval_pipeline"

BUILD_ID = f"{NAMESPACE}.build.id"
SUITE = f"{NAMESPACE}.suite.name"
SUITE_VERSION = f"{NAMESPACE}.suite.version"
DATASET = f"{NAMESPACE}.dataset.name"
DATASET_VERSION = f"{NAMESPACE}.dataset.version"
ITEM_ID = f"{NAMESPACE}.dataset.item.id"
RUN_INDEX = f"{NAMESPACE}.run.index"
PROMPT_VERSION = f"{NAMESPACE}.prompt.version"

ALL_KEYS = (
    BUILD_ID,
    SUITE,
    SUITE_VERSION,
    DATASET,
    DATASET_VERSION,
    ITEM_ID,
    RUN_INDEX,
    PROMPT_VERSION,
)


def to_attributes(context: EvalContext) -> dict[str, str | int]:
    """The span attributes that carry ``context`` (unset fields are left out)."""
    pairs: list[tuple[str, str | int | None]] = [
        (BUILD_ID, context.build_id),
        (SUITE, context.suite),
        (SUITE_VERSION, context.suite_version),
        (DATASET, context.dataset),
        (DATASET_VERSION, context.dataset_version),
        (ITEM_ID, context.item_id),
        (RUN_INDEX, context.run_index),
        (PROMPT_VERSION, context.prompt_version),
    ]
    return {key: value for key, value in pairs if value is not None}


def from_attributes(attributes: Mapping[str, Any]) -> EvalContext:
    """Read the evaluation context back from span attributes (missing keys stay None)."""

    def text(key: str) -> str | None:
        value = attributes.get(key)
        return None if value is None else str(value)

    run_index = attributes.get(RUN_INDEX)
    return EvalContext(
        build_id=text(BUILD_ID),
        suite=text(SUITE),
        suite_version=text(SUITE_VERSION),
        dataset=text(DATASET),
        dataset_version=text(DATASET_VERSION),
        item_id=text(ITEM_ID),
        run_index=None if run_index is None else int(run_index),
        prompt_version=text(PROMPT_VERSION),
    )


def problem(attributes: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(field, message)`` when an eval-context value on a span is unusable (None when fine).

    Checked at ingest so one bad span is rejected there, instead of failing every reader of
    the store later: ``run.index`` must be a non-negative integer, ``build.id`` a non-empty
    string. (Build names the file system cannot hold: ``ingest.guard.build_problem``.)
    """
    if RUN_INDEX in attributes:
        index = attributes[RUN_INDEX]
        if type(index) is not int or index < 0:
            return RUN_INDEX, f"must be a non-negative integer, got {index!r:.80}"
    if BUILD_ID in attributes:
        build = attributes[BUILD_ID]
        if type(build) is not str or not build:
            return BUILD_ID, f"must be a non-empty string, got {build!r:.80}"
    return None
