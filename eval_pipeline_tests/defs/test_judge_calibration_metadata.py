"""The ``judge_calibration`` asset's metadata: the agreement report per label set, and alignment.

A suite calibrated on its own lenient-reviewer labels (``judges.lenient_labels``) has its judge
aligned by ``judges align``; materialising ``judge_calibration`` then shows, for that label
set, the aligned judge's fingerprint, the statistics with their intervals and the confusion
matrix as Markdown, and the adopted alignment; the shipped suite's set shows "none adopted".
"""

import json
from pathlib import Path

import dagster as dg
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.defs.judge_assets import make_judge_calibration
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline_tests.judges.lenient_labels import lenient_labels

SHIPPED = "human-labels/agent-faithfulness-v1"


def test_the_asset_shows_agreement_per_label_set_and_the_adopted_alignment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "suites"
    folder.mkdir()
    labels = lenient_labels(tmp_path / "lenient.jsonl")
    suite = folder / "lenient.yaml"
    suite.write_text(
        "suite: lenient-own\nrisk_tier: low\n"
        "datasets:\n  - name: golden/support-agent-refunds-v1\n"
        "runs_per_item: 1\n"
        "judge: {model: offline-minilm, rubric_version: '1', "
        f"calibration: {{labels: '{labels}', task: faithfulness}}}}\n"
        "metrics:\n  - {id: faithfulness, threshold: 0.5, max_regression: 0.1}\n"
    )
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(folder))
    result = CliRunner().invoke(
        cli, ["judges", "align", "--suite", str(suite), "--resamples", "500", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    aligned = json.loads(result.output)
    assert aligned["adopted"] is True
    own_set = aligned["labels"]  # the suite's own set is named after its file

    asset = make_judge_calibration("test")
    run = dg.materialize([asset], resources={"eval_home": EvalHomeResource()})
    (event,) = run.asset_materializations_for_node("judge_calibration")
    meta = event.metadata
    for name in (own_set, SHIPPED):
        table = meta[f"{name}:agreement"]
        assert isinstance(table, dg.MarkdownMetadataValue)
        assert "| judge pass |" in str(table.value) and "percentile bootstrap" in str(table.value)
        confusion = meta[f"{name}:confusion"]
        assert isinstance(confusion, dg.JsonMetadataValue)
        assert sum(confusion.value.values()) == meta[f"{name}:n"].value  # type: ignore[union-attr]
    own = meta[f"{own_set}:alignment"]
    assert isinstance(own, dg.JsonMetadataValue) and isinstance(own.value, dict)
    assert own.value["suite"] == "lenient-own" and 0 < own.value["threshold"] < 0.5
    assert str(meta[f"{SHIPPED}:alignment"].value).startswith("none adopted")
    before = aligned["current_balanced_accuracy"]
    assert meta[f"{own_set}:balanced_accuracy"].value > before  # type: ignore[operator]
