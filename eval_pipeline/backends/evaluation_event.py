"""A score row as an OpenTelemetry ``gen_ai.evaluation.result`` log event, and back.

The GenAI conventions' evaluation event (semantic-conventions-genai ``events.yaml``, stability
development; added in 1.38): ``gen_ai.evaluation.name`` (required), ``.score.value`` and
``.score.label`` (conditionally required), ``.explanation`` (recommended), ``error.type`` for a
failed evaluation, parented to the evaluated span (the log record's trace and span ids).

How a ``Score`` maps: name = ``metric_id``; value = ``value`` (only for ``scored`` rows: a null
is never sent as 0); label = ``status`` (``scored``, ``unscored``, ``error``,
``not_applicable``: low cardinality, as the conventions ask); explanation = ``reason``; trace id
and the first span id = the scored trace and span (the run's root span for a row naming
none). Everything else the conventions have no name
for is carried under the project's namespace (``eval_pipeline.*``: evaluator identity and
version, judge, the eval context, evidence, slices, arguments), so a receiver of ours rebuilds
the exact row (``score_from_record``) and any other back end still reads the standard fields.
"""

import json
from collections.abc import Mapping
from typing import Any

from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from eval_pipeline import json_input
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.eval_context import BUILD_ID, DATASET, DATASET_VERSION, ITEM_ID, RUN_INDEX
from eval_pipeline.traces.semconv import ERROR_TYPE

EVENT_NAME = "gen_ai.evaluation.result"
EVALUATION_NAME = "gen_ai.evaluation.name"
SCORE_VALUE = "gen_ai.evaluation.score.value"
SCORE_LABEL = "gen_ai.evaluation.score.label"
EXPLANATION = "gen_ai.evaluation.explanation"

SCORER_ID = "eval_pipeline.evaluator.id"
SCORER_VERSION = "eval_pipeline.evaluator.version"
JUDGE_FINGERPRINT = "eval_pipeline.judge.fingerprint"
JUDGE_BACKEND = "eval_pipeline.judge.backend"
SPAN_IDS = "eval_pipeline.score.span_ids"
EVIDENCE = "eval_pipeline.score.evidence"
SLICES = "eval_pipeline.score.slices"
SCORER_ARGS = "eval_pipeline.evaluator.args"

SCORER_ERROR = "scorer_error"
"""``error.type`` of a score whose scorer failed (status ``error``)."""
SEVERITY_INFO = 9
"""OTLP ``SEVERITY_NUMBER_INFO``: an evaluation result is information, not a warning."""


