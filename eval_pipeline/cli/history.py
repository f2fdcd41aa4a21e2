"""CLI: ``eval-pipeline history`` (see the package docstring for exit codes).

``eval-pipeline history --suite S --metric M [--format text|json]`` lists a metric over the
registered builds of a suite, oldest first: each build's mean over items with its 95%
interval, whether it is the suite's pinned baseline (or served as some gate's baseline), the
metric's gate verdict and the release decision where the build was gated, and its flaky items
(runs disagreeing beyond chance) with their share of the interval's width
(``compare.history``, ``compare.flaky``). An unknown suite, or a metric the suite does not
define, is bad input (exit 2).
"""

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import format_option
from eval_pipeline.home import current_home


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{low:.4f}, {high:.4f}]"


@click.command("history")
@click.option("--suite", "suite_ref", required=True, help="Suite name or YAML path.")
@click.option("--metric", "metric_id", required=True, help="The metric to follow.")
@format_option()
def history(suite_ref: str, metric_id: str, fmt: str) -> None:
    """Show a metric's mean and interval over the builds of a suite, with verdicts."""
    from eval_pipeline.cli.gate import load_suite_config
    from eval_pipeline.cli.output import echo_json, print_table
    from eval_pipeline.report.suite_history import suite_history

    suite = load_suite_config(suite_ref)
    if metric_id not in suite.metric_ids:
        raise InputError(
            f"--metric {metric_id}: suite {suite.suite} does not define it "
            f"(its metrics: {', '.join(suite.metric_ids)})"
        )
    points = suite_history(current_home().ensure(), suite.suite, [metric_id])[metric_id]
    if fmt == "json":
        echo_json(
            {"suite": suite.suite, "metric": metric_id, "builds": [p.to_json() for p in points]}
        )
        return
    rows = []
    for p in points:
        marks = ["pinned baseline"] if p.pinned else []
        if p.baseline_of:
            marks.append(f"baseline of {', '.join(p.baseline_of)}")
        flaky = ", ".join(f"{f.item_id} ({f.share_of_width:.0%})" for f in p.flaky[:3])
        more = f" +{len(p.flaky) - 3}" if len(p.flaky) > 3 else ""
        rows.append(
            [
                p.build,
                "-" if p.mean is None else f"{p.mean:.4f}",
                _interval(p.ci_low, p.ci_high),
                str(p.n_items),
                p.verdict or "not gated",
                p.release or "-",
                "; ".join(marks) or "-",
                (flaky + more) or "-",
            ]
        )
    print_table(
        ["build", "mean", "95% interval", "items", "verdict", "release", "baseline", "flaky"],
        rows,
        title=f"{metric_id} over the builds of suite {suite.suite}",
    )


COMMANDS = [history]
