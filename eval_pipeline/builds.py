"""The build registry: candidate builds, the suite each is evaluated on, and baseline pins.

Registering a build (``eval-pipeline builds register``) writes a row here; the Dagster sensor
reads the rows it has not requested yet, adds a partition per build and requests its run. A
baseline is pinned per suite and can be re-pinned; the gate compares a candidate with the pin
current when it runs. The record of which judge fingerprint scored each build lets the rescoring
schedule find baselines scored by an older judge. Rows live in the SQL state database.
"""

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Boolean, Column, DateTime, String, Table, select, update

from eval_pipeline.statedb import METADATA, engine_for

BUILDS = Table(
    "builds",
    METADATA,
    Column("build", String(200), primary_key=True),
    Column("suite", String(500), nullable=False),
    Column("baseline", String(200), nullable=True),
    Column("runner", String(500), nullable=True),
    Column("registered_at", DateTime(timezone=True), nullable=False),
    Column("requested", Boolean, nullable=False, default=False),
)

BASELINES = Table(
    "baselines",
    METADATA,
    Column("suite", String(500), primary_key=True),
    Column("build", String(200), nullable=False),
    Column("pinned_at", DateTime(timezone=True), nullable=False),
)

SCORED_WITH = Table(
    "build_judge_fingerprints",
    METADATA,
    Column("build", String(200), primary_key=True),
    Column("judge_fingerprint", String(64), nullable=True),
    Column("scored_at", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class BuildRecord:
    """One registered build."""

    build: str
    suite: str
    baseline: str | None
    runner: str | None
    registered_at: datetime
    requested: bool


def _record(row: Any) -> BuildRecord:
    registered = row["registered_at"]
    if registered.tzinfo is None:  # SQLite drops the zone; every time stored here is UTC
        registered = registered.replace(tzinfo=UTC)
    return BuildRecord(
        str(row["build"]),
        str(row["suite"]),
        row["baseline"],
        row["runner"],
        registered,
        bool(row["requested"]),
    )


class BuildRegistry:
    """Registered builds, baseline pins and judge fingerprints, in the state database."""

    def __init__(self, url: str) -> None:
        self._engine = engine_for(url)

    def register(
        self, build: str, *, suite: str, baseline: str | None = None, runner: str | None = None
    ) -> BuildRecord:
        """Register (or re-register) a build; re-registering makes the sensor request it again."""
        if not build or "/" in build or len(build) > 200:
            raise ValueError(f"build id {build!r} must be 1-200 characters without '/'")
        record = BuildRecord(build, suite, baseline, runner, datetime.now(UTC), False)
        with self._engine.begin() as conn:
            conn.execute(BUILDS.delete().where(BUILDS.c.build == build))
            conn.execute(BUILDS.insert().values(**record.__dict__))
        return record

    def get(self, build: str) -> BuildRecord | None:
        """The record of ``build``, or None."""
        with self._engine.connect() as conn:
            found = conn.execute(select(BUILDS).where(BUILDS.c.build == build)).mappings().first()
        return None if found is None else _record(found)

    def all(self) -> list[BuildRecord]:
        """Every registered build, oldest first."""
        with self._engine.connect() as conn:
            rows = conn.execute(select(BUILDS).order_by(BUILDS.c.registered_at)).mappings()
            return [_record(row) for row in rows]

    def pending(self) -> list[BuildRecord]:
        """Builds registered but not yet requested by the sensor."""
        return [record for record in self.all() if not record.requested]

    def mark_requested(self, builds: list[str]) -> None:
        """Record that the sensor requested these builds' runs."""
        if not builds:
            return
        with self._engine.begin() as conn:
            conn.execute(update(BUILDS).where(BUILDS.c.build.in_(builds)).values(requested=True))

    def pin_baseline(self, suite: str, build: str) -> None:
        """Pin ``build`` as the baseline of ``suite`` (replacing any earlier pin)."""
        with self._engine.begin() as conn:
            conn.execute(BASELINES.delete().where(BASELINES.c.suite == suite))
            conn.execute(
                BASELINES.insert().values(suite=suite, build=build, pinned_at=datetime.now(UTC))
            )

    def baseline_for(self, suite: str) -> str | None:
        """The pinned baseline of ``suite``, or None."""
        with self._engine.connect() as conn:
            return conn.execute(
                select(BASELINES.c.build).where(BASELINES.c.suite == suite)
            ).scalar_one_or_none()

    def baselines(self) -> dict[str, str]:
        """Every pin: suite -> build."""
        with self._engine.connect() as conn:
            return {row.suite: row.build for row in conn.execute(select(BASELINES))}

    def record_scored_with(self, build: str, judge_fingerprint: str | None) -> None:
        """Remember which judge fingerprint scored ``build`` last."""
        with self._engine.begin() as conn:
            conn.execute(SCORED_WITH.delete().where(SCORED_WITH.c.build == build))
            conn.execute(
                SCORED_WITH.insert().values(
                    build=build, judge_fingerprint=judge_fingerprint, scored_at=datetime.now(UTC)
                )
            )

    def scored_with(self) -> dict[str, str | None]:
        """Map each scored build to the judge fingerprint it was last scored with."""
        with self._engine.connect() as conn:
            return {row.build: row.judge_fingerprint for row in conn.execute(select(SCORED_WITH))}


def stale_baselines(
    baselines: dict[str, str],
    scored_with: dict[str, str | None],
    current: dict[str, str],
) -> list[str]:
    """Baseline builds last scored with a judge other than their suite's current one.

    ``baselines`` maps suite -> pinned build, ``current`` suite -> the digest of the judge the
    suite names now (a suite without a judge has nothing to rescore). A baseline never scored
    is not stale (it has nothing to redo). Sorted, de-duplicated, so the schedule's request is
    idempotent.
    """
    stale = {
        build
        for suite, build in baselines.items()
        if suite in current and build in scored_with and scored_with[build] != current[suite]
    }
    return sorted(stale)
