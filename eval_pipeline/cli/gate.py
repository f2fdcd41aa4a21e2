"""CLI: ``eval-pipeline gate`` (docs/DESIGN.md section 9, **contract**).

``eval-pipeline gate --suite S --candidate-scores FILE [--baseline-scores FILE]`` or
``--candidate B [--baseline A]`` (builds read from the score store). Exit 0 when the gate
passes (or is inconclusive and the tier allows it), 1 when it fails or is inconclusive and
the tier forbids it, 2 on bad usage or bad input (the message names file, row and column).
"""

import json
from pathlib import Path
from typing import Any

import click
import pandas as pd

from eval_pipeline import json_input
from eval_pipeline.cli.errors import InputError

FORMATS = ("text", "markdown", "json", "junit")


def load_suite_config(reference: str) -> Any:
    """The validated suite behind ``reference`` (a YAML path or a shipped suite name)."""
    from eval_pipeline.suites.config import SuiteError, load_suite
    from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite

    try:
        return load_suite(locate_suite(reference))
    except (SuiteNotFoundError, SuiteError) as exc:
        raise InputError(str(exc)) from exc


def read_scores_file(path: Path) -> pd.DataFrame:
    """A long scores table from CSV, JSON (a list of row objects) or Parquet.

    CSV cells are read as text (only an empty cell is missing), so an id that looks like a
    number stays the id it is; the gate parses the numeric columns itself, naming bad rows.
    """
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(path)
        if suffix == ".json":
            rows = json_input.loads(path.read_text(encoding="utf-8"))
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise ValueError("expected a JSON list of row objects (`scores --format json`)")
            return pd.DataFrame(rows)
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: cannot read scores: {exc}") from exc
    raise InputError(
        f"{path}: scores must be .csv, .json or .parquet, got {suffix or 'no suffix'!r}"
    )


def _gate_build(
    candidate: str,
    baseline: str | None,
    suite_ref: str,
    fmt: str,
    no_baseline: bool,
    overrides: dict[str, Any],
) -> tuple[str, int, str]:
    """Gate a stored build through the evaluation stages: (rendered report, exit, verdict)."""
    from eval_pipeline.cli.stage import cli_stage
    from eval_pipeline.evaluation.stages import decide_gate
    from eval_pipeline.scoring.store import ScoreStore

    stage = cli_stage(candidate, suite_ref, baseline=baseline, needs=())
    store = ScoreStore(stage.home.store)
    for build in (candidate, None if no_baseline else stage.baseline):
        if build is not None and store.read_frame(build).empty:
            raise InputError(
                f"build {build!r} has no scores in the store (run `eval-pipeline score`)"
            )
    outcome = decide_gate(stage, no_baseline=no_baseline, **overrides)
    report = outcome.report
    rendered = (
        json.dumps(outcome.to_json(), indent=2) + "\n"
        if fmt == "json"
        else _render(fmt, report, outcome.build, outcome.baseline)
    )
    return rendered, report.exit_code, str(report.verdict)


def _render(fmt: str, report: Any, candidate: str, baseline: str | None) -> str:
    """A non-JSON rendering; the text one names what was compared on its first line."""
    from eval_pipeline.gate import RENDERERS, render_text

    if fmt == "text":
        return render_text(report, candidate=candidate, baseline=baseline)
    return RENDERERS[fmt](report)


def _gate_files(
    candidate: Path,
    baseline: Path | None,
    suite_ref: str,
    fmt: str,
    no_baseline: bool,
    overrides: dict[str, Any],
) -> tuple[str, int, str]:
    """Gate two score files under the suite's rules: (rendered report, exit code, verdict).

    Through ``evaluation.gate_stage.gate_score_frames``: the same configuration, dataset and
    judge trust, and JSON as gating the stored builds the files were exported from.
    """
    from eval_pipeline.evaluation.gate_stage import gate_score_frames
    from eval_pipeline.gate import ScoreFrameError
    from eval_pipeline.home import current_home

    suite = load_suite_config(suite_ref)
    cand = read_scores_file(candidate)
    base = read_scores_file(baseline) if baseline is not None else None
    sources = (str(candidate), None if baseline is None else str(baseline))
    try:
        outcome = gate_score_frames(
            current_home().ensure(),
            suite,
            cand,
            base,
            sources=sources,
            no_baseline=no_baseline,
            **overrides,
        )
    except ScoreFrameError as exc:
        csv_file = exc.source.lower().endswith(".csv")
        line = f" (CSV line {exc.row + 1})" if exc.row and csv_file else ""
        raise InputError(f"{exc}{line}") from exc
    report = outcome.report
    rendered = (
        json.dumps(outcome.to_json(), indent=2) + "\n"
        if fmt == "json"
        else _render(fmt, report, outcome.build, outcome.baseline)
    )
    return rendered, report.exit_code, str(report.verdict)


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
@click.option(
    "--no-baseline",
    is_flag=True,
    help="Declare the candidate a first baseline: floors and budgets only, nothing compared "
    "(refused where the tier forbids it). Without a baseline and without this flag, every "
    "metric fails: a missing baseline is missing evidence.",
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
    no_baseline: bool,
    fmt: str,
    output: Path | None,
    seed: int | None,
    resamples: int | None,
) -> None:
    """Gate a candidate against its baseline: exit 0 pass, 1 fail, 2 bad input."""
    if (candidate_build is None) == (candidate_scores is None):
        raise click.UsageError("give --candidate B or --candidate-scores FILE (one of them)")
    if baseline_build is not None and baseline_scores is not None:
        raise click.UsageError("give --baseline or --baseline-scores, not both")
    if no_baseline and (baseline_build is not None or baseline_scores is not None):
        raise click.UsageError("--no-baseline declares a first baseline: give no baseline with it")
    overrides: dict[str, Any] = {}
    if seed is not None:
        overrides["seed"] = seed
    if resamples is not None:
        overrides["n_resamples"] = resamples
    if candidate_build is not None:
        if baseline_scores is not None:
            raise click.UsageError("--candidate B is gated against a build: use --baseline A")
        rendered, code, verdict = _gate_build(
            candidate_build, baseline_build, suite_ref, fmt, no_baseline, overrides
        )
    else:
        if baseline_build is not None:
            raise click.UsageError(
                "--candidate-scores is gated against a file: use --baseline-scores"
            )
        assert candidate_scores is not None
        rendered, code, verdict = _gate_files(
            candidate_scores, baseline_scores, suite_ref, fmt, no_baseline, overrides
        )
    if output is not None:
        output.write_text(rendered, encoding="utf-8")
        click.echo(f"gate: {verdict} (exit {code}); report written to {output}")
    else:
        click.echo(rendered, nl=False)
    ctx.exit(code)


COMMANDS: list[click.Command] = [gate]
