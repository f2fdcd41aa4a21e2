"""``eval-pipeline serve`` as a process of its own, for tests that need the real command."""

import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx

from eval_pipeline_tests.realtime.receiver.nats_process import free_port

CLI = [sys.executable, "-c", "from eval_pipeline.cli import main; main()"]
"""The command line of the CLI, importing this tree (``PYTHONPATH`` set by ``start_serve``)."""


def start_serve(
    args: Sequence[str], log_path: Path, *, env: Mapping[str, str] | None = None
) -> tuple["subprocess.Popen[bytes]", int]:
    """``serve --port P ARGS...`` on a free port, once ``/healthz`` answers (60 s at most).

    Output goes to ``log_path`` (read it in assertion messages); ``env`` adds variables. The
    caller stops the process (``terminate`` or a signal of its choosing).
    """
    port = free_port()
    environ = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    log = log_path.open("wb")
    command = [*CLI, "serve", "--port", str(port), *args]
    server = subprocess.Popen(command, env=environ | dict(env or {}), stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    return server, port
