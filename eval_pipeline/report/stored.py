"""Where a build's gate report and its pictures live in the home, and reading them back.

The gate stage writes ``<home>/store/gates/<build>.json``; the gate asset's plots sit beside
it as ``<build>.<plot>.png`` (``forest``, ``distributions``, ``calibration``).
"""

import json
from pathlib import Path
from typing import Any

from eval_pipeline.home import Home


class GateReportNotFoundError(FileNotFoundError):
    """The build has no stored gate report (it was never gated in this home)."""


def gate_report_path(home: Home, build: str) -> Path:
    """The stored gate report of ``build``."""
    return home.store / "gates" / f"{build}.json"


def plot_path(home: Home, build: str, plot: str) -> Path:
    """The ``plot`` PNG of ``build`` (``forest``, ``distributions``, ``calibration``)."""
    return home.store / "gates" / f"{build}.{plot}.png"


def load_gate_report(home: Home, build: str) -> dict[str, Any]:
    """The stored gate report's JSON.

    Raises:
        GateReportNotFoundError: the build was not gated in this home (the message names the
            file looked for and how to make it).
    """
    path = gate_report_path(home, build)
    if not path.is_file():
        raise GateReportNotFoundError(
            f"{path}: no gate report for build {build!r} "
            f"(run `eval-pipeline gate --candidate {build} ...` or materialise its gate)"
        )
    data: dict[str, Any] = json.loads(path.read_text())
    return data
