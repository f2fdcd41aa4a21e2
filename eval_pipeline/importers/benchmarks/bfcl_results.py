"""BFCL model result files -> a replay build: one agent run per question.

A BFCL result file (``result/<model>/BFCL_v4_<category>_result.json``) holds one JSON object per
line: ``id`` and ``result``, the model's output, either function-calling style (a list of
``{function_name: arguments}``, arguments a dict or a JSON string) or prompting style (a string
of Python calls, ``"[math.factorial(number=5)]"``). Optional ``input_token_count``,
``output_token_count`` and ``latency`` become the chat span's usage and duration.

Each question becomes a run in GenAI conventions: a root ``invoke_agent`` span with the eval
context (build, dataset, item id = question id), a ``chat`` span holding the model output, and
one ``execute_tool`` span per call in the output. An output that is not a list of calls is kept
as the chat span's text with no tool call (the model answered wrongly; nothing is invented).
"""

import ast
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from eval_pipeline import json_input
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.importers.benchmarks.bfcl import category, import_bfcl
from eval_pipeline.importers.conversation import Turn, conversation_spans
from eval_pipeline.importers.report import ImportReport
from eval_pipeline.importers.source_files import SourceError, read_jsonl
from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult
from eval_pipeline.traces.ingest.ingest import RowStore, ingest
from eval_pipeline.traces.model import EvalContext, Span
from eval_pipeline.traces.redact.redactor import RedactionPolicy

AGENT_NAME = "bfcl_model"
DIALECT = "bfcl"
_START_NS = 1_700_000_000_000_000_000


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    raise ValueError("not a function name")


def parse_output(result: Any) -> list[tuple[str, dict[str, Any]]] | None:
    """The calls in a model output, or None when it is not a list of calls."""
    if isinstance(result, str):
        text = result.strip()
        try:
            tree = ast.parse(text if text.startswith("[") else f"[{text}]", mode="eval").body
            if not isinstance(tree, ast.List):
                return None
            calls = []
            for node in tree.elts:
                if not isinstance(node, ast.Call) or node.args:
                    return None
                arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
                calls.append((_dotted(node.func), arguments))
            return calls
        except (SyntaxError, ValueError):
            return None
    if isinstance(result, list):
        calls = []
        for entry in result:
            if not isinstance(entry, dict) or len(entry) != 1:
                return None
            ((name, arguments),) = entry.items()
            if isinstance(arguments, str):
                try:
                    arguments = json_input.loads(arguments)
                except ValueError:
                    return None
            if not isinstance(arguments, dict):
                return None
            calls.append((str(name), arguments))
        return calls
    return None


def run_spans(
    item: DatasetItem,
    row: dict[str, Any],
    *,
    build: str,
    dataset: str,
    dataset_version: str | None,
    model: str | None,
    index: int,
) -> tuple[list[Span], int | None]:
    """The spans of one question's run, and its call count (None when unparsed)."""
    calls = parse_output(row.get("result"))
    start = _START_NS + index * 10_000_000_000
    latency = row.get("latency")
    end = start + int(float(latency) * 1e9) if isinstance(latency, int | float) else start
    if calls is None:
        raw = row.get("result")
        assistant: dict[str, Any] = {
            "role": "assistant",
            "content": raw if isinstance(raw, str) else json.dumps(raw),
        }
    else:
        assistant = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{n}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
                for n, (name, arguments) in enumerate(calls)
            ],
        }
    turns = [
        *(Turn(raw=m, time_ns=start) for m in item.input_messages),
        Turn(
            raw=assistant,
            time_ns=end,
            input_tokens=_int(row.get("input_token_count")),
            output_tokens=_int(row.get("output_token_count")),
        ),
    ]
    context = EvalContext(
        build_id=build,
        dataset=dataset,
        dataset_version=dataset_version,
        item_id=item.item_id,
        run_index=0,
    )
    spans = conversation_spans(
        key=f"bfcl:{build}:{item.item_id}",
        agent_name=AGENT_NAME,
        model=model,
        turns=turns,
        context=context,
        dialect=DIALECT,
        root_attributes={"bfcl.category": category(item.item_id)},
    )
    return spans, None if calls is None else len(calls)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def ingest_bfcl_results(
    results: Sequence[Path],
    *,
    questions: Path | None,
    answers: Path | None,
    build: str | None,
    store: RowStore,
    policy: RedactionPolicy | None = None,
    dataset: str | None = None,
    dataset_version: str | None = None,
    model: str | None = None,
) -> ImportReport:
    """Store one run per answered question of ``results``; the report says what happened.

    The spans go to the one ingest function (``traces.ingest.ingest``), one batch per result
    file, so they are normalised, redacted and judged like every other trace. A result line
    naming no known question, or answering one twice, is an error in the report; questions
    with no result are simply absent runs (the gate's completeness check sees them).

    Args:
        results: BFCL result files (JSON Lines, ``id`` + ``result``).
        questions: The BFCL questions file the results answer (required).
        answers: Its possible-answer file (required; checked to pair with the questions).
        build: The replay build id (default ``bfcl:<first result file stem>``).
        store: Where the spans go.
        policy: Redaction policy (the shipped default when None).
        dataset: Dataset name in the eval context (default ``benchmark/bfcl-<category>``).
        dataset_version: Dataset version in the eval context, if known.
        model: Model name for the chat spans (prices the run); None leaves it unknown.
    """
    build_id = build or f"bfcl:{Path(results[0]).name.split('.')[0]}"
    batches = _batches(results, questions, answers, build_id, dataset, dataset_version, model)
    return ImportReport(ingest(batches, store=store, build=build_id, policy=policy))


def _batches(
    results: Sequence[Path],
    questions: Path | None,
    answers: Path | None,
    build: str,
    dataset: str | None,
    dataset_version: str | None,
    model: str | None,
) -> Iterator[DecodeResult]:
    """One batch per result file: the runs of its answered questions, the errors of its lines."""
    if questions is None or answers is None:
        yield _error(
            "--questions/--answers",
            "$",
            "--format bfcl needs the questions file and its possible-answer file",
        )
        return
    try:
        items = {item.item_id: item for item in import_bfcl([questions, answers]).items}
    except SourceError as exc:
        yield _error(str(questions), "$", str(exc))
        return
    answered: set[str] = set()
    for path in results:
        try:
            rows = read_jsonl(Path(path))
        except SourceError as exc:
            yield _error(str(path), "$", str(exc))
            continue
        spans: list[Span] = []
        errors: list[DecodeError] = []
        for line_no, row in enumerate(rows, start=1):
            question_id = str(row.get("id", ""))
            where = f"line {line_no}"
            if question_id not in items:
                errors.append(
                    DecodeError(str(path), where, f"id {question_id!r} is not a question")
                )
            elif question_id in answered:
                errors.append(DecodeError(str(path), where, f"id {question_id!r} answered twice"))
            elif "result" not in row:
                errors.append(DecodeError(str(path), where, f"{question_id}: no 'result'"))
            else:
                answered.add(question_id)
                name = dataset or f"benchmark/bfcl-{category(question_id).replace('_', '-')}"
                run, _ = run_spans(
                    items[question_id],
                    row,
                    build=build,
                    dataset=name,
                    dataset_version=dataset_version,
                    model=model,
                    index=len(answered),
                )
                spans.extend(run)
        yield DecodeResult(spans=spans, errors=errors)


def _error(source: str, where: str, message: str) -> DecodeResult:
    return DecodeResult(errors=[DecodeError(source, where, message)])
