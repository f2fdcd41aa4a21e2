"""Which pins of ``requirements.lock`` install on other Python versions, and how.

For each pin and each version asked (default 3.12 and 3.13) pip resolves the pin alone for
that interpreter (``--dry-run``, nothing installed): ``wheel`` when a binary wheel serves it,
``sdist`` when only a source distribution does (then it must build without a compiler for the
product to stay installable anywhere: say so in review), ``none`` when nothing does. Reaches
the package index; not part of CI's default run (about 8 minutes for the whole lock).

    python .ci/lock_pythons.py [3.12 3.13 ...]
"""

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

LOCK = Path(__file__).resolve().parents[1] / "requirements.lock"


def _resolves(pin: str, version: str, binary_only: bool) -> bool:
    command = [
        sys.executable, "-m", "pip", "install", "-q", "--dry-run", "--no-deps",
        "--ignore-installed", "--target", f"/tmp/lock-pythons-{version}",
        "--python-version", version, pin,
    ]  # fmt: skip
    command += ["--only-binary=:all:"] if binary_only else ["--no-binary=:all:"]
    return subprocess.run(command, capture_output=True).returncode == 0


def _how(pin: str, version: str) -> str:
    if _resolves(pin, version, binary_only=True):
        return "wheel"
    return "sdist" if _resolves(pin, version, binary_only=False) else "none"


def main() -> int:
    """Print one line per pin that is not served by a wheel on every version; exit 1 on none."""
    versions = sys.argv[1:] or ["3.12", "3.13"]
    pins = [
        line.split("#", 1)[0].strip()
        for line in LOCK.read_text().splitlines()
        if "==" in line.split("#", 1)[0]
    ]
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(lambda pin: [_how(pin, v) for v in versions], pins))
    missing = 0
    for pin, hows in zip(pins, found, strict=True):
        if any(how != "wheel" for how in hows):
            print(pin, *(f"{v}:{how}" for v, how in zip(versions, hows, strict=True)))
            missing += "none" in hows
    served = sum(all(how == "wheel" for how in hows) for hows in found)
    print(f"{len(pins)} pins, {served} with a wheel on {', '.join(versions)}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
