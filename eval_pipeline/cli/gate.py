"""CLI: ``eval-pipeline gate`` (DESIGN.md section 9, **contract**).

``eval-pipeline gate --suite S --candidate-scores FILE [--baseline-scores FILE]`` or
``--candidate B [--baseline A]`` (builds read from the score store). Exit 0 when the gate
passes (or is inconclusive and the tier allows it), 1 when it fails or is inconclusive and
the tier forbids it, 2 on bad usage or bad input (the message names file, row and column).
"""

import importlib
from pathlib import Path
from typing import Any

import click
import pandas as pd

from eval_pipeline.cli.errors import InputError

FORMATS = ("text", "markdown", "json", "junit")


def load_suite_config(reference: str) -> Any:
    """The suite behind ``reference`` (a YAML path or a shipped suite name).

    Uses ``eval_pipeline.suites.config.load_suite`` when the suites package provides it,
    else reads the YAML as a plain mapping.
    """
    from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite

    try:
        path = locate_suite(reference)
    except SuiteNotFoundError as exc:
        raise InputError(str(exc)) from exc
    try:
        config_module = importlib.import_module("eval_pipeline.suites.config")
        loader = getattr(config_module, "load_suite", None)
    except ImportError:
        loader = None
    if loader is not None:
        try:
            return loader(path)
        except ValueError as exc:  # SuiteError names file, line and field
            raise InputError(str(exc)) from exc
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"suite {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError(f"suite {path}: expected a mapping at the top level")
    return data


def read_scores_file(path: Path) -> pd.DataFrame:
    """A long scores table from CSV or Parquet."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(path, dtype={"item_id": str, "trace_id": str, "metric_id": str})
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read scores: {exc}") from exc
    raise InputError(f"{path}: scores must be .csv or .parquet, got {suffix or 'no suffix'!r}")


def load_build_scores(build: str) -> pd.DataFrame:
    """The long scores of ``build`` from the score store of the embedded home."""
    try:
        store_module = importlib.import_module("eval_pipeline.scoring.store")
    except ImportError as exc:
        raise InputError(
            "the score store is not available in this installation; "
            "pass --candidate-scores/--baseline-scores files instead"
        ) from exc
    hook = getattr(store_module, "load_build_scores", None)
    try:
        if callable(hook):
            frame = hook(build)
        else:
            from eval_pipeline.home import current_home

            frame = store_module.ScoreStore(current_home().store).read_frame(build)
    except (LookupError, OSError, ValueError) as exc:
        raise InputError(f"build {build!r}: cannot read its scores ({exc})") from exc
    if frame.empty:
        raise InputError(f"build {build!r} has no scores in the store (run `eval-pipeline score`)")
    return frame


def _scores(build: str | None, path: Path | None, role: str) -> tuple[pd.DataFrame, str] | None:
    if build is not None and path is not None:
        raise click.UsageError(f"give --{role} or --{role}-scores, not both")
    if path is not None:
        return read_scores_file(path), str(path)
    if build is not None:
        return load_build_scores(build), f"build {build}"
    return None


def _registered_context(
    build: str, suite: Any, baseline: tuple[pd.DataFrame, str] | None
) -> tuple[tuple[pd.DataFrame, str] | None, dict[str, Any]]:
    """The pinned baseline (when none was given) and judge trust of a registered candidate.

    The same judge-trust overrides the asset graph applies, so the CLI and the UI agree.
    """
    from eval_pipeline.builds import BuildRegistry
    from eval_pipeline.evaluation.calibration_stage import calibration_block
    from eval_pipeline.evaluation.gate_stage import untrusted_judge_metrics
    from eval_pipeline.evaluation.stage import load_stage
    from eval_pipeline.home import current_home

    home = current_home()
    registry = BuildRegistry(home.state_url)
    if baseline is None:
        pinned = registry.baseline_for(str(suite.suite))
        if pinned is not None and pinned != build:
            baseline = (load_build_scores(pinned), f"build {pinned} (pinned baseline)")
    if registry.get(build) is None:
        return baseline, {}
    stage = load_stage(home, build)
    return baseline, {"untrusted_metrics": untrusted_judge_metrics(stage, calibration_block(stage))}


@click.command("gate")
@click.option("--suite", "suite_ref", required=True, help="Suite YAML path or shipped name.")
@click.option("--candidate", "candidate_build", help="Candidate build id (from the store).")
@click.option("--baseline", "baseline_build", help="Baseline build id (from the store).")
@click.option(
    "--candidate-scores",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Candidate scores file (CSV or Parquet, long format).",
)
@click.option(
    "--baseline-scores",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Baseline scores file (CSV or Parquet, long format).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the report here instead of stdout.",
)
@click.option("--seed", type=int, default=None, help="Bootstrap seed (default: fixed).")
@click.option(
    "--resamples",
    type=click.IntRange(min=100),
    default=None,
    help="Bootstrap resamples (default 10000).",
)
@click.pass_context
def gate(
    ctx: click.Context,
    suite_ref: str,
    candidate_build: str | None,
    baseline_build: str | None,
    candidate_scores: Path | None,
    baseline_scores: Path | None,
    fmt: str,
    output: Path | None,
    seed: int | None,
    resamples: int | None,
) -> None:
    """Gate a candidate against its baseline: exit 0 pass, 1 fail, 2 bad input."""
    from eval_pipeline.gate import (
        RENDERERS,
        ScoreFrameError,
        evaluate_gate,
        gate_config_from_suite,
        normalise_scores,
    )

    candidate = _scores(candidate_build, candidate_scores, "candidate")
    if candidate is None:
        raise click.UsageError("give --candidate B or --candidate-scores FILE")
    baseline = _scores(baseline_build, baseline_scores, "baseline")
    suite = load_suite_config(suite_ref)
    overrides: dict[str, Any] = {}
    if candidate_build is not None:
        baseline, overrides = _registered_context(candidate_build, suite, baseline)
    if seed is not None:
        overrides["seed"] = seed
    if resamples is not None:
        overrides["n_resamples"] = resamples
    try:
        config = gate_config_from_suite(suite, **overrides)
    except ValueError as exc:
        raise InputError(f"suite {suite_ref}: {exc}") from exc
    for loaded, required in ((candidate, True), (baseline, False)):
        if loaded is None:
            continue
        frame, source = loaded
        try:
            normalise_scores(
                frame,
                metric_ids=config.metric_ids,
                slices=config.slices,
                source=source,
                require_slices=required,
            )
        except ScoreFrameError as exc:
            line = f" (CSV line {exc.row + 1})" if exc.row and source.endswith(".csv") else ""
            raise InputError(f"{exc}{line}") from exc
    report = evaluate_gate(config, candidate[0], baseline[0] if baseline is not None else None)
    rendered = RENDERERS[fmt](report)
    if output is not None:
        output.write_text(rendered, encoding="utf-8")
        click.echo(f"gate: {report.verdict} (exit {report.exit_code}); report written to {output}")
    else:
        click.echo(rendered, nl=False)
    ctx.exit(report.exit_code)


COMMANDS: list[click.Command] = [gate]
