"""Judge calibration against human labels, and whether it allows gating on judge metrics.

A suite names its calibration set: a shipped one or its own labels file (``calibration_sets``
resolves either), and both get the same statistics and the same trust rule. Reports are
stored per judge fingerprint under ``<home>/store/calibration/``, so the gate can tell whether
the judge that scored a build was calibrated, and how well. A report's ``variance`` field holds
the judge's measured disagreement with itself on the set (``measure_judge_variance``: repeated
verdicts per item -> spread -> the runs per item a target interval needs, ``variance_stage``),
or None until it is measured; recalibrating the same judge keeps it.
"""

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from eval_pipeline.evaluation.calibration_sets import (
    CALIBRATION_SETS,
    CalibrationSet,
    calibration_set,
    check_calibration_set,
    suite_calibration_set,
)
from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.home import Home
from eval_pipeline.judges.agreement import agreement_markdown
from eval_pipeline.judges.aligned_judge import AlignedJudge
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.suites.config import SuiteConfig
from eval_pipeline.suites.locate import suite_files

_VARIANCE_SUMMARY = (
    "repeats",
    "items",
    "runs_per_item",
    "advice_items",
    "target_half_width",
    "half_width_with_one_run",
    "within_variance",
    "between_variance",
    "reason",
)


__all__ = [
    "CALIBRATION_SETS",
    "CalibrationSet",
    "calibrate_judge_on",
    "calibrate_suite_judges",
    "calibration_set",
    "ceiling_for",
    "ceiling_verdict",
    "check_calibration_set",
    "ensure_calibrated",
    "judge_block",
    "stored_report",
    "suite_calibration_set",
    "tier_ceiling",
    "write_report",
]


def _report_path(home: Home, digest: str, set_name: str) -> Path:
    return home.store / "calibration" / digest / (set_name.replace("/", "__") + ".json")


def _suites() -> list[Any]:
    from eval_pipeline.suites.config import load_suite

    return [load_suite(path) for path in suite_files()]


def ceiling_for(set_name: str, also: SuiteConfig | None = None) -> tuple[float, str]:
    """The strictest false-pass ceiling among the tiers of the suites using ``set_name``.

    The suites are the shipped ones and those in ``EVAL_PIPELINE_SUITES``, and ``also`` (the
    suite being evaluated, wherever its file is).
    """
    from eval_pipeline.suites.risk import load_risk_policy

    policy = load_risk_policy()
    ceilings = [
        (float(policy.tier(suite.risk_tier).judge_false_pass_ceiling), suite.risk_tier)
        for suite in (*_suites(), *((also,) if also is not None else ()))
        if suite.judge is not None and suite.judge.calibration_set == set_name
    ]
    return min(ceilings) if ceilings else (0.0, "none")


def calibrate_judge_on(
    home: Home, judge: Judge, entry: CalibrationSet, suite: SuiteConfig | None = None
) -> dict[str, Any]:
    """Run ``judge`` over one labelled set, compute the calibration report, and store it.

    ``suite`` (the one being evaluated) takes part in the ceiling (``ceiling_for``).
    """
    from eval_pipeline.judges.calibration import calibrate
    from eval_pipeline.judges.label_files import read_table
    from eval_pipeline.judges.labelled_run import build_requests, run_judge
    from eval_pipeline.judges.rubrics import load_rubric

    labels = read_table(entry.path)
    requests = build_requests(labels, load_rubric(entry.task), str(entry.path))
    verdicts = run_judge(judge, requests).verdicts
    report = calibrate(labels, verdicts, labels_source=str(entry.path)).to_json()
    ceiling, tier = ceiling_for(entry.name, suite)
    fpr = report["false_pass_rate"]
    stored = {
        **report,
        "calibration_set": entry.name,
        "judge_fingerprint": judge.fingerprint.digest,
        "judge_backend": judge.backend,
        "ceiling": ceiling,
        "ceiling_tier": tier,
        "blocks_gating": fpr is None or fpr > ceiling,
    }
    previous = stored_report(home, judge.fingerprint.digest, entry.name) or {}
    stored["variance"] = previous.get("variance")
    write_report(home, judge.fingerprint.digest, entry.name, stored)
    return stored


def write_report(home: Home, digest: str, set_name: str, report: dict[str, Any]) -> None:
    """Store ``report`` as judge ``digest``'s calibration on ``set_name``."""
    path = _report_path(home, digest, set_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2))


def _shipped_suite_judges(home: Home) -> list[tuple[Any, Judge]]:
    """(suite, its judge) for every shipped suite with a ``judge:`` block."""
    from eval_pipeline.evaluation.suite_parts import suite_judge

    pairs = []
    for suite in _suites():
        judge = suite_judge(suite, state_url=home.state_url)
        if judge is not None:
            pairs.append((suite, judge))
    return pairs


