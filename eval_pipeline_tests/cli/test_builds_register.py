"""``builds register`` (issue 31): what it stores resolves anywhere; what cannot resolve is refused.

The suite is stored as the absolute path of its file, so a build registered from one folder is
evaluated by a sensor or UI started from another; ``builds list`` shows that path. A suite whose
pinned datasets are not published, or whose judge calibration set cannot be found or read, is
refused at registration (exit 2, naming what is missing) instead of failing at score or sensor
time; nothing is registered.
"""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.cli import cli
from eval_pipeline.evaluation.stage import open_stage
from eval_pipeline.home import current_home

SUITE = """\
suite: mine
risk_tier: low
datasets:
  - name: {dataset}
{judge}metrics:
  - {{id: tool_correctness, threshold: 0.5, max_regression: 0.1}}
"""


def _suite(folder: Path, dataset: str = "golden/retail-refunds-v1", judge: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "my.yaml"
    path.write_text(SUITE.format(dataset=dataset, judge=judge))
    return path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def _registered() -> list[str]:
    return [r.build for r in BuildRegistry(current_home().ensure().state_url).all()]


def test_a_relative_suite_path_is_stored_absolute_and_resolves_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = _suite(tmp_path / "project")
    monkeypatch.chdir(tmp_path / "project")
    code, out = _run("builds", "register", "r1", "--suite", "my.yaml")
    assert code == 0, out
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    code, out = _run("builds", "list", "--format", "json")
    (record,) = json.loads(out)["builds"]
    assert record["suite"] == str(suite.resolve())
    stage = open_stage(current_home(), "r1")
    assert stage.suite_path == suite.resolve() and stage.suite.suite == "mine"


def test_a_suite_whose_dataset_is_not_published_is_refused(tmp_path: Path) -> None:
    suite = _suite(tmp_path, dataset="golden/not-there-v3")
    code, out = _run("builds", "register", "r2", "--suite", str(suite))
    assert code == 2, out
    assert f"{suite}:" in out and "golden/not-there@v3 is not published" in out
    assert _registered() == []


def test_a_suite_whose_calibration_set_is_unknown_is_refused(tmp_path: Path) -> None:
    judge = (
        "judge:\n  model: offline-minilm\n  rubric_version: '1'\n"
        "  calibration_set: human-labels/nobody-wrote-these\n"
    )
    suite = _suite(tmp_path, judge=judge)
    code, out = _run("builds", "register", "r3", "--suite", str(suite))
    assert code == 2, out
    assert "human-labels/nobody-wrote-these" in out and "calibration" in out
    assert _registered() == []


def test_a_labels_file_that_cannot_calibrate_is_refused_naming_file_row_and_column(
    tmp_path: Path,
) -> None:
    judge = (
        "judge:\n  model: offline-minilm\n  rubric_version: '1'\n"
        "  calibration: {labels: labels.csv, task: faithfulness}\n"
    )
    suite = _suite(tmp_path, judge=judge)
    code, out = _run("builds", "register", "r4", "--suite", str(suite))
    assert code == 2 and f"{tmp_path / 'labels.csv'}: no such file" in out, out
    (tmp_path / "labels.csv").write_text(
        "item_id,label,answer,contexts\n"
        'a,pass,It shipped.,"[""shipped""]"\n'
        'b,maybe,It shipped.,"[""pending""]"\n'
    )
    code, out = _run("builds", "register", "r4", "--suite", str(suite))
    assert code == 2, out
    assert f"{tmp_path / 'labels.csv'}: row 2, column 'label'" in out and "maybe" in out
    (tmp_path / "labels.csv").write_text("item_id,label,answer\na,pass,It shipped.\n")
    code, out = _run("builds", "register", "r4", "--suite", str(suite))
    assert code == 2 and "needs column(s) ['contexts']" in out, out
    assert _registered() == []
