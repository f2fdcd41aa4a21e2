"""Small judges implementing the Judge protocol, for scoring tests.

``OverlapJudge`` scores by word overlap between the answer and the request's other fields, so
its verdicts depend on the real request. ``NoisyJudge`` adds seeded noise (a stand-in for a
sampling LLM judge). ``FailingJudge`` always raises ``JudgeError``.
"""

import random
import re
from typing import Any

from eval_pipeline.judges.protocol import JudgeError, JudgeFingerprint, JudgeRequest, JudgeVerdict

_WORD = re.compile(r"[a-z0-9]+")


def _words(value: Any) -> set[str]:
    return set(_WORD.findall(str(value).lower()))


class OverlapJudge:
    """Verdict = share of answer words found in the other fields (deterministic)."""

    backend = "test-overlap"

    def __init__(self) -> None:
        self.requests: list[JudgeRequest] = []

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """Fixed fingerprint."""
        return JudgeFingerprint(self.backend, "overlap", "1")

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """Score the request."""
        self.requests.append(request)
        target = _words(request.fields.get("answer") or request.fields.get("plan"))
        other = set().union(
            *(_words(v) for k, v in request.fields.items() if k not in ("answer", "plan"))
        )
        score = len(target & other) / len(target) if target else 1.0
        return JudgeVerdict(
            score=score,
            passed=score >= 0.5,
            reason=f"overlap {score:.2f}",
            details={"words": len(target)},
        )


class NoisyJudge(OverlapJudge):
    """OverlapJudge plus seeded noise of +-``amplitude``."""

    backend = "test-noisy"

    def __init__(self, amplitude: float = 0.2, seed: int = 7) -> None:
        super().__init__()
        self._rng = random.Random(seed)
        self._amplitude = amplitude

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """Score with noise."""
        base = super().judge(request)
        noisy = min(
            1.0, max(0.0, base.score + self._rng.uniform(-self._amplitude, self._amplitude))
        )
        return JudgeVerdict(score=noisy, passed=noisy >= 0.5, reason=base.reason)


class FailingJudge(OverlapJudge):
    """Always fails."""

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """Raise."""
        raise JudgeError("endpoint returned 503 three times")
