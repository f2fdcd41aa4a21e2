"""Judge calibration: agreement of a judge's pass/fail with human labels on the same items.

"Positive" is *pass*. The false-pass rate is P(judge passes | human failed), the risk that a
gate built on the judge lets a bad build through; the false-fail rate is P(judge fails | human
passed). Accuracy, Cohen's kappa, balanced accuracy and both rates come with percentile
bootstrap intervals (items resampled with replacement, seeded), overall and per slice. A rate
whose denominator is empty is ``None`` (JSON null), never 0.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from eval_pipeline.judges.label_files import LabelFileError, item_ids, require_columns, to_pass

STATISTICS = ("accuracy", "kappa", "false_pass_rate", "false_fail_rate", "balanced_accuracy")
INTERVAL_METHOD = "percentile bootstrap over items, seeded"
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class CalibrationReport:
    """Calibration of one judge against human labels (see the module docstring)."""

    n: int
    accuracy: float | None
    kappa: float | None
    false_pass_rate: float | None
    false_fail_rate: float | None
    balanced_accuracy: float | None
    confusion: dict[str, int]
    intervals: dict[str, list[float | None]]
    slices: dict[str, dict[str, "CalibrationReport"]] = field(default_factory=dict)
    missing_verdicts: int = 0
    confidence: float = 0.95

    def to_json(self) -> dict[str, Any]:
        """The contract output: n, accuracy, kappa, both rates, intervals, slices (+ extras)."""
        return {
            "n": self.n,
            "accuracy": self.accuracy,
            "kappa": self.kappa,
            "false_pass_rate": self.false_pass_rate,
            "false_fail_rate": self.false_fail_rate,
            "balanced_accuracy": self.balanced_accuracy,
            "confusion": self.confusion,
            "intervals": self.intervals,
            "confidence": self.confidence,
            "interval_method": INTERVAL_METHOD,
            "missing_verdicts": self.missing_verdicts,
            "slices": {
                column: {value: report.to_json() for value, report in values.items()}
                for column, values in self.slices.items()
            },
        }


def _statistics(human: npt.NDArray[np.bool_], judge: npt.NDArray[np.bool_]) -> Floats:
    """Each statistic over the last axis; arrays may be batched (resamples x items)."""
    n = human.shape[-1]
    tp = np.sum(human & judge, axis=-1).astype(float)
    tn = np.sum(~human & ~judge, axis=-1).astype(float)
    fp = np.sum(~human & judge, axis=-1).astype(float)
    fn = np.sum(human & ~judge, axis=-1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = (tp + tn) / n
        p_human, p_judge = (tp + fn) / n, (tp + fp) / n
        expected = p_human * p_judge + (1 - p_human) * (1 - p_judge)
        kappa = np.where(expected < 1.0, (accuracy - expected) / (1.0 - expected), np.nan)
        false_pass = fp / (fp + tn)
        false_fail = fn / (fn + tp)
        balanced = 1.0 - (false_pass + false_fail) / 2.0
    return np.stack([accuracy, kappa, false_pass, false_fail, balanced], axis=-1)


def _finite(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


def agreement(
    human: npt.NDArray[np.bool_],
    judge: npt.NDArray[np.bool_],
    *,
    seed: int = 0,
    n_resamples: int = 2000,
    confidence: float = 0.95,
) -> CalibrationReport:
    """Calibration statistics for aligned boolean arrays (True = pass)."""
    if len(human) == 0:
        raise ValueError("calibration needs at least one item with both a label and a verdict")
    point = _statistics(human, judge)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(human), size=(n_resamples, len(human)))
    resampled = _statistics(human[draws], judge[draws])
    tail = (1.0 - confidence) / 2.0 * 100.0
    intervals: dict[str, list[float | None]] = {}
    for k, name in enumerate(STATISTICS):
        column = resampled[:, k]
        column = column[np.isfinite(column)]
        if column.size == 0:
            intervals[name] = [None, None]
        else:
            low, high = np.percentile(column, [tail, 100.0 - tail])
            intervals[name] = [float(low), float(high)]
    confusion = {
        "judge_pass_human_pass": int(np.sum(human & judge)),
        "judge_pass_human_fail": int(np.sum(~human & judge)),
        "judge_fail_human_pass": int(np.sum(human & ~judge)),
        "judge_fail_human_fail": int(np.sum(~human & ~judge)),
    }
    values = [_finite(v) for v in point]
    return CalibrationReport(
        n=len(human),
        accuracy=values[0],
        kappa=values[1],
        false_pass_rate=values[2],
        false_fail_rate=values[3],
        balanced_accuracy=values[4],
        confusion=confusion,
        intervals=intervals,
        confidence=confidence,
    )


def calibrate(
    labels: pd.DataFrame,
    verdicts: pd.DataFrame,
    *,
    slice_columns: Sequence[str] = (),
    seed: int = 0,
    n_resamples: int = 2000,
    threshold: float = 0.5,
    confidence: float = 0.95,
    labels_source: str = "labels",
    verdicts_source: str = "verdicts",
) -> CalibrationReport:
    """Join labels (``item_id``, ``label``) and verdicts (``item_id``, ``verdict``) and calibrate.

    Items with a label but no verdict are counted in ``missing_verdicts``; slice columns are
    taken from the labels, else from the verdicts. Graded values pass at ``>= threshold``.

    Raises:
        LabelFileError: a missing column, blank or duplicate item id, or an unreadable value.
    """
    require_columns(labels, ["item_id", "label"], labels_source)
    require_columns(verdicts, ["item_id", "verdict"], verdicts_source)
    left = labels.assign(item_id=item_ids(labels, labels_source))
    right = verdicts.assign(item_id=item_ids(verdicts, verdicts_source))
    left = left.assign(_human=to_pass(left["label"], labels_source, "label", threshold))
    right = right.assign(_judge=to_pass(right["verdict"], verdicts_source, "verdict", threshold))
    for column in slice_columns:
        if column not in left.columns and column not in right.columns:
            raise LabelFileError(
                f"slice column {column!r} is in neither {labels_source} nor {verdicts_source}"
            )
    keep_right = ["item_id", "_judge"] + [
        c for c in slice_columns if c not in left.columns and c in right.columns
    ]
    joined = left.merge(right[keep_right], on="item_id", how="inner")
    missing = len(left) - len(joined)
    report = agreement(
        joined["_human"].to_numpy(bool),
        joined["_judge"].to_numpy(bool),
        seed=seed,
        n_resamples=n_resamples,
        confidence=confidence,
    )
    slices: dict[str, dict[str, CalibrationReport]] = {}
    for column in slice_columns:
        slices[column] = {}
        for value, group in joined.groupby(joined[column].astype(str), sort=True):
            slices[column][str(value)] = agreement(
                group["_human"].to_numpy(bool),
                group["_judge"].to_numpy(bool),
                seed=seed,
                n_resamples=n_resamples,
                confidence=confidence,
            )
    return CalibrationReport(**{**report.__dict__, "slices": slices, "missing_verdicts": missing})


def blocks_gating(report: CalibrationReport, ceiling: float) -> bool:
    """True when the judge's false-pass rate is above ``ceiling`` (the risk tier's).

    A report with no human-failed items cannot show its false-pass rate is under any ceiling,
    so it blocks as well.
    """
    return report.false_pass_rate is None or report.false_pass_rate > ceiling
