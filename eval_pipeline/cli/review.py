"""CLI: ``review list`` and ``review label`` (**contract**): the review queue.

``review list [--status open|labelled|all] --format json|text``: the items, oldest first, each
with whether its trace is stored (feedback may arrive before its trace). JSON: a list of
objects with ``trace_id, status, opened_at, reason, verdict, note, reviewer, labelled_at,
negative_feedback, feedback_notes, trace_stored``.

``review label TRACE_ID --verdict defect|not-defect|needs-info [--note TEXT] [--reviewer NAME]``
records who (``--reviewer``, else ``$USER``) decided what and when. With ``--dataset
regression/NAME`` a ``defect`` also becomes a regression case (``triage``; its reference
options apply). A trace not in review is exit 2, as is ``--dataset`` with another verdict.
"""

import json
import os
import sys
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.triage import triage_options, triage_trace
from eval_pipeline.home import current_home


@click.group("review")
def review() -> None:
    """The review queue: traces routed to a person by negative feedback."""


@review.command("list")
@click.option(
    "--status",
    type=click.Choice(["open", "labelled", "all"]),
    default="open",
    show_default=True,
)
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="text")
def list_reviews(status: str, fmt: str) -> None:
    """The review items, oldest first."""
    from eval_pipeline.realtime.feedback.store import FeedbackStore
    from eval_pipeline.traces.store.trace_store import TraceStore

    home = current_home().ensure()
    items = FeedbackStore(home.state_url).reviews(None if status == "all" else status)
    stored = TraceStore(home.store).ledger.builds_of([i.trace_id for i in items]) if items else {}
    rows = [i.as_json(trace_stored=bool(stored.get(i.trace_id))) for i in items]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"review queue ({status}): {len(rows)} item(s)")
    table.add_column("trace", no_wrap=True, min_width=32)  # ids are copied from here: whole
    for column in ("stored", "status", "opened", "thumbs-down", "verdict", "reviewer", "notes"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            row["trace_id"],
            "yes" if row["trace_stored"] else "no",
            row["status"],
            row["opened_at"][:16].replace("T", " "),
            str(row["negative_feedback"]),
            row["verdict"] or "-",
            row["reviewer"] or "-",
            "; ".join([*row["feedback_notes"], *([row["note"]] if row["note"] else [])]) or "-",
        )
    # A pipe or a CI log has no width of its own: rich's default of 80 would fold every cell.
    Console(width=None if sys.stdout.isatty() else 160).print(table)


@review.command("label")
@click.argument("trace_id")
@click.option("--verdict", required=True, type=click.Choice(["defect", "not-defect", "needs-info"]))
@click.option("--note", default=None, help="Why (kept with the verdict; the triage note).")
@click.option("--reviewer", default=None, help="Who labels (default: $USER).")
@click.option(
    "--dataset",
    "dataset_name",
    default=None,
    help="For a defect: also add the trace to this regression dataset (triage).",
)
@triage_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def label(
    trace_id: str,
    verdict: str,
    note: str | None,
    reviewer: str | None,
    dataset_name: str | None,
    fmt: str,
    **refs: Any,
) -> None:
    """Record a verdict on a trace in review (a defect may become a regression case)."""
    from eval_pipeline.realtime.feedback.rating import FeedbackError
    from eval_pipeline.realtime.feedback.store import FeedbackStore

    who = reviewer or os.environ.get("USER") or ""
    if not who.strip():
        raise InputError("--reviewer: who labels must be named (--reviewer or $USER)")
    given = {k: v for k, v in refs.items() if v}
    if dataset_name is None and given:
        first = next(iter(given))
        command = click.get_current_context().command
        option = next(p.opts[0] for p in command.params if p.name == first)
        raise InputError(f"{option}: only with --dataset")
    if dataset_name is not None and verdict != "defect":
        raise InputError(f"--dataset: only a defect becomes a regression case, not {verdict}")
    if dataset_name is not None and not (note or "").strip():
        raise InputError("--note: a defect triaged into a dataset needs a note (what went wrong)")
    store = FeedbackStore(current_home().state_url)
    if store.review(trace_id) is None:
        raise InputError(f"TRACE_ID {trace_id}: not in review (no thumbs-down routed it there)")
    summary: dict[str, Any] = {}
    if dataset_name is not None:  # first: a case refused (exit 2) leaves the item unlabelled
        summary["triage"] = triage_trace(trace_id, dataset_name, note or "", **refs)
    try:
        item = store.label(trace_id, verdict, reviewer=who, note=note)
    except FeedbackError as exc:
        raise InputError(str(exc)) from None
    summary = {"review": item.as_json(), **summary}
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    click.echo(f"labelled {item.trace_id} {verdict} by {item.reviewer}")
    if "triage" in summary:
        case = summary["triage"]
        click.echo(f"published {case['dataset']}@{case['version']}: case {case['item_id']}")


COMMANDS: list[click.Command] = [review]
