"""``eval-pipeline init``: a project that ``run``, ``score`` and ``gate`` accept as written.

Contract: in an empty folder, ``init`` writes a suite, a JSON Lines dataset in the user-facing
item format, a labels file calibrating the suite's judge, a custom Python metric and a rubric
metric the suite declares, a stand-in agent with a Python entry point and the same agent behind
``POST /run``, a GitHub Actions workflow and a README, and publishes nothing: the dataset goes
in by ``datasets import`` (the first next step it prints), validated like any user's file. Then
both agent stubs run every item with no failed run, the runs score with no error on every
metric (the custom ones included) and the build passes the gate as a first baseline. A
non-empty folder is exit 2 with nothing written, unless ``--force``; a name that is not a suite
name is exit 2. The workflow imports the dataset, then runs ``run``, ``score`` and ``gate`` on
the project's own suite and runner.
"""

import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.suites.config import load_suite


def _invoke(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh project made by ``init`` in ``tmp_path/weather``, the working directory."""
    folder = tmp_path / "weather"
    made = _invoke("init", folder, "--format", "json")
    assert made.exit_code == 0, made.output
    importing = "eval-pipeline datasets import weather datasets/weather.jsonl"
    assert json.loads(made.stdout)["next"][1] == importing
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    assert default_dataset_store().versions("golden/weather") == []  # init publishes nothing
    imported = _invoke(*importing.split()[1:])
    assert imported.exit_code == 0, imported.output
    yield folder
    for module in ("agent", "agent_http"):
        sys.modules.pop(module, None)


def test_init_writes_a_project_whose_runs_score_and_pass_the_gate(project: Path) -> None:
    assert {p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file()} >= {
        "README.md",
        "suite.yaml",
        "datasets/weather.jsonl",
        "labels.csv",
        "metrics.py",
        "rubrics/helpfulness.yaml",
        "agent.py",
        "agent_http.py",
        ".github/workflows/eval.yml",
        ".gitignore",
    }
    published = default_dataset_store().load("golden/weather", "v1")
    lines = (project / "datasets" / "weather.jsonl").read_text().splitlines()
    assert len(published.items) == len(lines) >= 5
    suite = load_suite(project / "suite.yaml")
    assert suite.judge is not None and suite.judge.calibration is not None
    assert suite.judge.calibration_set.startswith("labels/labels@")
    custom = {m.id: m for m in suite.metrics if m.id in ("mentions_city", "helpfulness")}
    assert custom["mentions_city"].scorer == "metrics:MentionsCity"
    assert custom["helpfulness"].rubric == str(project.resolve() / "rubrics" / "helpfulness.yaml")
    runner = ("--runner", "python:agent:run_item")
    ran = _invoke("run", "--suite", "suite.yaml", "--build", "v1", *runner)
    assert ran.exit_code == 0, ran.output
    runs = json.loads(ran.stdout)
    assert runs["failed_runs"] == 0 and runs["complete_runs"] == runs["expected_runs"] > 0
    scored = _invoke("score", "--suite", "suite.yaml", "--build", "v1", "--format", "json")
    assert scored.exit_code == 0, scored.output
    summary = json.loads(scored.stdout)
    assert {"mentions_city", "helpfulness"} <= set(summary["metrics"])
    assert all(m["errors"] == 0 and m["n"] > 0 for m in summary["metrics"].values())
    assert summary["scorer_versions"]["mentions_city"] == "mentions_city@1"
    gated = _invoke("gate", "--suite", "suite.yaml", "--candidate", "v1", "--no-baseline")
    assert gated.exit_code == 0, gated.output


def test_the_http_stub_serves_the_same_agent_to_the_http_runner(project: Path) -> None:
    from agent_http import serve  # type: ignore[import-not-found]

    server = serve(0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/run"
        ran = _invoke("run", "--suite", "suite.yaml", "--build", "h1", "--runner", url)
    finally:
        server.shutdown()
        server.server_close()
    assert ran.exit_code == 0, ran.output
    runs = json.loads(ran.stdout)
    assert runs["failed_runs"] == 0 and runs["complete_runs"] == runs["expected_runs"] > 0
    listed = json.loads(_invoke("traces", "list", "--build", "h1", "--format", "json").stdout)
    assert {r["root_agent"] for r in listed} == {"weather_agent"}


def test_the_workflow_runs_scores_and_gates_the_projects_suite(project: Path) -> None:
    workflow = yaml.safe_load((project / ".github" / "workflows" / "eval.yml").read_text())
    env = workflow["env"]
    assert (project / env["SUITE"]).is_file()
    assert env["RUNNER"] == "python:agent:run_item"
    commands = "\n".join(s.get("run", "") for s in workflow["jobs"]["eval"]["steps"])
    steps = (
        "eval-pipeline datasets import weather datasets/weather.jsonl",
        "eval-pipeline run --suite",
        "eval-pipeline score --suite",
        "eval-pipeline gate",
    )
    assert [commands.index(step) for step in steps] == sorted(commands.index(s) for s in steps)
    assert "|| true" not in commands  # a blocked gate fails the job


def test_a_non_empty_folder_is_refused_unless_forced(tmp_path: Path) -> None:
    folder = tmp_path / "busy"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    refused = _invoke("init", folder)
    assert refused.exit_code == 2 and f"{folder}: not empty (notes.txt)" in refused.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    forced = _invoke("init", folder, "--force")
    assert forced.exit_code == 0, forced.output
    assert (folder / "suite.yaml").is_file() and (folder / "notes.txt").read_text() == "mine"


def test_a_name_that_is_not_a_suite_name_is_refused(tmp_path: Path) -> None:
    refused = _invoke("init", tmp_path / "x", "--name", "My Agent")
    assert refused.exit_code == 2 and "--name 'My Agent'" in refused.stderr
    assert not (tmp_path / "x").exists()
    named = _invoke("init", tmp_path / "My Agent!", "--format", "json")
    assert named.exit_code == 0 and json.loads(named.stdout)["name"] == "my-agent"


def test_running_before_the_dataset_is_imported_says_how_to_import_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "early"
    assert _invoke("init", folder).exit_code == 0
    monkeypatch.chdir(folder)
    ran = _invoke("run", "--suite", "suite.yaml", "--build", "v1", "--runner", "python:a:b")
    assert ran.exit_code == 2
    assert "dataset golden/early@v1" in ran.stderr and "eval-pipeline datasets import" in ran.stderr
