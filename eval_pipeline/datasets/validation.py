"""Dataset schema validation with great_expectations (the ``dataset schema valid`` check).

Items are flattened into two pandas frames: one row per item, and one row per expected or
forbidden tool call. An expectation suite runs over each (unique ids, non-empty input, slice
labels present, something to score against, acceptable-value lists non-empty, ordering
constraints naming tools of the trajectory, every referenced tool defined in a tool schema).
great_expectations is imported lazily and runs in an ephemeral context with progress bars off.
The tool schemas themselves, and the arguments calls name, are checked by ``tool_checks``.
Every failure is also an ``Offence`` naming the rule and the item's row, so a caller that knows
where each item came from (``publishing``) can point at the file and line.
"""

import functools
import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.datasets.artefact import Dataset, tool_schema_name
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.tool_checks import (
    SCHEMA_RULE,
    dataset_schema_problems,
    item_tool_problems,
)

TOOLS_DEFINED_RULE = "expected tools exist in the tool schema"
USER_TEXT_RULE = "input has user text"


@dataclass(frozen=True)
class Offence:
    """One rule broken by one item (``row``: its index in the dataset; None: the dataset)."""

    rule: str
    row: int | None
    item_id: str | None
    detail: str = ""


@dataclass(frozen=True)
class ValidationResult:
    """The outcome of validating one dataset version.

    ``failures`` holds one line per failed rule, naming the rule and the offending item ids
    (or values); ``offences`` the same, one per item and rule; ``statistics`` counts
    expectations and rows.
    """

    success: bool
    failures: list[str] = field(default_factory=list)
    statistics: dict[str, Any] = field(default_factory=dict)
    offences: list[Offence] = field(default_factory=list)


def _references(item: DatasetItem, kind: str) -> int:
    """How many things ``item`` can be scored against (what counts depends on the kind)."""
    if kind == "adversarial":
        return len(item.forbidden_calls) + len(item.canaries)
    return sum(
        (
            bool(item.reference_answer and item.reference_answer.strip()),
            bool(item.expected_tool_calls),
            bool(item.required_outputs),
            bool(item.assertions),
            item.expected_end_state is not None,
        )
    )


