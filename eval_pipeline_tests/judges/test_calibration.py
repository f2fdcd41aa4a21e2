"""Calibration statistics against scikit-learn.

Calibration statistics equal scikit-learn's reference computations (accuracy, Cohen's kappa,
false-pass and false-fail rates from the confusion matrix), overall and per slice; bootstrap
intervals are seeded and bracket the estimate; label files in any accepted spelling coerce to
pass/fail, and bad input names the file, row and column; the ceiling check blocks gating.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
)

from eval_pipeline.judges.calibration import agreement, blocks_gating, calibrate
from eval_pipeline.judges.label_files import LabelFileError


def _frames(n: int = 300, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    human = rng.random(n) < 0.6
    # a judge that agrees 80% of the time
    judge = np.where(rng.random(n) < 0.8, human, ~human)
    ids = [f"item-{i}" for i in range(n)]
    labels = pd.DataFrame(
        {
            "item_id": ids,
            "label": np.where(human, "pass", "fail"),
            "lang": rng.choice(["en", "de", "fr"], size=n),
        }
    )
    verdicts = pd.DataFrame({"item_id": ids[::-1], "verdict": judge[::-1]})
    return labels, verdicts


def _reference(human: np.ndarray, judge: np.ndarray) -> dict[str, float]:
    tn, fp, fn, tp = confusion_matrix(human, judge, labels=[False, True]).ravel()
    return {
        "accuracy": accuracy_score(human, judge),
        "kappa": cohen_kappa_score(human, judge),
        "false_pass_rate": fp / (fp + tn),
        "false_fail_rate": fn / (fn + tp),
        "balanced_accuracy": balanced_accuracy_score(human, judge),
    }


def test_statistics_equal_sklearn_overall_and_per_slice() -> None:
    labels, verdicts = _frames()
    report = calibrate(labels, verdicts, slice_columns=["lang"], n_resamples=200)
    joined = labels.merge(verdicts, on="item_id")
    human, judge = (joined["label"] == "pass").to_numpy(), joined["verdict"].to_numpy(bool)
    for name, expected in _reference(human, judge).items():
        assert getattr(report, name) == pytest.approx(expected), name
    assert report.n == len(labels)
    for lang, group in joined.groupby("lang"):
        sub = report.slices["lang"][str(lang)]
        ref = _reference((group["label"] == "pass").to_numpy(), group["verdict"].to_numpy(bool))
        assert sub.n == len(group)
        for name, expected in ref.items():
            assert getattr(sub, name) == pytest.approx(expected), (lang, name)


def test_bootstrap_intervals_are_seeded_and_bracket_the_estimate() -> None:
    labels, verdicts = _frames()
    first = calibrate(labels, verdicts, seed=11, n_resamples=500).to_json()
    again = calibrate(labels, verdicts, seed=11, n_resamples=500).to_json()
    other = calibrate(labels, verdicts, seed=12, n_resamples=500).to_json()
    assert first == again
    assert first["intervals"] != other["intervals"]
    for name in ("accuracy", "kappa", "false_pass_rate", "false_fail_rate"):
        low, high = first["intervals"][name]
        assert low <= first[name] <= high
        assert high - low < 0.3


def test_bootstrap_interval_matches_a_direct_resampling_loop() -> None:
    rng = np.random.default_rng(5)
    human = rng.random(80) < 0.5
    judge = np.where(rng.random(80) < 0.7, human, ~human)
    report = agreement(human, judge, seed=9, n_resamples=300)
    draws = np.random.default_rng(9).integers(0, 80, size=(300, 80))
    accuracies = [accuracy_score(human[d], judge[d]) for d in draws]
    assert report.intervals["accuracy"] == pytest.approx(
        list(np.percentile(accuracies, [2.5, 97.5]))
    )


def test_graded_and_spelled_labels_are_thresholded() -> None:
    labels = pd.DataFrame({"item_id": ["a", "b", "c", "d"], "label": [0.9, 0.2, "Yes", "false"]})
    verdicts = pd.DataFrame({"item_id": ["a", "b", "c", "d"], "verdict": ["1", "0", True, 0.7]})
    report = calibrate(labels, verdicts, n_resamples=100, threshold=0.5)
    assert report.confusion == {
        "judge_pass_human_pass": 2,
        "judge_pass_human_fail": 1,
        "judge_fail_human_pass": 0,
        "judge_fail_human_fail": 1,
    }


def test_missing_verdicts_are_counted_and_empty_rates_are_null() -> None:
    labels = pd.DataFrame({"item_id": ["a", "b", "c"], "label": ["pass", "pass", "pass"]})
    verdicts = pd.DataFrame({"item_id": ["a", "b"], "verdict": ["pass", "fail"]})
    report = calibrate(labels, verdicts, n_resamples=100)
    assert report.missing_verdicts == 1 and report.n == 2
    assert report.false_pass_rate is None
    assert report.to_json()["intervals"]["false_pass_rate"] == [None, None]
    assert blocks_gating(report, ceiling=0.5)  # an unmeasured false-pass rate cannot pass


def test_bad_value_names_file_row_and_column() -> None:
    labels = pd.DataFrame({"item_id": ["a", "b"], "label": ["pass", "maybe"]})
    verdicts = pd.DataFrame({"item_id": ["a", "b"], "verdict": ["pass", "fail"]})
    with pytest.raises(LabelFileError, match=r"labels.csv: row 2, column 'label': 'maybe'"):
        calibrate(labels, verdicts, labels_source="labels.csv")


def test_duplicate_item_and_missing_column_are_errors() -> None:
    verdicts = pd.DataFrame({"item_id": ["a"], "verdict": ["pass"]})
    dup = pd.DataFrame({"item_id": ["a", "a"], "label": ["pass", "fail"]})
    with pytest.raises(LabelFileError, match="row 2, column 'item_id': duplicate item 'a'"):
        calibrate(dup, verdicts)
    with pytest.raises(LabelFileError, match=r"missing column\(s\) \['label'\]"):
        calibrate(pd.DataFrame({"item_id": ["a"]}), verdicts)
    with pytest.raises(LabelFileError, match="slice column 'tier'"):
        calibrate(dup.head(1), verdicts, slice_columns=["tier"])


def test_blocks_gating_compares_false_pass_rate_with_the_ceiling() -> None:
    labels, verdicts = _frames()
    report = calibrate(labels, verdicts, n_resamples=100)
    assert report.false_pass_rate is not None
    assert blocks_gating(report, ceiling=report.false_pass_rate - 0.01)
    assert not blocks_gating(report, ceiling=report.false_pass_rate + 0.01)
