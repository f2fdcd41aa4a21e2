"""A NATS JetStream server of the test's own (not the system's), to stop and start at will."""

import shutil
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class NatsProcess:
    """``nats-server -js`` on a free loopback port, its storage in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The ``nats://`` URL."""
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        binary = shutil.which("nats-server") or "/usr/sbin/nats-server"
        self._process = subprocess.Popen(
            [binary, "-a", "127.0.0.1", "-p", str(self.port), "-js", "-sd", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nats-server did not start")

    def stop(self) -> None:
        """Stop the server (its stored streams stay in ``folder``)."""
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=20)
            self._process = None
