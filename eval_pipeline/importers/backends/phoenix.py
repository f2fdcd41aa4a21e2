"""Traces and annotations in from a Phoenix project, through its REST API.

Spans: ``GET /v1/projects/{project}/spans/otlpv1`` (cursor pages of up to 1,000 spans in the
OTLP/JSON shape, snake_case keys), each page wrapped as one OTLP/JSON request and handed to the
one ingest function, so Phoenix's OpenInference or GenAI spans are normalised, redacted, judged
and stored like any other (``build`` names the build, else the trace's eval context does).
Annotations: ``GET /v1/projects/{project}/span_annotations?span_ids=...`` for the imported spans;
each becomes a score row (``imported_scores.recorded_score``): exactly the row we exported when
it carries our metadata, else an ``imported:phoenix`` score of the annotated run. An annotation
that cannot be a score is one error naming it and its field; the rest are kept.
"""

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx

from eval_pipeline.backends.export_labels import GATE_METADATA_KEY
from eval_pipeline.backends.imported_scores import (
    IMPORTED_PREFIX,
    RunIdentity,
    ScoreFieldError,
    recorded_score,
)
from eval_pipeline.backends.phoenix_out import METADATA_KEY, TIMEOUT_S, PhoenixError, headers
from eval_pipeline.importers.report import ImportReport
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.decode.errors import DecodeError
from eval_pipeline.traces.ingest.ingest import OtlpRequest, RowStore, ingest
from eval_pipeline.traces.redact.redactor import REPLACED, RedactionPolicy
from eval_pipeline.traces.semconv import OPERATION_NAME

SCORER_ID = f"{IMPORTED_PREFIX}phoenix"
PHOENIX_DERIVED = (
    "llm.",
    "input.",
    "output.",
    "tool.",
    "tool_call.",
    "retrieval.",
    "embedding.",
    "reranker.",
    "session.",
    "user.",
    "openinference.",
)
"""OpenInference attribute prefixes Phoenix derives from GenAI attributes (see ``_as_sent``)."""
PAGE = 1000
SPAN_IDS_PER_REQUEST = 100
"""Span ids per annotations request (keeps the query string short)."""


class ProjectNotFound(LookupError):
    """Phoenix has no project of that name (bad input: the ``--project`` option)."""


@dataclass
class PhoenixSpans:
    """What was read from a project: its span pages, and per span its trace and run."""

    pages: list[list[dict[str, Any]]] = field(default_factory=list)
    runs: dict[str, RunIdentity] = field(default_factory=dict)


def _get(client: httpx.Client, url: str, params: Any, project: str) -> dict[str, Any]:
    try:
        reply = client.get(url, params=params)
    except httpx.HTTPError as exc:
        raise PhoenixError(f"{url}: {exc}") from exc
    if reply.status_code == 404:
        raise ProjectNotFound(f"--project: Phoenix has no project {project!r} ({url})")
    if reply.status_code >= 400:
        raise PhoenixError(f"{url}: HTTP {reply.status_code} {reply.text[:300]!r}")
    body = reply.json()
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise PhoenixError(f"{url}: the answer has no data list")
    return body


def _attribute(value: Any) -> Any:
    if not isinstance(value, dict):
        return None
    for kind, item in value.items():
        if item is None:
            continue
        if kind == "int_value":
            return int(item)
        if kind == "array_value":
            return [_attribute(v) for v in (item or {}).get("values") or []]
        return item
    return None


def _context(span: dict[str, Any]) -> dict[str, Any]:
    pairs = span.get("attributes") or []
    return {
        str(kv.get("key")): _attribute(kv.get("value"))
        for kv in pairs
        if isinstance(kv, dict) and str(kv.get("key", "")).startswith(eval_context.NAMESPACE)
    }


def read_spans(base_url: str, project: str, *, api_key: str | None = None) -> PhoenixSpans:
    """Every span of the project (all pages), and the run each span belongs to."""
    url = f"{base_url.rstrip('/')}/v1/projects/{quote(project, safe='')}/spans/otlpv1"
    out = PhoenixSpans()
    contexts: dict[str, dict[str, Any]] = {}
    traces: dict[str, str] = {}
    cursor = None
    with httpx.Client(timeout=TIMEOUT_S, headers=headers(api_key)) as client:
        while True:
            params = {"limit": PAGE, **({"cursor": cursor} if cursor else {})}
            body = _get(client, url, params, project)
            page = [s for s in body["data"] if isinstance(s, dict)]
            out.pages.append(page)
            for span in page:
                trace, span_id = str(span.get("trace_id")), str(span.get("span_id"))
                traces[span_id] = trace
                if not span.get("parent_span_id") or eval_context.BUILD_ID in _context(span):
                    contexts.setdefault(trace, {}).update(_context(span))
            cursor = body.get("next_cursor")
            if not cursor:
                break
    for span_id, trace in traces.items():
        found = eval_context.from_attributes(contexts.get(trace, {}))
        out.runs[span_id] = RunIdentity(
            build=found.build_id,
            item_id=found.item_id,
            run_index=found.run_index,
            trace_id=trace,
            span_id=span_id,
            dataset=found.dataset,
            dataset_version=found.dataset_version,
        )
    return out


