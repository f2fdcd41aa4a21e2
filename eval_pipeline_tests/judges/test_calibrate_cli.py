"""The ``eval-pipeline calibrate`` command (contract).

``eval-pipeline calibrate`` (contract): with --labels/--verdicts files (CSV, JSONL, Parquet)
it prints n, accuracy, kappa, false-pass/false-fail rates, intervals and slices as JSON; with
--judge it runs the judge on the labelled items first, and a second run is answered entirely
from the cache (zero judge calls); bad input exits 2 naming the file, row and column.
"""

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.package_data import package_path

AGENT_SET = package_path("eval_pipeline.judges", "calibration_sets", "agent_faithfulness.jsonl")
HALUEVAL = package_path(
    "eval_pipeline.judges", "calibration_sets", "halueval_general_600.labels.jsonl"
)


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    elif path.suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_labels_and_verdicts_files(tmp_path: Path, suffix: str) -> None:
    labels = pd.DataFrame(
        {
            "item_id": ["a", "b", "c", "d", "e", "f"],
            "label": ["pass", "pass", "fail", "fail", "pass", "fail"],
            "lang": ["en", "en", "en", "de", "de", "de"],
        }
    )
    verdicts = pd.DataFrame(
        {"item_id": list("fedcba"), "verdict": ["0.9", "no", "0", "false", "yes", "pass"]}
    )
    result = CliRunner().invoke(
        cli,
        [
            "calibrate",
            "--labels",
            str(_write(labels, tmp_path / f"labels{suffix}")),
            "--verdicts",
            str(_write(verdicts, tmp_path / f"verdicts{suffix}")),
            "--slice",
            "lang",
            "--format",
            "json",
            "--resamples",
            "200",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert {
        "n",
        "accuracy",
        "kappa",
        "false_pass_rate",
        "false_fail_rate",
        "intervals",
        "slices",
    } <= set(payload)
    # humans fail c, d, f and the judge passes f (0.9 >= 0.5): false-pass rate 1/3;
    # humans pass a, b, e and the judge fails e ("no"): false-fail rate 1/3
    assert payload["n"] == 6
    assert payload["false_pass_rate"] == pytest.approx(1 / 3)
    assert payload["false_fail_rate"] == pytest.approx(1 / 3)
    assert set(payload["slices"]["lang"]) == {"en", "de"}


def test_judge_run_then_second_run_is_all_cache_hits() -> None:
    args = [
        "calibrate",
        "--judge",
        "offline-minilm",
        "--labels",
        str(AGENT_SET),
        "--task",
        "faithfulness",
        "--format",
        "json",
        "--resamples",
        "200",
        "--slice",
        "kind",
    ]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    one = json.loads(first.output)
    rows = AGENT_SET.read_text().count("\n")
    assert one["n"] == rows and one["judge"]["calls"] == rows
    assert one["judge"]["backend"] == "offline-minilm"
    second = CliRunner().invoke(cli, args)
    two = json.loads(second.output)
    assert two["judge"]["calls"] == 0 and two["judge"]["cache_hits"] == rows
    assert {k: two[k] for k in ("accuracy", "kappa", "false_pass_rate")} == {
        k: one[k] for k in ("accuracy", "kappa", "false_pass_rate")
    }


def test_judge_on_halueval_subset_with_limit(tmp_path: Path) -> None:
    saved = tmp_path / "verdicts.csv"
    result = CliRunner().invoke(
        cli,
        [
            "calibrate",
            "--judge",
            "offline-minilm",
            "--labels",
            str(HALUEVAL),
            "--task",
            "hallucination",
            "--limit",
            "20",
            "--format",
            "json",
            "--resamples",
            "200",
            "--save-verdicts",
            str(saved),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["n"] == 20
    assert len(pd.read_csv(saved)) == 20


def test_bad_label_value_exits_2_naming_file_row_and_column(tmp_path: Path) -> None:
    labels = _write(
        pd.DataFrame({"item_id": ["a", "b"], "label": ["pass", "perhaps"]}), tmp_path / "labels.csv"
    )
    verdicts = _write(
        pd.DataFrame({"item_id": ["a", "b"], "verdict": ["pass", "fail"]}),
        tmp_path / "verdicts.csv",
    )
    result = CliRunner().invoke(
        cli, ["calibrate", "--labels", str(labels), "--verdicts", str(verdicts), "--format", "json"]
    )
    assert result.exit_code == 2
    assert "labels.csv: row 2, column 'label': 'perhaps'" in result.output


def test_missing_rubric_field_and_unjudgeable_task_exit_2(tmp_path: Path) -> None:
    labels = _write(
        pd.DataFrame({"item_id": ["a"], "label": ["pass"], "answer": ["x"]}),
        tmp_path / "labels.jsonl",
    )
    result = CliRunner().invoke(
        cli,
        [
            "calibrate",
            "--judge",
            "offline-minilm",
            "--labels",
            str(labels),
            "--task",
            "hallucination",
        ],
    )
    assert result.exit_code == 2
    assert "needs column(s) ['question']" in result.output
    plan = _write(
        pd.DataFrame(
            {"item_id": ["a"], "label": ["pass"], "question": ["q"], "plan": ["1. look up"]}
        ),
        tmp_path / "plan.jsonl",
    )
    result = CliRunner().invoke(
        cli,
        ["calibrate", "--judge", "offline-minilm", "--labels", str(plan), "--task", "plan_quality"],
    )
    assert result.exit_code == 2 and "cannot judge" in result.output


def test_exactly_one_of_verdicts_or_judge(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["calibrate", "--labels", str(AGENT_SET)])
    assert result.exit_code == 2


def test_http_judge_failure_becomes_a_missing_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    from eval_pipeline_tests.judges.chat_server import chat_server

    valid = {"score": 1.0, "passed": True, "reason": "ok", "details": {"hallucinated_spans": []}}
    with chat_server([("ok", valid), ("status", 401)]) as server:
        monkeypatch.setenv("EVAL_PIPELINE_JUDGE_BASE_URL", server.url)
        result = CliRunner().invoke(
            cli,
            [
                "calibrate",
                "--judge",
                "served-model",
                "--labels",
                str(HALUEVAL),
                "--task",
                "hallucination",
                "--limit",
                "2",
                "--format",
                "json",
                "--resamples",
                "100",
            ],
        )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["n"] == 1 and payload["missing_verdicts"] == 1
    assert payload["judge"]["backend"] == "openai-compatible"
    assert payload["judge"]["errors"] == 1 and payload["judge"]["model"] == "served-model"
    assert server.bodies[0]["model"] == "served-model"
