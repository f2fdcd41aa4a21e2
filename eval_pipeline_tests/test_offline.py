"""Telemetry is off in code, for every entry point: importing the package is enough.

Contract: importing ``eval_pipeline`` sets every library's offline switch before those
libraries load (deepeval, ragas, dagster, Hugging Face, LangSmith), deepeval's cache stays out
of the working directory, and importing the heavy evaluation libraries afterwards attempts no
connection beyond loopback (the audit hook in conftest records every attempt).
"""

import os
import subprocess
import sys
from pathlib import Path

from eval_pipeline.offline import forced_switches


def test_every_switch_is_set_by_importing_the_package() -> None:
    import eval_pipeline  # noqa: F401

    for key, value in forced_switches().items():
        assert os.environ[key] == value, key
    assert os.environ["RAGAS_DO_NOT_TRACK"] == "true"  # ragas wants the string "true"
    assert os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] == "1"


def test_importing_the_evaluation_libraries_calls_nobody(tmp_path: Path) -> None:
    script = (
        "import sys, ipaddress\n"
        "seen = []\n"
        "def hook(event, args):\n"
        "    if event == 'socket.connect':\n"
        "        host = args[1][0] if isinstance(args[1], tuple) else str(args[1])\n"
        "        try:\n"
        "            local = ipaddress.ip_address(host).is_loopback\n"
        "        except ValueError:\n"
        "            local = host in ('localhost', '')\n"
        "        if not local: seen.append(host)\n"
        "    elif event == 'socket.getaddrinfo' and args[0] not in ('localhost', '127.0.0.1'):\n"
        "        seen.append(str(args[0]))\n"
        "sys.addaudithook(hook)\n"
        "import eval_pipeline\n"
        "import deepeval, ragas, great_expectations, dagster\n"
        "from deepeval.metrics import ToolCorrectnessMetric\n"
        "print('OUTBOUND', seen)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DEEPEVAL", "RAGAS"))}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert "OUTBOUND []" in done.stdout, done.stdout + done.stderr
    assert not (tmp_path / ".deepeval").exists()  # deepeval's cache is kept in the home
