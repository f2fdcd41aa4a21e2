"""A real Phoenix server for the tests: its own virtual environment, started on loopback.

``arize-phoenix`` lives in ``.venv-phoenix`` (pins: ``requirements-phoenix.lock``), apart from
the project's environment so its pins never touch ours. ``make phoenix-venv`` (part of ``make
test``) builds it; when it is missing the fixture builds it the same way (a few minutes; the
venv is kept and reused while the lock is unchanged) and skips, with the reason, only if that
install fails. The server runs with telemetry and external resources off, a fresh working
folder (SQLite) and free ports, and is stopped by its own process id.
"""

import hashlib
import os
import socket
import subprocess

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-phoenix"
LOCK = ROOT / "requirements-phoenix.lock"
STAMP = VENV / ".installed"
START_TIMEOUT_S = 180.0


def _lock_hash() -> str:
    return hashlib.sha256(LOCK.read_bytes()).hexdigest()


def ensure_venv() -> Path:
    """The Phoenix executable, installing the venv from the lock when it is not current."""
    phoenix = VENV / "bin" / "phoenix"
    if phoenix.exists() and STAMP.exists() and STAMP.read_text() == _lock_hash():
        return phoenix
    python = os.environ.get("PHOENIX_PYTHON", "python3.11")
    try:
        if not (VENV / "bin" / "python").exists():
            subprocess.run([python, "-m", "venv", str(VENV)], check=True, capture_output=True)
        subprocess.run(
            [str(VENV / "bin" / "pip"), "install", "-q", "-r", str(LOCK)],
            check=True,
            capture_output=True,
            timeout=1800,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        pytest.skip(f"cannot create the Phoenix venv ({VENV}): {exc} {detail[-300:]!r}")
    STAMP.write_text(_lock_hash())
    return phoenix


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def phoenix_server(workdir: Path) -> Iterator[str]:
    """A running Phoenix server's base URL (stopped on exit)."""
    phoenix = ensure_venv()
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
                raise RuntimeError(f"Phoenix exited: {(workdir / 'phoenix.log').read_text()[-2000:]}")
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



