"""The offline default judge: non-generative, on the packaged MiniLM int8 ONNX model, no download.

Tasks it judges, from the request's fields (it never reads the rendered prompt):

- ``faithfulness``: claim-level check of the answer against the contexts (``claim_check``);
  score = share of supported claims, passed = every claim supported.
- ``answer_relevancy``: question-answer cosine (best of the whole answer and its best
  sentence), mapped linearly from [0.15, 0.55] onto [0, 1]; passed = score >= 0.5.
- ``task_completion`` (only with an ``expected_outcome``): each claim of the expected outcome
  checked against the final answer and the tool calls that succeeded; a final answer that
  ``answer_relevancy`` would fail against both the task and the expected outcome fails
  whatever the tool calls did; without an expected outcome it cannot judge.
- ``hallucination`` (no context, as in HaluEval): specific facts the answer introduces that the
  question does not contain, plus low relevance (``hallucination_signals``). Weak by
  construction: it has no world knowledge; calibration reports how weak.

``plan_quality`` and ``plan_adherence`` need reasoning a similarity model does not have: the
judge raises ``JudgeCannotJudge`` and scorers record ``unscored`` with its reason.

Each request is first made ready (the texts it needs embedded), then decided from their vectors,
so ``judge_many`` embeds the texts of a whole batch together: the model's cost is per batch of
similar-length texts, and most of the cost of scoring a build.
"""

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from eval_pipeline.judges.errors import JudgeCannotJudge
from eval_pipeline.judges.offline import claim_check
from eval_pipeline.judges.offline.claims import split_claims
from eval_pipeline.judges.offline.embedder import (
    MODEL_ID,
    MiniLMEmbedder,
    Vectors,
    shared_embedder,
)
from eval_pipeline.judges.offline.hallucination_signals import hallucination_verdict
from eval_pipeline.judges.protocol import JudgeFingerprint, JudgeRequest, JudgeVerdict
from eval_pipeline.judges.rubrics import latest_version
from eval_pipeline.traces.redact.pii import opaque

BACKEND = "offline-minilm"
METHOD_VERSION = "3"
# 2: redaction tokens read as opaque values (``pii.opaque``). 3: rendered tool results parsed as
# structured, two-character ids, negated claims need negated evidence, off-topic answers
# complete no task.
RELEVANCY_FLOOR = 0.15
RELEVANCY_CEILING = 0.55
_FAILED_CALL = re.compile(r"\)\s*->\s*error\b")  # a failed call as ``tool_calls_of`` renders it
_CHUNK = 256  # requests per embedding batch: bounds the memory a batch holds


def _as_texts(value: Any) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return [v if isinstance(v, str) else json.dumps(v, default=str) for v in items if v]


