"""NeMo Agent Toolkit as a back end: real spans and ``nat eval`` files from a real workflow.

Contract: a small NAT workflow with a scripted model (``nat_workflow.py``, run by ``nvidia-nat``
in its own venv) evaluated by ``nat eval`` sends its spans through NAT's ``otelcollector``
exporter; ``import --from nat`` of those OTLP requests plus the ``nat eval`` output files gives
one run per dataset entry through the one ingest function (the item from ``workflow_output.json``,
the tool call with its arguments and result, the model calls with their token usage, the final
answer) and one score row per evaluated item on that run. The ``nat eval`` files alone give the
same runs' items and scores. A score outside [0, 1] is one error naming file and field (exit 2);
the rest is stored.
"""

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.backends.side_venv import ensure_venv

pytestmark = pytest.mark.nat_toolkit
WORKFLOW = Path(__file__).with_name("nat_workflow.py")


@pytest.fixture(scope="module")
def nat_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Run the workflow under ``nat eval``; the folder holds its span requests and outputs."""
    python = ensure_venv("nat") / "python"
    out = tmp_path_factory.mktemp("nat")
    received: list[bytes] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(out),
            "NAT_TELEMETRY_ENABLED": "false",
            "NAT_TELEMETRY_ENDPOINT": "",
            "NAT_TELEMETRY_DRY_RUN": "true",
        }
        done = subprocess.run(
            [
                str(python),
                str(WORKFLOW),
                str(out),
                f"http://127.0.0.1:{server.server_port}/v1/traces",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            cwd=out,
        )
        assert done.returncode == 0, done.stderr[-3000:]
    finally:
        server.shutdown()
        server.server_close()
    for index, body in enumerate(received):
        (out / f"spans-{index}.pb").write_bytes(body)
    yield out


def _run_view(build: str) -> dict[str, Any]:
    out = {}
    for run in TraceStore(current_home().store).runs(build):
        out[run.eval_context.item_id] = run
    return out


def test_spans_and_eval_files_become_runs_and_scores(nat_run: Path) -> None:
    spans = sorted(str(p) for p in nat_run.glob("spans-*.pb"))
    assert spans
    evaluation = [
        str(nat_run / "eval" / "workflow_output.json"),
        str(nat_run / "eval" / "exact_answer_output.json"),
    ]
    result = CliRunner().invoke(
        cli,
        [
            "import",
            "--from",
            "nat",
            *spans,
            *evaluation,
            "--build",
            "nat-support",
            "--redaction-policy",
            "keep-tools",
        ],
    )
    assert result.exit_code == 0, result.output
    runs = _run_view("nat-support")
    assert set(runs) == {"order-w1001", "order-w1002"}
    run = runs["order-w1001"]
    assert [(c.name, c.arguments, c.result) for c in run.tool_calls] == [
        ("lookup_order", {"order_id": "W1001"}, "delivered on 2026-11-18")
    ]
    assert [(m.model, m.input_tokens, m.output_tokens) for m in run.model_calls] == [
        ("scripted-support-model", 42, 9),
        ("scripted-support-model", 61, 12),
    ]
    assert run.final_answer == "Order W1001 is delivered on 2026-11-18."
    scores = {s.item_id: s for s in ScoreStore(current_home().store).read("nat-support")}
    assert (scores["order-w1001"].value, scores["order-w1002"].value) == (1.0, 0.0)
    assert scores["order-w1001"].metric_id == "exact_answer"
    assert scores["order-w1001"].trace_id == run.trace_id


def test_eval_files_alone_and_a_bad_score(nat_run: Path, tmp_path: Path) -> None:
    output = json.loads((nat_run / "eval" / "exact_answer_output.json").read_text())
    output["eval_output_items"][1]["score"] = 7
    bad = tmp_path / "exact_answer_output.json"
    bad.write_text(json.dumps(output))
    result = CliRunner().invoke(
        cli, ["import", "--from", "nat", str(nat_run / "eval" / "workflow_output.json"), str(bad)]
    )
    assert result.exit_code == 2
    assert f"{bad}: payload: field eval_output_items[1].score" in result.output
    runs = _run_view("nat:workflow")
    assert set(runs) == {"order-w1001", "order-w1002"}
    assert runs["order-w1002"].final_answer == "Order W1002 is shipped, arriving 2026-12-03."
    assert [c.name for c in runs["order-w1002"].tool_calls] == ["lookup_order"]
    scores = ScoreStore(current_home().store).read("nat:workflow")
    assert [(s.item_id, s.value) for s in scores] == [("order-w1001", 1.0)]
