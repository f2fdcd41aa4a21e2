"""Which detectors ran on a home, when, and over how much: "0 alerts" is never ambiguous.

An empty alert table means either that the detectors checked traffic and found nothing or that
no detector ever ran; only this table tells them apart. A live worker (``detectors run``,
``serve --detect``, ``RealtimePlane``) records its run when it starts and adds the spans and
traces it checked in the same transaction as their alerts; ``detect --record`` records the
replay of the build it checked. One row per run, in the state database beside the alerts.
"""

import os
import socket
import time
import uuid
from typing import Any

from sqlalchemy import Column, Connection, Engine, Float, Integer, String, Table, select, update

from eval_pipeline.statedb import METADATA, engine_for

DETECTOR_RUNS = Table(
    "detector_runs",
    METADATA,
    Column("run_id", String(100), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("build", String(200), nullable=True),
    Column("host", String(200), nullable=False),
    Column("started_at", Float, nullable=False),
    Column("last_seen_at", Float, nullable=False),
    Column("spans", Integer, nullable=False),
    Column("traces", Integer, nullable=False),
)

LIVE = "live"
"""A worker on the span stream."""
REPLAY = "replay"
"""``detect --build B --record``: the detectors over a stored build."""


class DetectorRuns:
    """The detector runs recorded in the state database at ``state_url`` (or its engine)."""

    def __init__(self, state_url: str | Engine) -> None:
        self.engine: Engine = state_url if isinstance(state_url, Engine) else engine_for(state_url)

    def start(self, kind: str, *, build: str | None = None) -> str:
        """Record a run starting now; its id (for ``checked``)."""
        run_id = uuid.uuid4().hex
        now = time.time()
        with self.engine.begin() as connection:
            connection.execute(
                DETECTOR_RUNS.insert().values(
                    run_id=run_id,
                    kind=kind,
                    build=build,
                    host=f"{socket.gethostname()}:{os.getpid()}",
                    started_at=now,
                    last_seen_at=now,
                    spans=0,
                    traces=0,
                )
            )
        return run_id

    def checked(
        self, run_id: str, *, spans: int = 0, traces: int = 0, connection: Connection | None = None
    ) -> None:
        """Add what the run checked (in the caller's transaction when given)."""
        statement = (
            update(DETECTOR_RUNS)
            .where(DETECTOR_RUNS.c.run_id == run_id)
            .values(
                spans=DETECTOR_RUNS.c.spans + spans,
                traces=DETECTOR_RUNS.c.traces + traces,
                last_seen_at=time.time(),
            )
        )
        if connection is not None:
            connection.execute(statement)
            return
        with self.engine.begin() as own:
            own.execute(statement)

    def latest(self) -> dict[str, Any] | None:
        """The run that checked something last (else the last started), or None if none ran."""
        query = select(DETECTOR_RUNS).order_by(
            DETECTOR_RUNS.c.last_seen_at.desc(), DETECTOR_RUNS.c.run_id
        )
        with self.engine.connect() as connection:
            row = connection.execute(query.limit(1)).first()
        return None if row is None else dict(row._mapping)
