"""Scores out as Phoenix span annotations, through its REST API (``POST /v1/span_annotations``).

One annotation per score row, on the scored span (``span_ids[0]``, else the run's root span):
``name`` = metric id, ``result`` = {``score``: value (absent unless scored), ``label``: ``pass``
or ``fail`` against the metric's floor for a scored row, the status otherwise
(``export_labels``), ``explanation``: reason}, ``annotator_kind`` ``LLM`` for a judged score and
``CODE`` otherwise, ``identifier`` ``eval-pipeline`` (so exporting again updates the annotation
instead of adding one), and ``metadata.eval_pipeline`` holding the rest of the row (status,
evaluator identity and version, judge, eval context, evidence), which
``importers.backends.phoenix`` reads back into the same row; beside it the floor the label used
and, for a gated build, the gate's verdicts. A gated build's runs also get a ``release_gate``
annotation on their root span (label ``go``/``no-go``, the explanation names what blocked), so
Phoenix filters a build's traces by release verdict (``annotations['release_gate'].label ==
'no-go'``) and its evaluations by outcome (``annotations['faithfulness'].label == 'fail'``).
A score with no span at all (a run that never produced one) cannot be an annotation: it is
counted, not sent. Phoenix must already hold the spans (send them with ``otlp_traces_out``);
when it does not, ``MissingSpansError`` says so.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from eval_pipeline.backends.export_labels import (
    GATE_METADATA_KEY,
    GATE_NAME,
    ExportLabels,
    GateVerdict,
)
from eval_pipeline.scoring.score import Score

IDENTIFIER = "eval-pipeline"
METADATA_KEY = "eval_pipeline"
BATCH = 500
TIMEOUT_S = 60.0


class PhoenixError(RuntimeError):
    """Phoenix could not be reached or refused a request."""


class MissingSpansError(PhoenixError):
    """Phoenix does not hold the spans the annotations are on (their traces were not sent)."""


@dataclass(frozen=True)
class AnnotationReport:
    """Annotations Phoenix accepted, and scores left out because they name no span."""

    annotations: int
    without_span: int
    release_gate: int = 0
    """``release_gate`` annotations sent (one per run of a gated build)."""


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


def annotation(score: Score, span_id: str, labels: ExportLabels | None = None) -> dict[str, Any]:
    """The ``SpanAnnotationData`` body of one score row, on ``span_id``."""
    labels = labels or ExportLabels()
    result: dict[str, Any] = {"label": labels.label(score)}
    if score.value is not None:
        result["score"] = score.value
    if score.reason:
        result["explanation"] = score.reason
    return {
        "span_id": span_id,
        "name": score.metric_id,
        "annotator_kind": "LLM" if score.judge_fingerprint else "CODE",
        "result": result,
        "metadata": {METADATA_KEY: score_metadata(score), **labels.metadata(score)},
        "identifier": IDENTIFIER,
    }


def gate_annotation(gate: GateVerdict, root_span_id: str) -> dict[str, Any]:
    """The ``release_gate`` annotation of one run's root span: the build's release verdict."""
    return {
        "span_id": root_span_id,
        "name": GATE_NAME,
        "annotator_kind": "CODE",
        "result": {
            "label": gate.release,
            "score": 1.0 if gate.release == "go" else 0.0,
            "explanation": gate.explanation,
        },
        "metadata": {
            GATE_METADATA_KEY: {"failing": list(gate.failing), "metrics": dict(gate.metrics)}
        },
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
    labels: ExportLabels | None = None,
) -> AnnotationReport:
    """Annotate the scored spans in Phoenix; raises ``PhoenixError`` when Phoenix refuses.

    A row naming no span goes on its run's root span (``run_roots``: trace id -> root span).
    With a gate verdict in ``labels``, every run's root span also gets its ``release_gate``
    annotation. Raises ``MissingSpansError`` when Phoenix holds none of the annotated spans.
    """
    roots = run_roots or {}
    bodies = []
    for score in scores:
        span = score.span_ids[0] if score.span_ids else roots.get(score.trace_id or "")
        if span:
            bodies.append(annotation(score, span, labels))
    scored = len(bodies)
    if labels is not None and labels.gate is not None:
        traces = {s.trace_id for s in scores if s.trace_id}
        bodies += [gate_annotation(labels.gate, roots[t]) for t in sorted(traces) if t in roots]
    url = base_url.rstrip("/") + "/v1/span_annotations"
    sent = 0
    with httpx.Client(timeout=TIMEOUT_S, headers=headers(api_key)) as client:
        for start in range(0, len(bodies), BATCH):
            chunk = bodies[start : start + BATCH]
            try:
                reply = client.post(url, params={"sync": "true"}, json={"data": chunk})
            except httpx.HTTPError as exc:
                raise PhoenixError(f"{url}: {exc} ({sent} annotation(s) sent)") from exc
            if reply.status_code == 404:
                raise MissingSpansError(
                    f"{url}: Phoenix does not hold the spans these scores are on "
                    f"({reply.text[:200].strip()!r}; {sent} annotation(s) sent)"
                )
            if reply.status_code >= 400:
                raise PhoenixError(
                    f"{url}: HTTP {reply.status_code} {reply.text[:300]!r} ({sent} sent)"
                )
            sent += len(chunk)
    return AnnotationReport(
        annotations=min(sent, scored),
        without_span=len(scores) - scored,
        release_gate=max(0, sent - scored),
    )
