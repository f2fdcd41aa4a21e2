"""``demo --loop``, its live half: real traffic through the real receiver, alerts, a thumbs-down.

The sample agent's production-like requests go as OTLP to the real ``serve`` process (its own
subprocess, loopback, a production token, detectors on the embedded stream); the real-time
plane stores alerts for the requests naming orders that do not exist; a user's thumbs-down
arrives through ``POST /v1/feedback``. ``demo_loop`` runs this half, then the batch half
(Dagster, review, gate) on what it left in the home.
"""

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

import eval_pipeline
from eval_pipeline.home import Home

TOKEN = "demo-loop-production-token"
AVA = "Hi, I'm Ava Nguyen. Please return everything from order #W8668939 to my card."
EMMA = (
    "Hi, I'm Emma Smith. "
    "Please return everything from order #W5605613 to my original payment method."
)
TYPOS = (  # orders that do not exist: the lookup tool fails, the tool_error detector flags
    "Hi, I'm Ava Nguyen. Please return everything from order #W0000001 to my card.",
    "Hi, I'm Emma Smith. Please cancel order #W0000002, I ordered it by mistake.",
)
TRAFFIC = (AVA, EMMA, *TYPOS)
"""Production-like requests to the deployed (baseline) agent; the first gets the thumbs-down."""


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_serve(
    home: Home, work: Path, webhook: str | None
) -> tuple["subprocess.Popen[bytes]", int]:
    """The real ``serve`` on a free loopback port with detectors, once ``/healthz`` answers."""
    tokens = work / "tokens"
    tokens.write_text(f"{TOKEN} production\n")
    port = _free_port()
    command = [sys.executable, "-c", "from eval_pipeline.cli import main; main()", "serve"]
    command += ["--port", str(port), "--no-grpc", "--token-file", str(tokens), "--detect"]
    command += ["--redaction-policy", "keep-tools", "--ingest-threads"]
    command += ["--alert-webhook", webhook] if webhook else []
    # serve imports this same package: the folder holding it goes first on its path
    tree = str(Path(eval_pipeline.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (tree, os.environ.get("PYTHONPATH")) if p)
    env = os.environ | {"EVAL_PIPELINE_HOME": str(home.root), "PYTHONPATH": path}
    log = (work / "serve.log").open("wb")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return server, port
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError(f"serve did not start: see {work / 'serve.log'}")


def send_traffic(port: int) -> list[str]:
    """Live sample-agent runs (no eval context) posted as OTLP/protobuf; their trace ids."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from eval_pipeline.datasets.item import DatasetItem
    from eval_pipeline.runners.otlp_spans import encode_readable
    from eval_pipeline.sample_agent.app import run_support_agent
    from eval_pipeline.traces.model import EvalContext

    trace_ids = []
    for seed, text in enumerate(TRAFFIC, 3):
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        item = DatasetItem("live", input_messages=({"role": "user", "content": text},))
        run_support_agent(
            item,
            build="production",
            seed=seed,
            tracer=provider.get_tracer("support-agent"),
            context=EvalContext(),
            params={"agent_build": "baseline"},
        )
        spans = exporter.get_finished_spans()
        response = httpx.post(
            f"http://127.0.0.1:{port}/v1/traces",
            content=encode_readable(spans),
            headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {TOKEN}"},
            timeout=30,
        )
        response.raise_for_status()
        trace_ids.append(format(spans[0].context.trace_id, "032x"))
    return trace_ids


def wait_for_alerts(
    home: Home, trace_ids: list[str], timeout_s: float = 30.0
) -> dict[str, list[str]]:
    """The stored alerts' detectors per trace, once every mistyped-order trace has one."""
    from eval_pipeline.realtime.alerts.store import AlertStore

    store = AlertStore(home.state_url)
    wanted = set(trace_ids[-len(TYPOS) :])
    deadline = time.monotonic() + timeout_s
    while True:
        flagged: dict[str, list[str]] = {}
        for alert in store.list_alerts(build="production"):
            if alert.trace_id in trace_ids:
                flagged.setdefault(alert.trace_id, []).append(alert.detector)
        if wanted <= set(flagged) or time.monotonic() > deadline:
            return flagged
        time.sleep(0.25)


def post_thumbs_down(port: int, trace_id: str) -> dict[str, Any]:
    """A user's thumbs-down through the receiver's ``POST /v1/feedback``."""
    body = {"trace_id": trace_id, "rating": "down", "note": "refund went to the wrong card"}
    body |= {"user_id": "ava.nguyen2868@example.com", "session_id": "s-1"}
    response = httpx.post(
        f"http://127.0.0.1:{port}/v1/feedback",
        json=body,
        headers={"authorization": f"Bearer {TOKEN}"},
        timeout=30,
    )
    response.raise_for_status()
    return dict(response.json())
