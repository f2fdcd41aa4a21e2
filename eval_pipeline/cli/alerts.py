"""CLI: ``alerts list [--since T] [--build B] --format json|text``, the stored alerts.

JSON (**contract**): a list of objects with ``alert_id, detector, severity, trace_id,
span_ids, build, reason, detected_at`` (ISO 8601, UTC) and ``evidence``, oldest first.
"""

import json
from datetime import UTC, datetime

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home


def _since(value: str | None) -> datetime | None:
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
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="text")
def list_alerts(since: str | None, build: str | None, fmt: str) -> None:
    """The stored alerts, oldest first."""
    from eval_pipeline.alerts.store import AlertStore

    found = AlertStore(current_home().state_url).list_alerts(since=_since(since), build=build)
    if fmt == "json":
        click.echo(json.dumps([a.as_json() for a in found], indent=2, ensure_ascii=False))
        return
    for alert in found:
        spans = ",".join(alert.span_ids) or "-"
        click.echo(
            f"{alert.detected_at.isoformat(timespec='seconds')}  {alert.severity:8} "
            f"{alert.detector:20} {alert.build}  {alert.trace_id} {spans}  {alert.reason}"
        )
    click.echo(f"{len(found)} alert(s)")


COMMANDS: list[click.Command] = [alerts]
