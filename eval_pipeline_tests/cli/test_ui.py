"""``eval-pipeline ui --host H --port P``: the Dagster UI of the home, on the address asked for.

Contract: the command execs ``dagster dev`` bound to ``--host`` and ``--port`` (loopback and
3000 by default), with ``DAGSTER_HOME`` prepared inside the eval-pipeline home; the webserver
answers ``/server_info`` there and loads this project's definitions.
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from eval_pipeline_tests.realtime.receiver.nats_process import free_port

CLI = [sys.executable, "-c", "from eval_pipeline.cli import main; main()"]


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as reply:
            return bytes(reply.read())
    except OSError:
        return None


def test_ui_serves_the_home_on_the_host_and_port_asked_for(tmp_path: Path) -> None:
    port = free_port()
    home = tmp_path / "home"
    env = os.environ | {
        "EVAL_PIPELINE_HOME": str(home),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    log = (tmp_path / "ui.log").open("wb")
    ui = subprocess.Popen(
        [*CLI, "ui", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=log,
        start_new_session=True,
    )
    try:
        info = None
        deadline = time.monotonic() + 120
        while info is None and time.monotonic() < deadline and ui.poll() is None:
            info = _get(f"http://127.0.0.1:{port}/server_info")
            time.sleep(0.5)
        assert info is not None, (tmp_path / "ui.log").read_text()
        assert "dagster_webserver_version" in json.loads(info)
        assert (home / "dagster" / "dagster.yaml").exists()  # DAGSTER_HOME inside the home
    finally:
        os.killpg(ui.pid, signal.SIGTERM)
        ui.wait(timeout=60)
