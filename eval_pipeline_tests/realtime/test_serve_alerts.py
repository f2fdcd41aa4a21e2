"""``serve --alert-webhook``: a failed tool call reaches the webhook once, even sent twice.

Contract: ``eval-pipeline serve --alert-webhook URL`` (a process of its own, the embedded
stream) stores a trace with a failed tool call, publishes it, and the in-process detector
worker raises one ``tool_error`` alert; the same request sent again (an exporter's retry)
raises nothing new, so the webhook receives the alert exactly once; the alert is in the state
database that ``alerts list`` reads.
"""

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from eval_pipeline.alerts.store import AlertStore
from eval_pipeline.home import current_home
from eval_pipeline_tests.realtime.nats_process import free_port
from eval_pipeline_tests.realtime.receivers import traces_request

CLI = [sys.executable, "-c", "from eval_pipeline.cli import main; main()"]


@pytest.fixture
def webhook() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A webhook on loopback recording every alert posted to it."""
    received: list[dict[str, Any]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", received
    server.shutdown()


def test_a_failed_tool_call_reaches_the_webhook_once_when_sent_twice(
    webhook: tuple[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    hook_url, received = webhook
    port = free_port()
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    log = (tmp_path / "serve.log").open("wb")
    command = [*CLI, "serve", "--port", str(port), "--no-grpc", "--alert-webhook", hook_url]
    server = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            try:
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        body = traces_request(0, 1, tool_error=True)
        for _ in range(2):
            reply = httpx.post(
                f"http://127.0.0.1:{port}/v1/traces",
                content=body,
                headers={"content-type": "application/x-protobuf"},
                timeout=30,
            )
            assert reply.status_code == 200
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not received:
            time.sleep(0.1)
        time.sleep(5)  # past the quiet period: a duplicate would have arrived by now
    finally:
        server.terminate()
        server.wait(timeout=30)
    tool_errors = [alert for alert in received if alert["detector"].startswith("tool_error")]
    assert len(tool_errors) == 1, (tmp_path / "serve.log").read_text()
    assert len({alert["alert_id"] for alert in received}) == len(received)
    stored = AlertStore(current_home().state_url).list_alerts()
    assert tool_errors[0]["alert_id"] in {alert.alert_id for alert in stored}
