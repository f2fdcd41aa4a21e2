"""Scores out to Langfuse's scores API, and the scored traces over its OTLP endpoint.

Scores: ``POST /api/public/scores`` (``CreateScoreRequest``, Langfuse's published API: fern
definition ``score.yml``), one per score row: ``id`` a stable UUID of the row's key (Langfuse
upserts on it, so exporting twice stores one score), ``traceId`` and ``observationId`` the
scored trace and span (Langfuse keeps OTLP trace and span ids as its trace and observation ids),
``name`` the metric id, ``value`` with ``dataType`` ``NUMERIC`` for a scored row and, since
Langfuse has no null score, the status as a ``CATEGORICAL`` value for the others
(``unscored``, ``error``, ``not_applicable``), ``comment`` the reason and ``metadata.eval_pipeline``
the rest of the row (as for Phoenix), which ``importers.backends.langfuse`` reads back.
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

from eval_pipeline.backends.otlp_traces_out import send_traces
from eval_pipeline.backends.phoenix_out import METADATA_KEY, score_metadata
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.model import Span

SCORES_PATH = "/api/public/scores"
OTLP_PATH = "/api/public/otel/v1/traces"
_NAMESPACE = uuid.UUID("6f1c2b0e-7d43-4c36-9f4e-21b9a7c5e021")
"""Namespace of the stable score ids (uuid5 of the row's key)."""
TIMEOUT_S = 60.0


class LangfuseError(RuntimeError):
    """Langfuse could not be reached, refused the keys, or refused a request."""


def score_body(score: Score) -> dict[str, Any]:
    """The ``CreateScoreRequest`` of one score row."""
    key = f"{score.build}|{score.item_id}|{score.run_index}|{score.metric_id}"
    body: dict[str, Any] = {
        "id": str(uuid.uuid5(_NAMESPACE, key)),
        "name": score.metric_id,
        "metadata": {METADATA_KEY: score_metadata(score)},
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


def _auth() -> tuple[str, str]:
    public, secret = os.environ.get("LANGFUSE_PUBLIC_KEY"), os.environ.get("LANGFUSE_SECRET_KEY")
    if not public or not secret:
        raise LangfuseError("set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY (the project's keys)")
    return public, secret


def export_langfuse(
    scores: Sequence[Score], spans: Sequence[Span], base_url: str
) -> dict[str, Any]:
    """Send ``spans`` (if any) over OTLP, then every score row; what was sent."""
    public, secret = _auth()
    base = base_url.rstrip("/")
    sent_spans = 0
    if spans:
        token = base64.b64encode(f"{public}:{secret}".encode()).decode()
        sent_spans = send_traces(
            spans, base + OTLP_PATH, headers={"Authorization": f"Basic {token}"}
        )
    sent = 0
    with httpx.Client(timeout=TIMEOUT_S, auth=(public, secret)) as client:
        for score in scores:
            try:
                reply = client.post(base + SCORES_PATH, json=score_body(score))
            except httpx.HTTPError as exc:
                raise LangfuseError(f"{base}{SCORES_PATH}: {exc} ({sent} score(s) sent)") from exc
            if reply.status_code >= 400:
                raise LangfuseError(
                    f"{base}{SCORES_PATH}: HTTP {reply.status_code} {reply.text[:300]!r} "
                    f"({sent} score(s) sent)"
                )
            sent += 1
    return {"target": "langfuse", "scores_sent": sent, "spans": sent_spans}
