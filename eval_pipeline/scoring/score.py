"""The score row (DESIGN.md section 4, **contract**): one per build x item x run x metric.

A scorer that cannot score says so (``unscored`` with a reason); one that failed says
``error``. Neither carries a value, and nothing downstream may turn a null into 0 or 1: the
gate counts both as missing. A scorer whose metric does not apply to the run (no hand-off
expected and none made, no claim to check) says ``not_applicable`` with the reason: no value
either, but left out of the metric's mean and not missing.
"""

from dataclasses import MISSING, dataclass, field, fields
from typing import Any


class ScoreStatus:
    """Allowed values of ``Score.status``."""

    SCORED = "scored"
    UNSCORED = "unscored"
    ERROR = "error"
    NOT_APPLICABLE = "not_applicable"

    ALL = frozenset({SCORED, UNSCORED, ERROR, NOT_APPLICABLE})
    MISSING = frozenset({UNSCORED, ERROR})
    """Statuses the gate counts as missing scores."""


@dataclass(frozen=True)
class Score:
    """One score.

    ``value`` is in [0, 1] when ``status == "scored"`` and None otherwise. ``evidence`` holds
    JSON-safe details (the claim, the missing tool, ...). ``judge_backend`` names the judge
    implementation, ``judge_fingerprint`` its model/rubric/parameters hash (None for
    deterministic scorers). ``scorer_args`` are the scorer's construction arguments
    (``Scorer.arguments``, JSON-safe; the judge is not one), from which the registry rebuilds the
    exact scorer (``registry.rebuild_scorer``). ``dataset`` and ``dataset_version`` name the
    dataset version the item came from (None when the row was not scored against a suite's
    dataset), so an exported row says what it was measured on.
    """

    metric_id: str
    value: float | None
    status: str
    scorer_id: str
    scorer_version: int
    reason: str = ""
    trace_id: str | None = None
    span_ids: tuple[str, ...] = ()
    build: str | None = None
    item_id: str | None = None
    run_index: int | None = None
    judge_fingerprint: str | None = None
    judge_backend: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    slices: dict[str, str] = field(default_factory=dict)
    scorer_args: dict[str, Any] = field(default_factory=dict)
    dataset: str | None = None
    dataset_version: str | None = None

    def __post_init__(self) -> None:
        if self.status not in ScoreStatus.ALL:
            raise ValueError(
                f"score status must be one of {sorted(ScoreStatus.ALL)}: {self.status!r}"
            )
        if self.status == ScoreStatus.SCORED:
            if self.value is None or not 0.0 <= self.value <= 1.0:
                raise ValueError(
                    f"{self.metric_id}: a scored value must be in [0, 1], got {self.value!r}"
                )
        elif self.value is not None:
            raise ValueError(f"{self.metric_id}: a {self.status!r} score carries no value")

    @property
    def is_missing(self) -> bool:
        """True for unscored and error rows: the gate counts them as missing."""
        return self.status in ScoreStatus.MISSING

    def with_context(
        self,
        *,
        build: str | None,
        item_id: str | None,
        run_index: int | None,
        slices: dict[str, str] | None = None,
    ) -> "Score":
        """A copy carrying the build / item / run / slice identity of the run it scored."""
        return self.stamped(
            build=build, item_id=item_id, run_index=run_index, slices=dict(slices or self.slices)
        )

    def stamped(self, **fields: Any) -> "Score":
        """A copy with identity fields replaced (build, item, run, slices, trace, arguments).

        Unlike ``dataclasses.replace`` it does not re-validate the row: only fields that
        carry no value or status change, so the copy is valid when the row is. It is on the
        scoring hot path (every row of every run is stamped).
        """
        if not _STAMPABLE.issuperset(fields):
            unknown = sorted(set(fields) - _STAMPABLE)
            raise TypeError(f"stamped() cannot change {unknown}: use dataclasses.replace")
        copy = object.__new__(Score)
        values = copy.__dict__
        values.update(self.__dict__)
        values.update(fields)
        return copy

    @classmethod
    def checked(
        cls,
        metric_id: str,
        value: float | None,
        status: str,
        scorer_id: str,
        scorer_version: int,
        reason: str = "",
        trace_id: str | None = None,
        span_ids: tuple[str, ...] = (),
        judge_fingerprint: str | None = None,
        judge_backend: str | None = None,
        evidence: dict[str, Any] | None = None,
    ) -> "Score":
        """A row built without the dataclass constructor's cost, validated all the same.

        For the scorer base's constructors, on the hot path (their arguments in the order of
        the fields): the status and value are checked here as ``__post_init__`` would, the
        other fields take their defaults (the same row as the constructor's, field for field).
        """
        if status == ScoreStatus.SCORED:
            if value is None or not 0.0 <= value <= 1.0:
                raise ValueError(f"{metric_id}: a scored value must be in [0, 1], got {value!r}")
        elif status not in ScoreStatus.ALL or value is not None:
            # Not a valid row: the constructor raises its error.
            return cls(metric_id, value, status, scorer_id, scorer_version)
        row = object.__new__(cls)
        # Written into the new row's own dict: cheaper than the constructor, and than a dict
        # made apart and set as ``__dict__``.
        values = row.__dict__
        values.update(ROW_DEFAULTS)  # every field, in order, at its default
        values["metric_id"] = metric_id
        values["value"] = value
        values["status"] = status
        values["scorer_id"] = scorer_id
        values["scorer_version"] = scorer_version
        values["reason"] = reason
        values["trace_id"] = trace_id
        values["span_ids"] = span_ids
        values["judge_fingerprint"] = judge_fingerprint
        values["judge_backend"] = judge_backend
        values["evidence"] = {} if evidence is None else evidence
        values["slices"] = {}
        values["scorer_args"] = {}
        return row

    def for_run(
        self,
        build: str | None,
        item_id: str | None,
        run_index: int | None,
        slices: dict[str, str],
        trace_id: str | None,
        scorer_args: dict[str, Any],
    ) -> "Score":
        """``stamped`` with the identity of the run scored (``score_run``'s stamp, per row)."""
        copy = object.__new__(Score)
        values = copy.__dict__
        values.update(self.__dict__)
        values["build"] = build
        values["item_id"] = item_id
        values["run_index"] = run_index
        values["slices"] = slices
        values["trace_id"] = trace_id
        values["scorer_args"] = scorer_args
        return copy


ROW_DEFAULTS: dict[str, Any] = {
    f.name: None if f.default is MISSING else f.default for f in fields(Score)
}
"""Every field of ``Score`` in order, at its default: ``checked`` writes it into a new row."""


_STAMPABLE = frozenset(
    {
        "build",
        "item_id",
        "run_index",
        "slices",
        "trace_id",
        "scorer_args",
        "dataset",
        "dataset_version",
    }
)


SCORE_COLUMNS = (
    "build",
    "item_id",
    "run_index",
    "metric_id",
    "value",
    "status",
    "reason",
    "trace_id",
    "span_ids",
    "scorer_id",
    "scorer_version",
    "judge_fingerprint",
    "judge_backend",
    "evidence",
    "scorer_args",
    "dataset",
    "dataset_version",
)
"""Column order of the long scores table (a contract: new columns are appended); slice columns
follow, named by the slice (``intent``). ``evidence`` and ``scorer_args`` are JSON text."""
