"""NeMo Agent Toolkit (NAT) traces and ``nat eval`` results -> runs and imported scores.

Inputs, told apart by content:

- **spans**: OTLP requests as NAT's OpenTelemetry exporters send them (``otelcollector``,
  ``phoenix``, ...): protobuf, JSON, or JSON Lines of requests (a collector's file exporter).
  NAT names its span kinds ``nat.span.kind`` (``WORKFLOW``, ``FUNCTION``, ``LLM``, ``TOOL``, ...)
  and carries ``input.value``/``output.value``, ``llm.model_name`` and ``llm.token_count.*``; each
  span is given the OpenInference form the normaliser reads (``WORKFLOW`` -> the run's agent,
  ``LLM`` -> a model call whose input and output values are its messages, ``TOOL`` -> a tool call
  named by the span, ``FUNCTION`` and the rest -> workflow steps); NAT also writes an
  OpenInference span kind (``CHAIN`` for its workflow), which NAT's own kind overrides.
- **``workflow_output.json``** (``nat eval``): per dataset entry ``id``, ``question``,
  ``answer``, ``generated_answer`` and the ``intermediate_steps`` (``LLM_END``, ``TOOL_END``
  with their data and token usage). It names the item of each traced run (by its question);
  without spans, each entry becomes a run of its own from its steps.
- **``<evaluator>_output.json``** (``nat eval``): ``eval_output_items`` with ``id``, ``score``,
  ``reasoning``, ``error``; one score row per item, metric = the evaluator name, on the item's
  run. A score outside [0, 1] or NaN is refused for that item (named), never rescaled.

Everything goes through the one ingest function; build = ``--build`` else ``nat:<service>``.
"""

import json
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from eval_pipeline import json_input
from eval_pipeline.backends.imported_scores import IMPORTED_PREFIX
from eval_pipeline.importers.conversation import Turn, conversation_spans
from eval_pipeline.importers.report import ImportReport
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult
from eval_pipeline.traces.decode.otlp import decode_otlp
from eval_pipeline.traces.ingest.ingest import RowStore, ingest
from eval_pipeline.traces.model import EvalContext, Span
from eval_pipeline.traces.normalise.openinference import SPAN_KIND
from eval_pipeline.traces.redact.redactor import RedactionPolicy

SCORER_PREFIX = f"{IMPORTED_PREFIX}nat:"
NAT_KIND = "nat.span.kind"
DIALECT = "nat"
_KINDS = {
    "WORKFLOW": "AGENT",
    "LLM": "LLM",
    "TOOL": "TOOL",
    "RETRIEVER": "RETRIEVER",
    "EMBEDDER": "EMBEDDING",
    "AGENT": "AGENT",
}


def openinference_span(span: Span) -> Span:
    """A NAT span in the OpenInference form the normaliser maps (see the module docstring)."""
    attributes = dict(span.attributes)
    kind = str(attributes.get(NAT_KIND) or "")
    if not kind:
        return span
    mapped = _KINDS.get(kind, "CHAIN")
    attributes[SPAN_KIND] = mapped
    if mapped == "AGENT":
        attributes.setdefault("agent.name", attributes.get("nat.subspan.name") or span.name)
    elif mapped == "TOOL":
        attributes.setdefault("tool.name", span.name)
    elif mapped == "LLM" and not any(k.startswith("llm.output_messages.") for k in attributes):
        for side, role in (("input", "user"), ("output", "assistant")):
            value = attributes.pop(f"{side}.value", None)
            if value is not None:
                attributes[f"llm.{side}_messages.0.message.role"] = role
                attributes[f"llm.{side}_messages.0.message.content"] = str(value)
    return replace(span, attributes=attributes)


def _kind_of(document: Any) -> str:
    if isinstance(document, dict) and isinstance(document.get("eval_output_items"), list):
        return "evaluator"
    if isinstance(document, dict) and ("resourceSpans" in document or "resource_spans" in document):
        return "otlp"
    if isinstance(document, list) and all(
        isinstance(e, dict) and "generated_answer" in e for e in document
    ):
        return "workflow_output"
    return "unknown"


def _read(path: Path) -> list[tuple[str, str, Any]]:
    """(source, kind, content) of a file: OTLP protobuf bytes, or parsed JSON document(s)."""
    raw = path.read_bytes()
    try:
        document = json_input.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        lines = raw.decode("utf-8", errors="strict").splitlines() if raw[:1] in b"{[" else None
        if lines is None:
            return [(str(path), "protobuf", raw)]
        return [
            (f"{path}:{n}", "otlp-line", line) for n, line in enumerate(lines, 1) if line.strip()
        ]
    return [(str(path), _kind_of(document), document)]


def _steps_turns(entry: dict[str, Any]) -> list[Turn]:
    """A ``nat eval`` entry's question and steps as conversation turns (with tool calls)."""
    turns = [
        Turn(
            raw={"role": "user", "content": str(entry.get("question"))}, time_ns=1, model_call=False
        )
    ]
    pending: list[dict[str, Any]] = []
    for index, step in enumerate(entry.get("intermediate_steps") or []):
        payload = step.get("payload") if isinstance(step, dict) else None
        if not isinstance(payload, dict):
            continue
        data = payload.get("data") or {}
        when = int(float(payload.get("event_timestamp") or 0) * 1e9) or index + 2
        if payload.get("event_type") == "TOOL_END":
            call_id = str(payload.get("UUID") or f"tool-{index}")
            pending.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {
                        "name": payload.get("name"),
                        "arguments": json.dumps(data.get("input")),
                    },
                }
            )
            turns.append(
                Turn(
                    raw={
                        "role": "tool",
                        "tool_call_id": call_id,
                        "content": json.dumps(data.get("output")),
                    },
                    time_ns=when,
                )
            )
        elif payload.get("event_type") == "LLM_END":
            usage = ((payload.get("usage_info") or {}).get("token_usage")) or {}
            turns.append(
                Turn(
                    raw={"role": "assistant", "content": str(data.get("output") or "")},
                    time_ns=when,
                    input_tokens=usage.get("prompt_tokens"),
                    output_tokens=usage.get("completion_tokens"),
                )
            )
    # A tool's request is the model turn before it: NAT records it as the model's text output.
    for turn_index, turn in enumerate(turns):
        if turn.raw.get("role") == "tool":
            previous = next(t for t in reversed(turns[:turn_index]) if t.raw["role"] != "tool")
            calls = [c for c in pending if c["id"] == turn.raw["tool_call_id"]]
            if previous.raw["role"] == "assistant":
                previous.raw.setdefault("tool_calls", []).extend(calls)  # type: ignore[attr-defined]
    return turns


