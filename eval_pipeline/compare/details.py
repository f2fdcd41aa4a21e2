"""What a person reads beside a changed item: its input and reference, each run's answer and calls.

The reference comes from the dataset version the score rows name (the home's datasets, then
the shipped ones); a version the home does not hold leaves the reference empty and says so
(``Reference.missing``). Answers and tool calls are read from the trace store as stored, so they
are redacted as every stored string is; only the traces of the items shown are read, in one
filtered read per build. A run whose trace the home does not hold has no detail (shown as such).
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from eval_pipeline.datasets.artefact import DatasetError
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.home import Home
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.store.trace_store import TraceStore

TEXT_LIMIT = 400
"""Characters of an input, answer or argument list shown in text and Markdown (JSON has all)."""


@dataclass(frozen=True)
class Reference:
    """An item's input and what it expects (the dataset's reference), or why it is missing.

    The input shown beside a comparison is the stored run's (redacted) where a run has one;
    the dataset's is the fallback.
    """

    user_input: str | None = None
    answer: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    missing: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The reference as JSON."""
        return {
            "input": self.user_input,
            "answer": self.answer,
            "tool_calls": list(self.tool_calls),
            "missing": self.missing,
        }


@dataclass(frozen=True)
class RunDetail:
    """One run as stored: the input it was given, its final answer and its tool calls."""

    trace_id: str
    user_input: str | None
    answer: str | None
    tool_calls: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        """The run's detail as JSON."""
        return {
            "input": self.user_input,
            "answer": self.answer,
            "tool_calls": list(self.tool_calls),
        }


def _detail(run: AgentRun) -> RunDetail:
    calls = tuple(
        {"name": c.name, "arguments": c.arguments, **({"error": c.error} if c.error else {})}
        for c in run.tool_calls
    )
    return RunDetail(run.trace_id, run.user_input, run.final_answer, calls)


def run_details(home: Home, build: str, trace_ids: Iterable[str]) -> dict[str, RunDetail]:
    """Trace id -> the run's detail, for the traces of ``build`` the home holds."""
    wanted = {t.lower() for t in trace_ids if t}
    if not wanted:
        return {}
    runs = TraceStore(home.store).read_traces(build, wanted)
    return {run.trace_id: _detail(run) for run in runs}


def references(
    home: Home, items: Iterable[tuple[str, str | None, str | None]]
) -> dict[str, Reference]:
    """Item id -> its reference, for ``(item_id, dataset, dataset_version)`` triples.

    Datasets come from the home's store, then the shipped ones (package data), as the
    evaluation stage reads them.
    """
    store = DatasetStore(home.datasets, read_only_roots=(shipped_datasets_dir(),))
    loaded: dict[tuple[str, str], dict[str, Any] | str] = {}
    out: dict[str, Reference] = {}
    for item_id, dataset, version in items:
        if dataset is None or version is None:
            out[item_id] = Reference(missing="the score rows name no dataset version")
            continue
        key = (dataset, version)
        if key not in loaded:
            try:
                loaded[key] = {i.item_id: i for i in store.load(dataset, version).items}
            except DatasetError as exc:  # not found, or unreadable: said on the row
                loaded[key] = str(exc)
        found = loaded[key]
        if isinstance(found, str):
            out[item_id] = Reference(missing=found)
        elif item_id not in found:
            out[item_id] = Reference(missing=f"{dataset}@{version} has no item {item_id}")
        else:
            item = found[item_id]
            calls = tuple(c.to_dict() for c in item.expected_tool_calls)
            out[item_id] = Reference(item.user_input or None, item.reference_answer, calls)
    return out
