"""The image builds from deploy/Containerfile and runs: healthy, authenticated, storing spans.

Marked slow (a cold build installs the whole lock: about 7 minutes here) and skipped without
podman. The base is a Debian root file system made by mmdebstrap (no container registry is
reachable here; deploy/README.md), imported once as BASE and reused. Loopback only: the
container's port is published on 127.0.0.1.
"""

import json
import resource
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from eval_pipeline_tests.conftest import DATA_DIR, REPO_ROOT
from eval_pipeline_tests.realtime.receiver.nats_process import free_port

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1800),
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
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, podman("logs", name, check=False).stderr
            time.sleep(1)
        yield name, url, token
    finally:
        podman("rm", "-f", "-t", "10", name, check=False)


def test_image_serves_stores_and_reports_healthy(receiver: tuple[str, str, str]) -> None:
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