def _item_rows(dataset: Dataset, required_slices: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for index, item in enumerate(dataset.items):
        trajectory_tools = {c.name for t in item.trajectories for c in t}
        row: dict[str, Any] = {
            "row": index,
            "item_id": item.item_id,
            "input_chars": len(item.user_input.strip()),
            "slice_count": len(item.slices),
            "reference_count": _references(item, dataset.kind),
            "empty_value_lists": sum(
                1 for t in item.trajectories for c in t for v in c.arguments.values() if not v
            ),
            "dangling_ordering": sum(
                1
                for o in item.ordering
                if o.before not in trajectory_tools or o.after not in trajectory_tools
            ),
        }
        for key in required_slices:
            value = item.slices.get(key)
            row[f"slice_{key}"] = value if value else None
        rows.append(row)
    return rows


def _call_rows(dataset: Dataset) -> list[dict[str, Any]]:
    shared = {n for s in dataset.tool_schemas if (n := tool_schema_name(s))}
    rows: list[dict[str, Any]] = []
    for index, item in enumerate(dataset.items):
        known = shared | {n for s in item.tool_schemas if (n := tool_schema_name(s))}
        names = [c.name for t in item.trajectories for c in t]
        names += [f.name for f in item.forbidden_calls]
        rows.extend(
            {"row": index, "item_id": item.item_id, "tool": n, "tool_defined": n in known}
            for n in names
        )
    return rows


_BATCHES = itertools.count()


@functools.lru_cache(maxsize=1)
def _context() -> Any:
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig

    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


def _render(offender: Any) -> str:
    if not isinstance(offender, dict):
        return str(offender)
    tool = offender.get("tool")
    return f"{offender.get('item_id')} ({tool})" if tool else str(offender.get("item_id"))


def _run(
    name: str, frame: Any, expectations: list[tuple[str, Any]]
) -> tuple[list[str], list[Offence]]:
    """Validate ``frame`` against ``expectations`` (rule text, expectation): failures, offences."""
    import great_expectations as gx

    context = _context()
    source = context.data_sources.add_or_update_pandas(f"dataset_{name}")
    asset = source.add_dataframe_asset(name=f"{name}_{next(_BATCHES)}")
    batch = asset.add_batch_definition_whole_dataframe("all").get_batch(
        batch_parameters={"dataframe": frame}
    )
    suite = gx.ExpectationSuite(name=f"dataset_{name}")
    for _, expectation in expectations:
        suite.add_expectation(expectation)
    result = batch.validate(
        suite,
        result_format={
            "result_format": "COMPLETE",
            "unexpected_index_column_names": ["row", "item_id"],
        },
    )
    failures: list[str] = []
    offences: list[Offence] = []
    for (rule, _), outcome in zip(expectations, result.results, strict=True):
        if outcome.success:
            continue
        offenders = outcome.result.get("unexpected_index_list") or []
        shown = ", ".join(dict.fromkeys(_render(o) for o in offenders))
        failures.append(f"{rule}: {len(offenders)} offending row(s): {shown[:400]}")
        offences.extend(
            Offence(rule, int(o["row"]), str(o["item_id"]), str(o.get("tool") or ""))
            for o in offenders
            if isinstance(o, dict)
        )
    return failures, offences


def _tool_offences(dataset: Dataset) -> list[Offence]:
    offences = [Offence(SCHEMA_RULE, None, None, p) for p in dataset_schema_problems(dataset)]
    for index, item in enumerate(dataset.items):
        for rule, details in item_tool_problems(item, dataset.tool_schemas).items():
            offences.extend(Offence(rule, index, item.item_id, d) for d in details)
    return offences


def validate_dataset(dataset: Dataset, *, required_slices: Sequence[str] = ()) -> ValidationResult:
    """Run the schema expectations over ``dataset``.

    Args:
        dataset: The dataset version to check.
        required_slices: Slice keys every item must carry (e.g. a suite's ``slices``).
    """
    import great_expectations as gx
    import pandas as pd

    if not dataset.items:
        empty = "the dataset has no items"
        return ValidationResult(
            False, [f"{dataset.ref}: {empty}"], {"items": 0}, [Offence(empty, None, None)]
        )
    items = pd.DataFrame(_item_rows(dataset, required_slices))
    exp = gx.expectations
    item_rules: list[tuple[str, Any]] = [
        ("item_id is unique", exp.ExpectColumnValuesToBeUnique(column="item_id")),
        ("item_id is present", exp.ExpectColumnValuesToNotBeNull(column="item_id")),
        (
            USER_TEXT_RULE,
            exp.ExpectColumnValuesToBeBetween(column="input_chars", min_value=1),
        ),
        ("slices present", exp.ExpectColumnValuesToBeBetween(column="slice_count", min_value=1)),
        (
            f"references non-empty ({dataset.kind})",
            exp.ExpectColumnValuesToBeBetween(column="reference_count", min_value=1),
        ),
        (
            "acceptable-value lists non-empty",
            exp.ExpectColumnValuesToBeBetween(column="empty_value_lists", max_value=0),
        ),
        (
            "ordering names tools of the trajectory",
            exp.ExpectColumnValuesToBeBetween(column="dangling_ordering", max_value=0),
        ),
    ]
    item_rules += [
        (f"slice '{key}' present", exp.ExpectColumnValuesToNotBeNull(column=f"slice_{key}"))
        for key in required_slices
    ]
    failures, offences = _run("items", items, item_rules)
    evaluated = len(item_rules) + 2
    call_rows = _call_rows(dataset)
    if call_rows:
        calls = pd.DataFrame(call_rows)
        defined = (
            TOOLS_DEFINED_RULE,
            exp.ExpectColumnValuesToBeInSet(
                column="tool", value_set=sorted(set(calls.loc[calls["tool_defined"], "tool"]))
            ),
        )
        call_failures, call_offences = _run("calls", calls, [defined])
        failures += call_failures
        offences += call_offences
        evaluated += 1
    tool_offences = _tool_offences(dataset)
    for rule in dict.fromkeys(o.rule for o in tool_offences):
        broken = [o for o in tool_offences if o.rule == rule]
        shown = "; ".join(f"{o.item_id or 'dataset'}: {o.detail}" for o in broken)
        failures.append(f"{rule}: {len(broken)} problem(s): {shown[:400]}")
    offences += tool_offences
    statistics = {
        "items": len(dataset.items),
        "tool_calls": len(call_rows),
        "evaluated_expectations": evaluated,
        "unsuccessful_expectations": len(failures),
    }
    return ValidationResult(
        not failures, [f"{dataset.ref}: {f}" for f in failures], statistics, offences
    )
