"""The README's quickstart works as written, command by command, on a fresh home.

The test reads the fenced ``bash`` block under the README's "Quickstart" heading, so the
documentation and the test cannot drift: each line is one command, run in order by the
installed ``eval-pipeline`` (a console script on PATH) with ``EVAL_PIPELINE_HOME`` in a fresh
temporary folder; ``cd DIR`` changes the folder the next commands run in. The block must go
from ``init`` through ``datasets import`` of the project's own JSONL file, a first build run,
scored and gated as the first baseline, pinned, a second build run and scored, ``compare``,
the gate and the report. Every command must exit 0, and what the project brings of its own
must show: the dataset published from the user's file, both custom metrics scored on every
run under their own ids, versions and entry points, the judge calibrated on the project's
labels (the stored report and the release report name the labels set), the gate naming both
builds and ``compare`` pairing every item of both. Each command's wall time is printed
(``pytest -s``). A dozen CLI processes (over two minutes on a loaded machine): marked slow.
"""

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eval_pipeline.home import Home
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline.scoring.store import ScoreStore

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def quickstart_commands(readme: str) -> list[str]:
    """The lines of the first ``bash`` block under the ``## Quickstart`` heading."""
    section = re.search(r"^## Quickstart\b(.*?)(?=^## )", readme, re.S | re.M)
    assert section is not None, "README has no '## Quickstart' section"
    block = re.search(r"^```bash\n(.*?)^```", section.group(1), re.S | re.M)
    assert block is not None, "the Quickstart section has no ```bash block"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


STEPS = (
    "init",
    "datasets import",
    "run",
    "score",
    "gate",
    "builds register",
    "run",
    "score",
    "compare",
    "gate",
    "report",
)
"""The quickstart's commands, in order (issue 31's "Must show")."""


def _step(argv: list[str]) -> str:
    return " ".join(argv[1:3]) if argv[1] in ("datasets", "builds") else argv[1]


def test_the_quickstart_block_is_commands_only_from_init_to_report() -> None:
    commands = quickstart_commands(README.read_text(encoding="utf-8"))
    for command in commands:
        assert command.startswith(("eval-pipeline ", "cd ")), command
        assert not any(c in command for c in ("&&", "|", ";", ">", "#")), command
    steps = [_step(shlex.split(c)) for c in commands if c.startswith("eval-pipeline ")]
    assert tuple(steps) == STEPS, steps


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_readme_quickstart_runs_command_by_command(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "eval-pipeline"
    command.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c 'from eval_pipeline.cli import main; main()' \"$@\"\n"
    )
    command.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "EVAL_PIPELINE_HOME": str(tmp_path / "home"),
        "DAGSTER_HOME": str(tmp_path / "home" / "dagster"),
    }
    workdir = tmp_path / "work"
    workdir.mkdir()
    outputs: dict[str, str] = {}
    timings = []
    for line in quickstart_commands(README.read_text(encoding="utf-8")):
        argv = shlex.split(line)
        if argv[0] == "cd":
            workdir = (workdir / argv[1]).resolve()
            continue
        started = time.perf_counter()
        done = subprocess.run(
            argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=600, check=False
        )
        timings.append((line, time.perf_counter() - started))
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        outputs[f"{_step(argv)} {argv[-1]}"] = done.stdout
    for line, seconds in timings:
        print(f"{seconds:6.1f} s  {line}")
    print(f"{sum(s for _, s in timings):6.1f} s  in all")

    home = Home(tmp_path / "home")
    imported = outputs["datasets import datasets/my-agent.jsonl"]
    assert imported.startswith("published golden/my-agent@v1 (golden"), imported
    assert "6 item(s)" in imported
    _assert_custom_metrics_scored(home)
    labels_set = _assert_the_labels_calibrated_the_judge(home, workdir / "labels.csv")
    gated = outputs["gate v2"].splitlines()[0]
    assert "candidate v2 vs baseline v1" in gated, gated
    compared = outputs["compare v2"]
    assert compared.startswith("What changed: v2 against v1"), compared
    assert "mentions_city: 0 regressed, 0 improved, 6 unchanged, 0 unpaired" in compared
    report = (home.root / "reports" / "v2.html").read_text()
    assert report.startswith("<!DOCTYPE html>")
    assert "mentions_city" in report and "helpfulness" in report and labels_set in report


def _assert_custom_metrics_scored(home: Home) -> None:
    """Both custom metrics scored every run of both builds, under their ids and versions."""
    for build in ("v1", "v2"):
        rows = ScoreStore(home.store).read(build)
        python = [r for r in rows if r.metric_id == "mentions_city"]
        judged = [r for r in rows if r.metric_id == "helpfulness"]
        assert len(python) == len(judged) == 12  # 6 items x 2 runs
        for row in python:
            assert (row.scorer_id, row.scorer_version) == ("metrics:MentionsCity", 1)
            assert row.status == ScoreStatus.SCORED and row.reason.startswith("names "), row
        for row in judged:
            assert row.scorer_id.startswith("rubric:helpfulness@1+"), row.scorer_id
            assert row.judge_backend == "offline-minilm" and row.judge_fingerprint


def _assert_the_labels_calibrated_the_judge(home: Home, labels: Path) -> str:
    """The judge's calibration report is on the project's labels, every row; the set's name."""
    reports = [
        json.loads(p.read_text()) for p in (home.store / "calibration").glob("*/labels__labels@*")
    ]
    assert len(reports) == 1, reports
    report = reports[0]
    assert report["calibration_set"].startswith("labels/labels@")
    assert report["n"] == len(labels.read_text().splitlines()) - 1 == 12
    return str(report["calibration_set"])
