"""A suite's ``judge:`` block sets the judge's limits; a bad value is an error naming the field.

``max_concurrency``, ``requests_per_minute`` and ``tokens_per_minute`` reach the suite's HTTP
judge (and the cache around it, which the fan-out reads); without them the judge allows 16 in
flight and no per-minute limit. The limits are not part of the judge's fingerprint: how fast a
judge is asked does not change what it answers, so raising them keeps every cached verdict.
"""

from pathlib import Path

import pytest

from eval_pipeline.evaluation.suite_parts import suite_judge
from eval_pipeline.judges.fanout import concurrency_of
from eval_pipeline.judges.limits import JudgeLimits
from eval_pipeline.suites.config import SuiteError, load_suite

SUITE = """\
suite: limited
risk_tier: low
judge:
  model: judge-model
  rubric_version: "1"
  calibration_set: human-labels/agent-faithfulness-v1
  base_url: http://127.0.0.1:9/v1
{extra}metrics:
  - id: faithfulness
"""


def _suite(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.format(extra=extra))
    return path


def test_the_judge_block_sets_the_judges_limits(tmp_path: Path) -> None:
    extra = "  max_concurrency: 32\n  requests_per_minute: 500\n  tokens_per_minute: 200000\n"
    limited = suite_judge(load_suite(_suite(tmp_path, extra)), state_url="sqlite://")
    default = suite_judge(load_suite(_suite(tmp_path)), state_url="sqlite://")
    assert limited is not None and default is not None
    assert limited.limits == JudgeLimits(32, 500, 200000)  # type: ignore[attr-defined]
    assert default.limits == JudgeLimits()  # type: ignore[attr-defined]
    assert concurrency_of(limited) == 32 and concurrency_of(default) == 16
    assert limited.fingerprint == default.fingerprint


@pytest.mark.parametrize(
    "line, field",
    [
        ("  max_concurrency: 0\n", "judge.max_concurrency"),
        ("  max_concurrency: many\n", "judge.max_concurrency"),
        ("  requests_per_minute: -1\n", "judge.requests_per_minute"),
        ("  tokens_per_minute: 0\n", "judge.tokens_per_minute"),
    ],
)
def test_a_bad_limit_names_its_field_and_line(tmp_path: Path, line: str, field: str) -> None:
    with pytest.raises(SuiteError) as caught:
        load_suite(_suite(tmp_path, line))
    assert [(issue.field, issue.line) for issue in caught.value.issues] == [(field, 8)]
