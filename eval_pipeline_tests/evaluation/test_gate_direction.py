"""A lower-is-better metric is gated on its complement: a rise is a regression.

Contract (``evaluation.gate_direction``): the scorer's declared direction decides; values of a
lower-is-better metric become 1 - value (NaN and other metrics untouched) and its suite
threshold, a ceiling, becomes the floor 1 - threshold.
"""

import math

import pandas as pd

from eval_pipeline.evaluation.gate_config import suite_gate_config
from eval_pipeline.evaluation.gate_direction import lower_ids, lower_is_better, oriented
from eval_pipeline.suites.config import load_suite
from eval_pipeline.suites.locate import locate_suite

REPEATS = "session.repeated_user_requests"


def test_direction_comes_from_the_scorer() -> None:
    assert lower_is_better(REPEATS)
    assert not lower_is_better("session.knowledge_retention")
    assert not lower_is_better("tool_correctness")
    assert not lower_is_better("no_such_metric")
    assert lower_ids([REPEATS, "tool_correctness"]) == {REPEATS}


def test_values_and_the_ceiling_are_complemented() -> None:
    frame = pd.DataFrame(
        {
            "metric_id": [REPEATS, REPEATS, "session.knowledge_retention"],
            "value": [0.25, float("nan"), 0.25],
        }
    )
    out = oriented(frame, frozenset({REPEATS}))
    assert out["value"].iloc[0] == 0.75 and math.isnan(out["value"].iloc[1])
    assert out["value"].iloc[2] == 0.25 and frame["value"].iloc[0] == 0.25
    suite = load_suite(locate_suite("support-conversations"))
    rules = {rule.metric_id: rule for rule in suite_gate_config(suite).metrics}
    assert math.isclose(rules[REPEATS].threshold, 1 - suite.metric(REPEATS).threshold)
    assert rules["session.knowledge_retention"].threshold == 0.90
