"""One build, three ways in, one answer.

The same two builds (the sample agent's baseline and improved candidate) are evaluated in
three fresh homes: through the CLI (``builds register``, ``run``, ``score``, ``gate
--candidate``), through Dagster materialisation of the build partitions, and through the
defects path (``defects.story.evaluate_build``). The score rows and the gate JSON must be
identical, judge trust included. Trace and span ids are the OpenTelemetry SDK's random ids, so
each is replaced by the (item, run) it belongs to before comparing.
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
from eval_pipeline.defects.story import evaluate_build, runner_spec, sample_agent_builds
from eval_pipeline.evaluation.stage import open_stage
from eval_pipeline.home import Home, current_home
from eval_pipeline.scoring.store import ScoreStore

SUITE = """\
suite: parity
risk_tier: medium
datasets:
  - name: golden/parity-v1
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
budgets: {p95_latency_s: 60, cost_per_task_usd: 0.5}
slices: [intent]
"""

BASELINE, CANDIDATE, _, _ = sample_agent_builds()


@pytest.fixture
def suite_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "parity.yaml").write_text(SUITE)
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(folder))
    return folder


def _enter_home(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> Home:
    """A fresh home holding the parity dataset: five items of the sample agent's golden set."""
    root = tmp_path / name
    (root / "dagster").mkdir(parents=True)
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(root))
    monkeypatch.setenv("DAGSTER_HOME", str(root / "dagster"))
    home = current_home().ensure()
    shipped = DatasetStore(shipped_datasets_dir()).load("golden/support-agent-refunds", "v1")
    small = replace(
        shipped, name="golden/parity", version="v1", items=shipped.items[:5], content_hash=""
    )
    DatasetStore(home.datasets).publish(small)
    return home


def _cli(*args: str) -> Any:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def _by_cli(home: Home) -> None:
    _cli(
        "builds",
        "register",
        BASELINE.build,
        "--suite",
        "parity",
        "--runner",
        runner_spec(BASELINE),
        "--pin-baseline",
    )
    _cli(
        "builds",
        "register",
        CANDIDATE.build,
        "--suite",
        "parity",
        "--runner",
        runner_spec(CANDIDATE),
    )
    for build in (BASELINE.build, CANDIDATE.build):
        assert _cli("run", "--suite", "parity", "--build", build).exit_code == 0
        assert _cli("score", "--suite", "parity", "--build", build).exit_code == 0
    gate = _cli("gate", "--suite", "parity", "--candidate", CANDIDATE.build, "--format", "json")
    assert gate.exit_code in (0, 1), gate.output
    assert json.loads(gate.stdout) == json.loads(_gate_file(home).read_text())


def _register(home: Home) -> None:
    from eval_pipeline.builds import BuildRegistry

    registry = BuildRegistry(home.state_url)
    registry.register(BASELINE.build, suite="parity", runner=runner_spec(BASELINE))
    registry.register(CANDIDATE.build, suite="parity", runner=runner_spec(CANDIDATE))
    registry.pin_baseline("parity", BASELINE.build)


def _by_dagster(home: Home) -> None:
    import dagster as dg

    from eval_pipeline.defs.assemble import build_definitions
    from eval_pipeline.defs.launch import evaluate_build as materialise

    _register(home)
    defs = build_definitions()
    with dg.DagsterInstance.ephemeral() as instance:
        for build in (BASELINE.build, CANDIDATE.build):
            materialise(defs, instance, build)


def _by_defects_path(home: Home) -> None:
    _register(home)
    evaluate_build(open_stage(home, BASELINE.build), gate=False)
    evaluate_build(open_stage(home, CANDIDATE.build))


def _gate_file(home: Home) -> Path:
    return home.store / "gates" / f"{CANDIDATE.build}.json"


def _ids(home: Home) -> dict[str, str]:
    """Every trace id of the home's two builds -> ``trace(item, run)``."""
    ids: dict[str, str] = {}
    for build in (BASELINE.build, CANDIDATE.build):
        frame = ScoreStore(home.store).read_frame(build)
        for row in frame.itertuples(index=False):
            ids[str(row.trace_id)] = f"trace({build},{row.item_id},{row.run_index})"
    return ids


def _canonical(value: Any, ids: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: _canonical(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v, ids) for v in value]
    if isinstance(value, str):
        return ids.get(value, value)
    return value


def _rows(home: Home) -> list[dict[str, Any]]:
    rows = []
    for build in (BASELINE.build, CANDIDATE.build):
        frame = ScoreStore(home.store).read_frame(build).drop(columns=["span_ids", "evidence"])
        frame = frame.sort_values(["item_id", "run_index", "metric_id"]).reset_index(drop=True)
        rows += json.loads(frame.to_json(orient="records"))
    return _canonical(rows, _ids(home))


def test_cli_dagster_and_defects_path_give_identical_scores_and_gate(
    tmp_path: Path, suite_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = {}
    for name, path in (("cli", _by_cli), ("dagster", _by_dagster), ("defects", _by_defects_path)):
        home = _enter_home(tmp_path, name, monkeypatch)
        path(home)
        gate = json.loads(_gate_file(home).read_text())
        results[name] = (_rows(home), _canonical(gate, _ids(home)))
    cli_rows, cli_gate = results["cli"]
    assert len(cli_rows) == 2 * 5 * 2 * 5  # builds x items x runs x metrics
    assert {r["status"] for r in cli_rows} == {"scored"}
    assert {r["judge_fingerprint"] for r in cli_rows if r["metric_id"] == "faithfulness"} != {None}
    assert cli_gate["judge_calibration"]  # "ok", or why the judge may not pass: the same below
    for name in ("dagster", "defects"):
        rows, gate = results[name]
        differing = sorted(
            (i, key, str(row.get(key)), str(cli.get(key)))
            for i, (row, cli) in enumerate(zip(rows, cli_rows, strict=True))
            for key in row.keys() | cli.keys()
            if row.get(key) != cli.get(key)
        )
        assert not differing, (name, differing[:10])
        assert pd.DataFrame(rows).equals(pd.DataFrame(cli_rows)), name
        assert gate == cli_gate, name
