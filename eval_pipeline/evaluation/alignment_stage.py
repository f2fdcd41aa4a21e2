"""Judge agreement per label set, and aligning a suite's judge to human labels.

``agreement`` reports the suite's judge (as the suite uses it: with its adopted alignment)
against the suite's calibration set, stored like every calibration, and against any other
label files, not stored. ``align`` runs the suite's judge without alignment on a label file,
cross-validates a fitted pass threshold against the decisions the suite uses today
(``judges.alignment``) and, only when the gain's interval lies above zero, stores the adoption
(``judges.aligned_judge``) and calibrates the new judge on the suite's set, so the gate's trust
check and the rescoring schedule both see the new fingerprint at once.
"""

from pathlib import Path
from typing import Any

import numpy as np

from eval_pipeline.evaluation.calibration_sets import CalibrationSet, suite_calibration_set
from eval_pipeline.evaluation.calibration_stage import calibrate_judge_on
from eval_pipeline.evaluation.suite_parts import SuiteResolutionError, suite_judge
from eval_pipeline.home import Home
from eval_pipeline.judges.aligned_judge import AlignedJudge, Alignment, store_alignment
from eval_pipeline.judges.alignment import align_threshold
from eval_pipeline.judges.label_files import item_ids, read_table, require_columns, to_pass
from eval_pipeline.judges.labelled_run import build_requests, calibrate_judge, run_judge
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline.suites.config import SuiteConfig


def _judge_of(home: Home, suite: SuiteConfig) -> Judge:
    judge = suite_judge(suite, state_url=home.state_url)
    if judge is None:
        raise SuiteResolutionError(f"suite {suite.suite} has no judge: block")
    return judge


def _label_set(suite: SuiteConfig, labels: Path | None, task: str | None) -> CalibrationSet:
    """The suite's calibration set, or ``labels`` graded for ``task`` (default: the set's)."""
    own = suite_calibration_set(suite)
    if labels is None:
        return own if task is None or task == own.task else CalibrationSet(own.name, own.path, task)
    return CalibrationSet(str(labels), labels, task or own.task)


def agreement(home: Home, suite: SuiteConfig, extra: tuple[Path, ...] = ()) -> list[dict[str, Any]]:
    """One agreement report per label set: the suite's (stored), then each of ``extra``.

    Raises:
        SuiteResolutionError: the suite has no judge, or names a set that is not shipped.
        LabelFileError, RubricError, JudgeCannotJudge: as calibration raises them.
    """
    judge = _judge_of(home, suite)
    reports = [calibrate_judge_on(home, judge, suite_calibration_set(suite), suite)]
    for path in extra:
        entry = _label_set(suite, path, None)
        report, _ = calibrate_judge(judge, read_table(path), entry.task, source=str(path))
        reports.append(
            {
                **report.to_json(),
                "calibration_set": entry.name,
                "judge_fingerprint": judge.fingerprint.digest,
                "judge_backend": judge.backend,
            }
        )
    return reports


def align(
    home: Home,
    suite: SuiteConfig,
    labels: Path | None = None,
    *,
    task: str | None = None,
    folds: int = 5,
    seed: int = 0,
    n_resamples: int = 2000,
    adopt: bool = True,
) -> dict[str, Any]:
    """Fit, cross-validate and (if it earns it and ``adopt``) adopt a pass threshold.

    Raises:
        SuiteResolutionError: the suite has no judge, or names a set that is not shipped.
        LabelFileError: the labels lack a column, or hold a bad id or label.
        AlignmentInputError: fewer than two items of a human class.
    """
    current = _judge_of(home, suite)
    base = current.inner if isinstance(current, AlignedJudge) else current
    entry = _label_set(suite, labels, task)
    source = str(entry.path)
    table = read_table(entry.path)
    require_columns(table, ["item_id", "label"], source)
    ids, human = item_ids(table, source), to_pass(table["label"], source, "label")
    human_of = dict(zip(ids, human, strict=True))
    requests = build_requests(table, load_rubric(entry.task), source)
    scored = run_judge(base, requests).verdicts.set_index("item_id")
    today = run_judge(current, requests).verdicts.set_index("item_id")
    answered = [item for item, _ in requests if item in scored.index and item in today.index]
    result = align_threshold(
        scored.loc[answered, "score"].to_numpy(np.float64),
        (today.loc[answered, "verdict"] == "pass").to_numpy(bool),
        np.array([human_of[item] for item in answered], dtype=bool),
        folds=folds,
        seed=seed,
        n_resamples=n_resamples,
    )
    payload: dict[str, Any] = {
        "suite": suite.suite,
        "labels": entry.name,
        "task": entry.task,
        "judge_backend": base.backend,
        "base_fingerprint": base.fingerprint.digest,
        "current_fingerprint": current.fingerprint.digest,
        "missing_verdicts": len(requests) - len(answered),
        **result.to_json(),
        "new_fingerprint": None,
        "calibration": None,
    }
    if not (result.adopted and adopt):
        if result.adopted:
            payload["reason"] += " (not stored: --no-adopt)"
        return payload
    alignment = Alignment(suite.suite, base.fingerprint.digest, entry.task, result.threshold)
    store_alignment(home.state_url, alignment, payload)
    new = AlignedJudge(base, alignment)
    payload["new_fingerprint"] = new.fingerprint.digest
    payload["calibration"] = calibrate_judge_on(home, new, suite_calibration_set(suite), suite)
    return payload
