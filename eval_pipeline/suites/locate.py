"""Find suite files: a path, or a name in the shipped suites or ``EVAL_PIPELINE_SUITES``.

The shipped suites are package data (``eval_pipeline/suites/shipped/``).

``EVAL_PIPELINE_SUITES`` (a ``os.pathsep``-separated list of folders, read when asked, never at
import) adds a team's own suites beside the shipped ones: they are found by name, and the
Dagster definitions create a gate check for each metric they gate.
"""

import os
from pathlib import Path

from eval_pipeline.package_data import package_path

SHIPPED_SUITES = package_path("eval_pipeline.suites", "shipped")
SUITES_ENV = "EVAL_PIPELINE_SUITES"


class SuiteNotFoundError(FileNotFoundError):
    """No suite file matches the reference; the message lists where it looked."""


def suite_dirs() -> tuple[Path, ...]:
    """Folders searched for suites: ``EVAL_PIPELINE_SUITES`` first, then the shipped ones."""
    extra = [Path(p) for p in os.environ.get(SUITES_ENV, "").split(os.pathsep) if p]
    return (*extra, SHIPPED_SUITES)


def suite_files() -> list[Path]:
    """Every suite file in the searched folders (a name found twice counts once, first wins)."""
    found: dict[str, Path] = {}
    for folder in suite_dirs():
        for path in sorted(folder.glob("*.y*ml")):
            found.setdefault(path.stem, path)
    return list(found.values())


def locate_suite(reference: str | Path) -> Path:
    """Resolve ``reference`` (a YAML path, or a suite name like ``support-agent``) to a file."""
    candidate = Path(reference)
    if candidate.is_file():
        return candidate.resolve()
    looked = [str(candidate)]
    for folder in suite_dirs():
        for name in (f"{reference}.yaml", f"{reference}.yml"):
            path = folder / name
            looked.append(str(path))
            if path.is_file():
                return path.resolve()
    raise SuiteNotFoundError(f"suite {str(reference)!r} not found (looked at: {', '.join(looked)})")
