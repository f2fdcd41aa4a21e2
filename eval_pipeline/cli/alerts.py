"""CLI: ``alerts list [--since T] [--build B] --format json|text``, the stored alerts.

JSON (**contract**): a list of objects with ``alert_id, detector, severity, trace_id,
span_ids, build, reason, detected_at`` (ISO 8601, UTC) and ``evidence``, oldest first. The text
ends by saying whether any detector has run on the home (``realtime.alerts.detector_runs``),
so "0 alert(s)" from detectors that found nothing reads apart from detectors never started.
"""

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_table
from eval_pipeline.home import current_home

if TYPE_CHECKING:
    from eval_pipeline.realtime.alerts.alert import Alert


def parse_since(value: str | None) -> datetime | None:
    """A ``--since`` option's moment (UTC when no zone is given); exit 2 naming a bad value."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(
            f"--since {value!r}: expected an ISO 8601 date or time (2026-12-01T15:00:00Z)"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@click.group("alerts")
def alerts() -> None:
    """Alerts raised by the real-time detectors."""


@alerts.command("list")
@click.option("--since", default=None, help="Only alerts detected at or after this time.")
@click.option("--build", default=None, help="Only alerts of this build.")
@format_option()
def list_alerts(since: str | None, build: str | None, fmt: str) -> None:
    """The stored alerts, oldest first."""
    from eval_pipeline.realtime.alerts.store import AlertStore

    state_url = current_home().state_url
    found = AlertStore(state_url).list_alerts(since=parse_since(since), build=build)
    if fmt == "json":
        echo_json([a.as_json() for a in found])
        return
    print_alerts(found, f"{len(found)} alert(s)")
    click.echo(_detector_note(state_url))


NOT_RUN = (
    "no detector has run on this home: start them with `eval-pipeline serve --detect` or "
    "`eval-pipeline detectors run`, or check a stored build with "
    "`eval-pipeline detect --build B --record`"
)


def _detector_note(state_url: str) -> str:
    """Whether, when and over how much the detectors last ran on this home."""
    from eval_pipeline.realtime.alerts.detector_runs import DetectorRuns

    latest = DetectorRuns(state_url).latest()
    if latest is None:
        return NOT_RUN
    when = datetime.fromtimestamp(latest["last_seen_at"], UTC).isoformat(timespec="seconds")
    what = f"build {latest['build']} replayed" if latest["build"] else "live stream"
    return (
        f"detectors last ran {when} ({what}: {latest['spans']} spans, "
        f"{latest['traces']} traces checked)"
    )


def print_alerts(found: "list[Alert]", caption: str) -> None:
    """Alerts as a table, oldest first (``alerts list``, ``detect``)."""
    print_table(
        ("detected", "severity", "detector", "build", "trace", "spans", "reason"),
        (
            (
                a.detected_at.isoformat(timespec="seconds"),
                a.severity,
                a.detector,
                a.build,
                a.trace_id,
                list(a.span_ids),
                a.reason,
            )
            for a in found
        ),
        caption=caption,
    )


COMMANDS: list[click.Command] = [alerts]
