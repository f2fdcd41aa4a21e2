"""Find a suite file from what a user typed: a path, or a name shipped in ``data/suites/``."""

from pathlib import Path

SHIPPED_SUITES = Path(__file__).resolve().parents[2] / "data" / "suites"


class SuiteNotFoundError(FileNotFoundError):
    """No suite file matches the reference; the message lists where it looked."""


def locate_suite(reference: str | Path) -> Path:
    """Resolve ``reference`` (a YAML path, or a suite name like ``support-agent``) to a file."""
    candidate = Path(reference)
    if candidate.is_file():
        return candidate.resolve()
    looked = [str(candidate)]
    for name in (f"{reference}.yaml", f"{reference}.yml"):
        shipped = SHIPPED_SUITES / name
        looked.append(str(shipped))
        if shipped.is_file():
            return shipped
    raise SuiteNotFoundError(f"suite {str(reference)!r} not found (looked at: {', '.join(looked)})")
