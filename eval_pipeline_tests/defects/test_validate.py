"""Seeded-defect validation: every defect fails the gate on the metric it targets.

Contract (``eval-pipeline defects --format json``): the sample agent's baseline, improved
candidate, A/A control and seeded defects run through runner -> trace store -> scoring ->
gate; the JSON names, per defect, the targeted metric and the gate's verdict on it; exit 0 only
when every defect's targeted metric fails, the candidate passes and the A/A control passes.
The fast test uses 4 items per dataset x 2 runs; the full-size run is marked slow.
"""

import json

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.defects.story import sample_agent_builds


def _validate(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(cli, ["defects", *args, "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def _check(code: int, report: dict) -> None:
    _, _, defects, _ = sample_agent_builds()
    by_build = {d["build"]: d for d in report["defects"]}
    assert set(by_build) == {d.build for d in defects}
    for seeded in defects:
        entry = by_build[seeded.build]
        assert entry["target_metric"] == seeded.target_metric
        assert entry["target_verdict"] == "fail", entry
        assert seeded.target_metric in entry["failing_metrics"]
    assert report["candidate"]["ok"] and not report["candidate"]["blocking"]
    assert report["aa_control"]["ok"] and not report["aa_control"]["blocking"]
    assert report["ok"] is True and code == 0


def test_every_seeded_defect_fails_its_metric_small() -> None:
    code, report = _validate("--items", "4", "--runs-per-item", "2")
    assert report["items"] == 8 and report["runs_per_item"] == 2
    _check(code, report)


@pytest.mark.slow
def test_every_seeded_defect_fails_its_metric_full_size() -> None:
    code, report = _validate()
    assert report["items"] == 37 and report["runs_per_item"] == 3
    _check(code, report)


def test_unknown_suite_is_an_input_error() -> None:
    result = CliRunner().invoke(cli, ["defects", "--suite", "no-such-suite"])
    assert result.exit_code == 2
    assert "no-such-suite" in result.output


@pytest.mark.slow
def test_the_validation_keeps_a_gate_report_per_build() -> None:
    from eval_pipeline.defects.story import validate_sample_agent
    from eval_pipeline.home import current_home

    report = validate_sample_agent(current_home(), items_per_dataset=4, runs_per_item=2)
    _, candidate, defects, aa = sample_agent_builds()
    assert set(report.reports) == {candidate.build, aa.build, *(d.build for d in defects)}
    assert not report.reports[candidate.build].blocking
    assert report.ok
