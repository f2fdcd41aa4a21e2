"""Data files shipped inside the package, found through ``importlib.resources``.

Suites, datasets, calibration labels, the Dagster instance template and benchmark fixtures live
next to the code that reads them, so a clone, an editable install and an installed wheel find
the same files; nothing is read relative to the repository. Readers get a real filesystem path
(they glob folders, copy files, hand paths to pandas), which holds for every unzipped install.
"""

from importlib.resources import files
from pathlib import Path


class PackageDataError(FileNotFoundError):
    """A data file the package should ship is missing: a broken install or a wrong name."""


def package_path(package: str, *parts: str) -> Path:
    """The filesystem path of ``parts`` (a file or folder) inside the importable ``package``.

    Raises:
        PackageDataError: the package cannot be imported, the resource does not exist, or the
            package is not installed on the filesystem (a zip import).
    """
    where = f"{package}: {'/'.join(parts)}"
    try:
        resource = files(package)
    except ModuleNotFoundError as exc:
        raise PackageDataError(f"package data {where}: no such package ({exc})") from exc
    for part in parts:
        resource = resource / part
    if not isinstance(resource, Path):
        raise PackageDataError(
            f"package data {where}: the package is not on the filesystem ({resource}); "
            "install eval-pipeline unzipped (pip does)"
        )
    if not resource.exists():
        raise PackageDataError(
            f"package data {where} is missing (looked at {resource}); "
            "the installation is incomplete: reinstall eval-pipeline"
        )
    return resource
