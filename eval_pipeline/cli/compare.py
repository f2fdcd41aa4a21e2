"""CLI: ``eval-pipeline compare`` (see the package docstring for exit codes).

``eval-pipeline compare --candidate B [--baseline A]`` shows, per metric, the items that
regressed, improved, stayed and could not be paired, largest effect first, each with its input
and reference and every run of both builds (score, reason, stored answer and tool calls,
trace). The baseline defaults to the candidate's own (the registry's, else its suite's pinned
baseline; ``--suite`` names the suite of a candidate that is not registered, as for ``gate``).
``--format markdown`` and ``json`` are for CI comments and scripts; ``--trace-url`` (or
``EVAL_PIPELINE_TRACE_URL``) turns trace ids into links to a tracing UI. Exit 0 whatever
changed (the gate decides); 2 for bad input: a build with no scores, an unknown metric or slice,
no baseline to compare with.
"""

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import Home, current_home

DIRECTION_CHOICES = ("regressed", "improved", "unchanged", "unpaired")


def default_baseline(home: Home, candidate: str, suite: str | None = None) -> str:
    """The candidate's baseline as its gate would take it (registry, then the suite's pin).

    ``suite`` (a name or YAML path) stands in for the registry's when the candidate is not
    registered, and must be its registered suite when it is.

    Raises:
        InputError: the candidate is not registered and no suite is named, the suite cannot
            be resolved, or it pins no baseline.
    """
    from eval_pipeline.evaluation.stage import BuildNotRegisteredError, open_stage
    from eval_pipeline.evaluation.suite_parts import SuiteResolutionError
    from eval_pipeline.suites.config import SuiteError
    from eval_pipeline.suites.locate import SuiteNotFoundError

    try:
        stage = open_stage(home, candidate, suite)
    except BuildNotRegisteredError as exc:
        raise InputError(f"--baseline: not given, and {exc}") from exc
    except (SuiteNotFoundError, SuiteError, SuiteResolutionError) as exc:
        raise InputError(f"--baseline: not given, and build {candidate}'s suite: {exc}") from exc
    if stage.baseline is None:
        raise InputError(
            f"--baseline: not given, and suite {stage.suite.suite} pins no baseline for "
            f"{candidate} (`eval-pipeline builds pin BUILD --suite {stage.suite.suite}`)"
        )
    return stage.baseline


@click.command("compare")
@click.option("--candidate", required=True, help="The build to look at.")
@click.option("--baseline", default=None, help="The build to compare with (default: its own).")
@click.option(
    "--suite",
    default=None,
    help="Suite name or YAML path whose pinned baseline is the default (an unregistered build).",
)
@click.option("--metric", "metrics", multiple=True, help="Only this metric (repeatable).")
@click.option("--slice", "slice_", default=None, metavar="NAME=VALUE", help="Only these items.")
@click.option(
    "--direction",
    "directions",
    multiple=True,
    type=click.Choice(DIRECTION_CHOICES),
    help="Only items that went this way (repeatable; default: all).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Items shown per metric and direction, largest effect first (0: all).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
)
@click.option(
    "--trace-url",
    default=None,
    metavar="TEMPLATE",
    help="Link trace ids to a tracing UI ({trace_id}, {build}); default $EVAL_PIPELINE_TRACE_URL.",
)
def compare(
    candidate: str,
    baseline: str | None,
    suite: str | None,
    metrics: tuple[str, ...],
    slice_: str | None,
    directions: tuple[str, ...],
    limit: int,
    fmt: str,
    trace_url: str | None,
) -> None:
    """Show item by item what changed from a baseline to a candidate build."""
    from eval_pipeline.cli.output import echo_json
    from eval_pipeline.compare.comparison import ComparisonInputError, compare_builds, parse_slice
    from eval_pipeline.compare.render import to_json, to_markdown, to_text
    from eval_pipeline.report.trace_links import TraceUrlTemplateError, trace_links

    home = current_home().ensure()
    try:
        links = trace_links(trace_url)
        comparison = compare_builds(
            home,
            candidate,
            baseline or default_baseline(home, candidate, suite),
            metrics=metrics,
            slice_=parse_slice(slice_),
            directions=directions or DIRECTION_CHOICES,
            limit=limit or None,
        )
    except (ComparisonInputError, TraceUrlTemplateError) as exc:
        raise InputError(str(exc)) from exc
    link = links.trace if links.external else None
    if fmt == "json":
        echo_json(to_json(comparison, link))
    else:
        render = to_markdown if fmt == "markdown" else to_text
        click.echo(render(comparison, link), nl=False)


COMMANDS = [compare]
