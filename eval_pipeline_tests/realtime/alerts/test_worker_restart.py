"""A detector worker killed mid-stream and restarted loses no span and duplicates no alert.

Contract (issue 18, on the embedded stream and the local NATS server): ``eval-pipeline
detectors run`` as a process, killed with SIGKILL while traces are in flight (spans fetched,
completions held in their quiet period, unacknowledged), then restarted while more traces are
published: the alerts stored and POSTed are exactly those a replay of every published span
raises, each once (the webhook gets each once, except that an alert posted just before the
kill and not yet marked delivered is posted once more with the same key). Half the runs
claim a refund they made and half one they did not, so a lost tool span or a lost answer
span would add or drop a ``claimed_action`` alert.
"""

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from eval_pipeline.home import Home
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.stream import open_stream
from eval_pipeline.traces.store.span_table import Row
from eval_pipeline_tests.conftest import REPO_ROOT
from eval_pipeline_tests.realtime.alerts.test_plane import (
    DAY,
    prefix,
    replayed,
    stream_url,
    wait_for,
)
from eval_pipeline_tests.realtime.alerts.webhook import Webhook
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

__all__ = ["prefix", "stream_url"]  # fixtures shared with test_plane


def traces(first: int, count: int) -> list[Row]:
    return [
        row
        for i in range(first, first + count)
        for row in agent_trace_rows(
            f"{i:032x}",
            tools=("lookup_order", "refund_order") if i % 2 else ("lookup_order",),
            tool_error=i % 5 == 0,
            answer="I have refunded your order.",
        )
    ]


def start_worker(
    home: Path, url: str | None, name: str, hook: str, config: Path
) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-c",
        "from eval_pipeline.cli import main; main()",
        "detectors",
        "run",
        "--prefix",
        name,
        "--batch",
        "3",
        "--ack-wait",
        "2",
        "--webhook",
        hook,
        "--config",
        str(config),
        "--no-json-lines",
    ]
    if url is not None:
        command += ["--stream", url]
    env = {**os.environ, "EVAL_PIPELINE_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(command, env=env, stderr=subprocess.PIPE)


def test_a_killed_worker_restarted_loses_no_span_and_repeats_no_alert(
    isolated_home: Path, stream_url: str | None, prefix: str, tmp_path: Path
) -> None:
    home = Home(isolated_home)
    config = tmp_path / "detectors.yaml"
    config.write_text("quiet_period_s: 0.5\n")
    store = AlertStore(home.state_url)
    hook = Webhook()
    stream = open_stream(home, stream_url, prefix=prefix)
    first, second = traces(0, 20), traces(20, 20)
    worker = start_worker(isolated_home, stream_url, prefix, hook.url, config)
    try:
        stream.publish_rows(first, builds=["prod"] * len(first), day=DAY)
        wait_for(lambda: len(store.list_alerts()) >= 3, timeout_s=60)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=10)
        stored_at_kill = {a.alert_id for a in store.list_alerts()}
        stream.publish_rows(second, builds=["prod"] * len(second), day=DAY)
        stream.publish_rows(first, builds=["prod"] * len(first), day=DAY)  # a sender's retry
        worker = start_worker(isolated_home, stream_url, prefix, hook.url, config)
        expected = replayed(first + second, "prod")
        try:
            wait_for(lambda: {a.alert_id for a in store.list_alerts()} == expected, timeout_s=60)
        except AssertionError:
            stored = {a.alert_id: a for a in store.list_alerts()}
            extra = sorted((a.detector, a.trace_id) for i, a in stored.items() if i not in expected)
            raise AssertionError(
                f"{len(expected - set(stored))} expected alerts missing; extra: {extra}"
            ) from None
        wait_for(lambda: set(hook.ids()) == expected, timeout_s=30)
        time.sleep(2.5)  # past the ack wait: a redelivery would raise a duplicate now
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=30)
        stream.close()
        hook.close()
    assert len(stored_at_kill) < len(expected)
    assert len(store.list_alerts()) == len(expected)
    assert set(hook.ids()) == expected
    # The one repeat the outbox allows: an alert whose POST was answered 2xx just before the
    # kill, not yet marked delivered; it is posted again with the same Idempotency-Key.
    repeated = Counter(hook.ids()) - Counter(expected)
    assert set(repeated) <= stored_at_kill and all(n == 1 for n in repeated.values())
    detectors = sorted({a.detector for a in store.list_alerts()})
    assert detectors == ["claimed_action@1", "tool_error@2"]
