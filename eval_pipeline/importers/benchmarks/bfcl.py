"""Import BFCL questions with their possible answers (ShishirPatil/gorilla, BFCL v4).

Questions (``BFCL_v4_<category>.jsonl``: ``id``, ``question`` as a list of turns of messages,
``function`` docs) pair with possible answers (same ids, ``ground_truth``: a list of
``{function: {param: [acceptable values]}}``, where ``""`` marks an omittable parameter). That
is exactly the ``ExpectedToolCall`` convention, so answers are copied through. Calls within one
answer are unordered (parallel categories), so no ordering constraints are added.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.importers.imported import ImportedItems, merge, openai_function
from eval_pipeline.importers.source_files import SourceError, read_jsonl

UPSTREAM = "ShishirPatil/gorilla berkeley-function-call-leaderboard (BFCL v4)"
LICENCE = "Apache-2.0"


def category(question_id: str) -> str:
    """The BFCL category of an id (``simple_python_12`` -> ``simple_python``)."""
    head = question_id.split("-", 1)[0]
    stem, _, last = head.rpartition("_")
    return stem if last.isdigit() and stem else head


def _messages(question: Any, where: str) -> tuple[dict[str, Any], ...]:
    if not isinstance(question, list):
        raise SourceError(f"{where}: 'question' must be a list of turns")
    turns = question if all(isinstance(t, list) for t in question) else [question]
    return tuple(
        {"role": str(m.get("role", "user")), "content": str(m.get("content", ""))}
        for turn in turns
        for m in turn
    )


def expected_calls(ground_truth: Any, where: str) -> tuple[ExpectedToolCall, ...]:
    """BFCL ground truth as expected calls (acceptable values copied through)."""
    if not isinstance(ground_truth, list):
        raise SourceError(f"{where}: 'ground_truth' must be a list")
    calls = []
    for entry in ground_truth:
        if not isinstance(entry, dict) or len(entry) != 1:
            raise SourceError(f"{where}: each ground-truth entry must map one function")
        ((name, params),) = entry.items()
        if not isinstance(params, dict):
            raise SourceError(f"{where}: parameters of {name!r} must be an object")
        calls.append(
            ExpectedToolCall(
                name=str(name),
                arguments={
                    str(k): list(v) if isinstance(v, list) else [v] for k, v in params.items()
                },
            )
        )
    return tuple(calls)


def _split(paths: Sequence[Path]) -> tuple[list[tuple[Path, dict[str, Any]]], dict[str, Any]]:
    questions: list[tuple[Path, dict[str, Any]]] = []
    answers: dict[str, Any] = {}
    for path in paths:
        for row in read_jsonl(path):
            if "ground_truth" in row:
                answers[str(row["id"])] = row["ground_truth"]
            elif "question" in row:
                questions.append((path, row))
            else:
                raise SourceError(f"{path}: row {row.get('id')!r} is neither question nor answer")
    return questions, answers


def import_bfcl(paths: Sequence[Path]) -> ImportedItems:
    """One item per question in ``paths``; every question needs its possible answer."""
    questions, answers = _split(paths)
    if not questions:
        raise SourceError("no BFCL questions among the paths")
    items: list[DatasetItem] = []
    parts: list[ImportedItems] = []
    for path, row in questions:
        question_id = str(row["id"])
        where = f"{path.name}: {question_id}"
        if question_id not in answers:
            raise SourceError(f"{where}: no possible answer for this question")
        schemas = tuple(openai_function(f) for f in row.get("function") or ())
        calls = expected_calls(answers.pop(question_id), where)
        items.append(
            DatasetItem(
                item_id=question_id,
                input_messages=_messages(row.get("question"), where),
                expected_tool_calls=calls,
                tool_schemas=schemas,
                slices={
                    "category": category(question_id),
                    "language": "en",
                    "tool": calls[0].name if calls else "none",
                },
                provenance={"source": UPSTREAM, "file": path.name, "id": question_id},
            )
        )
        parts.append(ImportedItems((), schemas, {}))
    if answers:
        extra = ", ".join(sorted(answers)[:5])
        raise SourceError(f"possible answers without a question: {extra}")
    files = sorted({p.name for p in paths})
    provenance = {"format": "bfcl", "upstream": UPSTREAM, "licence": LICENCE, "files": files}
    return ImportedItems(tuple(items), merge(parts).tool_schemas, provenance)
