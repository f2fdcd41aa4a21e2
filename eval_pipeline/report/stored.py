"""Where a build's gate report and its pictures live in the home, and reading them back.

The gate stage writes ``<home>/store/gates/<build>.json``; the gate asset's plots sit beside
it as ``<build>.<plot>.png`` (``forest``, ``distributions``, ``calibration``). ``<build>`` is
``build_file_name``'s safe form of the build name: a file named after a build never leaves its
folder, whatever the name (builds are named by trace data and files).
"""

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from eval_pipeline.home import Home


class GateReportNotFoundError(FileNotFoundError):
    """The build has no stored gate report (it was never gated in this home)."""


MAX_NAME_BYTES = 255
"""The longest file name the common file systems take (ext4, APFS, NTFS)."""


def build_file_name(build: str, suffix: str) -> str:
    r"""A file name for ``build`` ending in ``suffix``: one plain file in whatever folder.

    Build names come from trace data and files, so any text may be one (``../../x``). The
    name is percent-encoded as the store's build folders are (every character but letters,
    digits and ``_.-~``: ``/``, ``\``, ``%``, NUL...), a leading dot escaped too (no hidden
    file, no ``.``/``..``); ordinary names are unchanged. A name too long for a file system
    keeps its first characters and a digest of the whole. Distinct builds, distinct names.
    """
    name = quote(build, safe="")
    if name.startswith("."):
        name = "%2E" + name[1:]
    if len(name.encode()) + len(suffix.encode()) > MAX_NAME_BYTES:
        digest = hashlib.sha256(build.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        name = f"{name[:150]}~{digest}"
    return name + suffix


def gate_report_path(home: Home, build: str) -> Path:
    """The stored gate report of ``build``."""
    return home.store / "gates" / build_file_name(build, ".json")


def plot_path(home: Home, build: str, plot: str) -> Path:
    """The ``plot`` PNG of ``build`` (``forest``, ``distributions``, ``calibration``)."""
    return home.store / "gates" / build_file_name(build, f".{plot}.png")


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
