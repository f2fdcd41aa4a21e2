"""Langfuse exports (its public API's trace shape) -> runs, and its scores -> imported scores.

Input: what ``GET /api/public/traces/{traceId}`` returns (``TraceWithFullDetails`` of Langfuse's
published API: ``id``, ``timestamp``, ``name``, ``input``, ``output``, ``sessionId``,
``metadata``, ``observations`` and ``scores``), one object, a list, or a ``{"data": [...]}``
page, as JSON or JSON Lines. Each trace becomes one run: a root ``invoke_agent`` span (the trace:
its input and output as messages), and one span per observation under its parent observation
(``GENERATION`` -> ``chat`` with model, messages and token usage; ``TOOL`` -> ``execute_tool``
with arguments and result; ``AGENT`` -> ``invoke_agent``; ``RETRIEVER`` -> ``retrieval``;
``EMBEDDING`` -> ``embeddings``; any other type keeps its name; level ``ERROR`` -> error status).
The spans carry GenAI attributes and go through the one ingest function, which normalises them.

Run identity: ``eval_pipeline.*`` keys in the trace metadata (a trace we sent over OTLP has them),
else item = the trace id, run index 0, build ``--build`` or ``langfuse:<release>``. Ids that are
not OTLP hex (Langfuse's own UUIDs) are hashed to hex; the original is kept as ``langfuse.id``.
Scores (``Score``: ``name``, ``value``/``stringValue``, ``dataType``, ``comment``, ``metadata``,
``observationId``) become rows through ``imported_scores.recorded_score`` (ours come back exactly).
"""

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from eval_pipeline.backends.export_files import records
from eval_pipeline.backends.export_labels import GATE_METADATA_KEY
from eval_pipeline.backends.imported_scores import (
    IMPORTED_PREFIX,
    RunIdentity,
    ScoreFieldError,
    recorded_score,
)
from eval_pipeline.backends.phoenix_out import METADATA_KEY
from eval_pipeline.importers.report import ImportReport
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces import eval_context
from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult, FieldError
from eval_pipeline.traces.ingest.ingest import RowStore, ingest
from eval_pipeline.traces.model import Span, StatusCode
from eval_pipeline.traces.redact.redactor import RedactionPolicy

SCORER_ID = f"{IMPORTED_PREFIX}langfuse"
DIALECT = "langfuse"
_OPERATIONS = {
    "GENERATION": "chat",
    "TOOL": "execute_tool",
    "AGENT": "invoke_agent",
    "RETRIEVER": "retrieval",
    "EMBEDDING": "embeddings",
}
_HEX = frozenset("0123456789abcdef")


def _hex_id(value: Any, size: int, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise FieldError(where, "must be a non-empty string")
    compact = value.replace("-", "").lower() if size == 32 else value.lower()
    if len(compact) == size and _HEX.issuperset(compact):
        return compact
    return hashlib.sha256(f"langfuse:{value}".encode()).hexdigest()[:size]


def _ns(value: Any, where: str) -> int:
    if value is None:
        return 0
    if not isinstance(value, str):
        raise FieldError(where, f"must be an ISO 8601 date-time, got {value!r:.40}")
    try:
        stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise FieldError(where, f"must be an ISO 8601 date-time, got {value!r:.40}") from None
    return int(stamp.timestamp()) * 1_000_000_000 + stamp.microsecond * 1_000


def _messages(value: Any, role: str) -> str | None:
    """A Langfuse input/output as GenAI messages JSON (text becomes one message of ``role``)."""
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value):
        return json.dumps(value)
    if isinstance(value, dict) and "role" in value:
        return json.dumps([value])
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def _metadata(raw: dict[str, Any]) -> dict[str, Any]:
    value = raw.get("metadata")
    return value if isinstance(value, dict) else {}


