"""Shared plumbing for scorers: identity, declared requirements and the verdict constructors.

Every scorer in ``scoring/scorers`` subclasses ``ScorerBase`` so that ids, versions, directions
and the ``scored`` / ``unscored`` / ``not_applicable`` / ``error`` verdicts are made the same
way everywhere: a subclass implements ``verdict``, and its score row is built from the verdict
once, with the identity of the run (``registry.score_run``). Scorers keep no state between
calls: a subclass holds only its construction arguments (recorded in ``arguments`` so the
registry can rebuild it).
"""

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.protocol import Direction
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class ScorerBase:
    """Base class of the built-in scorers (implements the ``Scorer`` protocol's identity part).

    Subclasses set the class variables and implement ``verdict``. ``needs_judge`` declares that
    the constructor takes ``judge=`` and the scorer consults it; ``library`` names the external
    library that computes the metric ("" for the project's own scorers). ``arguments`` returns
    the keyword arguments the scorer was built with (JSON-safe), recorded on every score row
    for rescoring.

    The metric catalogue (``scoring.catalogue``, ``eval-pipeline metrics list``) is read from
    these class variables and the class docstring's first line, never from a list kept
    elsewhere: ``layer`` is the part of the agent run the metric judges (a ``Layer``),
    ``not_applicable_when`` says when the scorer answers ``not_applicable`` ("" when it never
    does), ``value_range`` bounds its values and ``value_set`` lists them when it gives only
    those (``(0.0, 1.0)`` for a pass/fail metric).
    """

    metric_id: ClassVar[str] = ""
    metric_version: ClassVar[int] = 1
    metric_direction: ClassVar[str] = Direction.HIGHER_IS_BETTER
    run_fields: ClassVar[frozenset[str]] = frozenset()
    item_fields: ClassVar[frozenset[str]] = frozenset()
    needs_judge: ClassVar[bool] = False
    library: ClassVar[str] = ""
    layer: ClassVar[str] = ""
    not_applicable_when: ClassVar[str] = ""
    value_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    value_set: ClassVar[tuple[float, ...]] = ()

    @property
    def id(self) -> str:
        """Metric id (snake_case)."""
        return self.metric_id

    @property
    def version(self) -> int:
        """Scorer version, bumped when its semantics change."""
        return self.metric_version

    @property
    def direction(self) -> str:
        """A ``Direction`` value."""
        return self.metric_direction

    @property
    def requires_run(self) -> frozenset[str]:
        """``AgentRun`` fields read."""
        return self.run_fields

    @property
    def requires_item(self) -> frozenset[str]:
        """``DatasetItem`` fields read."""
        return self.item_fields

    @property
    def arguments(self) -> dict[str, Any]:
        """Construction keyword arguments that differ from the defaults (JSON-safe).

        Recorded on score rows for the registry to rebuild the scorer; a judge is never one
        (rows carry its fingerprint instead).
        """
        return {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{type(self).__name__}({args})"

    def scored(
        self,
        value: float,
        *,
        reason: str = "",
        span_ids: Sequence[str] = (),
        evidence: Mapping[str, Any] | None = None,
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
    ) -> Verdict:
        """A ``scored`` verdict, the value clamped to [0, 1] against float noise.

        NaN and ``-0.0`` become ``0.0``; repeated span ids are kept once, in order.
        """
        value = float(value)
        value = value if value > 0.0 else 0.0
        value = value if value < 1.0 else 1.0
        return Verdict(
            ScoreStatus.SCORED,
            value,
            reason,
            tuple(dict.fromkeys(span_ids)),
            dict(evidence) if evidence else {},
            judge_fingerprint,
            judge_backend,
        )

    def unscored(
        self,
        reason: str,
        *,
        evidence: Mapping[str, Any] | None = None,
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
    ) -> Verdict:
        """An ``unscored`` verdict: the input needed to score is missing (never a 0)."""
        return _without_value(
            ScoreStatus.UNSCORED, reason, evidence, judge_fingerprint, judge_backend
        )

    def not_applicable(
        self,
        reason: str,
        *,
        evidence: Mapping[str, Any] | None = None,
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
    ) -> Verdict:
        """A ``not_applicable`` verdict: the metric does not apply to this run (not missing)."""
        return _without_value(
            ScoreStatus.NOT_APPLICABLE, reason, evidence, judge_fingerprint, judge_backend
        )

    def errored(
        self,
        reason: str,
        *,
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
    ) -> Verdict:
        """An ``error`` verdict: scoring was attempted and failed."""
        return _without_value(ScoreStatus.ERROR, reason, None, judge_fingerprint, judge_backend)

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run against its item (implemented by subclasses)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement verdict()")

    def score(self, run: AgentRun, item: DatasetItem) -> Score:
        """Score one run against its item: the verdict's row, for the run's trace only.

        ``registry.score_run`` builds the row with the run's whole identity instead.
        """
        return self.verdict(run, item).row(self.id, self.version, run.trace_id)


def _without_value(
    status: str,
    reason: str,
    evidence: Mapping[str, Any] | None,
    judge_fingerprint: str | None,
    judge_backend: str | None,
) -> Verdict:
    return Verdict(
        status,
        None,
        reason,
        (),
        dict(evidence) if evidence else {},
        judge_fingerprint,
        judge_backend,
    )
