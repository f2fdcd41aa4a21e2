"""The real-time plane beside the receiver, in a process of its own (what ``serve`` runs).

Detector workers in the receiver's process competed with ingestion for one interpreter lock:
every span they decoded and judged delayed an acknowledgement. ``PlaneProcess`` runs
``eval-pipeline detectors run`` as a child of the receiver on the same home and stream, its
output (alerts as JSON lines, its stop line) on the receiver's. The kernel stops the child
when the receiver dies, even by SIGKILL; ``stop`` ends it with SIGTERM, so the workers stop
after their batch and unacknowledged events are redelivered to the next one.
"""

import ctypes
import ctypes.util
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

_PR_SET_PDEATHSIG = 1
CLI = [sys.executable, "-c", "from eval_pipeline.cli import main; main()"]


def _die_with_parent() -> None:
    """In the child before it runs: SIGTERM when the receiver's thread that started it dies."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class PlaneProcess:
    """A running ``detectors run`` child."""

    process: "subprocess.Popen[bytes]"

    @classmethod
    def start(
        cls,
        *,
        stream_url: str | None,
        webhook: str | None,
        workers: int,
        config: Path | None,
        session_idle_s: float | None = None,
    ) -> "PlaneProcess":
        """Start the plane on the home of ``$EVAL_PIPELINE_HOME`` (inherited) and ``stream_url``."""
        command = [*CLI, "detectors", "run", "--workers", str(workers)]
        if stream_url is not None:
            command += ["--stream", stream_url]
        if webhook is not None:
            command += ["--webhook", webhook]
        if config is not None:
            command += ["--config", str(config)]
        if session_idle_s is not None:
            command += ["--session-idle-s", repr(float(session_idle_s))]
        return cls(subprocess.Popen(command, preexec_fn=_die_with_parent))

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self.process.pid

    def stop(self, timeout_s: float = 30.0) -> None:
        """SIGTERM, then wait (SIGKILL after ``timeout_s``: redelivery covers what it held)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
