"""Scores out to Langfuse's scores API, and the scored traces over its OTLP endpoint.

Scores: ``POST /api/public/scores`` (``CreateScoreRequest``, Langfuse's published API: fern
definition ``score.yml``), one per score row: ``id`` a stable UUID of the row's key (Langfuse
upserts on it, so exporting twice stores one score), ``traceId`` and ``observationId`` the
scored trace and span (Langfuse keeps OTLP trace and span ids as its trace and observation ids),
``name`` the metric id, ``value`` with ``dataType`` ``NUMERIC`` for a scored row and, since
Langfuse has no null score, the status as a ``CATEGORICAL`` value for the others
(``unscored``, ``error``, ``not_applicable``), ``comment`` the reason and ``metadata.eval_pipeline``
the rest of the row (as for Phoenix), which ``importers.backends.langfuse`` reads back; beside it
in the metadata the row's ``label`` (``pass``/``fail`` against the metric's floor, the status
otherwise), the floor, and for a gated build the gate's verdicts (``export_labels``). A gated
build's traces each get a ``release_gate`` score, ``CATEGORICAL`` ``go``/``no-go``, so its traces
filter by release verdict (the importer skips it: it is not a score row).
Without ``--with-traces`` the scores' first trace is looked up first
(``GET /api/public/traces/{id}``): scores on traces Langfuse does not hold would be orphans, so
that is ``MissingTracesError`` with the hint to send them.
Traces: ``POST /api/public/otel/v1/traces`` (OTLP/HTTP protobuf, ``otlp_traces_out``).
Authentication is HTTP Basic with the project's public and secret keys.

Verified against Langfuse's published schema only (its server needs ClickHouse, which cannot run
here): ``eval_pipeline_tests/backends/test_langfuse.py`` checks every body against the schema
committed under ``data/langfuse``.
"""

import base64
import os
import uuid
from collections.abc import Sequence
from typing import Any

import httpx

from eval_pipeline.backends.export_labels import GATE_METADATA_KEY, GATE_NAME, ExportLabels
from eval_pipeline.backends.otlp_traces_out import send_traces
from eval_pipeline.backends.phoenix_out import METADATA_KEY, score_metadata
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.model import Span

SCORES_PATH = "/api/public/scores"
TRACE_PATH = "/api/public/traces/{trace_id}"
OTLP_PATH = "/api/public/otel/v1/traces"
_NAMESPACE = uuid.UUID("6f1c2b0e-7d43-4c36-9f4e-21b9a7c5e021")
"""Namespace of the stable score ids (uuid5 of the row's key)."""
TIMEOUT_S = 60.0


class LangfuseError(RuntimeError):
    """Langfuse could not be reached, refused the keys, or refused a request."""


class MissingTracesError(LangfuseError):
    """Langfuse does not hold the traces the scores are on (they were not sent)."""


def score_body(score: Score, labels: ExportLabels | None = None) -> dict[str, Any]:
    """The ``CreateScoreRequest`` of one score row."""
    key = f"{score.build}|{score.item_id}|{score.run_index}|{score.metric_id}"
    labels = labels or ExportLabels()
    body: dict[str, Any] = {
        "id": str(uuid.uuid5(_NAMESPACE, key)),
        "name": score.metric_id,
        "metadata": {METADATA_KEY: score_metadata(score), **labels.metadata(score)},
    }
    if score.status == ScoreStatus.SCORED:
        body.update(value=score.value, dataType="NUMERIC")
    else:
        body.update(value=score.status, dataType="CATEGORICAL")
    if score.trace_id:
        body["traceId"] = score.trace_id
    if score.span_ids:
        body["observationId"] = score.span_ids[0]
    if score.reason:
        body["comment"] = score.reason
    return body


def gate_bodies(scores: Sequence[Score], labels: ExportLabels) -> list[dict[str, Any]]:
    """One ``release_gate`` score per scored trace of a gated build (none when not gated)."""
    gate = labels.gate
    if gate is None:
        return []
    traces = sorted({(s.build, s.trace_id) for s in scores if s.trace_id}, key=str)
    return [
        {
            "id": str(uuid.uuid5(_NAMESPACE, f"{build}|{trace}|{GATE_NAME}")),
            "traceId": trace,
            "name": GATE_NAME,
            "value": gate.release,
            "dataType": "CATEGORICAL",
            "comment": gate.explanation,
            "metadata": {
                GATE_METADATA_KEY: {"failing": list(gate.failing), "metrics": dict(gate.metrics)}
            },
        }
        for build, trace in traces
    ]


def _require_trace(client: httpx.Client, base: str, scores: Sequence[Score]) -> None:
    """Raise ``MissingTracesError`` when Langfuse lacks the first trace the scores are on."""
    trace = next((s.trace_id for s in scores if s.trace_id), None)
    if trace is None:
        return
    url = base + TRACE_PATH.format(trace_id=trace)
    try:
        reply = client.get(url)
    except httpx.HTTPError as exc:
        raise LangfuseError(f"{url}: {exc}") from exc
    if reply.status_code == 404:
        raise MissingTracesError(f"{base}: Langfuse holds no trace {trace} (scores are on it)")


def _auth() -> tuple[str, str]:
    public, secret = os.environ.get("LANGFUSE_PUBLIC_KEY"), os.environ.get("LANGFUSE_SECRET_KEY")
    if not public or not secret:
        raise LangfuseError("set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY (the project's keys)")
    return public, secret


def export_langfuse(
    scores: Sequence[Score],
    spans: Sequence[Span],
    base_url: str,
    labels: ExportLabels | None = None,
) -> dict[str, Any]:
    """Send ``spans`` (if any) over OTLP, then every score row; what was sent.

    Without spans, Langfuse must already hold the scores' traces (else ``MissingTracesError``).
    """
    public, secret = _auth()
    base = base_url.rstrip("/")
    labels = labels or ExportLabels()
    sent_spans = 0
    if spans:
        token = base64.b64encode(f"{public}:{secret}".encode()).decode()
        sent_spans = send_traces(
            spans, base + OTLP_PATH, headers={"Authorization": f"Basic {token}"}, display=True
        )
    bodies = [score_body(score, labels) for score in scores]
    gates = gate_bodies(scores, labels)
    sent = 0
    with httpx.Client(timeout=TIMEOUT_S, auth=(public, secret)) as client:
        if not spans:
            _require_trace(client, base, scores)
        for body in [*bodies, *gates]:
            try:
                reply = client.post(base + SCORES_PATH, json=body)
            except httpx.HTTPError as exc:
                raise LangfuseError(f"{base}{SCORES_PATH}: {exc} ({sent} score(s) sent)") from exc
            if reply.status_code >= 400:
                raise LangfuseError(
                    f"{base}{SCORES_PATH}: HTTP {reply.status_code} {reply.text[:300]!r} "
                    f"({sent} score(s) sent)"
                )
            sent += 1
    return {
        "target": "langfuse",
        "scores_sent": sent - len(gates),
        "release_gate_scores": len(gates),
        "spans": sent_spans,
    }
