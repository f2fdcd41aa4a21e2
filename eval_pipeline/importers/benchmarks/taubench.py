"""tau-bench (sierra-research/tau-bench, v1), read in one place: its tasks and its trajectories.

tau-bench's files come in three kinds, and both imports read them here:

- **tasks** ``tasks_<domain>_<split>.json`` (``{"source", "split", "tasks": [...]}``, each task
  with ``instruction``, ``actions`` (name + exact ``kwargs``) and ``outputs``) and **tools**
  ``tools_<domain>.json`` (``{"source", "tools": [OpenAI functions]}``), plain or gzip'd. The
  dataset import (``datasets import --format taubench``) makes one item per task
  (``import_tasks``), id ``v1-<split>-<task_id>`` (``v1-test-5``), prefixed with the domain when
  several domains are imported together; the tools become the dataset's tool schemas (tau2's
  tasks use them too: ``tool_schemas``).
- **historical trajectories**: a JSON list of ``{task_id, reward, info, traj, trial?}``;
  ``traj`` holds OpenAI chat messages (system, user, assistant with ``tool_calls``, tool with
  ``tool_call_id``). The trace import (``ingest --format taubench``) makes one run per
  trajectory and imports its reward as a ``task_success`` score (``read_taubench``). The files
  record no timestamps and no token usage: spans are ordered by message position, and chat
  spans carry no usage (so completeness flags them, truthfully). Eval context: build (given,
  else ``taubench:<file stem>``), dataset ``tau-bench/<domain>`` (domain from the file name or
  the system prompt), item = task id, run index = trial.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.importers.benchmarks import tau_actions
from eval_pipeline.importers.conversation import Turn, conversation_spans, reward_score
from eval_pipeline.importers.imported import ImportedItems, merge, openai_function
from eval_pipeline.importers.report import Recorded
from eval_pipeline.importers.source_files import SourceError, read_json
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.decode.errors import FieldError
from eval_pipeline.traces.model import EvalContext, Span
from eval_pipeline.traces.semconv import DIALECT_TAUBENCH

UPSTREAM = "sierra-research/tau-bench@59a200c"
LICENCE = "MIT"
SCORER_ID = "imported:taubench"
METRIC_ID = "task_success"


# Tasks and tools -> dataset items.


def is_tool_file(document: Any) -> bool:
    """True for a tools document (``{"tools": [...]}`` of OpenAI functions)."""
    return isinstance(document, dict) and isinstance(document.get("tools"), list)


def tool_schemas(document: Any) -> list[dict[str, Any]] | None:
    """The tool schemas of a tools document; None when ``document`` is not one."""
    if not is_tool_file(document):
        return None
    return [openai_function(tool) for tool in document["tools"]]


def task_item(task: dict[str, Any], *, split: str, domain: str, prefix: str) -> DatasetItem:
    """One v1 task as a dataset item."""
    task_id = task.get("task_id")
    if task_id is None or "instruction" not in task or "actions" not in task:
        raise SourceError(f"{split}: task {task_id!r} lacks task_id, instruction or actions")
    actions = [
        (str(a["name"]), dict(a.get("kwargs") or a.get("arguments") or {})) for a in task["actions"]
    ]
    part = split.removeprefix(f"{domain}_")
    return DatasetItem(
        item_id=f"{prefix}v1-{part}-{task_id}",
        input_messages=({"role": "user", "content": str(task["instruction"])},),
        expected_tool_calls=tuple(tau_actions.expected_call(n, a) for n, a in actions),
        ordering=tau_actions.ordering(actions),
        required_outputs=tuple(str(o) for o in task.get("outputs") or ()),
        required_entities=tau_actions.entities(actions),
        expected_end_state=tau_actions.end_state(actions),
        slices=tau_actions.slices(domain, actions),
        provenance={
            "source": UPSTREAM,
            "split": split,
            "task_id": task_id,
            "user_id": task.get("user_id"),
            "annotator": task.get("annotator"),
            "input_is": "user-simulator instruction",
        },
    )


def import_tasks(paths: Sequence[Path]) -> ImportedItems:
    """Items of every task file in ``paths``; tool files among them become the schemas."""
    task_docs: list[tuple[Path, dict[str, Any]]] = []
    schemas: list[dict[str, Any]] = []
    for path in paths:
        document = read_json(path)
        if (tools := tool_schemas(document)) is not None:
            schemas.extend(tools)
        elif isinstance(document, dict) and isinstance(document.get("tasks"), list):
            task_docs.append((path, document))
        else:
            raise SourceError(f"{path}: neither a tau-bench v1 tasks file nor a tools file")
    if not task_docs:
        raise SourceError("no tau-bench v1 tasks file among the paths")
    splits = [str(doc.get("split") or path.name) for path, doc in task_docs]
    domains = [split.split("_", 1)[0] for split in splits]
    several = len(set(domains)) > 1
    parts = []
    for (path, document), split, domain in zip(task_docs, splits, domains, strict=True):
        items = tuple(
            task_item(task, split=split, domain=domain, prefix=f"{domain}/" if several else "")
            for task in document["tasks"]
        )
        provenance = {
            "format": "taubench",
            "upstream": UPSTREAM,
            "licence": LICENCE,
            "file": path.name,
            "source": document.get("source"),
            "split": split,
            "tasks": len(items),
        }
        parts.append(ImportedItems(items, (), provenance))
    merged = merge(parts)
    return ImportedItems(merged.items, tuple(schemas), merged.provenance)


# Trajectories -> runs and their recorded rewards.


def is_taubench(document: Any) -> bool:
    """True for a parsed tau-bench trajectories list."""
    return (
        isinstance(document, list)
        and bool(document)
        and all(isinstance(e, dict) and "traj" in e and "task_id" in e for e in document)
    )


def _domain(source: str, entries: list[dict[str, Any]]) -> str:
    stem = Path(source).stem.lower()
    for domain in ("airline", "retail"):
        if domain in stem:
            return domain
    for entry in entries:
        for msg in entry.get("traj") or []:
            if isinstance(msg, dict) and msg.get("role") == "system":
                head = str(msg.get("content", ""))[:80].lower()
                for domain in ("airline", "retail"):
                    if domain in head:
                        return domain
    return "unknown"


def _entries(document: Any) -> list[dict[str, Any]]:
    if not is_taubench(document):
        raise FieldError("$", "not a tau-bench trajectories file (a list of {task_id, traj})")
    for index, entry in enumerate(document):
        if not isinstance(entry["traj"], list):
            raise FieldError(f"[{index}].traj", "must be a list of messages")
    return list(document)


def read_taubench(document: Any, *, source: str, build: str | None = None) -> Recorded:
    """Spans of every trajectory in a tau-bench trajectories document, and their rewards.

    Each trajectory's recorded reward becomes a ``task_success`` score row pointing at the
    trajectory's root span.
    """
    entries = _entries(document)
    build_id = build or f"taubench:{Path(source).stem}"
    dataset = f"tau-bench/{_domain(source, entries)}"
    spans: list[Span] = []
    scores: list[Score] = []
    for index, entry in enumerate(entries):
        trial = int(entry.get("trial") or 0)
        turns = []
        for position, raw in enumerate(entry["traj"]):
            if not isinstance(raw, dict) or "role" not in raw:
                raise FieldError(f"[{index}].traj[{position}]", "must be an object with a role")
            turns.append(
                Turn(
                    raw=raw,
                    time_ns=(position + 1) * 1_000_000,
                    model_call=raw.get("role") == "assistant",
                )
            )
        run = conversation_spans(
            key=f"taubench:{Path(source).name}:{entry['task_id']}:{trial}:{index}:{build_id}",
            agent_name="tau_bench_agent",
            model=None,
            turns=turns,
            context=EvalContext(
                build_id=build_id,
                dataset=dataset,
                item_id=str(entry["task_id"]),
                run_index=trial,
            ),
            dialect=DIALECT_TAUBENCH,
            root_attributes={
                "taubench.entry.index": index,
                "taubench.reward": entry.get("reward"),
            },
        )
        spans.extend(run)
        scores.append(
            reward_score(
                entry.get("reward"),
                benchmark="tau-bench",
                metric_id=METRIC_ID,
                scorer_id=SCORER_ID,
                root=run[0],
                build=build_id,
                item_id=str(entry["task_id"]),
                run_index=trial,
                evidence={"source": source, "entry": index},
            )
        )
    return Recorded(spans, scores)


def import_taubench(document: Any, *, source: str, build: str | None = None) -> list[Span]:
    """Spans of every trajectory in a tau-bench trajectories document (``read_taubench``)."""
    return read_taubench(document, source=source, build=build).spans


def imported_scores(document: Any, *, source: str, build: str | None = None) -> list[Score]:
    """The recorded reward of each trajectory as a ``task_success`` score (``read_taubench``)."""
    return read_taubench(document, source=source, build=build).scores
