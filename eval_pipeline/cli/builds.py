"""CLI: ``run`` (execute a build over a suite) and ``defects`` (seeded-defect validation).

``eval-pipeline run --suite S --build B`` runs the build over the suite's items x runs_per_item
with its runner (``--runner``, else the one registered for the build, else the sample agent's
build of that name), resuming runs already stored, and prints a JSON summary (``--format text``:
tables); failed runs are stored with their reason and listed. Both draw a progress bar on a
terminal's stderr (``--quiet``: none). ``eval-pipeline defects [--suite S] --format json`` runs
every seeded defect of the sample agent against its baseline through runner -> scoring ->
gate; exit 0 only when every defect fails on its targeted metric, the improved candidate
passes and the A/A control passes, 1 otherwise, 2 on bad input.
"""

from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import (
    echo_json,
    format_option,
    print_fields,
    print_table,
    progress,
    quiet_option,
)
from eval_pipeline.home import current_home


def _runner_spec(build: str, explicit: str | None) -> str | None:
    """``--runner``, else None (the registered runner), else the story's runner for the build."""
    if explicit:
        return explicit
    from eval_pipeline.builds import BuildRegistry
    from eval_pipeline.defects.story import runner_spec, story_builds

    record = BuildRegistry(current_home().ensure().state_url).get(build)
    if record is not None and record.runner:
        return None
    known = {b.build: b for b in story_builds()}
    if build in known:
        return runner_spec(known[build])
    raise InputError(
        f"build {build}: no --runner given, none registered, and not a sample "
        f"agent build (known: {', '.join(sorted(known))})"
    )


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
@format_option(default="json")
@quiet_option
def run(
    suite_ref: str,
    build: str,
    runner: str | None,
    runs_per_item: int | None,
    concurrency: int,
    timeout_s: float,
    limit: int | None,
    retry_failed: bool,
    fmt: str,
    quiet: bool,
) -> None:
    """Run BUILD over the suite's items x runs_per_item and store the traces (resumable)."""
    from eval_pipeline.cli.stage import cli_stage, exit_if_runs_failed
    from eval_pipeline.evaluation.runner_spec import RunnerSpecError
    from eval_pipeline.evaluation.stage import Scope
    from eval_pipeline.evaluation.stages import collect_runs
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError

    stage = cli_stage(
        build,
        suite_ref,
        runner=_runner_spec(build, runner),
        scope=Scope(items_per_dataset=limit, runs_per_item=runs_per_item),
        needs=("items", "redaction_policy"),
    )
    try:
        with progress(f"run {build}", quiet=quiet) as tracker:
            summary = collect_runs(
                stage,
                concurrency=concurrency,
                timeout_s=timeout_s,
                retry_failed=retry_failed,
                progress=tracker.advance,
            )
    except (RunnerSpecError, ImportError) as exc:
        raise InputError(f"--runner {stage.runner}: {exc}") from exc
    except SuiteResolutionError as exc:  # the suite pins a dataset that fails validation
        raise InputError(str(exc)) from exc
    document = {
        "suite": stage.suite.suite,
        "items": len(stage.items),
        "runs_per_item": stage.runs_per_item,
        **summary.metadata(),
    }
    if fmt == "json":
        echo_json(document)
    else:
        _print_runs(document)
    exit_if_runs_failed(summary)


def _print_runs(document: dict[str, Any]) -> None:
    failures = document["failures"]
    print_fields({k: v for k, v in document.items() if k != "failures"}, title="runs")
    if failures:
        print_table(
            ("item", "run", "reason", "trace"),
            ((f["item_id"], f["run_index"], f["reason"], f["trace_id"]) for f in failures),
            title=f"{len(failures)} failed run(s)",
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
@format_option()
@quiet_option
def defects(
    suite_ref: str | None, limit: int | None, runs_per_item: int | None, fmt: str, quiet: bool
) -> None:
    """Seeded-defect validation: every defect must fail its metric; controls must pass."""
    from eval_pipeline.cli.stage import STAGE_INPUT_ERRORS
    from eval_pipeline.defects.story import validate_sample_agent
    from eval_pipeline.suites.locate import locate_suite

    home = current_home().ensure()
    try:
        path = locate_suite(suite_ref) if suite_ref else None
        with progress("seeded defects", quiet=quiet) as tracker:
            report = validate_sample_agent(
                home,
                Path(path) if path else None,
                items_per_dataset=limit,
                runs_per_item=runs_per_item,
                progress=tracker.status,
                advance=tracker.advance,
            )
    except STAGE_INPUT_ERRORS as exc:
        raise InputError(f"suite {suite_ref or 'support-agent'}: {exc}") from exc
    if fmt == "json":
        echo_json(report.to_json())
    else:
        rows = (
            (
                r.build,
                r.target_metric or "(control)",
                r.target_verdict,
                r.gate_verdict,
                [m for m in r.failing_metrics if m != r.target_metric],
                "ok" if r.ok else "NOT OK",
            )
            for r in (*report.defects, *(c for c in (report.candidate, report.aa_control) if c))
        )
        print_table(
            ("seeded build", "targeted metric", "verdict on it", "gate", "also failing", "check"),
            rows,
            title=f"suite {report.suite}: {report.items} items x {report.runs_per_item} runs, "
            f"baseline {report.baseline}",
        )
        click.echo("validation " + ("passed" if report.ok else "FAILED"))
    raise SystemExit(report.exit_code)


COMMANDS: list[click.Command] = [run, defects]