def _evaluator_scores(
    name: str, document: dict[str, Any], runs: dict[str, Span], build: str, source: str
) -> tuple[list[Score], list[DecodeError]]:
    scores, errors = [], []
    for index, item in enumerate(document["eval_output_items"]):
        where = f"eval_output_items[{index}]"
        if not isinstance(item, dict) or "id" not in item:
            errors.append(DecodeError(source, where, "must be an object with an id"))
            continue
        item_id, value, problem = str(item["id"]), item.get("score"), item.get("error")
        root = runs.get(item_id)
        common: dict[str, Any] = {
            "metric_id": name,
            "scorer_id": f"{SCORER_PREFIX}{name}",
            "scorer_version": 1,
            "trace_id": root.trace_id if root else None,
            "span_ids": (root.span_id,) if root else (),
            "build": build,
            "item_id": item_id,
            "run_index": 0,
            "evidence": {"reasoning": item.get("reasoning"), "source": source},
        }
        if problem:
            scores.append(
                Score(value=None, status=ScoreStatus.ERROR, reason=str(problem), **common)
            )
        elif (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or math.isnan(value)
            or not 0 <= value <= 1
        ):
            errors.append(
                DecodeError(
                    source, f"{where}.score", f"must be a number in [0, 1], got {value!r:.40}"
                )
            )
        else:
            scores.append(
                Score(
                    value=float(value),
                    status=ScoreStatus.SCORED,
                    reason=f"scored by nat eval evaluator {name}",
                    **common,
                )
            )
    return scores, errors


def import_files(
    paths: Sequence[Path],
    *,
    store: RowStore,
    build: str | None = None,
    policy: RedactionPolicy | None = None,
) -> ImportReport:
    """Ingest NAT span exports and ``nat eval`` outputs; the report holds the imported scores."""
    decoded: list[DecodeResult] = []
    workflow: list[tuple[str, dict[str, Any]]] = []
    evaluators: list[tuple[str, str, dict[str, Any]]] = []
    errors: list[DecodeError] = []
    for path in paths:
        for source, kind, content in _read(path):
            if kind in ("otlp", "otlp-line"):
                body = content if isinstance(content, str) else json.dumps(content)
                decoded.append(
                    decode_otlp(body.encode(), content_type="application/json", source=source)
                )
            elif kind == "protobuf":
                decoded.append(
                    decode_otlp(content, content_type="application/x-protobuf", source=source)
                )
            elif kind == "workflow_output":
                workflow.extend((source, e) for e in content)
            elif kind == "evaluator":
                evaluators.append((source, path.name.removesuffix("_output.json"), content))
            else:
                errors.append(
                    DecodeError(source, "$", "not a NAT span export or nat eval output file")
                )
    spans = [openinference_span(s) for d in decoded for s in d.spans]
    item_of_question = {str(e.get("question")): str(e.get("id")) for _, e in workflow}
    roots = [s for s in spans if s.parent_span_id is None]
    runs: dict[str, Span] = {}
    batches: list[DecodeResult] = [
        DecodeResult(errors=[e for d in decoded for e in d.errors] + errors)
    ]
    by_trace: dict[str, str] = {}
    for root in roots:
        service = root.resource.get("service.name") or "workflow"
        question = str(root.attributes.get("input.value"))
        item = item_of_question.get(question) or str(
            root.attributes.get("nat.workflow.run_id") or root.trace_id
        )
        context = {
            eval_context.BUILD_ID: build or f"nat:{service}",
            eval_context.ITEM_ID: item,
            eval_context.RUN_INDEX: 0,
        }
        runs[item] = replace(root, attributes={**root.attributes, **context})
        by_trace[root.trace_id] = item
    spans = [runs[by_trace[s.trace_id]] if s.parent_span_id is None else s for s in spans]
    batches.append(DecodeResult(spans=spans))
    build_of_files = build or "nat:workflow"
    for source, entry in workflow:
        if str(entry.get("id")) in runs:
            continue  # its trace came in as spans
        item = str(entry.get("id"))
        run = conversation_spans(
            key=f"nat:{source}:{item}:{build_of_files}",
            agent_name="nat_workflow",
            model=None,
            turns=_steps_turns(entry),
            context=EvalContext(build_id=build_of_files, item_id=item, run_index=0),
            dialect=DIALECT,
        )
        runs[item] = run[0]
        batches.append(DecodeResult(spans=run))
    scores: list[Score] = []
    for source, name, document in evaluators:
        rows, problems = _evaluator_scores(name, document, runs, build_of_files, source)
        for row in rows:
            scored = runs.get(row.item_id or "")
            own = scored.attributes.get(eval_context.BUILD_ID) if scored else None
            scores.append(replace(row, build=str(own or row.build)))
        batches.append(DecodeResult(errors=problems))
    return ImportReport(ingest(batches, store=store, build=build, policy=policy), scores)
