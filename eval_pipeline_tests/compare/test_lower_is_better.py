"""A rise of a lower-is-better metric is a regression in ``compare`` too.

Contract (``compare.changes.item_changes``): the metric's declared direction decides: for
``session.repeated_user_requests`` (0 = the user never repeats) an item whose mean rises
regressed, one whose mean falls improved, and the largest rise ranks first.
"""

import pandas as pd

from eval_pipeline.compare.changes import item_changes

REPEATS = "session.repeated_user_requests"


def _frame(values: dict[str, float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric_id": REPEATS,
            "item_id": list(values),
            "run_index": 0,
            "value": list(values.values()),
            "status": "scored",
            "reason": "",
            "trace_id": None,
            "dataset": None,
            "dataset_version": None,
        }
    )


def test_a_rise_regresses_and_a_fall_improves() -> None:
    baseline = _frame({"a": 0.0, "b": 0.0, "c": 0.5})
    candidate = _frame({"a": 0.25, "b": 0.5, "c": 0.0})
    (changes,) = item_changes(candidate, baseline)
    assert [i.item_id for i in changes.groups["regressed"]] == ["b", "a"]
    assert [i.item_id for i in changes.groups["improved"]] == ["c"]
