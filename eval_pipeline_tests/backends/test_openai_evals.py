"""OpenAI Evals exports into a versioned dataset, runs and imported scores a team can gate on.

Contract: an export (items JSONL, the run, its output items; the output items validate against
the ``openai`` package's own types) publishes one immutable dataset version (the same export
again changes nothing; other content under that version is refused, exit 2), one run per
output item through the one ingest function, and per grader a score row: 1.0 passed, 0.0
failed, ``error`` (missing, with the API's message) when the sample errored; the grader's own
score is kept as evidence, never rescaled. ``summary`` then reports the pass rates. A grader
result without a verdict is one error naming file and field; the rest is stored.
"""

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from openai.types.evals.runs.output_item_list_response import OutputItemListResponse

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import DatasetStore
from eval_pipeline.home import current_home
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore

DATA = Path(__file__).resolve().parents[2] / "data" / "openai_evals"
FILES = [str(DATA / n) for n in ("items.jsonl", "run.json", "output_items.json")]
BUILD = "openai-evals:support-gpt-4.1-mini"


def _import(*paths: str, version: str = "v1") -> object:
    args = ["import", "--from", "openai-evals", *paths, "--name", "golden/openai-support"]
    return CliRunner().invoke(cli, [*args, "--version", version])


def test_fixtures_follow_the_openai_types() -> None:
    for raw in json.loads((DATA / "output_items.json").read_text())["data"]:
        OutputItemListResponse.model_validate(raw)


def test_an_export_becomes_a_dataset_runs_and_scores() -> None:
    result = _import(*FILES)
    assert result.exit_code == 0, result.output
    dataset = DatasetStore(current_home().datasets).load("golden/openai-support", "v1")
    assert dataset.item_ids == ("refund-window", "refund-method", "exchange")
    assert dataset.item("refund-window").reference_answer == "30 days"
    assert dataset.item("exchange").input_messages[0]["role"] == "system"

    runs = {r.eval_context.item_id: r for r in TraceStore(current_home().store).runs(BUILD)}
    assert set(runs) == set(dataset.item_ids)
    assert runs["refund-window"].final_answer == "You have 30 days from delivery to return an item."
    assert runs["refund-window"].eval_context.dataset_version == "v1"
    assert runs["refund-window"].input_tokens == 31

    rows = {(s.item_id, s.metric_id): s for s in ScoreStore(current_home().store).read(BUILD)}
    assert rows["refund-window", "mentions_window"].value == 1.0
    assert rows["refund-method", "mentions_window"].value == 0.0
    assert rows["refund-method", "helpfulness"].value == 1.0
    assert rows["refund-method", "helpfulness"].evidence["grader_score"] == 5.0
    errored = rows["exchange", "helpfulness"]
    assert (errored.status, errored.value) == ("error", None)
    assert "rate_limit_exceeded" in errored.reason

    summary = CliRunner().invoke(cli, ["summary", "--build", BUILD, "--format", "json"])
    assert summary.exit_code == 0, summary.output
    metrics = json.loads(summary.output)["metrics"]
    assert metrics["mentions_window"]["mean"] == 0.5
    assert metrics["mentions_window"]["errors"] == 1

    again = _import(*FILES)
    assert again.exit_code == 0, again.output
    assert len(ScoreStore(current_home().store).read(BUILD)) == len(rows)


def test_a_changed_version_is_refused_and_a_bad_result_is_named(tmp_path: Path) -> None:
    assert _import(*FILES).exit_code == 0
    changed = tmp_path / "items.jsonl"
    changed.write_text((DATA / "items.jsonl").read_text().replace("30 days", "14 days"))
    refused = _import(str(changed), FILES[1], FILES[2])
    assert refused.exit_code == 2
    assert "golden/openai-support@v1 is already published" in refused.output

    page = json.loads((DATA / "output_items.json").read_text())
    del page["data"][0]["results"][1]["passed"]
    bad = tmp_path / "output_items.json"
    bad.write_text(json.dumps(page))
    shutil.copy(DATA / "items.jsonl", tmp_path / "items.jsonl")
    result = _import(str(tmp_path / "items.jsonl"), FILES[1], str(bad), version="v2")
    assert result.exit_code == 2
    assert f"{bad}[0]: payload: field output_item.results[1].passed" in result.output
    rows = ScoreStore(current_home().store).read(BUILD)
    assert len([r for r in rows if r.dataset_version == "v2"]) == 5
