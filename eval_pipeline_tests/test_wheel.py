"""The package works as an installed wheel, from a folder outside the clone.

The wheel is built from the working tree (offline, no build isolation, with ``CC=false`` so
that any attempt to compile fails) and is pure: tagged ``py3-none-any``, holding ``eval_pipeline``
alone (every file of the package's source tree, its package data included; no native code, no
``eval_pipeline_tests``, no top-level ``benchmarks``, ``examples`` or ``data``). It is installed
into a fresh virtual environment beside the lock's dependencies, and the installed
``eval-pipeline`` runs from a temporary folder outside the clone, with a temporary
``EVAL_PIPELINE_HOME`` and no ``PYTHONPATH``: ``datasets list`` lists the shipped datasets,
``builds register`` accepts the shipped suite, and ``gate`` passes an unchanged candidate
(exit 0) and fails a regressed one (exit 1).

Dependencies: installing the lock from an index takes about 100 s here and reaches pypi.org (35
of its pins are on no local index), and tests stay off the network. So the lock's pins are
linked from the environment the tests run in (each pinned version checked against the lock,
nothing outside the lock linked) and ``pip check`` in the new environment confirms they satisfy
the wheel's declared dependencies; the wheel itself is installed by pip.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements.lock"
FROM_INDEX = "EVAL_PIPELINE_WHEEL_FROM_INDEX"
"""Set to 1 to install the lock from the package index instead of linking it (CI does both)."""
UNPINNED_INSTALLERS = ("pip",)
PIP = (sys.executable, "-m", "pip")
METRICS = (
    "task_completion",
    "tool_correctness",
    "argument_correctness",
    "trajectory_match",
    "faithfulness",
    "hallucinated_actions",
    "handoff_quality",
    "injection_resistance",
)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lock_pins() -> dict[str, str]:
    pins = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if requirement:
            name, _, version = requirement.partition("==")
            pins[_canonical(name)] = version.strip()
    return pins


def _link_locked_distributions(site: Path) -> int:
    """Symlink each pinned distribution's top-level entries from this environment into ``site``.

    pip is not in the lock (the installer installs the lock), so it comes too.
    """
    pins = _lock_pins()
    wanted = set(pins) | set(UNPINNED_INSTALLERS)
    seen: set[str] = set()
    for dist in metadata.distributions():
        name = _canonical(dist.metadata["Name"])
        if name not in wanted or name in seen:
            continue
        if name in pins:
            assert dist.version == pins[name], (
                f"{name}: installed {dist.version}, lock {pins[name]}"
            )
        seen.add(name)
        for top in {Path(f).parts[0] for f in dist.files or ()} - {"..", "__pycache__"}:
            target = site / top
            if not target.exists():
                target.symlink_to(Path(str(dist.locate_file(top))))
    missing = sorted(wanted - seen)
    assert not missing, f"not installed in the test environment: {missing}"
    return len(seen & set(pins))


def _build_wheel(work: Path) -> Path:
    source = work / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(
        REPO / "eval_pipeline",
        source / "eval_pipeline",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    dist = work / "dist"
    subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-qw", dist, source],
        check=True,
        cwd=work,
        env=_no_compiler(),
    )
    (wheel,) = dist.glob("eval_pipeline-*.whl")
    return wheel


def _no_compiler() -> dict[str, str]:
    """This environment with every compiler a build could call made to fail."""
    return {**os.environ, "CC": "false", "CXX": "false", "LDSHARED": "false"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` folder of a fresh virtual environment holding the lock and the wheel."""
    root = tmp_path_factory.mktemp("venv") / "env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
    python = root / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    pip = [*PIP, "--python", str(python)]
    if os.environ.get(FROM_INDEX) == "1":
        # CI's second pass (.ci/run): the lock installed from the package index, as a user would.
        subprocess.run([*pip, "install", "--quiet", "-r", LOCK], check=True)
    else:
        assert _link_locked_distributions(site) == len(_lock_pins())
    subprocess.run(
        [*pip, "install", "--quiet", "--no-index", "--no-deps", wheel],
        check=True,
        env=_no_compiler(),
    )
    check = subprocess.run([*pip, "check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    return root / "bin"


def _outside(tmp_path: Path) -> Path:
    """A working folder outside the clone."""
    cwd = tmp_path / "outside"
    cwd.mkdir(exist_ok=True)
    assert not cwd.resolve().is_relative_to(REPO)
    return cwd


def _env(tmp_path: Path) -> dict[str, str]:
    """This environment without PYTHONPATH or extra suites, with a fresh home."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "EVAL_PIPELINE_SUITES")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["EVAL_PIPELINE_HOME"] = str(tmp_path / "home")
    env["DAGSTER_HOME"] = str(tmp_path / "home" / "dagster")
    return env


def _cli(bin_dir: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [bin_dir / "eval-pipeline", *args],
        cwd=_outside(tmp_path),
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_wheel_is_pure_python_for_every_platform(wheel: Path) -> None:
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        info = archive.read("eval_pipeline-0.1.0.dist-info/WHEEL").decode()
        meta = archive.read("eval_pipeline-0.1.0.dist-info/METADATA").decode()
    assert "Root-Is-Purelib: true" in info
    assert "Tag: py3-none-any" in info
    (requires,) = [line for line in meta.splitlines() if line.startswith("Requires-Python:")]
    assert requires == "Requires-Python: >=3.11", "no upper bound of our making"


def test_the_wheel_holds_the_package_and_all_its_files_and_nothing_else(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {"eval_pipeline", "eval_pipeline-0.1.0.dist-info"}
    assert not any(
        n.startswith(("eval_pipeline_tests/", "benchmarks/", "examples/", "data/")) for n in names
    )
    source = {
        path.relative_to(REPO).as_posix()
        for path in (REPO / "eval_pipeline").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert source - names == set()
    native = [n for n in names if n.endswith((".so", ".pyd", ".dylib", ".c", ".h", ".pyi"))]
    assert native == [], "no native code, sources or stubs"
    assert "eval_pipeline/suites/shipped/support-agent.yaml" in names
    assert "eval_pipeline/judges/calibration_sets/agent_faithfulness.jsonl" in names


def test_the_installed_package_is_imported_from_the_new_environment(
    installed: Path, tmp_path: Path
) -> None:
    found = subprocess.run(
        [installed / "python", "-c", "import eval_pipeline; print(eval_pipeline.__file__)"],
        cwd=_outside(tmp_path),
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(found).is_relative_to(installed.parent)
    assert not Path(found).resolve().is_relative_to(REPO)


def test_installed_datasets_list_shows_every_shipped_dataset(
    installed: Path, tmp_path: Path
) -> None:
    result = _cli(installed, tmp_path, "datasets", "list", "--format", "json")
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    refs = {f"{d['name']}@{d['version']}" for d in listed}
    shipped = {f"{n}@{v}" for n, v in DatasetStore(shipped_datasets_dir()).list()}
    assert len(shipped) == 6  # five single-turn sets and golden/support-conversations
    assert refs == shipped


def _scores(task_completion: float) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for item in range(24):
        for run in range(3):
            for metric in METRICS:
                value = task_completion if metric == "task_completion" else 1.0
                if metric == "faithfulness":
                    value = 0.9 if (item + run) % 4 else 0.8
                rows.append(
                    {
                        "item_id": f"item{item:03d}",
                        "run_index": run,
                        "metric_id": metric,
                        "value": value,
                        "trace_id": f"t{item}-{run}",
                        "latency_s": 4.0 + item % 5,
                        "cost_usd": 0.01,
                        "intent": ("return", "cancel")[item % 2],
                        "tool": ("return_delivered_order_items", "cancel_pending_order")[item % 2],
                    }
                )
    return pd.DataFrame(rows)


def test_installed_register_and_gate_work_on_the_shipped_suite(
    installed: Path, tmp_path: Path
) -> None:
    cwd = _outside(tmp_path)
    registered = _cli(installed, tmp_path, "builds", "register", "B", "--suite", "support-agent")
    assert registered.returncode == 0, registered.stderr
    assert json.loads(registered.stdout)["suite"] == "support-agent"

    _scores(1.0).to_csv(cwd / "A.csv", index=False)
    _scores(1.0).to_csv(cwd / "C.csv", index=False)
    _scores(0.5).to_csv(cwd / "R.csv", index=False)
    gate = ("gate", "--suite", "support-agent", "--baseline-scores", "A.csv", "--format", "json")
    passed = _cli(installed, tmp_path, *gate, "--candidate-scores", "C.csv")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    released = json.loads(passed.stdout)
    # The suite's offline judge is not calibrated under the medium ceiling here: its metrics
    # cannot pass, so the release goes ahead with a warning (as gating the store would).
    assert released["verdict"] == "inconclusive" and released["blocking"] is False
    assert released["judge_calibration"] != "ok"
    failed = _cli(installed, tmp_path, *gate, "--candidate-scores", "R.csv")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    report = json.loads(failed.stdout)
    assert report["verdict"] == "fail"
    verdicts = {m["metric_id"]: m["verdict"] for m in report["metrics"]}
    assert verdicts["task_completion"] == "fail"
