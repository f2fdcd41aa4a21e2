"""The alert store: every alert once, in the SQL state database, with its delivery outbox.

``record`` inserts under the primary key ``alert_id`` and returns only the alerts that are
new, so a flag raised twice is stored (and sent) once, across workers and processes. The
webhook is an outbox: an alert is marked delivered after the webhook accepted it, and a
worker claims undelivered alerts before sending (``claim_undelivered``), so two workers never
send one alert, and one that crashed between storing and sending is sent after its claim
expires. A worker that stores a new alert may claim it in the same insert (``claim_s``) and
send it at once, without another transaction between detection and the webhook.
"""

import json
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import Column, Connection, Engine, Float, Index, String, Table, Text, select, update

from eval_pipeline.realtime.alerts.alert import Alert
from eval_pipeline.statedb import METADATA, engine_for, insert_new

ALERTS = Table(
    "alerts",
    METADATA,
    Column("alert_id", String(64), primary_key=True),
    Column("detector", String(100), nullable=False),
    Column("severity", String(16), nullable=False),
    Column("trace_id", String(128), nullable=False),
    Column("span_ids", Text, nullable=False),
    Column("build", String(200), nullable=False),
    Column("reason", Text, nullable=False),
    Column("evidence", Text, nullable=False),
    Column("detected_at", Float, nullable=False),
    Column("delivered_at", Float, nullable=True),
    Column("claimed_until", Float, nullable=True),
    Index("alerts_by_time", "detected_at"),
)


def _row(alert: Alert) -> dict[str, object]:
    return {
        "alert_id": alert.alert_id,
        "detector": alert.detector,
        "severity": alert.severity,
        "trace_id": alert.trace_id,
        "span_ids": json.dumps(list(alert.span_ids)),
        "build": alert.build,
        "reason": alert.reason,
        "evidence": json.dumps(alert.evidence, default=str, sort_keys=True),
        "detected_at": alert.detected_at.timestamp(),
    }


def _alert(row: object) -> Alert:
    values = row._mapping  # type: ignore[attr-defined]
    return Alert(
        values["alert_id"],
        values["detector"],
        values["severity"],
        values["trace_id"],
        tuple(json.loads(values["span_ids"])),
        values["build"],
        values["reason"],
        datetime.fromtimestamp(values["detected_at"], UTC),
        json.loads(values["evidence"]),
    )


class AlertStore:
    """The alerts table of the state database at ``state_url``."""

    def __init__(self, state_url: str) -> None:
        self.engine: Engine = engine_for(state_url)

    def record(
        self,
        alerts: Sequence[Alert],
        *,
        deliver: bool = True,
        connection: Connection | None = None,
        claim_s: float | None = None,
    ) -> list[Alert]:
        """Store the alerts not stored yet; return those (the ones to send).

        ``deliver=False`` (a replay of a stored build) records them as owing no webhook call.
        With ``connection``, in the caller's transaction (the new ones are new once it commits).
        With ``claim_s``, the new alerts are stored claimed by the caller for that long, as
        ``claim_undelivered`` would claim them: the caller sends them, or ``release``s them.
        """
        if not alerts:
            return []
        if connection is None:
            with self.engine.begin() as own:
                return self.record(alerts, deliver=deliver, connection=own, claim_s=claim_s)
        now = time.time()
        state = {
            "delivered_at": None if deliver else now,
            "claimed_until": now + claim_s if deliver and claim_s is not None else None,
        }
        statement = insert_new(connection, ALERTS)
        unique = {a.alert_id: a for a in alerts}.values()
        return [
            alert
            for alert in unique
            if connection.execute(statement, [{**_row(alert), **state}]).rowcount == 1
        ]

    def list_alerts(
        self, *, since: datetime | None = None, build: str | None = None
    ) -> list[Alert]:
        """Stored alerts, oldest first (detected at or after ``since``; of ``build``)."""
        query = select(ALERTS).order_by(ALERTS.c.detected_at, ALERTS.c.alert_id)
        if since is not None:
            query = query.where(ALERTS.c.detected_at >= since.timestamp())
        if build is not None:
            query = query.where(ALERTS.c.build == build)
        with self.engine.connect() as connection:
            return [_alert(row) for row in connection.execute(query)]

    def claim_undelivered(self, limit: int = 100, lease_s: float = 30.0) -> list[Alert]:
        """Undelivered alerts no other worker holds, now held by the caller for ``lease_s``."""
        now = time.time()
        free = ALERTS.c.delivered_at.is_(None) & (
            ALERTS.c.claimed_until.is_(None) | (ALERTS.c.claimed_until < now)
        )
        claimed: list[Alert] = []
        with self.engine.begin() as connection:
            rows = connection.execute(
                select(ALERTS).where(free).order_by(ALERTS.c.detected_at).limit(limit)
            ).all()
            for row in rows:
                taken = connection.execute(
                    update(ALERTS)
                    .where(ALERTS.c.alert_id == row.alert_id, free)
                    .values(claimed_until=now + lease_s)
                )
                if taken.rowcount == 1:
                    claimed.append(_alert(row))
        return claimed

    def mark_delivered(self, alert_ids: Sequence[str]) -> None:
        """Record that the webhook accepted these alerts."""
        if not alert_ids:
            return
        with self.engine.begin() as connection:
            connection.execute(
                update(ALERTS)
                .where(ALERTS.c.alert_id.in_(list(alert_ids)))
                .values(delivered_at=time.time(), claimed_until=None)
            )

    def release(self, alert_ids: Sequence[str]) -> None:
        """Give up the claim on alerts the webhook did not accept (they are tried again)."""
        if not alert_ids:
            return
        with self.engine.begin() as connection:
            connection.execute(
                update(ALERTS)
                .where(ALERTS.c.alert_id.in_(list(alert_ids)))
                .values(claimed_until=None)
            )
