"""The image builds from deploy/Containerfile and runs: healthy, authenticated, storing spans.

Marked slow (a cold build installs the whole lock: about 7 minutes here) and opt-in: it runs
only with ``EVAL_PIPELINE_IMAGE_TEST=1`` and podman installed (a container runtime depends on the
host's cgroups and kernel, which a CI runner need not allow). The base is a Debian root file
system made by mmdebstrap (no container registry is reachable here; deploy/README.md), imported
once as BASE and reused. Loopback only: the container's port is published on 127.0.0.1.
"""

import asyncio
import json
import os
import resource
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import nats
import pytest

from eval_pipeline_tests.conftest import DATA_DIR, REPO_ROOT
from eval_pipeline_tests.deploy.chart import only, render
from eval_pipeline_tests.realtime.receiver.nats_process import NatsProcess, free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1800),
    pytest.mark.skipif(
        os.environ.get("EVAL_PIPELINE_IMAGE_TEST") != "1",
        reason="the image test is opt-in: EVAL_PIPELINE_IMAGE_TEST=1 (deploy/README.md)",
    ),
    pytest.mark.skipif(shutil.which("podman") is None, reason="podman is not installed"),
]
BASE = "localhost/debian-python:3.11-bookworm"
IMAGE = "localhost/eval-pipeline:test"
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
TRACE = DATA_DIR / "otel" / "synthetic" / "openinference_support_session.otlp.json"


def podman(*args: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess:
    """Run podman, with runc (crun refuses hybrid cgroups) when it is installed."""
    runtime = ["--runtime", "runc"] if shutil.which("runc") else []
    return subprocess.run(
        ["podman", *runtime, *args], capture_output=True, text=True, timeout=timeout, check=check
    )


def ulimits() -> list[str]:
    """Limits no higher than this process's (podman's defaults exceed what may be raised)."""
    nofile = min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 4096)
    return ["--ulimit", f"nofile={nofile}:{nofile}", "--ulimit", "nproc=4096:4096"]


def ensure_base(tmp: Path) -> None:
    """Import BASE from an mmdebstrap root file system unless it is there already."""
    if podman("image", "exists", BASE, check=False).returncode == 0:
        return
    if shutil.which("mmdebstrap") is None:
        pytest.skip(f"no {BASE} and no mmdebstrap to make it")
    rootfs = tmp / "rootfs.tar"
    subprocess.run(
        [
            "mmdebstrap",
            "--variant=minbase",
            "--include=python3.11,python3.11-venv,python3-venv,ca-certificates",
            "--format=tar",
            "bookworm",
            str(rootfs),
        ],
        check=True,
        capture_output=True,
        timeout=900,
    )
    podman("import", "--change", 'CMD ["python3"]', str(rootfs), BASE, timeout=300)


@pytest.fixture
def image(tmp_path_factory: pytest.TempPathFactory) -> str:
    ensure_base(tmp_path_factory.mktemp("base"))
    secret = ["--secret", f"id=pip-ca,src={CA_BUNDLE}"] if CA_BUNDLE.exists() else []
    podman(
        "build",
        "--format=docker",
        "--network=host",
        *ulimits(),
        *secret,
        f"--build-arg=BASE_IMAGE={BASE}",
        "-f",
        str(REPO_ROOT / "deploy" / "Containerfile"),
        "-t",
        IMAGE,
        str(REPO_ROOT),
        timeout=1500,
    )
    return IMAGE


@pytest.fixture
def receiver(image: str) -> Iterator[tuple[str, str, str]]:
    token = secrets.token_hex(24)
    port = free_port()
    name = f"eval-pipeline-test-{port}"
    podman(
        "run", "-d", "--name", name, *ulimits(), "-p", f"127.0.0.1:{port}:4318",
        "-e", f"EVAL_PIPELINE_RECEIVER_TOKEN={token}", image,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, name)
        yield name, url, token
    finally:
        podman("rm", "-f", "-t", "10", name, check=False)


def wait_healthy(url: str, name: str) -> None:
    """Until ``url``/healthz answers 200 (the container's logs in the failure)."""
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, podman("logs", name, check=False).stderr
        time.sleep(1)


