"""Aligning a judge to human labels: a decision threshold that must earn its place.

A judge gives every item a graded score in [0, 1] and a pass/fail decision. Alignment fits the
threshold on the score (``score >= threshold`` passes) that maximises balanced accuracy against
the human labels, and asks whether it would help on labels it has not seen:

1. stratified k-fold cross-validation (scikit-learn's ``StratifiedKFold``, shuffled with a
   fixed seed): the threshold is fitted on k-1 folds and decides the held-out fold, so every
   item gets an out-of-fold decision from a threshold fitted without it;
2. the gain is balanced accuracy of those out-of-fold decisions minus balanced accuracy of the
   judge's current decisions on the same items (paired);
3. its interval is a percentile bootstrap over items (resampled with replacement, seeded), the
   two decisions of an item kept together;
4. the threshold (refitted on every label) is adopted only when the gain is positive and the
   interval's lower end is above zero; otherwise it is refused, and the figures say why.

Balanced accuracy is used rather than accuracy because label sets are rarely balanced and a
judge that passes everything must not look good. A resample holding one human class only
is left out of the interval. Nothing here touches a judge or a file.
"""

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.model_selection import StratifiedKFold

Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]
INTERVAL_METHOD = "percentile bootstrap over items, paired, seeded"


class AlignmentInputError(ValueError):
    """Labels that cannot support cross-validation (too few of a class); the message says why."""


@dataclass(frozen=True)
class ThresholdAlignment:
    """The outcome of one alignment attempt (see the module docstring)."""

    n: int
    folds: int
    seed: int
    threshold: float
    fold_thresholds: list[float]
    current_balanced_accuracy: float
    aligned_balanced_accuracy: float
    gain: float
    gain_interval: list[float]
    confidence: float
    adopted: bool
    reason: str
    interval_method: str = INTERVAL_METHOD

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form (the CLI's output and the stored artefact's ``evaluation``)."""
        return asdict(self)


def balanced_accuracy(human: Bools, judge: Bools) -> Floats:
    """Balanced accuracy over the last axis (batched: resamples or candidates x items).

    The mean of the pass and fail recalls; a row holding one human class only is NaN.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = np.sum(human & judge, axis=-1) / np.sum(human, axis=-1)
        tnr = np.sum(~human & ~judge, axis=-1) / np.sum(~human, axis=-1)
    return np.asarray((tpr + tnr) / 2.0, dtype=np.float64)


def fit_threshold(scores: Floats, human: Bools) -> float:
    """The threshold on ``scores`` with the best balanced accuracy on ``human``.

    Candidates are the midpoints between consecutive distinct scores and one below and above
    all of them. Among equally good candidates the median one is taken, so a tie does not
    pull the threshold to an edge of the gap it sits in.
    """
    distinct = np.unique(scores)
    candidates = np.concatenate(
        [[distinct[0] - 1e-9], (distinct[:-1] + distinct[1:]) / 2.0, [distinct[-1] + 1e-9]]
    )
    quality = balanced_accuracy(human, scores[None, :] >= candidates[:, None])
    best = candidates[np.flatnonzero(quality >= quality.max() - 1e-12)]
    return float(best[(len(best) - 1) // 2])


def align_threshold(
    scores: Floats,
    current: Bools,
    human: Bools,
    *,
    folds: int = 5,
    seed: int = 0,
    n_resamples: int = 2000,
    confidence: float = 0.95,
) -> ThresholdAlignment:
    """Cross-validate a fitted threshold against the judge's ``current`` decisions.

    Args:
        scores: the judge's graded score per item.
        current: the judge's pass/fail decision per item as the suite uses it today.
        human: the human label per item (True = pass).
        folds: k of the stratified k-fold (reduced to the smaller class's size when needed).
        seed: shuffles the folds and seeds the bootstrap.
        n_resamples: bootstrap resamples of the gain.
        confidence: the gain interval's coverage.

    Raises:
        AlignmentInputError: fewer than two items of either class.
    """
    n = len(human)
    smaller = int(min(human.sum(), n - human.sum()))
    if smaller < 2:
        raise AlignmentInputError(
            f"alignment needs at least two human-passed and two human-failed items; "
            f"the labels hold {int(human.sum())} passed and {n - int(human.sum())} failed"
        )
    k = min(folds, smaller)
    aligned = np.zeros(n, dtype=bool)
    fold_thresholds = []
    splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    for train, test in splitter.split(np.zeros(n), human):
        threshold = fit_threshold(scores[train], human[train])
        fold_thresholds.append(threshold)
        aligned[test] = scores[test] >= threshold
    before = float(balanced_accuracy(human, current))
    after = float(balanced_accuracy(human, aligned))
    draws = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    gains = balanced_accuracy(human[draws], aligned[draws])
    gains = gains - balanced_accuracy(human[draws], current[draws])
    gains = gains[np.isfinite(gains)]  # a resample holding one human class has no balance
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = (float(v) for v in np.percentile(gains, [tail, 100.0 - tail]))
    gain = after - before
    adopted = gain > 0 and low > 0
    if adopted:
        reason = (
            f"adopted: balanced accuracy {before:.3f} -> {after:.3f} out of fold, gain {gain:+.3f} "
            f"with {confidence:.0%} interval [{low:+.3f}, {high:+.3f}] above zero"
        )
    else:
        reason = (
            f"refused: balanced accuracy {before:.3f} -> {after:.3f} out of fold, gain "
            f"{gain:+.3f} with {confidence:.0%} interval [{low:+.3f}, {high:+.3f}], "
            "which does not lie above zero"
        )
    return ThresholdAlignment(
        n=n,
        folds=k,
        seed=seed,
        threshold=fit_threshold(scores, human),
        fold_thresholds=fold_thresholds,
        current_balanced_accuracy=before,
        aligned_balanced_accuracy=after,
        gain=gain,
        gain_interval=[low, high],
        confidence=confidence,
        adopted=adopted,
        reason=reason,
    )