def ensure_calibrated(stage: Stage, judge: Judge) -> dict[str, Any] | None:
    """The stored calibration of ``judge`` on the stage's suite's set, computed if missing.

    Every path that scores a build calls this, so a gate on it always finds the judge's
    calibration and trusts or distrusts the judge the same way (None without a judge block).

    Raises:
        SuiteResolutionError: the set is not shipped, or its labels cannot calibrate (the
            message names the file, row and column).
    """
    if stage.suite.judge is None:
        return None
    name = stage.suite.judge.calibration_set
    stored = stored_report(stage.home, judge.fingerprint.digest, name)
    if stored is not None:
        return stored
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
    from eval_pipeline.judges.label_files import LabelFileError
    from eval_pipeline.judges.rubrics import RubricError

    entry = suite_calibration_set(stage.suite)
    try:
        return calibrate_judge_on(stage.home, judge, entry, stage.suite)
    except (LabelFileError, RubricError) as exc:  # labels edited since they were checked
        raise SuiteResolutionError(f"suite {stage.suite.suite}: judge calibration: {exc}") from exc


def calibrate_suite_judges(home: Home) -> dict[str, Any]:
    """Calibrate the judge of every shipped (or listed) suite on the set it names; metadata."""
    meta: dict[str, Any] = {}
    done: set[tuple[str, str]] = set()
    for suite, judge in _shipped_suite_judges(home):
        name = suite.judge.calibration_set
        key = (judge.fingerprint.digest, name)
        if key in done:
            continue
        done.add(key)
        report = calibrate_judge_on(home, judge, suite_calibration_set(suite))
        meta[f"{name}:judge"] = f"{judge.backend} {judge.fingerprint.digest}"
        for field in (
            "n",
            "accuracy",
            "kappa",
            "false_pass_rate",
            "false_fail_rate",
            "balanced_accuracy",
            "ceiling",
            "blocks_gating",
        ):
            meta[f"{name}:{field}"] = report[field]
        meta[f"{name}:intervals"] = report["intervals"]
        meta[f"{name}:confusion"] = report["confusion"]
        meta[f"{name}:agreement_md"] = agreement_markdown(report)
        meta[f"{name}:alignment"] = (
            asdict(judge.alignment)
            if isinstance(judge, AlignedJudge)
            else "none adopted (eval-pipeline judges align)"
        )
        variance = report.get("variance")
        meta[f"{name}:variance"] = (
            {key: variance[key] for key in _VARIANCE_SUMMARY}
            if variance
            else "not measured (eval-pipeline calibrate variance --suite ...)"
        )
    return meta


def stored_report(home: Home, digest: str, set_name: str) -> dict[str, Any] | None:
    """The stored calibration of judge ``digest`` on ``set_name``, or None."""
    path = _report_path(home, digest, set_name)
    return json.loads(path.read_text()) if path.exists() else None


def ceiling_verdict(home: Home) -> dict[str, Any]:
    """Whether each shipped suite's judge is under its ceiling on the set the suite names."""
    problems = []
    rates: dict[str, Any] = {}
    for suite, judge in _shipped_suite_judges(home):
        digest, name = judge.fingerprint.digest, suite.judge.calibration_set
        report = stored_report(home, digest, name)
        if report is None:
            problems.append(f"no calibration of judge {digest} on {name}")
            continue
        rates[name] = report["false_pass_rate"]
        if report["blocks_gating"]:
            problems.append(
                f"false-pass rate {_rate(report['false_pass_rate'])} of judge {digest} on "
                f"{name} is above the {report['ceiling_tier']} ceiling {report['ceiling']}"
            )
    return {
        "passed": not problems,
        "reason": "; ".join(problems) or "under every ceiling",
        "false_pass_rates": rates,
    }


def judge_block(home: Home, suite: SuiteConfig, digest: str | None) -> str | None:
    """Why judge ``digest`` may not pass ``suite``'s judge-based metrics (None when it may).

    ``digest`` is the judge that scored the scores being gated (None: nothing says which did).
    A suite without a judge block has no judge to check (the gate then calls it unknown).
    """
    if suite.judge is None:
        return None
    if digest is None:
        return "the build has not been scored yet"
    name = suite.judge.calibration_set
    report = stored_report(home, digest, name)
    if report is None:
        return f"judge {digest} has no calibration on {name}: materialise judge_calibration"
    ceiling = tier_ceiling(suite.risk_tier)
    rate = report["false_pass_rate"]
    if rate is None:
        return (
            f"judge {digest} has no false-pass rate on {name}: its labels hold no human-failed item"
        )
    if rate > ceiling:
        return (
            f"judge {digest} false-pass rate {_rate(rate)} on {name} is above the "
            f"{suite.risk_tier} tier's ceiling {ceiling:g}"
        )
    return None


def _rate(rate: float | None) -> str:
    """A false-pass rate for people: two decimals (``n/a`` when there is none)."""
    return "n/a" if rate is None else f"{rate:.2f}"


def tier_ceiling(tier: str) -> float:
    """The judge false-pass ceiling of risk tier ``tier``."""
    from eval_pipeline.suites.risk import load_risk_policy

    return float(load_risk_policy().tier(tier).judge_false_pass_ceiling)