def _present(value: Any) -> Any:
    """A JSON value without Phoenix's null placeholders (every unset ``AnyValue`` kind)."""
    if isinstance(value, dict):
        return {k: _present(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_present(v) for v in value]
    return value


def _as_sent(span: dict[str, Any]) -> dict[str, Any]:
    """The span as it was sent: a GenAI span without the OpenInference copies Phoenix adds.

    Phoenix derives OpenInference attributes (``llm.*``, ``input.value``, ``session.id``,
    ``openinference.span.kind``, ...) from the GenAI ones it receives and returns both; read
    together they would make the span look like another dialect. A span that names its GenAI
    operation keeps its GenAI attributes only; a span without one (sent in OpenInference by an
    OpenInference instrumentation) is kept whole. Phoenix also flattens map attributes into
    dotted keys (the redaction marker ``eval_pipeline.redaction.replaced`` is folded back into
    its map) and holds times to the microsecond (the float noise below it is rounded off).
    """
    span = _present(span)
    pairs = [kv for kv in span.get("attributes") or [] if isinstance(kv, dict)]
    if any(kv.get("key") == OPERATION_NAME for kv in pairs):
        pairs = [kv for kv in pairs if not str(kv.get("key", "")).startswith(PHOENIX_DERIVED)]
    folded = [kv for kv in pairs if str(kv.get("key", "")).startswith(f"{REPLACED}.")]
    if folded:
        entries = [
            {"key": kv["key"][len(REPLACED) + 1 :], "value": kv.get("value")} for kv in folded
        ]
        pairs = [kv for kv in pairs if kv not in folded]
        pairs.append({"key": REPLACED, "value": {"kvlist_value": {"values": entries}}})
    span["attributes"] = pairs
    for key in ("start_time_unix_nano", "end_time_unix_nano"):
        if isinstance(span.get(key), int | str) and str(span[key]).isdigit():
            span[key] = str(round(int(span[key]) / 1000) * 1000)
    return span


def requests(spans: PhoenixSpans, project: str) -> Iterator[OtlpRequest]:
    """Each page of spans as one OTLP/JSON request for ingest."""
    for index, page in enumerate(spans.pages):
        body = {"resourceSpans": [{"scopeSpans": [{"spans": [_as_sent(s) for s in page]}]}]}
        yield OtlpRequest(
            json.dumps(body).encode(), "application/json", f"phoenix:{project}:page{index}"
        )


def read_annotations(
    base_url: str, project: str, span_ids: Sequence[str], *, api_key: str | None = None
) -> list[dict[str, Any]]:
    """Every span annotation Phoenix holds on ``span_ids`` (all pages)."""
    url = f"{base_url.rstrip('/')}/v1/projects/{quote(project, safe='')}/span_annotations"
    found: list[dict[str, Any]] = []
    with httpx.Client(timeout=TIMEOUT_S, headers=headers(api_key)) as client:
        for start in range(0, len(span_ids), SPAN_IDS_PER_REQUEST):
            cursor = None
            while True:
                params: list[tuple[str, Any]] = [
                    ("span_ids", s) for s in span_ids[start : start + SPAN_IDS_PER_REQUEST]
                ]
                params.append(("limit", PAGE))
                if cursor:
                    params.append(("cursor", cursor))
                body = _get(client, url, params, project)
                found.extend(a for a in body["data"] if isinstance(a, dict))
                cursor = body.get("next_cursor")
                if not cursor:
                    break
    return found


def annotation_score(raw: dict[str, Any], runs: dict[str, RunIdentity], build: str | None) -> Score:
    """The score row of one Phoenix span annotation (raises ``ScoreFieldError``)."""
    result = raw.get("result") or {}
    if not isinstance(result, dict):
        raise ScoreFieldError("result", "must be an object")
    metadata = raw.get("metadata") or {}
    ours = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    span_id = str(raw.get("span_id"))
    return recorded_score(
        name=raw.get("name"),
        value=result.get("score"),
        label=result.get("label"),
        explanation=result.get("explanation"),
        ours=ours if isinstance(ours, dict) else None,
        run=runs.get(span_id, RunIdentity(span_id=span_id)),
        scorer_id=SCORER_ID,
        build=build,
    )


def import_project(
    base_url: str,
    project: str,
    *,
    store: RowStore,
    build: str | None = None,
    policy: RedactionPolicy | None = None,
    api_key: str | None = None,
) -> ImportReport:
    """Ingest a Phoenix project's spans and read its span annotations as score rows."""
    spans = read_spans(base_url, project, api_key=api_key)
    report = ImportReport(ingest(requests(spans, project), store=store, build=build, policy=policy))
    source = f"phoenix:{project}"
    for raw in read_annotations(base_url, project, sorted(spans.runs), api_key=api_key):
        if GATE_METADATA_KEY in (raw.get("metadata") or {}):
            continue  # the build's release verdict, exported beside its scores: not a score
        try:
            report.scores.append(annotation_score(raw, spans.runs, build))
        except (ScoreFieldError, ValueError) as exc:
            where = f"annotation {raw.get('id')} ({raw.get('name')!r})"
            report.ingest.errors.append(
                DecodeError(source, where, str(exc), span_id=str(raw.get("span_id")))
            )
    return report
