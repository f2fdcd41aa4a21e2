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


def suite_judge_digests(state_url: str = "sqlite://") -> dict[str, str]:
    """Suite name -> fingerprint digest of the judge its ``judge:`` block names (known suites).

    The fingerprint is computed without calling the judge, so a named judge's endpoint need
    not answer; a suite whose judge cannot be built (no endpoint) is left out here and fails
    when a build on it is scored. Give the home's ``state_url`` to include the alignments
    adopted there (``judges align``); the in-memory default holds none.
    """
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError, suite_judge
    from eval_pipeline.suites.config import load_suite

    digests: dict[str, str] = {}
    for path in suite_files():
        suite = load_suite(path)
        try:
            judge = suite_judge(suite, state_url=state_url)
        except SuiteResolutionError:
            continue
        if judge is not None:
            digests[suite.suite] = judge.fingerprint.digest
    return digests


def judge_code_version() -> str:
    """One code version for judge-scored assets: changes when any known suite's judge does."""
    import hashlib

    digests = suite_judge_digests()
    text = ";".join(f"{suite}={digest}" for suite, digest in sorted(digests.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16] if digests else "no-judge"
