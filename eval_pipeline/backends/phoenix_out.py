"""Scores out as Phoenix span annotations, through its REST API (``POST /v1/span_annotations``).

One annotation per score row, on the scored span (``span_ids[0]``, else the run's root span):
``name`` = metric id, ``result`` = {``score``: value (absent unless scored), ``label``: status,
``explanation``: reason}, ``annotator_kind`` ``LLM`` for a judged score and ``CODE`` otherwise,
``identifier`` ``eval-pipeline`` (so exporting again updates the annotation instead of adding
one), and ``metadata.eval_pipeline`` holding the rest of the row (evaluator identity and
version, judge, eval context, evidence), which ``importers.backends.phoenix`` reads back into
the same row.
A score with no span at all (a run that never produced one) cannot be an annotation: it is
counted, not sent. Phoenix must already hold the spans (send them with ``otlp_traces_out``).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from eval_pipeline.scoring.score import Score

IDENTIFIER = "eval-pipeline"
METADATA_KEY = "eval_pipeline"
BATCH = 500
TIMEOUT_S = 60.0


class PhoenixError(RuntimeError):
    """Phoenix could not be reached or refused a request."""


@dataclass(frozen=True)
class AnnotationReport:
    """Annotations Phoenix accepted, and scores left out because they name no span."""

    annotations: int
    without_span: int


def score_metadata(score: Score) -> dict[str, Any]:
    """The row's fields a Phoenix annotation has no place for (read back on import)."""
    return {
        "status": score.status,
        "scorer_id": score.scorer_id,
        "scorer_version": score.scorer_version,
        "judge_fingerprint": score.judge_fingerprint,
        "judge_backend": score.judge_backend,
        "build": score.build,
        "item_id": score.item_id,
        "run_index": score.run_index,
        "trace_id": score.trace_id,
        "span_ids": list(score.span_ids),
        "dataset": score.dataset,
        "dataset_version": score.dataset_version,
        "evidence": score.evidence,
        "slices": score.slices,
        "scorer_args": score.scorer_args,
    }


def annotation(score: Score, span_id: str) -> dict[str, Any]:
    """The ``SpanAnnotationData`` body of one score row, on ``span_id``."""
    result: dict[str, Any] = {"label": score.status}
    if score.value is not None:
        result["score"] = score.value
    if score.reason:
        result["explanation"] = score.reason
    return {
        "span_id": span_id,
        "name": score.metric_id,
        "annotator_kind": "LLM" if score.judge_fingerprint else "CODE",
        "result": result,
        "metadata": {METADATA_KEY: score_metadata(score)},
        "identifier": IDENTIFIER,
    }


def headers(api_key: str | None) -> Mapping[str, str]:
    """Request headers for a Phoenix server (a bearer token when it has authentication on)."""
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


def export_annotations(
    scores: Sequence[Score],
    base_url: str,
    *,
    api_key: str | None = None,
    run_roots: Mapping[str, str] | None = None,
) -> AnnotationReport:
    """Annotate the scored spans in Phoenix; raises ``PhoenixError`` when Phoenix refuses.

    A row naming no span goes on its run's root span (``run_roots``: trace id -> root span).
    """
    roots = run_roots or {}
    bodies = []
    for score in scores:
        span = score.span_ids[0] if score.span_ids else roots.get(score.trace_id or "")
        if span:
            bodies.append(annotation(score, span))
    url = base_url.rstrip("/") + "/v1/span_annotations"
    sent = 0
    with httpx.Client(timeout=TIMEOUT_S, headers=headers(api_key)) as client:
        for start in range(0, len(bodies), BATCH):
            chunk = bodies[start : start + BATCH]
            try:
                reply = client.post(url, params={"sync": "true"}, json={"data": chunk})
            except httpx.HTTPError as exc:
                raise PhoenixError(f"{url}: {exc} ({sent} annotation(s) sent)") from exc
            if reply.status_code >= 400:
                raise PhoenixError(
                    f"{url}: HTTP {reply.status_code} {reply.text[:300]!r} ({sent} sent)"
                )
            sent += len(chunk)
    return AnnotationReport(annotations=sent, without_span=len(scores) - len(bodies))