async def stream_drained(url: str) -> bool:
    """Whether the span stream holds messages and every consumer has taken and acked them."""
    connection = await nats.connect(url)
    try:
        manager = connection.jsm()
        streams = await manager.streams_info()
        consumers = [c for s in streams for c in await manager.consumers_info(s.config.name)]
        held = sum(s.state.messages for s in streams)
        return (
            held > 0
            and bool(consumers)
            and all(c.num_pending == 0 and c.num_ack_pending == 0 for c in consumers)
        )
    finally:
        await connection.close()


def run_chart_topology(image: str, tmp: Path) -> None:
    """The chart's receiver and detector containers, as it renders them, on a private NATS.

    Read-only root file system, a tmpfs /tmp and a volume home, like the chart's pods; the
    arguments are the rendered Deployments'. A request to the receiver reaches the detectors
    through JetStream.
    """
    stream = NatsProcess(tmp / "nats")
    stream.start()
    http, grpc = free_port(), free_port()
    values = {
        "stream": {"url": stream.url},
        "receiver": {"service": {"httpPort": http, "grpcPort": grpc}},
    }
    objects = render(values)
    pods = {
        role: only(objects, "Deployment", role)["spec"]["template"]["spec"]["containers"][0]
        for role in ("receiver", "detectors")
    }
    token = secrets.token_hex(24)
    volume = f"eval-pipeline-test-{http}"
    names = {role: f"{volume}-{role}" for role in pods}
    podman("volume", "create", volume)
    try:
        for role, pod in pods.items():
            podman(
                "run", "-d", "--name", names[role], "--read-only", "--tmpfs", "/tmp",
                "--user", "10001:10001", "-v", f"{volume}:/var/lib/eval-pipeline",
                "--network=host", *ulimits(), "-e", f"EVAL_PIPELINE_RECEIVER_TOKEN={token}",
                image, *pod["args"],
            )  # fmt: skip
        url = f"http://127.0.0.1:{http}"
        wait_healthy(url, names["receiver"])
        assert httpx.get(f"{url}/readyz", timeout=5).status_code == 200
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        answer = httpx.post(f"{url}/v1/traces", content=TRACE.read_bytes(), headers=headers)
        assert answer.status_code == 200, answer.text
        deadline = time.monotonic() + 60
        while not asyncio.run(stream_drained(stream.url)):
            assert time.monotonic() < deadline, podman("logs", names["detectors"]).stderr
            time.sleep(1)
        podman("stop", "-t", "30", names["detectors"])
        logs = podman("logs", names["detectors"]).stderr
        assert "detectors stopped: 7 spans, 2 traces" in logs, logs
    finally:
        for name in names.values():
            podman("rm", "-f", "-t", "10", name, check=False)
        podman("volume", "rm", "-f", volume, check=False)
        stream.stop()


def test_image_serves_stores_and_reports_healthy(
    receiver: tuple[str, str, str], image: str, tmp_path: Path
) -> None:
    name, url, token = receiver
    assert podman("exec", name, "id", "-u").stdout.strip() == "10001"
    assert podman("healthcheck", "run", name, check=False).returncode == 0
    body = TRACE.read_bytes()
    headers = {"Content-Type": "application/json"}
    assert httpx.post(f"{url}/v1/traces", content=body, headers=headers).status_code == 401
    headers["Authorization"] = f"Bearer {token}"
    assert httpx.post(f"{url}/v1/traces", content=body, headers=headers).status_code == 200
    listed = podman("exec", name, "eval-pipeline", "traces", "list", "--format", "json")
    runs = json.loads(listed.stdout)
    assert len(runs) == 2
    started = time.monotonic()
    podman("stop", "-t", "30", name)
    assert time.monotonic() - started < 20  # SIGTERM ends serve, not the 30 s kill
    # Dagster's chart and run launcher pass `dagster ...` as the container's args: the code
    # location's module loads in the image, off the network.
    done = podman(
        "run", "--rm", "--network=none", *ulimits(), IMAGE,
        "dagster", "definitions", "validate", "-m", "eval_pipeline.definitions",
        timeout=300,
    )  # fmt: skip
    assert "All code locations passed validation" in done.stdout + done.stderr
    # The chart's pods: receiver and detectors containers over JetStream.
    run_chart_topology(image, tmp_path)
