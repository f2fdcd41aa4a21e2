"""Triage: a failing run becomes a regression case, with its trace attached, in a new version.

The case keeps what exposed the defect: the user input, the tool calls the run made, the
triage note, and the trace itself (trace id, build, every span as JSON) in provenance. When the
run came from an offline evaluation of a dataset item, the case inherits that item's reference
(expected calls, ordering, forbidden calls, required outputs), so the regression is scored
exactly as the original failure was. The note becomes an assertion the fixed agent must satisfy.

A production trace has no item to inherit from: its case is built from the trace
(``case_references``: input messages, the failing calls as calls that must not recur, slices)
and the reviewer's references (expected calls, reference answer) when given. What the reviewer
did not give is declared absent by design (``absent_references``), so a metric needing it is
not applicable on the case, not missing.
"""

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from eval_pipeline.datasets import absent_references, case_references
from eval_pipeline.datasets.artefact import (
    Dataset,
    DatasetError,
    kind_of_name,
    next_version,
    tool_schema_name,
)
from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall, ForbiddenCall
from eval_pipeline.datasets.publishing import publish_checked
from eval_pipeline.datasets.store import DatasetStore
from eval_pipeline.traces.model import AgentRun, Span


class TriageError(DatasetError):
    """The trace cannot be triaged into that dataset (wrong kind, already triaged, ...)."""


def spans_json(spans: Sequence[Span]) -> list[dict[str, Any]]:
    """The spans as JSON-safe dicts (dataclass fields; tuples become lists)."""
    text = json.dumps([dataclasses.asdict(s) for s in spans], default=str, sort_keys=True)
    parsed: list[dict[str, Any]] = json.loads(text)
    return parsed


def source_item(dataset: Dataset, item_id: str) -> DatasetItem:
    """An item of ``dataset`` carrying the tool schemas it uses, so it stands on its own.

    A regression dataset collects cases from many datasets; copying the schemas onto the case
    keeps "expected tools exist in the tool schema" checkable there.
    """
    item = dataset.item(item_id)
    if item.tool_schemas:
        return item
    used = {c.name for t in item.trajectories for c in t} | {f.name for f in item.forbidden_calls}
    schemas = tuple(s for s in dataset.tool_schemas if tool_schema_name(s) in used)
    return replace(item, tool_schemas=schemas)


def _asked(text: str) -> tuple[dict[str, Any], ...]:
    return ({"role": "user", "content": text},)


def regression_case(
    run: AgentRun,
    spans: Sequence[Span],
    *,
    note: str,
    build: str,
    source_item: DatasetItem | None = None,
    triaged_at: datetime | None = None,
    expected_calls: Sequence[ExpectedToolCall] | None = None,
    reference_answer: str | None = None,
    must_not_recur: Sequence[ForbiddenCall] | None = None,
    slices: Sequence[tuple[str, str]] = (),
    user_input: str | None = None,
) -> DatasetItem:
    """The regression item for a failing ``run`` (see the module docstring).

    ``expected_calls``, ``reference_answer`` and ``must_not_recur`` are the reviewer's (None:
    not given; for ``must_not_recur``, the run's failing calls); ``slices`` add to or override
    the trace's; ``user_input`` replaces the trace's input (a trace recorded without message
    content has none, and a case without input cannot be run).
    """
    if not note.strip():
        raise TriageError("a triage note is required: say what went wrong")
    observed = [
        {"name": c.name, "arguments": c.arguments, "error": c.error, "span_id": c.span_id}
        for c in run.tool_calls
    ]
    context = run.eval_context
    provenance: dict[str, Any] = {
        "origin": "triage",
        "trace_id": run.trace_id,
        "build": build,
        "note": note,
        "triaged_at": (triaged_at or datetime.now(UTC)).isoformat(),
        "root_span_id": run.root_span_id,
        "observed_tool_calls": observed,
        "final_answer": run.final_answer,
        "eval_context": dataclasses.asdict(context),
        "spans": spans_json(spans),
    }
    assertion = f"Does not repeat the triaged defect: {note.strip()}"
    item_id = f"trace-{run.trace_id}"
    if source_item is not None:
        provenance["source_item"] = {
            "dataset": context.dataset,
            "version": context.dataset_version,
            "item_id": source_item.item_id,
            "provenance": source_item.provenance,
        }
        inherited = replace(
            source_item,
            item_id=item_id,
            assertions=(*source_item.assertions, assertion),
            slices={**source_item.slices, **dict(slices), "origin": "offline"},
            provenance=provenance,
        )
        if expected_calls is not None:
            inherited = replace(inherited, expected_tool_calls=tuple(expected_calls))
        if reference_answer is not None:
            inherited = replace(inherited, reference_answer=reference_answer)
        if user_input is not None:
            inherited = replace(inherited, input_messages=_asked(user_input))
        return inherited
    forbidden, skipped = case_references.failing_calls(run, note.strip())
    if must_not_recur is not None:
        forbidden, skipped = tuple(must_not_recur), []
    provenance["must_not_recur_skipped"] = skipped
    case = DatasetItem(
        item_id=item_id,
        input_messages=(
            case_references.input_messages(run) if user_input is None else _asked(user_input)
        ),
        reference_answer=reference_answer,
        expected_tool_calls=tuple(expected_calls or ()),
        forbidden_calls=forbidden,
        assertions=(assertion,),
        slices=case_references.slices_of(run, slices),
        provenance=provenance,
    )
    provenance[absent_references.KEY] = absent_references.declaration(case)
    return case


def add_regression_case(
    store: DatasetStore, name: str, case: DatasetItem, *, owner: str = "triage"
) -> Dataset:
    """Publish ``name`` as a new version holding its previous cases plus ``case``.

    The previous version stays readable; the first case creates ``v1``. The new version is
    validated before it is published (``publishing.publish_checked``), so a case the
    ``datasets validate`` rules would mark invalid is refused, not published.

    Raises:
        TriageError: ``name`` is not a regression dataset, or the trace is already in it.
        DatasetRefusedError: the new version breaks a validation rule (one line per problem,
            the new case named by its trace).
    """
    if kind_of_name(name) != "regression":
        raise TriageError(f"--dataset {name!r}: triage writes to regression/<name> datasets")
    versions = store.versions(name)
    where = f"trace {case.provenance.get('trace_id', case.item_id)}"
    if versions:
        latest = store.load(name, versions[-1])
        if case.item_id in latest.item_ids:
            raise TriageError(f"{case.item_id} is already a case of {latest.ref}")
        dataset = latest.revised(next_version(versions), (*latest.items, case))
        locations = (*(latest.ref for _ in latest.items), where)
    else:
        dataset = Dataset(
            name=name,
            version="v1",
            owner=owner,
            kind="regression",
            items=(case,),
            provenance={"origin": "triage"},
            description="Production and evaluation failures triaged as real defects.",
        )
        locations = (where,)
    return publish_checked(store, dataset, locations).dataset
