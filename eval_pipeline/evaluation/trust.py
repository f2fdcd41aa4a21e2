"""What a gate may trust: the datasets a suite pins, and the judge behind its judge metrics.

Every path that gates (a stored build, score files) asks here, so an invalid dataset or a
doubtful judge weighs the same wherever the gate runs:

* a pinned dataset that fails validation refuses every metric: nothing measured on it can
  pass (a dataset this home cannot load is reported as not checked);
* a judge over its tier's false-pass ceiling, or never calibrated, is untrusted: its metrics
  can fail but not pass;
* a suite without a judge block (rules only, gating score files) has an unknown judge: its
  judge-based metrics pass with the warning "judge unknown: calibration not applied", or fail
  where the tier forbids unknown judges.
"""

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from eval_pipeline.evaluation.calibration_stage import judge_block
from eval_pipeline.evaluation.dataset_stage import suite_dataset_failures
from eval_pipeline.evaluation.suite_parts import SuiteResolutionError, judged_metrics, suite_judge
from eval_pipeline.gate.assessment import JUDGE_UNKNOWN
from eval_pipeline.home import Home
from eval_pipeline.suites.config import SuiteConfig


@dataclass(frozen=True)
class Trust:
    """The gate settings that follow from the suite's datasets and judge, and their status."""

    judge_status: str = "ok"
    dataset_status: str = "ok"
    untrusted: dict[str, str] = field(default_factory=dict)
    unknown_judge: tuple[str, ...] = ()
    refused: dict[str, str] = field(default_factory=dict)

    def gate_settings(self) -> dict[str, Any]:
        """``GateConfig`` fields: untrusted, unknown-judge and refused metrics."""
        return {
            "untrusted_metrics": dict(self.untrusted),
            "unknown_judge_metrics": self.unknown_judge,
            "refused_metrics": dict(self.refused),
        }


def _datasets(home: Home, suite: SuiteConfig) -> tuple[str, dict[str, str]]:
    failures, absent = suite_dataset_failures(home, suite)
    if failures:
        why = "; ".join(
            f"dataset {ref} failed validation: {' | '.join(found)}"
            for ref, found in failures.items()
        )
        return why, {metric: why for metric in suite.metric_ids}
    if absent:
        return f"not checked: {', '.join(absent)} not published in this home", {}
    return "ok", {}


def gate_trust(home: Home, suite: SuiteConfig, judge_digest: str | None) -> Trust:
    """What gating ``suite``'s scores may trust.

    ``judge_digest`` is the judge that scored them: the registry's record for a stored build,
    ``frame_judge`` for score files.
    """
    dataset_status, refused = _datasets(home, suite)
    judged = judged_metrics(suite)
    if suite.judge is None:
        return Trust(
            judge_status=JUDGE_UNKNOWN if judged else "ok",
            dataset_status=dataset_status,
            unknown_judge=judged,
            refused=refused,
        )
    block = judge_block(home, suite, judge_digest)
    return Trust(
        judge_status=block or "ok",
        dataset_status=dataset_status,
        untrusted={m: block for m in judged} if block is not None else {},
        refused=refused,
    )


def frame_judge(suite: SuiteConfig, scores: pd.DataFrame, *, state_url: str) -> str | None:
    """The judge that scored a scores table's judge metrics, as its fingerprint digest.

    The table's ``judge_fingerprint`` column names it (an exported build carries it); without
    one the suite's own judge is assumed, since the suite pins it. Two judges in one table is
    no judge anyone calibrated together: reported as such.
    """
    judged = set(judged_metrics(suite))
    if "judge_fingerprint" in scores.columns and judged:
        metric = scores["metric_id"].astype(str).str.split("@").str[0]
        named = scores.loc[metric.isin(judged), "judge_fingerprint"].dropna().astype(str)
        digests = sorted(set(named) - {""})
        if len(digests) > 1:
            return f"several judges ({', '.join(digests)})"
        if digests:
            return digests[0]
    try:
        judge = suite_judge(suite, state_url=state_url)
    except SuiteResolutionError:
        return None
    return judge.fingerprint.digest if judge is not None else None
