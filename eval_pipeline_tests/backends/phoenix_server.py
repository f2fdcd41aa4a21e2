"""A real Phoenix server for the tests: its own virtual environment, started on loopback.

``arize-phoenix`` lives in ``.venv-phoenix`` (``side_venv``). The server runs with telemetry and
external resources off, a fresh working folder (SQLite) and free ports, and is stopped by its
own process id.
"""

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from eval_pipeline_tests.backends.side_venv import ensure_venv

START_TIMEOUT_S = 180.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def phoenix_server(workdir: Path) -> Iterator[str]:
    """A running Phoenix server's base URL (stopped on exit)."""
    phoenix = ensure_venv("phoenix") / "phoenix"
    port, grpc_port = _free_port(), _free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(workdir),
        "PHOENIX_WORKING_DIR": str(workdir),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        "DO_NOT_TRACK": "1",
    }
    log = (workdir / "phoenix.log").open("wb")
    process = subprocess.Popen([str(phoenix), "serve"], env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise RuntimeError(
                    f"Phoenix exited: {(workdir / 'phoenix.log').read_text()[-2000:]}"
                )
            try:
                if httpx.get(f"{url}/v1/projects", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"Phoenix did not answer on {url} in {START_TIMEOUT_S} s")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
