"""The score row (docs/DESIGN.md section 4, **contract**): one per build x item x run x metric.

A scorer that cannot score says so (``unscored`` with a reason); one that failed says
``error``. Neither carries a value, and nothing downstream may turn a null into 0 or 1: the
gate counts both as missing. A scorer whose metric does not apply to the run (no hand-off
expected and none made, no claim to check) says ``not_applicable`` with the reason: no value
either, but left out of the metric's mean and not missing.
"""

from dataclasses import dataclass, field, replace
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


@dataclass(slots=True)
class Score:
    """One score: a value built once (by the registry, from a scorer's verdict) and never changed.

    Slotted and not frozen: a frozen dataclass sets each of its 19 fields through
    ``object.__setattr__``, about 2.5 times the cost of building the row, and every run
    scored builds ten. A copy with other fields is ``dataclasses.replace`` (``with_context``).

    ``value`` is in [0, 1] when ``status == "scored"`` and None otherwise. ``evidence`` holds
    JSON-safe details (the claim, the missing tool, ...). ``judge_backend`` names the judge
    implementation, ``judge_fingerprint`` its model/rubric/parameters hash (None for
    deterministic scorers). ``scorer_args`` are the scorer's construction arguments
    (``Scorer.arguments``, JSON-safe; the judge is not one), from which the registry rebuilds the
    exact scorer (``registry.rebuild_scorer``). ``dataset`` and ``dataset_version`` name the
    dataset version the item came from (None when the row was not scored against a suite's
    dataset), so an exported row says what it was measured on. ``judge_calls`` names the judge
    calls that made the row (``<trace id>/<span id>`` of their ``chat`` spans in the build's
    judge trace, ``judges.judge_trace``), a cached answer naming the call that first made it;
    empty for a row no judge call made (deterministic scorers, the offline judge).
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
    judge_calls: tuple[str, ...] = ()

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
        return replace(
            self,
            build=build,
            item_id=item_id,
            run_index=run_index,
            slices=dict(slices or self.slices),
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
    "judge_calls",
)
"""Column order of the long scores table (a contract: new columns are appended); slice columns
follow, named by the slice (``intent``). ``evidence`` and ``scorer_args`` are JSON text;
``span_ids`` and ``judge_calls`` are lists."""
