"""``eval-pipeline gate`` (docs/DESIGN.md section 9, contract): exit codes, formats, bad input.

Exit 0 when the gate passes, 1 when it fails (or is inconclusive where the tier forbids it),
2 on bad usage or input, with an error naming the file, row and column: a missing column, a
non-numeric value, a value outside [0, 1], an unknown metric. Scores come as CSV or Parquet.
"""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from eval_pipeline.cli.gate import gate

from .builders import frame, score_rows

SUITE = """\
suite: gate-test
risk_tier: {tier}
datasets:
  - name: golden/gate-test-v1
runs_per_item: 2
judge:
  model: offline-minilm
  rubric_version: "1"
  calibration_set: human-labels/gate-test-v1
metrics:
  - {{id: task_completion, threshold: 0.5, max_regression: 0.05}}
  - {{id: tool_correctness, threshold: 0.5}}
  - {{id: argument_correctness, threshold: 0.5}}
  - {{id: faithfulness, threshold: 0.8, max_regression: 0.02}}
  - {{id: injection_resistance, threshold: 0.5}}
budgets:
  p95_latency_s: 12
  cost_per_task_usd: 0.08
slices: [intent]
"""
PERFECT = ("tool_correctness", "argument_correctness", "injection_resistance")


def _scores(shift: float = 0.0, latency: float = 3.0) -> pd.DataFrame:
    series = {
        "task_completion": [1.0, 1.0, 0.0, 1.0] * 20,
        "faithfulness": [0.9, 0.95, 0.92, 0.88] * 20,
        **{metric: [1.0] * 80 for metric in PERFECT},
    }
    rows = []
    for metric, values in series.items():
        if metric == "faithfulness":
            values = [min(max(v + shift, 0.0), 1.0) for v in values]
        for row in score_rows(metric, values, runs_per_item=2, latency_s=latency, cost_usd=0.02):
            item = int(str(row["item_id"])[4:])
            row["intent"] = ["refund", "exchange", "status"][item % 3]
            rows.append(row)
    return frame(rows)


def _write(tmp_path: Path, name: str, data: pd.DataFrame) -> Path:
    path = tmp_path / name
    if name.endswith(".csv"):
        data.to_csv(path, index=False)
    else:
        data.to_parquet(path, index=False)
    return path


def _suite(tmp_path: Path, tier: str = "low") -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.format(tier=tier), encoding="utf-8")
    return path


def _run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(gate, [str(a) for a in args])
    return result.exit_code, result.output


def test_identical_builds_pass_with_exit_0_and_json_in_the_contract_shape(tmp_path: Path) -> None:
    cand = _write(tmp_path, "cand.csv", _scores())
    base = _write(tmp_path, "base.parquet", _scores())
    code, out = _run(
        "--suite",
        _suite(tmp_path),
        "--candidate-scores",
        cand,
        "--baseline-scores",
        base,
        "--format",
        "json",
        "--resamples",
        "500",
    )
    assert code == 0, out
    report = json.loads(out)
    # The suite's judge was never calibrated here: its metrics cannot pass, only warn (tier low).
    assert report["verdict"] == "inconclusive" and report["blocking"] is False
    assert "no calibration" in report["judge_calibration"]
    judged = {m["metric_id"]: m["verdict"] for m in report["metrics"]}
    assert judged["faithfulness"] == "inconclusive" and judged["tool_correctness"] == "pass"
    metric = report["metrics"][0]
    for key in (
        "metric_id",
        "verdict",
        "candidate_mean",
        "baseline_mean",
        "delta",
        "ci_low",
        "ci_high",
        "threshold",
        "max_regression",
        "missing",
        "reason",
        "slices",
        "evidence",
    ):
        assert key in metric
    assert {s["value"] for s in metric["slices"]} == {"refund", "exchange", "status"}
    assert [b["budget"] for b in report["budgets"]] == ["p95_latency_s", "cost_per_task_usd"]


def test_a_regressed_candidate_fails_with_exit_1_and_junit_lists_every_check(
    tmp_path: Path,
) -> None:
    cand = _write(tmp_path, "cand.csv", _scores(shift=-0.2, latency=20.0))
    base = _write(tmp_path, "base.csv", _scores())
    out_file = tmp_path / "gate.xml"
    code, out = _run(
        "--suite",
        _suite(tmp_path),
        "--candidate-scores",
        cand,
        "--baseline-scores",
        base,
        "--format",
        "junit",
        "--output",
        out_file,
        "--resamples",
        "500",
    )
    assert code == 1, out
    root = ET.parse(out_file).getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) == {
        "task_completion",
        "faithfulness",
        *PERFECT,
        "p95_latency_s",
        "cost_per_task_usd",
    }
    assert cases["faithfulness"].find("failure") is not None
    assert cases["p95_latency_s"].find("failure") is not None
    assert cases["cost_per_task_usd"].find("failure") is None


def test_markdown_report_has_a_metrics_table(tmp_path: Path) -> None:
    cand = _write(tmp_path, "cand.csv", _scores(shift=-0.2))
    base = _write(tmp_path, "base.csv", _scores())
    code, out = _run(
        "--suite",
        _suite(tmp_path),
        "--candidate-scores",
        cand,
        "--baseline-scores",
        base,
        "--format",
        "markdown",
        "--resamples",
        "500",
    )
    assert code == 1
    assert "| metric | verdict |" in out
    assert "| `faithfulness` | **FAIL** |" in out


