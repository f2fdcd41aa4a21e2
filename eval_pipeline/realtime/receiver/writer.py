"""One OTLP request written durably, then published: the receiver's ``Writer``.

The request goes through the one ingest function into the trace store, which fsyncs before
``ingest`` returns; the rows written are then published to the span stream, and only then is
the request acknowledged. A stream that cannot take them, or a store that cannot write now
(``STORE_UNAVAILABLE``: a full disk, a read-only mount, a locked database), makes the request a
503 (``UNAVAILABLE``) with a retry delay: the sender retries, the store keeps each span once,
and the stream gets every row of the retry. A body that gave no span and is not an OTLP trace
request at all is a 400 (``request_shape``).

Live traffic is production traffic: ``BuildGuard`` files a trace under ``production`` unless
the sender's token may write evaluation builds, and never into a pinned baseline.
``WriterSpec`` opens a writer in a worker process of the write path (``write_path``).
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import compress
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.exc import OperationalError

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import Home
from eval_pipeline.realtime.receiver.auth import Grant
from eval_pipeline.realtime.receiver.request_shape import not_a_trace_request
from eval_pipeline.realtime.receiver.rpc_status import Refusal, unavailable
from eval_pipeline.traces.eval_context import BUILD_ID
from eval_pipeline.traces.ingest.ingest import OtlpRequest, RowStore, ingest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.redact.redactor import RedactionPolicy, load_policy
from eval_pipeline.traces.store.span_table import TRACE_ID, Row
from eval_pipeline.traces.store.trace_store import PRODUCTION, UNASSIGNED, TraceStore

if TYPE_CHECKING:
    from eval_pipeline.realtime.stream.retention import Retention

LOG = logging.getLogger(__name__)
STORE_UNAVAILABLE = (OSError, OperationalError)
"""What a store that cannot write now raises (transient: the sender is told to retry)."""


def store_failure(exc: BaseException) -> str:
    """A store failure in one line: the database driver's own error, not SQLAlchemy's wrapper."""
    cause = getattr(exc, "orig", None) or exc
    return f"{type(cause).__name__}: {cause}"


class SpanPublisher(Protocol):
    """Where stored rows go next: the span stream (``eval_pipeline.realtime.stream``)."""

    def publish_rows(self, rows: Sequence[Row], *, builds: Sequence[str], day: str) -> None:
        """Publish the rows (blocking); raises when the stream cannot take them."""
        ...


@dataclass
class Accepted:
    """What one acknowledged request did: the ingest report, and builds not honoured."""

    report: IngestReport
    notes: list[str] = field(default_factory=list)


@dataclass
class BuildGuard:
    """The builds a sender may write: ``production``, or its eval context's when allowed."""

    grant: Grant
    pinned: frozenset[str]
    notes: list[str] = field(default_factory=list)

    def target(self, build: str) -> str:
        """``build`` when the sender may write it, else ``production`` (with a note why)."""
        if build in (PRODUCTION, UNASSIGNED):
            return PRODUCTION
        if not self.grant.writes_evaluation_builds:
            reason = "the token may not write evaluation builds"
        elif build in self.pinned:
            reason = "it is a pinned baseline"
        else:
            return build
        note = f"{BUILD_ID}={build!r} not honoured ({reason}): stored under {PRODUCTION!r}"
        if note not in self.notes:
            self.notes.append(note)
        return PRODUCTION


