"""CLI: ``metrics list`` and ``metrics show ID``: the metric catalogue.

Every card is read off its scorer class (``scoring.catalogue``), session metrics' too
(``scoring.sessions``, layer ``session``): what the metric reads (layer,
run and item fields, span kinds), its range and direction, when it is not applicable, its
version and whether a judge scores it. ``--suite S`` loads the suite first, so its custom
metrics (a Python scorer, a rubric) are listed beside the built-in ones and the metrics it
gates are marked.
"""

from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_fields, print_table
from eval_pipeline.scoring.catalogue import MetricCard
from eval_pipeline.scoring.protocol import Direction

_SUITE_HELP = "Load this suite first (a name or YAML path): its custom metrics are listed too."


def _load(suite_ref: str | None) -> tuple[str | None, tuple[str, ...]]:
    """The suite's name and gated metric ids (None, () without a suite); defines its metrics."""
    if suite_ref is None:
        return None, ()
    from eval_pipeline.suites.config import load_suite
    from eval_pipeline.suites.errors import ConfigError
    from eval_pipeline.suites.locate import SuiteNotFoundError, locate_suite

    try:
        suite = load_suite(locate_suite(suite_ref))
    except (SuiteNotFoundError, ConfigError) as exc:
        raise InputError(str(exc)) from exc
    return suite.suite, suite.metric_ids


def _cards() -> list[MetricCard]:
    """Every metric's card, per-run and session ones (``scoring.sessions``), by id."""
    from eval_pipeline.scoring.registry import metric_card, registered_metric_ids
    from eval_pipeline.scoring.sessions.registry import session_metric_card, session_metric_ids

    cards = [metric_card(m) for m in registered_metric_ids()]
    cards += [session_metric_card(m) for m in session_metric_ids()]
    return sorted(cards, key=lambda card: card.id)


def _origin(card: MetricCard) -> str:
    """The source in a few words: ``built-in``, ``library ragas``, the entry point, the file."""
    if card.source.startswith("rubric "):
        return f"rubric {Path(card.source.removeprefix('rubric ')).name}"
    if card.source.startswith("python "):
        return f"python {card.scorer_id}"
    return card.source


@click.group("metrics")
def metrics_group() -> None:
    """The metric catalogue: what each metric reads, its range, direction and version."""


@metrics_group.command("list")
@click.option("--suite", "suite_ref", help=_SUITE_HELP)
@format_option()
def list_metrics(suite_ref: str | None, fmt: str) -> None:
    """List every metric (and a suite's custom ones with --suite)."""
    name, gated = _load(suite_ref)
    cards = _cards()
    if fmt == "json":
        document: dict[str, Any] = {"metrics": [card.to_json() for card in cards]}
        if name is not None:
            document.update(suite=name, gated=list(gated))
        echo_json(document)
        return
    print_table(
        ("metric", "version", "layer", "range", "better", "judged", "reads", "n/a when", "from"),
        (
            (
                f"{card.id} *" if card.id in gated else card.id,
                card.version,
                card.layer,
                card.range_text,
                "higher" if card.direction == Direction.HIGHER_IS_BETTER else "lower",
                card.judged,
                [*card.run_fields, *(f"item.{f}" for f in card.item_fields)],
                card.not_applicable_when or "never",
                _origin(card),
            )
            for card in cards
        ),
        title=f"{len(cards)} metrics" + (f" (* gated by suite {name})" if name else ""),
    )


@metrics_group.command("show")
@click.argument("metric_id")
@click.option("--suite", "suite_ref", help=_SUITE_HELP)
@format_option()
def show_metric(metric_id: str, suite_ref: str | None, fmt: str) -> None:
    """Show one metric's card: reads, range, direction, not-applicable rule, version."""
    from eval_pipeline.scoring.registry import metric_card, registered_metric_ids
    from eval_pipeline.scoring.sessions.registry import session_metric_card, session_metric_ids

    _load(suite_ref)
    if metric_id in session_metric_ids():
        card = session_metric_card(metric_id)
    elif metric_id not in registered_metric_ids():
        hint = "" if suite_ref else " (a custom metric: give its --suite)"
        raise InputError(
            f"unknown metric id {metric_id!r}{hint}; known: "
            + ", ".join(sorted(registered_metric_ids() | session_metric_ids()))
        )
    else:
        card = metric_card(metric_id)
    if fmt == "json":
        echo_json(card.to_json())
        return
    print_fields(
        {
            "metric": card.id,
            "version": card.version,
            "description": card.description,
            "layer": card.layer,
            "range": card.range_text,
            "direction": card.direction,
            "reads (run)": list(card.run_fields),
            "reads (item)": list(card.item_fields),
            "span kinds": list(card.span_kinds),
            "not applicable when": card.not_applicable_text,
            "judged": card.judged,
            "library": card.library,
            "arguments": list(card.arguments),
            "source": card.source,
            "scorer id on rows": card.scorer_id or card.id,
        },
        title=f"metric {card.id}@{card.version}",
    )


COMMANDS: list[click.Command] = [metrics_group]
