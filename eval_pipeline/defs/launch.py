"""Run the asset graph in-process on the home's Dagster instance (the demo and the CLI use it)."""

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg

from eval_pipeline.defs.jobs import build_run_selection
from eval_pipeline.defs.partitions import builds_partitions
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.evaluation.stages import load_stage
from eval_pipeline.home import Home
from eval_pipeline.package_data import package_path


def prepare_dagster_home(home: Home) -> Path:
    """Make ``<home>/dagster`` a Dagster home and return it.

    A home without a ``dagster.yaml`` gets the packaged instance template
    (``defs/dagster_instance.yaml``: SQLite storage under the home, telemetry off); one the
    user already has is left alone.
    """
    target = home.ensure().dagster
    config = target / "dagster.yaml"
    if not config.exists():
        shutil.copyfile(package_path("eval_pipeline.defs", "dagster_instance.yaml"), config)
    return target


@contextmanager
def local_instance(home: Home) -> Iterator[dg.DagsterInstance]:
    """The persistent Dagster instance under the home (what ``dagster dev`` shows)."""
    dagster_home = prepare_dagster_home(home)
    previous = os.environ.get("DAGSTER_HOME")
    os.environ["DAGSTER_HOME"] = str(dagster_home)
    try:
        with dg.DagsterInstance.get() as instance:
            yield instance
    finally:
        if previous is None:
            os.environ.pop("DAGSTER_HOME", None)
        else:
            os.environ["DAGSTER_HOME"] = previous


def quiet_run_config(log_level: str = "CRITICAL") -> dict[str, object]:
    """In-process run config with Dagster's console logger at ``log_level``.

    The demo reports each build itself; at the default DEBUG level every step (and every
    expected gate-check failure of a seeded defect, with its traceback) would be printed.
    """
    return {
        "execution": {"config": {"in_process": {}}},
        "loggers": {"console": {"config": {"log_level": log_level}}},
    }


def evaluate_build(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    build: str,
    *,
    raise_on_error: bool = False,
    run_config: dict[str, object] | None = None,
) -> dg.ExecuteInProcessResult:
    """Add ``build``'s partition if needed and materialise the evaluation job for it in-process.

    Only the gate asset of the build's own suite is materialised (``build_run_selection``).
    """
    name = str(builds_partitions.name)
    if not instance.has_dynamic_partition(name, build):
        instance.add_dynamic_partitions(name, [build])
    job = defs.resolve_job_def("build_evaluation_job")
    resource = (defs.resources or {}).get("eval_home")
    home = resource.home() if isinstance(resource, EvalHomeResource) else EvalHomeResource().home()
    return job.execute_in_process(
        instance=instance,
        partition_key=build,
        asset_selection=build_run_selection(load_stage(home, build).suite.suite),
        raise_on_error=raise_on_error,
        run_config=run_config,
    )
