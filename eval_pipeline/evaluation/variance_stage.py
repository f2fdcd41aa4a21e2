"""Judge variance on a suite's calibration set: repeated verdicts -> spread -> runs per item.

``judges.variance`` does the statistics; this stage gets the verdicts (the suite's judge asked
several times per labelled item) and stores the result in the judge's calibration report, where
``judge_calibration`` shows it. ``eval-pipeline calibrate variance`` is the way in.
"""

from typing import Any

from eval_pipeline.evaluation.calibration_stage import (
    calibrate_judge_on,
    stored_report,
    suite_calibration_set,
    write_report,
)
from eval_pipeline.evaluation.suite_parts import SuiteResolutionError, suite_judge
from eval_pipeline.home import Home
from eval_pipeline.judges.aligned_judge import AlignedJudge
from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.label_files import read_table
from eval_pipeline.judges.labelled_run import build_requests, repeated_scores
from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline.judges.variance import runs_per_item_advice
from eval_pipeline.suites.config import SuiteConfig


def measure_judge_variance(
    home: Home,
    suite: SuiteConfig,
    *,
    repeats: int,
    target_half_width: float,
    confidence: float = 0.95,
    n_items: int | None = None,
    limit: int | None = None,
    workers: int = 1,
) -> dict[str, Any]:
    """Ask the suite's judge ``repeats`` times per item of its calibration set; store the spread.

    The repeats go to the judge itself, not its cache (a cached repeat is the first verdict
    again). The result, also stored as the ``variance`` field of the judge's calibration
    report on the set, gives the within- and between-item variance of the verdict scores and
    the runs per item that bring the interval on the mean of ``n_items`` items (default: the
    labelled items used) down to ``target_half_width`` (None when only more items can).

    Raises:
        SuiteResolutionError: the suite has no judge block, or names a set that is not shipped.
        ValueError: too few verdicts to split the variance (fewer than two items answered).
    """
    judge = suite_judge(suite, state_url=home.state_url)
    if judge is None or suite.judge is None:
        raise SuiteResolutionError(f"suite {suite.suite} has no judge: block to measure")
    entry = suite_calibration_set(suite)
    labels = read_table(entry.path)
    if limit is not None:
        labels = labels.head(limit)
    requests = build_requests(labels, load_rubric(entry.task), str(entry.path))
    base = judge.inner if isinstance(judge, AlignedJudge) else judge  # alignment keeps scores
    fresh = base.inner if isinstance(base, CachedJudge) else base
    scores, errors = repeated_scores(fresh, requests, repeats, workers=workers)
    advice = runs_per_item_advice(
        scores, 2.0 * target_half_width, n_items=n_items, confidence=confidence
    )
    split = advice.split
    result = {
        "suite": suite.suite,
        "calibration_set": entry.name,
        "judge_fingerprint": judge.fingerprint.digest,
        "judge_backend": judge.backend,
        "repeats": repeats,
        "items": split.n_items,
        "verdicts": sum(len(v) for v in scores.values()),
        "errors": len(errors),
        "confidence": confidence,
        "target_half_width": target_half_width,
        "advice_items": advice.n_items,
        "runs_per_item": advice.runs_per_item,
        "half_width_with_one_run": advice.width_with_one_run / 2.0,
        "half_width_at_advice": (
            None if advice.width_at_advice is None else advice.width_at_advice / 2.0
        ),
        "reason": advice.reason,
        "within_variance": split.within_variance,
        "between_variance": split.between_variance,
        "icc": split.icc,
        "per_item_std": split.per_item_std,
    }
    report = stored_report(home, judge.fingerprint.digest, entry.name) or calibrate_judge_on(
        home, judge, entry
    )
    write_report(home, judge.fingerprint.digest, entry.name, {**report, "variance": result})
    return result
