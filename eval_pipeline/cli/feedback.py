"""CLI: ``feedback TRACE_ID --rating up|down|<score> [--note TEXT]`` (**contract**).

Records a rating of a stored trace in the state database, as ``POST /v1/feedback`` does; a
thumbs-down (``down``, or a score under 0.5) opens the trace's review item. Unlike the
endpoint (where feedback may arrive before its trace), the trace must be stored: a trace id
the store does not hold, or a rating outside the scale, is exit 2 naming it.
"""

import json
from datetime import UTC, datetime

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home


@click.command("feedback")
@click.argument("trace_id")
@click.option("--rating", required=True, help="up, down, or a score in [0, 1] (1 best).")
@click.option("--note", default=None, help="What the user said about the answer.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def feedback(trace_id: str, rating: str, note: str | None, fmt: str) -> None:
    """Record a rating of a stored trace (a thumbs-down routes it to review)."""
    from eval_pipeline.realtime.feedback.rating import (
        Feedback,
        FeedbackError,
        parse_rating,
        parse_trace_id,
        redacted_note,
    )
    from eval_pipeline.realtime.feedback.store import FeedbackStore
    from eval_pipeline.traces.redact.redactor import Redactor, load_policy
    from eval_pipeline.traces.store.trace_store import TraceStore

    home = current_home().ensure()
    try:
        wanted = parse_trace_id(trace_id)
        parsed = Feedback(
            trace_id=wanted,
            rating=parse_rating(rating),
            received_at=datetime.now(UTC),
            note=redacted_note(note, Redactor(load_policy())),
            source="cli",
        )
    except FeedbackError as exc:
        field, _, reason = str(exc).partition(": ")
        name = "TRACE_ID" if field == "trace_id" else f"--{field}"
        raise InputError(f"{name}: {reason}") from None
    if not TraceStore(home.store).trace_builds(wanted):
        raise InputError(f"TRACE_ID {trace_id}: not in the trace store")
    opened = FeedbackStore(home.state_url).record(parsed)
    summary = {"trace_id": wanted, "rating": parsed.rating.label, "review_opened": opened}
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2))
        return
    routed = "; review opened" if opened else ""
    click.echo(f"recorded rating {parsed.rating.label} for trace {wanted}{routed}")


COMMANDS: list[click.Command] = [feedback]