class EventError(ValueError):
    """A log record that is not a usable evaluation event; ``field`` names the attribute."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _set(target: AnyValue, value: Any) -> None:
    """Write a value into an ``AnyValue`` in place (field by field: no message copies)."""
    if isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, int):
        target.int_value = value
    elif isinstance(value, float):
        target.double_value = value
    elif isinstance(value, list | tuple):
        target.array_value.SetInParent()  # an empty list stays a list
        for item in value:
            _set(target.array_value.values.add(), item)
    else:
        target.string_value = str(value)


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in value.kvlist_value.values}
    return None if kind is None else getattr(value, kind)


def fill_record(
    record: LogRecord, score: Score, time_unix_nano: int, *, run_root: str | None = None
) -> None:
    """Write the evaluation event of one score row into ``record`` (see the module docstring).

    A row that names no span (a run-level metric) is parented to ``run_root``, the root span
    of its run, when known; ``eval_pipeline.score.span_ids`` keeps what the row itself named.
    Filled in place, so a request's records are built where they live (no copies).
    """
    pairs: dict[str, Any] = {
        EVALUATION_NAME: score.metric_id,
        SCORE_LABEL: score.status,
        SCORER_ID: score.scorer_id,
        SCORER_VERSION: score.scorer_version,
        BUILD_ID: score.build,
        ITEM_ID: score.item_id,
        RUN_INDEX: score.run_index,
        DATASET: score.dataset,
        DATASET_VERSION: score.dataset_version,
        JUDGE_FINGERPRINT: score.judge_fingerprint,
        JUDGE_BACKEND: score.judge_backend,
    }
    if score.value is not None:
        pairs[SCORE_VALUE] = float(score.value)
    if score.reason:
        pairs[EXPLANATION] = score.reason
    if score.status == ScoreStatus.ERROR:
        pairs[ERROR_TYPE] = SCORER_ERROR
    pairs[SPAN_IDS] = list(score.span_ids)
    for key, mapping in ((EVIDENCE, score.evidence), (SLICES, score.slices)):
        if mapping:
            pairs[key] = json.dumps(mapping, sort_keys=True, default=str)
    if score.scorer_args:
        pairs[SCORER_ARGS] = json.dumps(score.scorer_args, sort_keys=True)
    record.time_unix_nano = time_unix_nano
    record.observed_time_unix_nano = time_unix_nano
    record.severity_number = SEVERITY_INFO  # type: ignore[assignment]
    record.event_name = EVENT_NAME
    attributes = record.attributes
    for key, value in pairs.items():
        if value is not None:
            kv = attributes.add()
            kv.key = key
            _set(kv.value, value)
    if score.trace_id:
        record.trace_id = bytes.fromhex(score.trace_id)
    parent = score.span_ids[0] if score.span_ids else run_root
    if parent:
        record.span_id = bytes.fromhex(parent)


def is_evaluation_event(record: LogRecord) -> bool:
    """True for a ``gen_ai.evaluation.result`` record (by event name, or its name attribute)."""
    if record.event_name:
        return record.event_name == EVENT_NAME
    return any(
        kv.key == "event.name" and _value(kv.value) == EVENT_NAME for kv in record.attributes
    )


def _json(attributes: Mapping[str, Any], key: str) -> Any:
    text = attributes.get(key)
    if text is None:
        return {}
    try:
        value = json_input.loads(text)
    except (TypeError, ValueError):
        raise EventError(key, "must be a JSON object") from None
    if not isinstance(value, dict):
        raise EventError(key, "must be a JSON object")
    return value


def _int(attributes: Mapping[str, Any], key: str, default: int | None) -> int | None:
    value = attributes.get(key, default)
    if value is None or (type(value) is int and value >= 0):
        return value
    raise EventError(key, f"must be a non-negative integer, got {value!r:.40}")


def score_from_record(record: LogRecord, *, default_scorer: str) -> Score:
    """The score row an evaluation event carries.

    An event from another tool has only the standard fields: its evaluator is
    ``default_scorer`` (version 1), its status ``scored`` when it has a value in [0, 1] and
    ``unscored`` otherwise (a label alone is kept as the reason). Raises ``EventError``.
    """
    attributes = {kv.key: _value(kv.value) for kv in record.attributes}
    name = attributes.get(EVALUATION_NAME)
    if not isinstance(name, str) or not name:
        raise EventError(EVALUATION_NAME, "is required (a non-empty string)")
    value = attributes.get(SCORE_VALUE)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise EventError(SCORE_VALUE, f"must be a number, got {value!r:.40}")
    label = attributes.get(SCORE_LABEL)
    status = label if label in ScoreStatus.ALL else None
    if status is None:
        status = ScoreStatus.SCORED if value is not None else ScoreStatus.UNSCORED
    if status == ScoreStatus.SCORED and (value is None or not 0.0 <= float(value) <= 1.0):
        raise EventError(SCORE_VALUE, f"a scored value must be in [0, 1], got {value!r:.40}")
    reason = str(attributes.get(EXPLANATION) or "")
    if not reason and label is not None and label not in ScoreStatus.ALL:
        reason = f"label: {label}"
    span_ids = attributes.get(SPAN_IDS)
    if not isinstance(span_ids, list):
        span_ids = [record.span_id.hex()] if record.span_id else []
    run_index = _int(attributes, RUN_INDEX, None)
    evidence = _json(attributes, EVIDENCE)
    if label is not None and label not in ScoreStatus.ALL:
        evidence.setdefault("label", label)  # another tool's label, kept beside its score
    return Score(
        metric_id=name,
        value=float(value) if status == ScoreStatus.SCORED and value is not None else None,
        status=status,
        scorer_id=str(attributes.get(SCORER_ID) or default_scorer),
        scorer_version=_int(attributes, SCORER_VERSION, 1) or 0,
        reason=reason,
        trace_id=record.trace_id.hex() if record.trace_id else None,
        span_ids=tuple(str(s) for s in span_ids),
        build=attributes.get(BUILD_ID),
        item_id=attributes.get(ITEM_ID),
        run_index=run_index,
        judge_fingerprint=attributes.get(JUDGE_FINGERPRINT),
        judge_backend=attributes.get(JUDGE_BACKEND),
        evidence=evidence,
        slices=_json(attributes, SLICES),
        scorer_args=_json(attributes, SCORER_ARGS),
        dataset=attributes.get(DATASET),
        dataset_version=attributes.get(DATASET_VERSION),
    )
