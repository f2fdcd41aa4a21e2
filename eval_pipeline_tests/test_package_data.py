"""Package data resolves through ``importlib.resources``, and a missing resource is a clear error.

Every runtime data file (suites, datasets, calibration labels, the Dagster instance template, the
bench-score fixture) lives inside the package and is found with ``package_path``, so an
installed wheel finds the same files a clone does; none is read from the repository's ``data/``.
"""

from pathlib import Path

import pytest

from eval_pipeline.package_data import PackageDataError, package_path

REPO = Path(__file__).resolve().parents[1]


def test_a_shipped_folder_and_file_resolve_to_real_paths_inside_the_package() -> None:
    suites = package_path("eval_pipeline.suites", "shipped")
    assert suites.is_dir()
    suite = package_path("eval_pipeline.suites", "shipped", "support-agent.yaml")
    assert suite.is_file()
    assert suite.read_text(encoding="utf-8").startswith("#")
    assert (REPO / "eval_pipeline") in suite.parents


def test_a_missing_resource_names_the_package_and_the_path() -> None:
    with pytest.raises(PackageDataError, match=r"eval_pipeline\.suites: shipped/nope\.yaml"):
        package_path("eval_pipeline.suites", "shipped", "nope.yaml")


def test_an_unknown_package_is_the_same_clear_error() -> None:
    with pytest.raises(PackageDataError, match=r"eval_pipeline\.no_such_package"):
        package_path("eval_pipeline.no_such_package", "x.yaml")


def test_no_runtime_module_reads_the_repository_data_folder() -> None:
    offenders = [
        f"{path.relative_to(REPO)}:{n}"
        for path in sorted((REPO / "eval_pipeline").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "parents[" in line
    ]
    assert offenders == []
