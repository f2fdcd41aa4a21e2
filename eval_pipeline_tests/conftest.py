"""Shared test fixtures: an isolated embedded home per test, and a network audit.

Every test runs with ``EVAL_PIPELINE_HOME`` (and ``DAGSTER_HOME``) pointed at a temporary
folder, so no test touches the user's real home or the working directory's state. A
``sys.audit`` hook records every outbound socket connection to a non-loopback address; the
session fails if any happened (telemetry off is tested, not assumed).
"""

import ipaddress
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "data"

_OUTBOUND: list[str] = []


def _is_local(host: object) -> bool:
    if not isinstance(host, str):
        return True  # abstract socket addresses and the like
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.connect":
        if getattr(args[0], "family", None) == socket.AF_UNIX:
            return  # a path on this host (multiprocessing managers use these)
        address = args[1]
        host = address[0] if isinstance(address, tuple) and address else address
        if not _is_local(host):
            _OUTBOUND.append(f"connect {address!r}")
    elif event == "socket.getaddrinfo":
        host = args[0]
        if isinstance(host, bytes):
            host = host.decode(errors="replace")
        if not _is_local(host):
            _OUTBOUND.append(f"getaddrinfo {host!r}")


sys.addaudithook(_audit)


def outbound_attempts() -> list[str]:
    """Outbound (non-loopback) network attempts seen so far in this process."""
    return list(_OUTBOUND)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the embedded home (and DAGSTER_HOME) at a fresh temporary folder."""
    home = tmp_path / "eval_home"
    home.mkdir()
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(home))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster"))
    (home / "dagster").mkdir()
    monkeypatch.delenv("EVAL_PIPELINE_STATE_URL", raising=False)
    yield home


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if anything tried to reach the network beyond loopback."""
    if _OUTBOUND and os.environ.get("EVAL_PIPELINE_ALLOW_NETWORK") != "1":
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(
                "NETWORK AUDIT FAILED: outbound attempts: " + "; ".join(sorted(set(_OUTBOUND)))
            )
        session.exitstatus = 1
