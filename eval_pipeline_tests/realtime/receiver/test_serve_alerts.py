"""``serve --alert-webhook``: a failed tool call reaches the webhook once, even sent twice.

Contract: ``eval-pipeline serve --alert-webhook URL`` (a process of its own, the embedded
stream) stores a trace with a failed tool call, publishes it, and the detector
worker raises one ``tool_error`` alert; the same request sent again (an exporter's retry)
raises nothing new, so the webhook receives the alert exactly once; the alert is in the state
database that ``alerts list`` reads. The detector workers run in a child process of
``serve`` (``detectors run``), whose output is the receiver's, and it does not outlive it.
"""

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline_tests.realtime.alerts.webhook import Webhook
from eval_pipeline_tests.realtime.receiver.receivers import traces_request
from eval_pipeline_tests.realtime.receiver.serve_process import start_serve


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    """A webhook on loopback recording every alert posted to it."""
    hook = Webhook()
    yield hook
    hook.close()


def test_a_failed_tool_call_reaches_the_webhook_once_when_sent_twice(
    webhook: Webhook, tmp_path: Path
) -> None:
    hook_url, received = webhook.url, webhook.received
    server, port = start_serve(["--no-grpc", "--alert-webhook", hook_url], tmp_path / "serve.log")
    try:
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
    listed = CliRunner().invoke(cli, ["alerts", "list", "--format", "json"])
    assert listed.exit_code == 0, listed.output
    assert tool_errors[0]["alert_id"] in {alert["alert_id"] for alert in json.loads(listed.output)}


def _children(pid: int) -> list[tuple[int, str]]:
    """Processes whose parent is ``pid``: (pid, command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue  # gone in between
        if parent == pid:
            found.append((int(entry.name), command))
    return found


def test_the_detectors_run_beside_the_receiver_and_stop_with_it(
    webhook: Webhook, tmp_path: Path
) -> None:
    """Not in the receiver's process (they competed with ingest for its interpreter lock)."""
    log = tmp_path / "serve.log"
    server, _ = start_serve(["--no-grpc", "--alert-webhook", webhook.url], log)
    try:
        deadline = time.monotonic() + 30
        planes: list[tuple[int, str]] = []
        while time.monotonic() < deadline and not planes:
            planes = [c for c in _children(server.pid) if "detectors run" in c[1]]
            time.sleep(0.1)
        assert len(planes) == 1, (_children(server.pid), log.read_text())
        assert f"--webhook {webhook.url}" in planes[0][1]
        while time.monotonic() < deadline + 30 and "detectors running" not in log.read_text():
            time.sleep(0.1)  # its output is the receiver's
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert not Path(f"/proc/{planes[0][0]}").exists() or "zombie" in (
        Path(f"/proc/{planes[0][0]}/status").read_text().lower()
    ), "the detector process outlived serve"
    assert "detectors stopped:" in log.read_text()
