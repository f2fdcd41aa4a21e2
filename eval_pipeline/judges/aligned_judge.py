"""An adopted alignment: stored in the state database, applied by wrapping the suite's judge.

``judges align`` stores an alignment it adopted (``judges.alignment``) as a row of the
``judge_alignments`` table, registered under the suite's name and the fingerprint digest of the
judge it was fitted on. ``aligned`` wraps a suite's judge with the newest adoption that matches
both; a judge whose model, rubric or parameters changed since has another digest, so an old
alignment never applies to a judge it was not fitted on.

``AlignedJudge`` decides pass/fail as ``score >= threshold`` for the aligned task and keeps the
inner judge's graded score, reason and details (it adds ``details["alignment"]``). Its
fingerprint is the inner one with the alignment's digest among the parameters: scores record a
new judge, so the rescoring schedule rescores baselines scored before the adoption, and the
calibration is stored anew under that fingerprint. The inner judge (and its cache) is asked as
before, so an adoption costs no judge calls: cached verdicts are re-decided.
"""

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, DateTime, Float, Integer, String, Table, Text, desc, insert, select

from eval_pipeline.judges.cache import judge_each
from eval_pipeline.judges.protocol import Judge, JudgeFingerprint, JudgeRequest, JudgeVerdict
from eval_pipeline.statedb import METADATA, engine_for

JUDGE_ALIGNMENTS = Table(
    "judge_alignments",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("suite", String(200), nullable=False, index=True),
    Column("base_fingerprint", String(16), nullable=False),
    Column("task", String(64), nullable=False),
    Column("threshold", Float, nullable=False),
    Column("digest", String(16), nullable=False),
    Column("evidence", Text, nullable=False),
    Column("adopted_at", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class Alignment:
    """What an adoption changes: the pass threshold of one task of one judge."""

    suite: str
    base_fingerprint: str
    task: str
    threshold: float

    @property
    def digest(self) -> str:
        """A short stable hash of what the alignment changes (joins the judge's fingerprint)."""
        payload = json.dumps(
            [self.base_fingerprint, self.task, round(self.threshold, 9)], separators=(",", ":")
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


def store_alignment(state_url: str, alignment: Alignment, evidence: dict[str, Any]) -> None:
    """Record ``alignment`` as adopted for its suite, with the figures that earned it."""
    with engine_for(state_url).begin() as conn:
        conn.execute(
            insert(JUDGE_ALIGNMENTS).values(
                suite=alignment.suite,
                base_fingerprint=alignment.base_fingerprint,
                task=alignment.task,
                threshold=alignment.threshold,
                digest=alignment.digest,
                evidence=json.dumps(evidence, sort_keys=True, default=str),
                adopted_at=datetime.now(UTC),
            )
        )


def adopted_alignment(state_url: str, suite: str, base_fingerprint: str) -> Alignment | None:
    """The newest alignment adopted for ``suite`` on the judge ``base_fingerprint``, or None."""
    with engine_for(state_url).connect() as conn:
        row = conn.execute(
            select(JUDGE_ALIGNMENTS.c.task, JUDGE_ALIGNMENTS.c.threshold)
            .where(JUDGE_ALIGNMENTS.c.suite == suite)
            .where(JUDGE_ALIGNMENTS.c.base_fingerprint == base_fingerprint)
            .order_by(desc(JUDGE_ALIGNMENTS.c.id))
            .limit(1)
        ).first()
    return None if row is None else Alignment(suite, base_fingerprint, row[0], float(row[1]))


class AlignedJudge:
    """``inner`` with an adopted alignment's pass threshold (see the module docstring)."""

    def __init__(self, inner: Judge, alignment: Alignment) -> None:
        self.inner = inner
        self.alignment = alignment

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """The inner fingerprint with ``alignment`` (the adoption's digest) in its parameters."""
        base = self.inner.fingerprint
        parameters = {**base.parameters, "alignment": self.alignment.digest}
        return replace(base, parameters=parameters)

    @property
    def backend(self) -> str:
        """The inner judge's backend."""
        return self.inner.backend

    def __getattr__(self, name: str) -> Any:
        # The cache's counters, ``complete`` and ``generative`` (library metrics' prompts are
        # answered by the judge itself: alignment decides verdicts, not completions).
        return getattr(self.inner, name)

    def decide(self, request: JudgeRequest, verdict: JudgeVerdict) -> JudgeVerdict:
        """``verdict`` re-decided at the threshold when ``request`` is of the aligned task."""
        if request.task != self.alignment.task:
            return verdict
        details = {**verdict.details, "alignment": self.alignment.digest}
        return replace(verdict, passed=verdict.score >= self.alignment.threshold, details=details)

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """The inner verdict, re-decided (``JudgeError`` from the inner judge propagates)."""
        return self.decide(request, self.inner.judge(request))

    def judge_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeVerdict | Exception]:
        """The inner judge's batch answers in order, verdicts re-decided, errors kept."""
        return [
            self.decide(request, answer) if isinstance(answer, JudgeVerdict) else answer
            for request, answer in zip(requests, judge_each(self.inner, requests), strict=True)
        ]


def aligned(judge: Judge, suite: str, state_url: str) -> Judge:
    """``judge`` wrapped with the alignment adopted for ``suite`` on it, or ``judge`` itself.

    An in-memory database (``sqlite://``, used to read fingerprints without a home) holds no
    adoption, so it is not opened.
    """
    if state_url == "sqlite://":
        return judge
    found = adopted_alignment(state_url, suite, judge.fingerprint.digest)
    return judge if found is None else AlignedJudge(judge, found)
