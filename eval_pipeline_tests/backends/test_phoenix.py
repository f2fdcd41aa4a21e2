"""Phoenix as a back end, against a real Phoenix server (``arize-phoenix`` in its own venv).

Contract: a scored build's spans sent to Phoenix over OTLP and its scores written as span
annotations through the REST API come back, through ``import --from phoenix``, as the same runs
(every derived view: tool calls, model calls, answers, tokens, completeness) and the same score
rows; the spans enter through the one ingest function. An annotation Phoenix holds whose score
is outside [0, 1] is one error naming it (exit 2) and every other score is still stored.
"""

from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
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