class CollectingStore:
    """A ``RowStore`` over the trace store: guards the builds, keeps what it wrote for the stream.

    Every row handed to a successful ``write_rows`` is kept (new or already stored: a retry
    after a failed publication publishes them again), with the build it went to.

    Rows are written as trusted (``TraceStore.write_rows``: their rootless fragments may join
    the trace of the build holding its root) only when the sender may write evaluation builds
    and the guard honoured the build their trace was going to: spans a sender could not have
    written into a build (a production token's, any token's aimed at a pinned baseline) never
    join that build's runs.
    """

    def __init__(self, store: TraceStore, guard: BuildGuard) -> None:
        self._store = store
        self._guard = guard
        self._refused: set[str] = set()  # traces whose build the guard did not honour
        self.rows: list[Row] = []
        self.builds: list[str] = []

    def builds_for_rows(
        self, rows: Sequence[Row], build: str | None = None, default: str = UNASSIGNED
    ) -> list[str]:
        """The store's choice of build per row, passed through the guard."""
        chosen = self._store.builds_for_rows(rows, build, default)
        targets = list(map(self._guard.target, chosen))
        if chosen != targets:
            self._refused.update(
                row[TRACE_ID]
                for row, wanted, target in zip(rows, chosen, targets, strict=True)
                if wanted != target and wanted not in (PRODUCTION, UNASSIGNED)
            )
        return targets

    def write_rows(
        self,
        rows: Sequence[Row],
        *,
        build: str | None = None,
        day: str | None = None,
        targets: Sequence[str] | None = None,
    ) -> int:
        """Write durably (``TraceStore.write_rows``), then keep the rows for publication."""
        if targets is None:
            targets = self.builds_for_rows(rows, build)
        trusted = [
            self._guard.grant.writes_evaluation_builds and row[TRACE_ID] not in self._refused
            for row in rows
        ]
        stored = 0
        for vouched in (True, False):
            if vouched in trusted:
                kept = [ok is vouched for ok in trusted]
                stored += self._store.write_rows(
                    list(compress(rows, kept)),
                    build=build,
                    day=day,
                    targets=list(compress(targets, kept)),
                    trusted=vouched,
                )
        self.rows.extend(rows)
        self.builds.extend(targets)
        return stored


_: type[RowStore] = CollectingStore  # checked by mypy: the wrapper is a RowStore


class Writer:
    """Ingests one request durably and publishes what it wrote (module docstring)."""

    def __init__(
        self,
        store: TraceStore,
        *,
        registry: BuildRegistry,
        stream: SpanPublisher | None = None,
        policy: RedactionPolicy | None = None,
        retry_after_s: int = 1,
    ) -> None:
        """Write into ``store``, guard builds with ``registry``'s pins, publish to ``stream``."""
        self.store = store
        self._registry = registry
        self._stream = stream
        self._policy = policy
        self._retry_after_s = retry_after_s

    def write(self, request: OtlpRequest, grant: Grant) -> Accepted:
        """Ingest one request durably, publish what was written; ``Refusal`` 503 if not.

        Raises:
            Refusal: 503 when the store or the stream cannot take the spans now (retry), 400
                when the body holds no trace request at all (``request_shape``).
        """
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        try:
            guard = BuildGuard(grant, frozenset(self._registry.baselines().values()))
            sink = CollectingStore(self.store, guard)
            report = ingest(
                [request], store=sink, policy=self._policy, day=day, default_build=PRODUCTION
            )
        except STORE_UNAVAILABLE as exc:
            # A full disk, a read-only mount, a locked or unreachable database: exporters retry
            # a 503 (they drop a 500), and the store keeps each span once when they do.
            LOG.warning("the store refused a write: %r", exc)
            raise unavailable(
                f"the store cannot take the spans now ({store_failure(exc)}); retry",
                self._retry_after_s,
            ) from exc
        if report.spans_decoded == 0 and not report.errors:
            problem = not_a_trace_request(request)
            if problem is not None:
                raise Refusal(400, f"{request.source}: {problem}")
        if self._stream is not None and sink.rows:
            try:
                self._stream.publish_rows(sink.rows, builds=sink.builds, day=day)
            except Exception as exc:
                # Stored but not published: not acknowledged, so the sender retries (the
                # store keeps each span once; the stream gets the rows again).
                LOG.warning("publishing %d rows failed: %r", len(sink.rows), exc)
                raise unavailable(
                    f"spans stored but not published to the stream ({type(exc).__name__}); retry",
                    self._retry_after_s,
                ) from exc
        return Accepted(report, guard.notes)


@dataclass(frozen=True)
class WriterSpec:
    """How a worker process opens a ``Writer`` of its own (picklable: paths and names)."""

    home_root: Path
    stream_url: str | None = None
    policy: str | None = None
    """A redaction policy file or shipped name (``load_policy``)."""
    retention: "Retention | None" = None
    """What the span stream keeps (``stream.retention``; its defaults when None)."""

    def open(self) -> Writer:
        """The writer over the home's store, registry and stream."""
        from eval_pipeline.realtime.stream import open_stream

        home = Home(self.home_root)
        return Writer(
            TraceStore(home.store),
            registry=BuildRegistry(home.state_url),
            stream=open_stream(home, self.stream_url, retention=self.retention),
            policy=load_policy(self.policy),
        )
