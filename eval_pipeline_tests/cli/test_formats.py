"""Every command that prints takes ``--format text|json``: JSON parses, text is a table.

Contract (``cli/output.py``): on one home holding a run and scored build, ingested traces, an
imported Langfuse export and a published dataset, each command's ``--format json`` output is
one JSON document with the keys its contract names (``register``, ``pin``, ``run`` and
``summary`` stay JSON by default, as scripts read them), and ``--format text`` prints a table
whose header names the columns. ``ingest`` and ``datasets import``, where ``--format`` names
the input, take ``--output-format``. With stdout not a terminal, nothing reaches stderr.
"""

import json
from pathlib import Path
from typing import Any

import pandas as pd
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.cli.output import FORCE_TERMINAL_ENV
from eval_pipeline.defects.story import runner_spec, sample_agent_builds
from eval_pipeline_tests.cli.small_suite import METRICS, small_suite
from eval_pipeline_tests.traces.builders import OTEL

REPO = Path(__file__).resolve().parents[2]
BASELINE = sample_agent_builds()[0]


def _invoke(*args: object, code: int = 0) -> Any:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, result.output
    assert result.stderr == "", result.stderr
    return result


def _json(*args: object) -> Any:
    return json.loads(_invoke(*args).stdout)


def test_every_command_prints_parsable_json_and_text_tables(tmp_path: Path, monkeypatch) -> None:
    suite = small_suite(tmp_path, "formats", items=2)
    build = BASELINE.build
    registered = _json("builds", "register", build, "--suite", suite, "--runner",
                       runner_spec(BASELINE), "--pin-baseline")  # fmt: skip
    assert registered["build"] == build and registered["suite"] == "formats"
    assert "registered_at" in _invoke("builds", "register", build, "--suite", suite, "--runner",
                                      runner_spec(BASELINE), "--format", "text").stdout  # fmt: skip
    assert _json("builds", "pin", build, "--suite", suite) == {
        "suite": "formats",
        "baseline": build,
    }
    assert _json("builds", "list", "--format", "json")["baselines"] == {"formats": build}
    assert "requested" in _invoke("builds", "list").stdout.splitlines()[1]

    runs = _json("run", "--suite", suite, "--build", build)
    assert runs["executed_now"] == 4 and runs["failures"] == []
    assert "already_stored" in _invoke("run", "--suite", suite, "--build", build,
                                       "--format", "text").stdout  # fmt: skip

    monkeypatch.setenv(FORCE_TERMINAL_ENV, "1")
    scored = CliRunner().invoke(cli, ["score", "--suite", str(suite), "--build", build,
                                      "--format", "json"])  # fmt: skip
    monkeypatch.delenv(FORCE_TERMINAL_ENV)
    assert scored.exit_code == 0, scored.output
    assert f"score {build}" in scored.stderr  # the display, on (forced) terminal stderr only
    assert set(json.loads(scored.stdout)["metrics"]) == set(METRICS)
    table = _invoke("score", "--suite", suite, "--build", build).stdout
    assert "pass^2" in table and all(m in table for m in METRICS)

    summary = _json("summary", "--build", build)
    assert set(summary["metrics"]) == set(METRICS) and "pass^k" in summary["metrics"][METRICS[0]]
    assert "unscored" in _invoke("summary", "--build", build, "--format", "text").stdout

    rows = _json("traces", "list", "--build", build, "--format", "json")
    assert len(rows) == 4 and {"trace_id", "complete", "dialect"} <= set(rows[0])
    assert "root agent" in _invoke("traces", "list").stdout
    shown = _json("traces", "show", rows[0]["trace_id"], "--build", build, "--format", "json")
    assert shown["stored_under"] == {build: "root"}
    assert _json("traces", "compact", "--format", "json").keys() == {"compacted"}
    assert _json("traces", "clean", "--format", "json").keys() == {"removed"}

    ingested = _json("ingest", OTEL / "synthetic", "--output-format", "json")
    assert ingested["spans_stored"] > 0 and "incomplete" in ingested
    export = REPO / "data" / "langfuse" / "traces_refund_agent.json"  # one bad score inside
    imported = CliRunner().invoke(cli, ["import", "--from", "langfuse", str(export),
                                        "--format", "json"])  # fmt: skip
    assert imported.exit_code == 2 and "must be in [0, 1]" in imported.stderr
    assert json.loads(imported.stdout)["spans_stored"] > 0  # the good data, stored and told

    listed = _json("datasets", "list", "--format", "json")
    assert {"name": "golden/formats", "version": "v1"}.items() <= next(
        r for r in listed if r["name"] == "golden/formats"
    ).items()
    assert "content hash" in _invoke("datasets", "list").stdout
    assert len(_json("datasets", "show", "golden/formats", "v1", "--format", "json")["items"]) == 2
    assert "expected tools" in _invoke("datasets", "show", "golden/formats", "v1").stdout
    assert _json("datasets", "validate", "golden/formats", "v1", "--format", "json")["valid"]

    assert _json("alerts", "list", "--format", "json") == []
    assert _invoke("alerts", "list").stdout.startswith("0 alert(s)\nno detector has run")
    assert isinstance(_json("detect", "--build", build, "--format", "json"), list)

    labels = tmp_path / "labels.csv"
    verdicts = tmp_path / "verdicts.csv"
    pd.DataFrame({"item_id": list("abcd"), "label": ["pass", "fail"] * 2}).to_csv(labels)
    pd.DataFrame({"item_id": list("abcd"), "verdict": ["pass"] * 4}).to_csv(verdicts)
    calibration = ("calibrate", "--labels", labels, "--verdicts", verdicts, "--resamples", 200)
    assert _json(*calibration, "--format", "json")["n"] == 4
    assert "false_pass_rate" in _invoke(*calibration).stdout
