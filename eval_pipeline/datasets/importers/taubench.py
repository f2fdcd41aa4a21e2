"""Import tau-bench v1 tasks (sierra-research/tau-bench): one item per task.

Source files are ``tasks_<domain>_<split>.json`` (``{"source", "split", "tasks": [...]}``, each
task with ``instruction``, ``actions`` (name + exact ``kwargs``) and ``outputs``) and optionally
``tools_<domain>.json`` (``{"source", "tools": [OpenAI functions]}``), plain or gzip'd. Item ids
are ``v1-<split>-<task_id>`` (``v1-test-5``), prefixed with the domain when several domains are
imported together.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.importers import tau_actions
from eval_pipeline.datasets.importers.imported import ImportedItems, merge, openai_function
from eval_pipeline.datasets.importers.source_files import SourceError, read_json
from eval_pipeline.datasets.item import DatasetItem

UPSTREAM = "sierra-research/tau-bench@59a200c"
LICENCE = "MIT"


def is_tool_file(document: Any) -> bool:
    """True for a tools document (``{"tools": [...]}`` of OpenAI functions)."""
    return isinstance(document, dict) and isinstance(document.get("tools"), list)


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
        slices={
            "domain": domain,
            "intent": tau_actions.intent(actions),
            "language": "en",
            "tool": tau_actions.primary_tool(actions),
        },
        provenance={
            "source": UPSTREAM,
            "split": split,
            "task_id": task_id,
            "user_id": task.get("user_id"),
            "annotator": task.get("annotator"),
            "input_is": "user-simulator instruction",
        },
    )


def import_taubench(paths: Sequence[Path]) -> ImportedItems:
    """Items of every task file in ``paths``; tool files among them become the schemas."""
    task_docs: list[tuple[Path, dict[str, Any]]] = []
    schemas: list[dict[str, Any]] = []
    for path in paths:
        document = read_json(path)
        if is_tool_file(document):
            schemas.extend(openai_function(tool) for tool in document["tools"])
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
