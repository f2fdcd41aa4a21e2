"""Shared plumbing for scorers: identity, declared requirements and the score constructors.

Every scorer in ``scoring/scorers`` subclasses ``ScorerBase`` so that ids, versions, directions
and the ``scored`` / ``unscored`` / ``not_applicable`` / ``error`` rows are built the same way
everywhere. Scorers keep no state between calls: a subclass holds only its construction
arguments (recorded in ``arguments`` so the registry can rebuild it).
"""

from typing import Any, ClassVar

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring import rows
from eval_pipeline.scoring.protocol import Direction
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.traces.model import AgentRun

_scored = rows.scored
_unvalued = rows.unvalued


class ScorerBase:
    """Base class of the built-in scorers (implements the ``Scorer`` protocol's identity part).

    Subclasses set the class variables and implement ``score``. ``needs_judge`` declares that
    the constructor takes ``judge=`` and the scorer consults it; ``library`` names the external
    library that computes the metric ("" for the project's own scorers). ``arguments`` returns
    the keyword arguments the scorer was built with (JSON-safe), recorded on every score row
    for rescoring.
    """

    metric_id: ClassVar[str] = ""
    metric_version: ClassVar[int] = 1
    metric_direction: ClassVar[str] = Direction.HIGHER_IS_BETTER
    run_fields: ClassVar[frozenset[str]] = frozenset()
    item_fields: ClassVar[frozenset[str]] = frozenset()
    needs_judge: ClassVar[bool] = False
    library: ClassVar[str] = ""
    fresh_rows: ClassVar[bool] = False
    """True when ``score`` returns a row made for the call that the scorer keeps no reference
    to: ``score_run`` then stamps the row itself instead of a copy of it."""

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
        run: AgentRun,
        value: float,
        *,
        reason: str = "",
        span_ids: tuple[str, ...] | list[str] = (),
        evidence: dict[str, Any] | None = None,
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
    ) -> Score:
        """A ``scored`` row for ``run`` (value clamped to [0, 1] against float noise).

        ``Score.checked``'s row, made by ``rows.scored`` (in C when built): the value is a float
        in [0, 1] once clamped, so there is nothing to check (every scorer's every row comes
        through here).
        """
        return _scored(
            self, run, value, reason, span_ids, evidence, judge_fingerprint, judge_backend
        )

    def _without_value(
        self,
        status: str,
        run: AgentRun,
        reason: str,
        evidence: dict[str, Any] | None,
        judge_fingerprint: str | None,
        judge_backend: str | None,
    ) -> Score:
        return _unvalued(self, run, status, reason, evidence, judge_fingerprint, judge_backend)

    def unscored(
        self,
        run: AgentRun,
        reason: str,
        *,
        evidence: dict[str, Any] | None = None,
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
    ) -> Score:
        """An ``unscored`` row: the input needed to score is missing (never a 0)."""
        return self._without_value(
            ScoreStatus.UNSCORED, run, reason, evidence, judge_fingerprint, judge_backend
        )

    def not_applicable(
        self,
        run: AgentRun,
        reason: str,
        *,
        evidence: dict[str, Any] | None = None,
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
    ) -> Score:
        """A ``not_applicable`` row: the metric does not apply to this run (not missing)."""
        return self._without_value(
            ScoreStatus.NOT_APPLICABLE, run, reason, evidence, judge_fingerprint, judge_backend
        )

    def errored(
        self,
        run: AgentRun,
        reason: str,
        *,
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
    ) -> Score:
        """An ``error`` row: scoring was attempted and failed."""
        return self._without_value(
            ScoreStatus.ERROR, run, reason, None, judge_fingerprint, judge_backend
        )

    def score(self, run: AgentRun, item: DatasetItem) -> Score:
        """Score one run against its item (implemented by subclasses)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement score()")
