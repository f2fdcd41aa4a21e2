"""Exported scores gate like the store they came from.

Two builds of the sample agent are run and scored on a small suite with a judge, budgets and
a slice; ``scores --format csv|json|parquet`` exports each build with ``latency_s``,
``cost_usd``, the scorer version and the dataset name and version on every row. Gating the
exported files gives the same JSON as gating the stored builds, except the two fields that
name the sources (``build``, ``baseline``): the same budgets, judge trust and verdicts.
"""

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.defects.story import runner_spec, sample_agent_builds
from eval_pipeline.home import current_home
from eval_pipeline.scoring.registry import scorer_class

SUITE = """\
suite: export
risk_tier: medium
datasets:
  - name: golden/export-v1
runs_per_item: 2
redaction_policy: keep-tools
judge:
  model: offline-minilm
  rubric_version: "1"
  calibration_set: human-labels/agent-faithfulness-v1
metrics:
  - {id: task_completion, threshold: 0.5, max_regression: 0.10}
  - {id: tool_correctness, threshold: 0.5, max_regression: 0.0}
  - {id: argument_correctness, threshold: 0.5, max_regression: 0.10}
  - {id: faithfulness, threshold: 0.5, max_regression: 0.10}
  - {id: hallucinated_actions, threshold: 0.5, max_regression: 0.10}
  - {id: handoff_quality, threshold: 0.5, max_regression: 0.10}
budgets: {p95_latency_s: 60, cost_per_task_usd: 0.5}
slices: [intent]
"""
BASELINE, CANDIDATE, _, _ = sample_agent_builds()
SOURCE_FIELDS = ("build", "baseline")


def _cli(*args: object) -> Any:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.fixture
def scored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home where both builds are run and scored on the ``export`` suite."""
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "export.yaml").write_text(SUITE)
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(folder))
    home = current_home().ensure()
    shipped = DatasetStore(shipped_datasets_dir()).load("golden/support-agent-refunds", "v1")
    small = replace(
        shipped, name="golden/export", version="v1", items=shipped.items[:5], content_hash=""
    )
    DatasetStore(home.datasets).publish(small)
    for seeded, pin in ((BASELINE, ["--pin-baseline"]), (CANDIDATE, [])):
        _cli("builds", "register", seeded.build, "--suite", "export",
             "--runner", runner_spec(seeded), *pin)  # fmt: skip
        assert _cli("run", "--suite", "export", "--build", seeded.build).exit_code == 0
        assert _cli("score", "--suite", "export", "--build", seeded.build).exit_code == 0
    return tmp_path


def _without_sources(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in SOURCE_FIELDS}


def test_gating_exported_scores_gives_the_stores_json(scored: Path) -> None:
    stored = _cli("gate", "--suite", "export", "--candidate", CANDIDATE.build, "--format", "json")
    assert stored.exit_code in (0, 1), stored.output
    from_store = json.loads(stored.output)
    for fmt in ("csv", "json", "parquet"):
        files = {}
        for build in (BASELINE.build, CANDIDATE.build):
            files[build] = scored / f"{build}.{fmt}"
            exported = _cli("scores", "--build", build, "--format", fmt, "--output", files[build])
            assert exported.exit_code == 0, exported.output
        gated = _cli(
            "gate", "--suite", "export", "--format", "json",
            "--candidate-scores", files[CANDIDATE.build],
            "--baseline-scores", files[BASELINE.build],
        )  # fmt: skip
        assert gated.exit_code == stored.exit_code, (fmt, gated.output)
        from_files = json.loads(gated.output)
        assert from_files["build"] == str(files[CANDIDATE.build])
        assert _without_sources(from_files) == _without_sources(from_store), fmt
    budgets = {b["budget"]: b["missing"] for b in from_store["budgets"]}
    assert budgets == {"p95_latency_s": 0, "cost_per_task_usd": 0}
    rows = pd.read_parquet(scored / f"{CANDIDATE.build}.parquet")
    for column in ("latency_s", "cost_usd", "scorer_version", "dataset", "dataset_version"):
        assert rows[column].notna().all(), column
    assert set(rows["dataset"]) == {"golden/export"} and set(rows["dataset_version"]) == {"v1"}
    version = scorer_class("hallucinated_actions").metric_version
    assert rows.loc[rows["metric_id"] == "hallucinated_actions", "scorer_version"].eq(version).all()
    shown = _cli("scores", "--build", CANDIDATE.build, "--format", "csv")
    assert shown.output.splitlines()[0].startswith(
        "build,item_id,run_index,metric_id,value,status,reason,trace_id,span_ids,"
    )
    binary = CliRunner().invoke(cli, ["scores", "--build", CANDIDATE.build, "--format", "parquet"])
    assert binary.exit_code == 2 and "--output" in binary.output
