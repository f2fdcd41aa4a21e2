"""``serve`` stores evaluation events sent to its logs endpoint, guarded like spans.

Contract: ``eval-pipeline serve`` (a process of its own) mounts ``EvaluationEventHandler`` on
``POST /v1/logs``: a scored build's ``gen_ai.evaluation.result`` events sent with an
``evaluation`` token are stored as that build's score rows in the receiver's home; the same
events sent with a ``production`` token are refused by build (a production sender may not
write evaluation builds' scores), and no token may write scores into a pinned baseline.
"""

from pathlib import Path

import httpx
import pytest

from eval_pipeline.backends.otel_events_out import requests_for
from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import Home, current_home
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline_tests.backends.scored_build import scored_build
from eval_pipeline_tests.realtime.receiver.serve_process import start_serve

PRODUCTION_TOKEN = "p" * 24
EVALUATION_TOKEN = "e" * 24


def _post(port: int, body: bytes, token: str) -> httpx.Response:
    return httpx.post(
        f"http://127.0.0.1:{port}/v1/logs",
        content=body,
        headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"},
        timeout=30,
    )


def test_serve_stores_evaluation_events_only_where_the_token_may_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = scored_build(tmp_path, monkeypatch)
    exported = ScoreStore(current_home().store).read(build)
    body = b"".join(r.SerializeToString() for r in requests_for(exported, batch=len(exported)))
    receiver_home = Home(tmp_path / "receiver_home").ensure()
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{PRODUCTION_TOKEN} production\n{EVALUATION_TOKEN} evaluation\n")
    server, port = start_serve(
        ["--no-grpc", "--token-file", str(tokens)],
        tmp_path / "serve.log",
        env={"EVAL_PIPELINE_HOME": str(receiver_home.root)},
    )
    try:
        refused = _post(port, body, PRODUCTION_TOKEN)
        assert refused.status_code == 400, (tmp_path / "serve.log").read_text()
        assert "the token may not write evaluation builds" in refused.text
        assert ScoreStore(receiver_home.store).read(build) == []

        stored = _post(port, body, EVALUATION_TOKEN)
        assert stored.status_code == 200, stored.text
        assert len(ScoreStore(receiver_home.store).read(build)) == len(exported)

        BuildRegistry(receiver_home.state_url).pin_baseline("backends", build)
        pinned = _post(port, body, EVALUATION_TOKEN)
        assert pinned.status_code == 400
        assert "it is a pinned baseline" in pinned.text
    finally:
        server.terminate()
        server.wait(timeout=30)
