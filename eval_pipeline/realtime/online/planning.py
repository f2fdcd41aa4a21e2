"""What the flagged-trace sensor requests: the production days with alerts since its cursor.

The real-time plane stores every alert once in the state database (``AlertStore``). Each
tick reads the production alerts after the cursor (ordered by detection time, then alert id,
as ``list_alerts`` returns them) and asks for one scoring run per UTC day they were detected
on, so a flagged trace is sampled (at its flag's rate), scored and estimated within the
sensor's interval. The cursor is the last alert seen, as JSON; a run key names the day and
that alert, so a tick without new alerts requests nothing and a redelivered tick the same run.
"""

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from eval_pipeline.home import Home
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.traces.store.trace_store import PRODUCTION


@dataclass(frozen=True)
class DayRequest:
    """One production day to sample and score again, and the alerts that asked for it."""

    day: str
    run_key: str
    alerts: int
    traces: tuple[str, ...]


@dataclass(frozen=True)
class FlaggedPlan:
    """The days to request and the cursor after them."""

    days: tuple[DayRequest, ...]
    cursor: str | None


def _position(cursor: str | None) -> tuple[float, str] | None:
    if not cursor:
        return None
    try:
        body = json.loads(cursor)
        return float(body["detected_at"]), str(body["alert_id"])
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable cursor starts over: the run keys keep requests idempotent


def plan_flagged_days(home: Home, cursor: str | None) -> FlaggedPlan:
    """The production days with alerts detected after ``cursor`` (see the module docstring)."""
    after = _position(cursor)
    # A second early: stored times are floats, datetimes microseconds; the key filter is exact.
    since = None if after is None else datetime.fromtimestamp(after[0] - 1.0, UTC)
    alerts = AlertStore(home.state_url).list_alerts(since=since, build=PRODUCTION)
    fresh = [a for a in alerts if after is None or (a.detected_at.timestamp(), a.alert_id) > after]
    if not fresh:
        return FlaggedPlan((), cursor)
    by_day: dict[str, list[str]] = {}
    for alert in fresh:
        by_day.setdefault(alert.detected_at.strftime("%Y-%m-%d"), []).append(alert.trace_id)
    last = fresh[-1]
    requests = tuple(
        DayRequest(day, f"flagged:{day}:{last.alert_id}", len(traces), tuple(dict.fromkeys(traces)))
        for day, traces in sorted(by_day.items())
    )
    position = {"detected_at": last.detected_at.timestamp(), "alert_id": last.alert_id}
    return FlaggedPlan(requests, json.dumps(position))
