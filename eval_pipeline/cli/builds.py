"""CLI: ``run`` (execute a build over a suite) and ``defects`` (seeded-defect validation).

``eval-pipeline run --suite S --build B`` runs the build over the suite's items x runs_per_item
with its runner (``--runner``, else the one registered for the build, else the sample agent's
build of that name), resuming runs already stored, and prints a JSON summary; failed runs are
stored with their reason and listed. ``eval-pipeline defects [--suite S] --format json`` runs
every seeded defect of the sample agent against its baseline through runner -> scoring ->
gate; exit 0 only when every defect fails on its targeted metric, the improved candidate
passes and the A/A control passes, 1 otherwise, 2 on bad input.
"""

import json
from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home

SAMPLE_RUNNER = "python:eval_pipeline.sample_agent.app:run_item?agent_build={build}"


def _runner_spec(build: str, explicit: str | None) -> str:
    if explicit:
        return explicit
    from eval_pipeline.builds import BuildRegistry

    record = BuildRegistry(current_home().ensure().state_url).get(build)
    if record is not None and record.runner:
        return record.runner
    from eval_pipeline.defects.story import sample_agent_builds

    baseline, candidate, defects, _ = sample_agent_builds()
    known = {b.build: b for b in (baseline, candidate, *defects)}
    if build in known:
        return SAMPLE_RUNNER.format(build=known[build].params["agent_build"])
    raise InputError(
        f"build {build}: no --runner given, none registered, and not a sample "
        f"agent build (known: {', '.join(sorted(known))})"
    )


def _suite_and_items(suite_ref: str, limit: int | None) -> tuple[Any, list[Any]]:
    from eval_pipeline.defects.story import load_sample_suite, suite_items
    from eval_pipeline.suites.config import SuiteError
    from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite

    try:
        suite, store = load_sample_suite(current_home(), locate_suite(suite_ref))
        return suite, suite_items(suite, store, limit=limit)
    except (SuiteNotFoundError, SuiteError, LookupError) as exc:
        raise InputError(f"suite {suite_ref}: {exc}") from exc


@click.command("run")
@click.option("--suite", "suite_ref", required=True, help="Suite YAML path or shipped name.")
@click.option("--build", required=True, help="Build id the runs are stored under.")
@click.option(
    "--runner",
    default=None,
    help="python:MODULE:FUNCTION[?k=v], http(s)://URL or replay:BUILD "
    "(default: the registered runner, else the sample agent's build).",
)
@click.option(
    "--runs-per-item",
    type=click.IntRange(min=1),
    default=None,
    help="Override the suite's runs_per_item.",
)
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0.1),
    default=60.0,
    show_default=True,
    help="Seconds before a run is abandoned as failed.",
)
@click.option(
    "--items",
    "limit",
    type=click.IntRange(min=1),
    default=None,
    help="Only the first N items of each dataset.",
)
@click.option("--retry-failed", is_flag=True, help="Redo runs stored as failed.")
def run(
    suite_ref: str,
    build: str,
    runner: str | None,
    runs_per_item: int | None,
    concurrency: int,
    timeout_s: float,
    limit: int | None,
    retry_failed: bool,
) -> None:
    """Run BUILD over the suite's items x runs_per_item and store the traces (resumable)."""
    from eval_pipeline.evaluation.runner_spec import RunnerSpecError, runner_from_spec
    from eval_pipeline.runners.sink import TraceStoreSink
    from eval_pipeline.traces.model import EvalContext
    from eval_pipeline.traces.store.trace_store import TraceStore

    suite, items = _suite_and_items(suite_ref, limit)
    spec = _runner_spec(build, runner)
    home = current_home().ensure()
    try:
        executor = runner_from_spec(
            spec, TraceStoreSink(TraceStore(home.store)), timeout_s=timeout_s
        )
    except (RunnerSpecError, ValueError, ImportError) as exc:
        raise InputError(f"--runner {spec}: {exc}") from exc
    result = executor.run_items(
        items,
        build=build,
        runs_per_item=runs_per_item or suite.runs_per_item,
        concurrency=concurrency,
        retry_failed=retry_failed,
        base_context=EvalContext(suite=suite.suite, suite_version=suite.version),
    )
    click.echo(
        json.dumps(
            {
                "build": build,
                "suite": suite.suite,
                "runner": spec,
                "items": len(items),
                "runs_per_item": runs_per_item or suite.runs_per_item,
                **result.summary(),
                "failures": [
                    {
                        "item_id": o.item_id,
                        "run_index": o.run_index,
                        "reason": o.failure_reason,
                        "trace_id": o.trace_id,
                    }
                    for o in result.failed
                ],
            },
            indent=2,
        )
    )


@click.command("defects")
@click.option(
    "--suite",
    "suite_ref",
    default=None,
    help="Suite YAML (default: the shipped support-agent suite).",
)
@click.option(
    "--items",
    "limit",
    type=click.IntRange(min=1),
    default=None,
    help="Only the first N items of each dataset (faster, less power).",
)
@click.option(
    "--runs-per-item",
    type=click.IntRange(min=1),
    default=None,
    help="Override the suite's runs_per_item.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def defects(suite_ref: str | None, limit: int | None, runs_per_item: int | None, fmt: str) -> None:
    """Seeded-defect validation: every defect must fail its metric; controls must pass."""
    from eval_pipeline.defects.story import validate_sample_agent
    from eval_pipeline.suites.config import SuiteError
    from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite

    home = current_home().ensure()
    try:
        path = locate_suite(suite_ref) if suite_ref else None
        report = validate_sample_agent(
            home, Path(path) if path else None, items_per_dataset=limit, runs_per_item=runs_per_item
        )
    except (SuiteNotFoundError, SuiteError, LookupError) as exc:
        raise InputError(f"suite {suite_ref or 'support-agent'}: {exc}") from exc
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        click.echo(
            f"suite {report.suite}: {report.items} items x {report.runs_per_item} runs, "
            f"baseline {report.baseline}"
        )
        click.echo(report.table())
        click.echo("validation " + ("passed" if report.ok else "FAILED"))
    raise SystemExit(report.exit_code)


COMMANDS: list[click.Command] = [run, defects]