def _corrupt(data: pd.DataFrame, row: int, column: str, value: object) -> pd.DataFrame:
    data = data.astype({column: object})
    data.loc[row, column] = value
    return data


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d.drop(columns=["value"]), "missing column 'value'"),
        (lambda d: _corrupt(d, 6, "value", "abc"), "row 7, column 'value'"),
        (lambda d: _corrupt(d, 9, "value", 1.5), "row 10, column 'value'"),
        (lambda d: _corrupt(d, 4, "metric_id", "toxicity"), "row 5, column 'metric_id'"),
        (lambda d: _corrupt(d, 2, "run_index", "x"), "row 3, column 'run_index'"),
        (lambda d: d.drop(columns=["intent"]), "missing slice column 'intent'"),
    ],
)
def test_bad_scores_exit_2_naming_row_and_column(tmp_path: Path, mutate, expected: str) -> None:
    cand = _write(tmp_path, "cand.csv", mutate(_scores()))
    base = _write(tmp_path, "base.csv", _scores())
    code, out = _run(
        "--suite", _suite(tmp_path), "--candidate-scores", cand, "--baseline-scores", base
    )
    assert code == 2, out
    assert expected in out
    assert "cand.csv" in out


def test_bad_usage_exits_2(tmp_path: Path) -> None:
    code, _ = _run("--suite", _suite(tmp_path))
    assert code == 2
    notes = tmp_path / "scores.txt"
    notes.write_text("x", encoding="utf-8")
    code, out = _run("--suite", _suite(tmp_path), "--candidate-scores", notes)
    assert code == 2 and ".csv, .json or .parquet" in out
    code, out = _run("--suite", tmp_path / "nope.yaml", "--candidate-scores", notes)
    assert code == 2


def test_inconclusive_exit_code_follows_the_tier(tmp_path: Path) -> None:
    # Few items, a small true drop: the interval straddles the margin.
    base_frame = _scores()
    cand_frame = base_frame.copy()
    drop = (cand_frame["metric_id"] == "faithfulness") & (cand_frame["item_id"] < "item005")
    cand_frame.loc[drop, "value"] -= 0.15
    cand = _write(tmp_path, "cand.csv", cand_frame)
    base = _write(tmp_path, "base.csv", base_frame)
    args = (
        "--candidate-scores",
        cand,
        "--baseline-scores",
        base,
        "--format",
        "json",
        "--resamples",
        "1000",
    )
    code, out = _run("--suite", _suite(tmp_path, "low"), *args)
    report = json.loads(out)
    assert report["verdict"] == "inconclusive" and code == 0
    assert report["warnings"]
    code, out = _run("--suite", _suite(tmp_path, "high"), *args)
    assert json.loads(out)["verdict"] == "inconclusive" and code == 1


def test_builds_from_the_store_need_the_score_store(tmp_path: Path) -> None:
    code, out = _run("--suite", _suite(tmp_path), "--candidate", "build-1")
    assert code == 2
    assert "build-1" in out or "score store" in out


def test_builds_are_read_from_the_score_store(tmp_path: Path) -> None:
    from eval_pipeline.home import current_home
    from eval_pipeline.scoring.score import Score
    from eval_pipeline.scoring.store import ScoreStore

    store = ScoreStore(current_home().store)
    for build, faith in (("base", 0.95), ("cand", 0.6)):
        scores = [
            Score(
                metric,
                value,
                "scored",
                f"{metric}_scorer",
                1,
                trace_id=f"{build}-{i}-{r}",
                item_id=f"item{i}",
                run_index=r,
                slices={"intent": "refund"},
            )
            for i in range(12)
            for r in range(2)
            for metric, value in (
                ("task_completion", 1.0),
                ("faithfulness", faith),
                *((m, 1.0) for m in PERFECT),
            )
        ]
        runs = {
            (f"item{i}", r): {"latency_s": 2.0, "cost_usd": 0.01}
            for i in range(12)
            for r in range(2)
        }
        store.write(build, scores, runs)
    code, out = _run(
        "--suite",
        _suite(tmp_path),
        "--candidate",
        "cand",
        "--baseline",
        "base",
        "--format",
        "json",
        "--resamples",
        "500",
    )
    assert code == 1, out
    report = json.loads(out)
    faith = next(m for m in report["metrics"] if m["metric_id"] == "faithfulness")
    assert faith["verdict"] == "fail" and "below floor" in faith["reason"]
    assert faith["evidence"][0]["trace_ids"][0].startswith("cand-")


def test_a_first_baseline_is_gated_on_floors_only(tmp_path: Path) -> None:
    cand = _write(tmp_path, "cand.parquet", _scores())
    code, out = _run(
        "--suite",
        _suite(tmp_path),
        "--candidate-scores",
        cand,
        "--no-baseline",
        "--format",
        "json",
        "--resamples",
        "500",
    )
    report = json.loads(out)
    assert code == 0, out
    assert all(m["baseline_mean"] is None and m["delta"] is None for m in report["metrics"])
    assert "first baseline: no baseline compared" in report["metrics"][0]["reason"]


@pytest.mark.parametrize("index", [2**70, 2**31, -1, 1.5])
def test_a_run_index_out_of_range_exits_2(tmp_path: Path, index: object) -> None:
    cand = _write(tmp_path, "cand.csv", _corrupt(_scores(), 3, "run_index", index))
    code, out = _run("--suite", _suite(tmp_path), "--candidate-scores", cand, "--no-baseline")
    assert code == 2, out
    assert "row 4, column 'run_index'" in out
