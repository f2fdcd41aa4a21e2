"""Phoenix as a back end, against a real Phoenix server (``arize-phoenix`` in its own venv).

Contract: a scored build's spans sent to Phoenix over OTLP and its scores written as span
annotations through the REST API come back, through ``import --from phoenix``, as the same runs
(every derived view: tool calls, model calls, answers, tokens, completeness) and the same score
rows; the spans enter through the one ingest function. An annotation Phoenix holds whose score
is outside [0, 1] is one error naming it (exit 2) and every other score is still stored.
"""

import json
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.importers.backends.phoenix import read_annotations, read_spans
from eval_pipeline.report.stored import load_gate_report
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.backends.phoenix_server import phoenix_server
from eval_pipeline_tests.backends.round_trip import assert_same_runs, rows_by_key, runs_by_key
from eval_pipeline_tests.backends.scored_build import scored_build

pytestmark = pytest.mark.phoenix

PHOENIX_DROPS = frozenset({"kind", "resource", "scope_name"})
"""What Phoenix does not keep of a span (its span API returns none of them)."""


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> str:
    with phoenix_server(tmp_path_factory.mktemp("phoenix")) as url:
        yield url


def test_export_then_import_gives_the_same_runs_and_scores(
    phoenix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = scored_build(tmp_path, monkeypatch)
    home = current_home()
    store = TraceStore(home.store)
    scores = ScoreStore(home.store).read(build)
    runner = CliRunner()
    exported = runner.invoke(
        cli,
        [
            "export",
            "scores",
            "--build",
            build,
            "--phoenix",
            phoenix,
            "--project",
            "rt",
            "--with-traces",
        ],
    )
    assert exported.exit_code == 0, exported.output
    imported = runner.invoke(
        cli,
        [
            "import",
            "--from",
            "phoenix",
            "--url",
            phoenix,
            "--project",
            "rt",
            "--build",
            "from-phoenix",
            "--redaction-policy",
            "keep-tools",
        ],
    )
    assert imported.exit_code == 0, imported.output

    assert_same_runs(
        runs_by_key(store, build),
        runs_by_key(store, "from-phoenix"),
        ignore=PHOENIX_DROPS,
        time_tolerance_ns=1_000,
    )
    back = ScoreStore(home.store).read("from-phoenix")
    assert rows_by_key(back, "from-phoenix") == rows_by_key(scores, "from-phoenix")
    assert len(back) == len(scores) > 0


def test_a_bad_annotation_is_named_and_the_rest_is_stored(
    phoenix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = scored_build(tmp_path, monkeypatch)
    runner = CliRunner()
    exported = runner.invoke(
        cli,
        [
            "export",
            "scores",
            "--build",
            build,
            "--phoenix",
            phoenix,
            "--project",
            "bad",
            "--with-traces",
        ],
    )
    assert exported.exit_code == 0, exported.output
    root = next(
        s.span_id
        for s in TraceStore(current_home().store).read_spans(build)
        if s.parent_span_id is None
    )
    foreign = {
        "span_id": root,
        "name": "helpfulness",
        "annotator_kind": "HUMAN",
        "result": {"score": 4.0, "label": "good"},
    }
    reply = httpx.post(f"{phoenix}/v1/span_annotations?sync=true", json={"data": [foreign]})
    assert reply.status_code == 200, reply.text
    imported = runner.invoke(
        cli,
        [
            "import",
            "--from",
            "phoenix",
            "--url",
            phoenix,
            "--project",
            "bad",
            "--build",
            "from-bad",
            "--redaction-policy",
            "keep-tools",
        ],
    )
    assert imported.exit_code == 2
    assert f"span {root}: field annotation" in imported.output
    assert "'helpfulness'" in imported.output and "value: must be in [0, 1]" in imported.output
    stored = ScoreStore(current_home().store).read("from-bad")
    assert len(stored) == len(ScoreStore(current_home().store).read(build))
    assert TraceStore(current_home().store).read_spans("from-bad")

    missing = runner.invoke(
        cli, ["import", "--from", "phoenix", "--url", phoenix, "--project", "nope"]
    )
    assert missing.exit_code == 2
    assert "--project: Phoenix has no project 'nope'" in missing.output


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    """A Phoenix span's attributes as plain values."""
    return {
        kv["key"]: next(v for v in kv["value"].values() if v is not None)
        for kv in span["attributes"]
    }


def test_exported_evaluations_filter_by_label_and_gate_and_spans_show_input_and_output(
    phoenix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: pass/fail labels, the release verdict, input/output, a hint for no traces."""
    build = scored_build(tmp_path, monkeypatch)
    runner = CliRunner()
    gated = runner.invoke(
        cli, ["gate", "--suite", "backends", "--candidate", build, "--no-baseline"]
    )
    assert gated.exit_code in (0, 1), gated.output
    report = load_gate_report(current_home(), build)
    release = "no-go" if report["blocking"] else "go"
    floors = {m["metric_id"]: m["threshold"] for m in report["metrics"]}
    export = ["export", "scores", "--build", build, "--phoenix", phoenix, "--project", "labels"]

    # Phoenix does not hold the build's traces yet: bad input with the way out, nothing sent.
    orphan = runner.invoke(cli, export)
    assert orphan.exit_code == 2, orphan.output
    assert "Phoenix lacks the traces of build" in orphan.output
    assert "add --with-traces" in orphan.output
    sent = runner.invoke(cli, [*export, "--with-traces"])
    assert sent.exit_code == 0, sent.output

    store = TraceStore(current_home().store)
    runs = {r.trace_id: r for r in store.runs(build)}
    spans = [s for page in read_spans(phoenix, "labels").pages for s in page]
    by_id = {s["span_id"]: _attributes(s) for s in spans}
    for run in runs.values():
        assert run.root_span_id is not None
        root = by_id[run.root_span_id]
        assert root["input.value"] == run.user_input and run.user_input
        assert root["output.value"] == run.final_answer and run.final_answer
        for call in run.tool_calls:
            shown = by_id[call.span_id]
            assert json.loads(shown["input.value"]) == call.arguments
            assert shown["input.mime_type"] == "application/json"

    annotations = read_annotations(phoenix, "labels", sorted(by_id))
    scores = ScoreStore(current_home().store).read(build)
    assert len([a for a in annotations if a["name"] != "release_gate"]) == len(scores)
    labels: Counter[str] = Counter()
    for a in annotations:
        result = a["result"]
        if a["name"] == "release_gate":
            assert result["label"] == release and result["explanation"].startswith(release)
            continue
        status = a["metadata"]["eval_pipeline"]["status"]
        if status == "scored":
            floor = floors[a["name"]]
            assert a["metadata"]["floor"] == floor
            assert result["label"] == ("pass" if result["score"] >= floor else "fail")
            assert a["metadata"]["gate_release"] == release
        else:
            assert result["label"] == status and result.get("score") is None
        labels[result["label"]] += 1
    gates = [a for a in annotations if a["name"] == "release_gate"]
    assert sorted(a["span_id"] for a in gates) == sorted(str(r.root_span_id) for r in runs.values())
    assert labels["pass"] and "scored" not in labels

    # Read back, the release verdict is not a score: the same rows as exported.
    back = runner.invoke(
        cli,
        [
            "import",
            "--from",
            "phoenix",
            "--url",
            phoenix,
            "--project",
            "labels",
            "--build",
            "labels-back",
            "--redaction-policy",
            "keep-tools",
        ],
    )
    assert back.exit_code == 0, back.output
    again = ScoreStore(current_home().store).read("labels-back")
    assert rows_by_key(again, "labels-back") == rows_by_key(scores, "labels-back")