def _run(trace: dict[str, Any], build: str | None) -> RunIdentity:
    metadata = _metadata(trace)
    found = eval_context.from_attributes(
        {k: v for k, v in metadata.items() if k in eval_context.ALL_KEYS}
    )
    return RunIdentity(
        build=build or found.build_id or f"langfuse:{trace.get('release') or 'unknown'}",
        item_id=found.item_id or str(trace["id"]),
        run_index=found.run_index if found.run_index is not None else 0,
        dataset=found.dataset,
        dataset_version=found.dataset_version,
    )


def _observation_span(
    obs: dict[str, Any], trace_id: str, root_id: str, ids: dict[str, str], where: str
) -> Span:
    kind = str(obs.get("type") or "SPAN").upper()
    operation = _OPERATIONS.get(kind)
    name = str(obs.get("name") or kind.lower())
    attributes: dict[str, Any] = {"langfuse.id": obs["id"], "langfuse.observation.type": kind}
    if operation:
        attributes[sc.OPERATION_NAME] = operation
    if operation == "execute_tool":
        attributes[sc.TOOL_NAME] = name
        for key, field in ((sc.TOOL_CALL_ARGUMENTS, "input"), (sc.TOOL_CALL_RESULT, "output")):
            if obs.get(field) is not None:
                attributes[key] = json.dumps(obs[field], sort_keys=True)
    elif operation == "invoke_agent":
        attributes[sc.AGENT_NAME] = name
    else:
        for key, field, role in (
            (sc.INPUT_MESSAGES, "input", "user"),
            (sc.OUTPUT_MESSAGES, "output", "assistant"),
        ):
            if (text := _messages(obs.get(field), role)) is not None:
                attributes[key] = text
    if obs.get("model"):
        attributes[sc.REQUEST_MODEL] = str(obs["model"])
    usage = obs.get("usageDetails") or obs.get("usage") or {}
    if isinstance(usage, dict):
        for key, field in ((sc.USAGE_INPUT_TOKENS, "input"), (sc.USAGE_OUTPUT_TOKENS, "output")):
            if isinstance(usage.get(field), int):
                attributes[key] = usage[field]
    error = str(obs.get("level") or "").upper() == "ERROR"
    parent = obs.get("parentObservationId")
    return Span(
        trace_id=trace_id,
        span_id=ids[obs["id"]],
        parent_span_id=ids.get(parent, root_id) if parent else root_id,
        name=name,
        start_time_unix_nano=_ns(obs.get("startTime"), f"{where}.startTime"),
        end_time_unix_nano=_ns(obs.get("endTime") or obs.get("startTime"), f"{where}.endTime"),
        status_code=StatusCode.ERROR if error else StatusCode.UNSET,
        status_message=obs.get("statusMessage") if error else None,
        attributes=attributes,
        dialect=DIALECT,
    )


def trace_spans(trace: dict[str, Any], run: RunIdentity) -> list[Span]:
    """The spans of one Langfuse trace (raises ``FieldError`` naming the bad field)."""
    trace_id = _hex_id(trace.get("id"), 32, "id")
    root_id = hashlib.sha256(f"langfuse-root:{trace['id']}".encode()).hexdigest()[:16]
    observations = trace.get("observations") or []
    if not isinstance(observations, list):
        raise FieldError("observations", "must be a list")
    ids: dict[str, str] = {}
    for index, obs in enumerate(observations):
        if not isinstance(obs, dict) or not isinstance(obs.get("id"), str):
            raise FieldError(f"observations[{index}]", "must be an object with an id")
        ids[obs["id"]] = _hex_id(obs["id"], 16, f"observations[{index}].id")
    spans = [
        _observation_span(obs, trace_id, root_id, ids, f"observations[{i}]")
        for i, obs in enumerate(observations)
    ]
    start = _ns(trace.get("timestamp"), "timestamp")
    end = max([start, *(s.end_time_unix_nano for s in spans)])
    attributes: dict[str, Any] = {
        k: v for k, v in _metadata(trace).items() if k.startswith(eval_context.NAMESPACE)
    }
    attributes.update(
        {
            "langfuse.id": trace["id"],
            sc.OPERATION_NAME: "invoke_agent",
            sc.AGENT_NAME: str(trace.get("name") or "langfuse_trace"),
            eval_context.BUILD_ID: run.build,
            eval_context.ITEM_ID: run.item_id,
            eval_context.RUN_INDEX: run.run_index,
        }
    )
    if trace.get("sessionId"):
        attributes[sc.CONVERSATION_ID] = str(trace["sessionId"])
    for key, field, role in (
        (sc.INPUT_MESSAGES, "input", "user"),
        (sc.OUTPUT_MESSAGES, "output", "assistant"),
    ):
        if (text := _messages(trace.get(field), role)) is not None:
            attributes[key] = text
    root = Span(
        trace_id=trace_id,
        span_id=root_id,
        parent_span_id=None,
        name=f"invoke_agent {attributes[sc.AGENT_NAME]}",
        start_time_unix_nano=start,
        end_time_unix_nano=end,
        attributes=attributes,
        dialect=DIALECT,
    )
    return [root, *spans]


