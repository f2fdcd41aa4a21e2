"""Pure planners behind the sensor and the definitions: what to request, what to gate."""

from collections.abc import Sequence
from dataclasses import dataclass

from eval_pipeline.builds import BuildRecord
from eval_pipeline.suites.locate import suite_files

BUDGET_IDS = ("budget_p95_latency_s", "budget_cost_per_task_usd")
"""Ids of the budget checks the gate reports beside its metrics."""


@dataclass(frozen=True)
class BuildPlan:
    """Builds to request now (with their registration time) and the sensor's next cursor."""

    builds: tuple[tuple[str, str], ...]
    cursor: str | None


def plan_build_requests(records: Sequence[BuildRecord], cursor: str | None) -> BuildPlan:
    """Builds registered after ``cursor`` (an ISO timestamp) and not evaluated yet, oldest first.

    Re-registering a build gives it a new registration time, so it is requested again; the
    run key (build @ registration time) keeps a repeated tick from requesting it twice. A build
    already evaluated out of band (``eval-pipeline demo`` marks its builds requested) is not
    requested again when a daemon first starts on the home.
    """
    fresh = sorted(
        (record.registered_at.isoformat(), record.build)
        for record in records
        if not record.requested and (cursor is None or record.registered_at.isoformat() > cursor)
    )
    if not fresh:
        return BuildPlan(builds=(), cursor=cursor)
    return BuildPlan(builds=tuple((build, at) for at, build in fresh), cursor=fresh[-1][0])


def gated_ids() -> tuple[str, ...]:
    """Metric ids gated by any known suite, then the budget ids: one gate check each."""
    from eval_pipeline.suites.config import load_suite

    metric_ids: set[str] = set()
    for path in suite_files():
        metric_ids.update(metric.id for metric in load_suite(path).metrics)
    return (*sorted(metric_ids), *BUDGET_IDS)


def judge_digest(model: str, rubric_version: str | None, base_url: str | None) -> str:
    """The fingerprint digest of the judge this configuration builds (the code version)."""
    from eval_pipeline.judges.factory import judge_from_config

    judge = judge_from_config(model, rubric_version, base_url=base_url, state_url=None)
    return judge.fingerprint.digest
