"""Virtual environments of their own for the real back ends the tests run (Phoenix, NAT).

Each lives beside the clone (``.venv-phoenix``, ``.venv-nat``), installed from its own frozen
lock (``requirements-phoenix.lock``, ``requirements-nat.lock``) so its pins never touch ours;
``make phoenix-venv`` / ``make nat-venv`` (part of ``make test``) build them. When one is missing
or older than its lock, ``ensure_venv`` builds it the same way (minutes; kept and reused while
the lock is unchanged) and skips the test, with the reason, only if that install fails.
"""

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def ensure_venv(name: str) -> Path:
    """The ``bin`` folder of ``.venv-<name>``, installed from ``requirements-<name>.lock``."""
    venv, lock = ROOT / f".venv-{name}", ROOT / f"requirements-{name}.lock"
    stamp = venv / ".installed"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return venv / "bin"
    python = os.environ.get("SIDE_VENV_PYTHON", "python3.11")
    try:
        if not (venv / "bin" / "python").exists():
            subprocess.run([python, "-m", "venv", str(venv)], check=True, capture_output=True)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "-r", str(lock)],
            check=True,
            capture_output=True,
            timeout=1800,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        pytest.skip(f"cannot create {venv} from {lock.name}: {exc} {detail[-300:]!r}")
    stamp.write_text(digest)
    return venv / "bin"
