"""CLI: ``calibrate variance``, the spread of a judge's verdicts (docs/DESIGN.md section 9).

``eval-pipeline calibrate variance --suite S --repeats K --target-half-width W`` asks the
suite's judge K times per item of the suite's calibration set and reports the spread of its
verdicts and the runs per item that reach an interval of half-width W on the suite mean; the
result is stored in the judge's calibration report (``variance``).
"""

from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option


@click.command("variance")
@click.option("--suite", "suite_ref", required=True, help="Suite name or YAML path (its judge).")
@click.option(
    "--repeats",
    type=click.IntRange(min=2),
    required=True,
    help="Verdicts asked per labelled item (at least 2).",
)
@click.option(
    "--target-half-width",
    type=click.FloatRange(min=0.0, min_open=True),
    required=True,
    help="Half-width wanted for the interval on the suite mean score.",
)
@click.option(
    "--confidence",
    type=click.FloatRange(0.5, 1.0, max_open=True),
    default=0.95,
    show_default=True,
)
@click.option(
    "--items",
    "n_items",
    type=click.IntRange(min=1),
    help="Suite size the advice is for (default: the labelled items used).",
)
@click.option("--limit", type=click.IntRange(min=2), help="Use only the first N labelled items.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True)
@format_option()
def variance_command(
    suite_ref: str,
    repeats: int,
    target_half_width: float,
    confidence: float,
    n_items: int | None,
    limit: int | None,
    workers: int,
    fmt: str,
) -> None:
    """Judge variance: repeated verdicts per item -> spread -> runs per item for a target."""
    from eval_pipeline.cli.gate import load_suite_config
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
    from eval_pipeline.evaluation.variance_stage import measure_judge_variance
    from eval_pipeline.home import current_home
    from eval_pipeline.judges.errors import JudgeCannotJudge

    suite = load_suite_config(suite_ref)
    try:
        result = measure_judge_variance(
            current_home().ensure(),
            suite,
            repeats=repeats,
            target_half_width=target_half_width,
            confidence=confidence,
            n_items=n_items,
            limit=limit,
            workers=workers,
        )
    except (SuiteResolutionError, JudgeCannotJudge) as exc:
        raise InputError(f"--suite {suite_ref}: {exc}") from exc
    except ValueError as exc:
        raise InputError(f"--suite {suite_ref}: {exc}") from exc
    if fmt == "json":
        echo_json(result)
    else:
        click.echo(_variance_text(result))


def _variance_text(result: dict[str, Any]) -> str:
    runs = result["runs_per_item"]
    return "\n".join(
        [
            f"judge {result['judge_backend']} {result['judge_fingerprint']} on "
            f"{result['calibration_set']}: {result['items']} items x {result['repeats']} verdicts"
            f" ({result['errors']} items with failures)",
            f"within-item variance {result['within_variance']:.4g}, between-item variance "
            f"{result['between_variance']:.4g}",
            f"half-width with one run per item: {result['half_width_with_one_run']:.4f}",
            f"runs per item for half-width {result['target_half_width']:g} over "
            f"{result['advice_items']} items: "
            f"{'not reachable by runs' if runs is None else runs} ({result['reason']})",
        ]
    )