def trace_scores(
    trace: dict[str, Any], run: RunIdentity, spans: Sequence[Span], build: str | None
) -> tuple[list[Score], list[tuple[str, str]]]:
    """The trace's scores as rows, and per bad score (field, message)."""
    by_observation = {s.attributes.get("langfuse.id"): s.span_id for s in spans}
    root = spans[0]
    scores, problems = [], []
    for index, raw in enumerate(trace.get("scores") or []):
        where = f"scores[{index}]"
        if not isinstance(raw, dict):
            problems.append((where, "must be an object"))
            continue
        data_type = str(raw.get("dataType") or "NUMERIC").upper()
        value = raw.get("value") if data_type != "CATEGORICAL" else None
        label = raw.get("stringValue") if data_type != "NUMERIC" else None
        metadata = raw.get("metadata")
        if isinstance(metadata, dict) and GATE_METADATA_KEY in metadata:
            continue  # the build's release verdict, exported beside its scores: not a score
        ours = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
        span = by_observation.get(raw.get("observationId"), root.span_id)
        try:
            scores.append(
                recorded_score(
                    name=raw.get("name"),
                    value=value,
                    label=label if label is not None else raw.get("value"),
                    explanation=raw.get("comment"),
                    ours=ours if isinstance(ours, dict) else None,
                    run=RunIdentity(**{**vars(run), "trace_id": root.trace_id, "span_id": span}),
                    scorer_id=SCORER_ID,
                    build=build,
                )
            )
        except (ScoreFieldError, ValueError) as exc:
            problems.append((f"{where}.{getattr(exc, 'field', 'value')}", str(exc)))
    return scores, problems


def import_files(
    paths: Sequence[Path],
    *,
    store: RowStore,
    build: str | None = None,
    policy: RedactionPolicy | None = None,
) -> ImportReport:
    """Ingest the traces of Langfuse export files and read their scores as rows."""
    batches: list[DecodeResult] = []
    scores: list[Score] = []
    for path in paths:
        try:
            found = list(records(path))
        except (OSError, UnicodeError) as exc:
            batches.append(DecodeResult(errors=[DecodeError(str(path), "$", f"unreadable: {exc}")]))
            continue
        spans: list[Span] = []
        errors: list[DecodeError] = []
        for source, trace, problem in found:
            if problem is not None or not isinstance(trace, dict) or "id" not in trace:
                errors.append(DecodeError(source, "$", problem or "must be a trace with an id"))
                continue
            run = _run(trace, build)
            try:
                these = trace_spans(trace, run)
            except FieldError as exc:
                errors.append(DecodeError(source, exc.field_name, exc.message))
                continue
            spans.extend(these)
            rows, problems = trace_scores(trace, run, these, build)
            scores.extend(rows)
            errors.extend(
                DecodeError(source, field, message, trace_id=these[0].trace_id)
                for field, message in problems
            )
        batches.append(DecodeResult(spans=spans, errors=errors))
    return ImportReport(ingest(batches, store=store, build=build, policy=policy), scores)
