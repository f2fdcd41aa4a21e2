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

from eval_pipeline.backends.otlp_traces_out import send_traces
from eval_pipeline.backends.phoenix_out import export_annotations
from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.backends.phoenix_server import phoenix_server
from eval_pipeline_tests.backends.round_trip import rows_by_key, runs_by_key
from eval_pipeline_tests.backends.scored_build import scored_build

pytestmark = pytest.mark.phoenix


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
        ["export", "scores", "--build", build, "--phoenix", phoenix, "--project", "rt"]
        + ["--with-traces"],
    )
    assert exported.exit_code == 0, exported.output
    imported = runner.invoke(
        cli,
        ["import", "--from", "phoenix", "--url", phoenix, "--project", "rt"]
        + ["--build", "from-phoenix"],
    )
    assert imported.exit_code == 0, imported.output

    assert runs_by_key(store, "from-phoenix") == runs_by_key(store, build)
    back = ScoreStore(home.store).read("from-phoenix")
    assert rows_by_key(back, "from-phoenix") == rows_by_key(scores, "from-phoenix")
    assert len(back) == len(scores) > 0