class OfflineJudge:
    """The default judge (see the module docstring). Stateless apart from the shared embedder."""

    SUPPORTED_TASKS = ("faithfulness", "answer_relevancy", "task_completion", "hallucination")

    def __init__(
        self, rubric_version: str | None = None, embedder: MiniLMEmbedder | None = None
    ) -> None:
        self._rubric_version = rubric_version or latest_version()
        self._embedder = embedder

    @property
    def embedder(self) -> MiniLMEmbedder:
        """The embedder in use (the process-wide one unless injected)."""
        return self._embedder or shared_embedder()

    @property
    def backend(self) -> str:
        """``offline-minilm``."""
        return BACKEND

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """Backend, model id, rubric set version and the method's thresholds."""
        return JudgeFingerprint(
            backend=BACKEND,
            model=MODEL_ID,
            rubric_version=self._rubric_version,
            parameters={
                "method": f"claims@{METHOD_VERSION}",
                **claim_check.PARAMETERS,
                "relevancy_range": [RELEVANCY_FLOOR, RELEVANCY_CEILING],
            },
        )

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """Judge ``request`` from its fields.

        Raises:
            JudgeCannotJudge: the task is not one this judge can judge, or a field it needs is
                missing.
        """
        pending = self._prepare(request)
        return pending.finish(self.embedder.embed(pending.texts))

    def judge_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeVerdict | Exception]:
        """Verdicts for ``requests`` in order, or the exception a request raised in its place.

        The texts of up to ``_CHUNK`` requests are embedded in one batch; a verdict is the
        one ``judge`` gives (a vector does not depend on its batch).
        """
        answers: list[JudgeVerdict | Exception] = []
        for start in range(0, len(requests), _CHUNK):
            prepared: list[_Pending | Exception] = []
            for request in requests[start : start + _CHUNK]:
                try:
                    prepared.append(self._prepare(request))
                except Exception as exc:  # this request's answer; the others go on
                    prepared.append(exc)
            texts = list(
                dict.fromkeys(t for p in prepared if isinstance(p, _Pending) for t in p.texts)
            )
            vectors = self.embedder.embed(texts)
            row = {text: n for n, text in enumerate(texts)}
            for pending in prepared:
                if isinstance(pending, Exception):
                    answers.append(pending)
                    continue
                try:
                    answers.append(pending.finish(vectors[[row[t] for t in pending.texts]]))
                except Exception as exc:
                    answers.append(exc)
        return answers

    def _prepare(self, request: JudgeRequest) -> "_Pending":
        fields = _opaque(request.fields)
        if request.task == "faithfulness":
            return self._faithfulness(fields)
        if request.task == "answer_relevancy":
            return self._relevancy(fields)
        if request.task == "task_completion":
            return self._task_completion(fields)
        if request.task == "hallucination":
            question, answer = _require(fields, "question"), _require(fields, "answer")
            return _Pending(
                [question, answer], lambda v: hallucination_verdict(question, answer, v)
            )
        raise JudgeCannotJudge(
            f"the offline judge cannot judge {request.task!r} (a similarity model cannot assess "
            f"plans); it judges {', '.join(self.SUPPORTED_TASKS)}"
        )

    def _faithfulness(self, fields: dict[str, Any]) -> "_Pending":
        answer = _require(fields, "answer")
        contexts = _as_texts(fields.get("contexts"))
        if not contexts:
            raise JudgeCannotJudge("faithfulness needs contexts (retrieved text or tool results)")
        check = claim_check.claim_check(
            split_claims(answer), contexts, allowed_text=str(fields.get("question") or "")
        )
        return _Pending(check.texts, lambda v: _claims_verdict(check.verdicts(v), "claims"))

    def _task_completion(self, fields: dict[str, Any]) -> "_Pending":
        expected = fields.get("expected_outcome")
        if not expected:
            raise JudgeCannotJudge(
                "the offline judge judges task_completion only against an expected_outcome"
            )
        answer = _require(fields, "answer")
        # A call that failed did not do its step, whatever its arguments say.
        done = [c for c in _as_texts(fields.get("tool_calls")) if not _FAILED_CALL.search(c)]
        evidence = [answer, *done]
        outcome = expected if isinstance(expected, str) else json.dumps(expected)
        check = claim_check.claim_check(split_claims(outcome), evidence)
        gauge = [answer, str(fields.get("question") or outcome), outcome]

        def finish(vectors: Vectors) -> JudgeVerdict:
            n = len(check.texts)
            relevance = float(max(vectors[n + 1 :] @ vectors[n]))
            if _relevancy_score(relevance) < 0.5:
                # The user reads the final answer: one that answer_relevancy would fail (about
                # something else) completes nothing, whatever the tool calls did.
                return JudgeVerdict(
                    0.0,
                    False,
                    f"the final answer does not address the task (cosine {relevance:.2f} to the "
                    "task and the expected outcome)",
                    {"claims": [], "answer_relevance": round(relevance, 4)},
                )
            return _claims_verdict(check.verdicts(vectors[:n]), "steps")

        return _Pending([*check.texts, *gauge], finish)

    def _relevancy(self, fields: dict[str, Any]) -> "_Pending":
        question, answer = _require(fields, "question"), _require(fields, "answer")
        sentences = split_claims(answer) or [answer]
        return _Pending([question, answer, *sentences], _relevancy_verdict)


@dataclass(frozen=True)
class _Pending:
    """A request made ready: the texts to embed, and the verdict from their vectors."""

    texts: list[str]
    finish: Callable[[Vectors], JudgeVerdict]


def _relevancy_score(cosine: float) -> float:
    """Question-answer cosine mapped linearly from [floor, ceiling] onto [0, 1]."""
    return min(1.0, max(0.0, (cosine - RELEVANCY_FLOOR) / (RELEVANCY_CEILING - RELEVANCY_FLOOR)))


def _relevancy_verdict(vectors: Vectors) -> JudgeVerdict:
    cosines = vectors[1:] @ vectors[0]
    best = float(max(cosines))
    score = _relevancy_score(best)
    return JudgeVerdict(
        score=score,
        passed=score >= 0.5,
        reason=f"question-answer cosine {best:.2f}",
        details={"cosine": round(best, 4), "off_topic": []},
    )


def _opaque(value: Any) -> Any:
    """The fields with redaction tokens as bare keys: stored traces hold them for personal data."""
    if isinstance(value, str):
        return opaque(value)
    if isinstance(value, dict):
        return {key: _opaque(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_opaque(inner) for inner in value]
    return value


def _require(fields: dict[str, Any], name: str) -> str:
    value = fields.get(name)
    if not value:
        raise JudgeCannotJudge(f"field {name!r} is missing or empty")
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _claims_verdict(verdicts: list[claim_check.ClaimVerdict], noun: str) -> JudgeVerdict:
    if not verdicts:
        return JudgeVerdict(1.0, True, f"no factual {noun} to check", {"claims": []})
    supported = sum(v.verdict == "supported" for v in verdicts)
    worst = next((v for v in verdicts if v.verdict == "contradicted"), None) or next(
        (v for v in verdicts if v.verdict == "unsupported"), None
    )
    reason = (
        f"all {len(verdicts)} {noun} supported"
        if worst is None
        else f"{worst.verdict}: {worst.claim!r} ({worst.why})"
    )
    return JudgeVerdict(
        score=supported / len(verdicts),
        passed=worst is None,
        reason=reason,
        details={"claims": [v.as_dict() for v in verdicts]},
    )
