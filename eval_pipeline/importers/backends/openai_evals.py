"""OpenAI Evals exports -> a versioned dataset, runs, and imported grader scores.

OpenAI's hosted Evals closed on 2026-11-30; this reads what its users exported (the shapes of the
Evals API, as the ``openai`` package's types define them, ``openai.types.evals``):

- **items**: the run's JSONL data source, one ``{"item": {...}}`` per line (plain objects too);
- **output items**: ``eval.run.output_item`` objects (a ``{"object": "list", "data": [...]}``
  page from ``GET /evals/{eval_id}/runs/{run_id}/output_items``, a list, or JSON Lines), each with
  ``datasource_item_id``, ``datasource_item``, ``sample`` (input and output messages, model,
  token usage, error) and ``results`` (per grader: ``name``, ``type``, ``score``, ``passed``);
- optionally the ``eval.run`` object (its ``name`` names the build).

Items (from the items files, else from the output items' ``datasource_item``) become a dataset
version (``--name``/``--version``; immutable: the same content again is a no-op, other content
is refused), item id = the item's ``id`` field, else its position (``datasource_item_id``);
``input`` (text or messages) is the input, ``ideal``/``expected``/``reference``/``answer`` the
reference answer. Each output item becomes a run of build ``--build`` (else
``openai-evals:<run name or id>``) through the one ingest function, and each grader result a
score row: metric = grader name, value = 1.0 when the grader passed the sample, else 0.0 (the
pass rate OpenAI Evals reports; the grader's own score, which need not lie in [0, 1], is kept in
the evidence). A sample that errored makes its graders' rows ``error`` with the API's message.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_pipeline.backends.export_files import records
from eval_pipeline.backends.imported_scores import IMPORTED_PREFIX
from eval_pipeline.datasets.artefact import Dataset, DatasetError, kind_of_name
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.store import DatasetStore
from eval_pipeline.importers.conversation import Turn, conversation_spans
from eval_pipeline.importers.report import ImportReport
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult, FieldError
from eval_pipeline.traces.ingest.ingest import RowStore, ingest
from eval_pipeline.traces.model import EvalContext
from eval_pipeline.traces.redact.redactor import RedactionPolicy

SCORER_ID = f"{IMPORTED_PREFIX}openai-evals"
DIALECT = "openai-evals"
OWNER = "openai-evals-import"
REFERENCE_KEYS = ("ideal", "expected", "reference", "answer", "expected_output")


class EvalsInputError(ValueError):
    """The export cannot make a dataset at all (no items, a refused dataset version)."""


@dataclass
class EvalsImport:
    """What an OpenAI Evals import published and stored."""

    report: ImportReport
    dataset: str
    items: int


def _item_id(item: dict[str, Any], position: int) -> str:
    value = item.get("id")
    return str(value) if isinstance(value, str | int) and str(value) else str(position)


def dataset_item(item: dict[str, Any], position: int, source: str) -> DatasetItem:
    """One dataset item from an Evals data-source item."""
    raw = item.get("input", item.get("question", item.get("prompt")))
    if isinstance(raw, str):
        messages: tuple[dict[str, Any], ...] = ({"role": "user", "content": raw},)
    elif isinstance(raw, list) and all(isinstance(m, dict) and "role" in m for m in raw):
        messages = tuple({"role": m["role"], "content": m.get("content")} for m in raw)
    else:
        raise FieldError("item.input", "must be text or a list of messages with roles")
    reference = next((item[k] for k in REFERENCE_KEYS if item.get(k) is not None), None)
    return DatasetItem(
        item_id=_item_id(item, position),
        input_messages=messages,
        reference_answer=None if reference is None else str(reference),
        provenance={"source": source, "openai_evals_item": item, "datasource_item_id": position},
    )


def _turns(sample: dict[str, Any], where: str) -> list[Turn]:
    messages = [*(sample.get("input") or []), *(sample.get("output") or [])]
    usage: dict[str, Any] = sample["usage"] if isinstance(sample.get("usage"), dict) else {}
    turns = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or "role" not in message:
            raise FieldError(f"{where}.sample messages[{index}]", "must be an object with a role")
        last = index == len(messages) - 1 and message.get("role") == "assistant"
        turns.append(
            Turn(
                raw=message,
                time_ns=index + 1,
                input_tokens=usage.get("prompt_tokens") if last else None,
                output_tokens=usage.get("completion_tokens") if last else None,
                model_call=last,
            )
        )
    return turns


def _scores(
    output: dict[str, Any], root: Any, context: EvalContext, where: str
) -> tuple[list[Score], list[tuple[str, str]]]:
    sample: dict[str, Any] = output["sample"] if isinstance(output.get("sample"), dict) else {}
    error: dict[str, Any] = sample["error"] if isinstance(sample.get("error"), dict) else {}
    failed = bool(error.get("code") or error.get("message")) or output.get("status") == "error"
    rows, problems = [], []
    for index, result in enumerate(output.get("results") or []):
        field = f"{where}.results[{index}]"
        if not isinstance(result, dict) or not isinstance(result.get("name"), str):
            problems.append((field, "must be a grader result with a name"))
            continue
        passed = result.get("passed")
        if not failed and not isinstance(passed, bool):
            problems.append((f"{field}.passed", f"must be true or false, got {passed!r:.40}"))
            continue
        common: dict[str, Any] = {
            "metric_id": result["name"],
            "scorer_id": SCORER_ID,
            "scorer_version": 1,
            "trace_id": root.trace_id,
            "span_ids": (root.span_id,),
            "build": context.build_id,
            "item_id": context.item_id,
            "run_index": context.run_index,
            "dataset": context.dataset,
            "dataset_version": context.dataset_version,
            "evidence": {
                "grader_type": result.get("type"),
                "grader_score": result.get("score"),
                "output_item": output.get("id"),
                "run_id": output.get("run_id"),
            },
        }
        if failed:
            reason = f"sample errored: {error.get('code') or ''} {error.get('message') or ''}"
            rows.append(
                Score(value=None, status=ScoreStatus.ERROR, reason=reason.strip(), **common)
            )
        else:
            verdict = "passed" if passed else "failed"
            rows.append(
                Score(
                    value=1.0 if passed else 0.0,
                    status=ScoreStatus.SCORED,
                    reason=f"grader {verdict} (score {result.get('score')!r})",
                    **common,
                )
            )
    return rows, problems


def import_files(
    paths: Sequence[Path],
    *,
    datasets: DatasetStore,
    store: RowStore,
    name: str,
    version: str,
    build: str | None = None,
    policy: RedactionPolicy | None = None,
) -> EvalsImport:
    """Publish the export's items as ``name``@``version``, ingest its runs, read its grades."""
    found: list[tuple[str, Any]] = []
    errors: list[DecodeError] = []
    for path in paths:
        for source, record, problem in records(path):
            if problem is not None or not isinstance(record, dict):
                errors.append(DecodeError(source, "$", problem or "must be a JSON object"))
            else:
                found.append((source, record))
    runs = {r.get("id"): r for _, r in found if r.get("object") == "eval.run"}
    outputs = [(s, r) for s, r in found if r.get("object") == "eval.run.output_item"]
    plain = [(s, r.get("item", r)) for s, r in found if r.get("object") is None]
    sources = plain or [(s, o.get("datasource_item") or {}) for s, o in outputs]
    items: dict[str, DatasetItem] = {}
    for position, (source, item) in enumerate(sources):
        index = (
            position if plain else int(outputs[position][1].get("datasource_item_id") or position)
        )
        try:
            parsed = dataset_item(item, index, source)
        except FieldError as exc:
            errors.append(DecodeError(source, exc.field_name, exc.message))
            continue
        items.setdefault(parsed.item_id, parsed)
    if not items:
        raise EvalsInputError(f"{paths[0]}: no usable eval items (an items JSONL or output items)")
    try:
        dataset = datasets.publish(
            Dataset(
                name=name,
                version=version,
                owner=OWNER,
                kind=kind_of_name(name) or "golden",  # type: ignore[arg-type]
                items=tuple(items.values()),
                provenance={"source": "openai-evals", "files": [str(p) for p in paths]},
                description="imported from an OpenAI Evals export",
            )
        )
    except DatasetError as exc:
        raise EvalsInputError(f"--name/--version: {exc}") from None
    by_position = {it.provenance["datasource_item_id"]: it.item_id for it in items.values()}
    run_ids = list(dict.fromkeys(str(o.get("run_id")) for _, o in outputs))
    batches: list[DecodeResult] = [DecodeResult(errors=errors)]
    scores: list[Score] = []
    for source, output in outputs:
        run = runs.get(output.get("run_id")) or {}
        build_id = build or f"openai-evals:{run.get('name') or output.get('run_id')}"
        position = output.get("datasource_item_id")
        item_id = by_position.get(position) or _item_id(
            output.get("datasource_item") or {}, position
        )
        context = EvalContext(
            build_id=build_id,
            dataset=dataset.name,
            dataset_version=dataset.version,
            item_id=item_id,
            run_index=run_ids.index(str(output.get("run_id"))) if build else 0,
        )
        sample: dict[str, Any] = output["sample"] if isinstance(output.get("sample"), dict) else {}
        try:
            spans = conversation_spans(
                key=f"openai-evals:{output.get('id')}:{build_id}",
                agent_name=str(run.get("name") or "openai_evals_model"),
                model=sample.get("model"),
                turns=_turns(sample, "sample"),
                context=context,
                dialect=DIALECT,
                root_attributes={"openai.eval.run.id": str(output.get("run_id"))},
            )
        except FieldError as exc:
            batches.append(DecodeResult(errors=[DecodeError(source, exc.field_name, exc.message)]))
            continue
        rows, problems = _scores(output, spans[0], context, "output_item")
        scores.extend(rows)
        batches.append(
            DecodeResult(spans=spans, errors=[DecodeError(source, f, m) for f, m in problems])
        )
    report = ImportReport(ingest(batches, store=store, build=build, policy=policy), scores)
    return EvalsImport(report=report, dataset=dataset.ref, items=len(dataset.items))
