"""The receiver's one write path, shared by OTLP/HTTP and OTLP/gRPC.

A request is ingested by the one ingest function in a bounded pool of worker threads, off the
event loop (so liveness answers while big requests are written); when every worker is busy and
the queue is full, the request is refused at once with a retry delay (429 /
``RESOURCE_EXHAUSTED``) instead of queueing without bound. The store fsyncs before ``ingest``
returns; the rows written are then published to the span stream, and only then is the request
acknowledged. A stream that cannot take them makes the request a 503 (``UNAVAILABLE``): the
sender retries, the store keeps each span once, and the stream gets every row of the retry.

Live traffic is production traffic: ``BuildGuard`` files a trace under ``production`` unless
the sender's token may write evaluation builds, and never into a pinned baseline.
"""

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, TypeVar

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.realtime.auth import Grant
from eval_pipeline.realtime.rpc_status import saturated, unavailable
from eval_pipeline.traces.eval_context import BUILD_ID
from eval_pipeline.traces.ingest.ingest import OtlpRequest, RowStore, ingest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.redact.redactor import RedactionPolicy
from eval_pipeline.traces.store.span_table import Row
from eval_pipeline.traces.store.trace_store import PRODUCTION, UNASSIGNED, TraceStore

LOG = logging.getLogger(__name__)
T = TypeVar("T")


class SpanPublisher(Protocol):
    """Where stored rows go next: the span stream (``eval_pipeline.stream``)."""

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
    """

    def __init__(self, store: TraceStore, guard: BuildGuard) -> None:
        self._store = store
        self._guard = guard
        self.rows: list[Row] = []
        self.builds: list[str] = []

    def builds_for_rows(
        self, rows: Sequence[Row], build: str | None = None, default: str = UNASSIGNED
    ) -> list[str]:
        """The store's choice of build per row, passed through the guard."""
        return list(map(self._guard.target, self._store.builds_for_rows(rows, build, default)))

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
        stored = self._store.write_rows(rows, build=build, day=day, targets=targets)
        self.rows.extend(rows)
        self.builds.extend(targets)
        return stored


_: type[RowStore] = CollectingStore  # checked by mypy: the wrapper is a RowStore


class WritePath:
    """Bounded, durable, published ingestion of OTLP trace requests (module docstring)."""

    def __init__(
        self,
        store: TraceStore,
        *,
        registry: BuildRegistry,
        stream: SpanPublisher | None = None,
        policy: RedactionPolicy | None = None,
        workers: int = 2,
        queue: int = 8,
        retry_after_s: int = 1,
        on_stored: Callable[[IngestReport], None] | None = None,
    ) -> None:
        """``workers`` threads ingest; ``queue`` more requests may wait; the rest are refused."""
        self.store = store
        self._registry = registry
        self._stream = stream
        self._policy = policy
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="ingest")
        self._slots = threading.BoundedSemaphore(workers + queue)
        self._retry_after_s = retry_after_s
        self._on_stored = on_stored

    def submit(self, job: Callable[[], T]) -> Future[T]:
        """Run ``job`` in the pool, or refuse now (429) when the pool and its queue are full."""
        if not self._slots.acquire(blocking=False):
            raise saturated(self._retry_after_s)
        future = self._pool.submit(job)
        future.add_done_callback(lambda _: self._slots.release())
        return future

    def submit_traces(self, request: OtlpRequest, grant: Grant) -> Future[Accepted]:
        """``write_traces`` in the pool (``submit``)."""
        return self.submit(lambda: self.write_traces(request, grant))

    @property
    def saturated(self) -> bool:
        """Whether a request now would be refused (readiness)."""
        if not self._slots.acquire(blocking=False):
            return True
        self._slots.release()
        return False

    def write_traces(self, request: OtlpRequest, grant: Grant) -> Accepted:
        """Ingest one request durably, publish what was written; ``Refusal`` 503 if not."""
        guard = BuildGuard(grant, frozenset(self._registry.baselines().values()))
        sink = CollectingStore(self.store, guard)
        day = datetime.now(UTC).strftime("%Y-%m-%d")
        report = ingest([request], store=sink, policy=self._policy, day=day, default_build=PRODUCTION)
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
        if self._on_stored is not None:
            self._on_stored(report)
        return Accepted(report, guard.notes)

    def close(self) -> None:
        """Finish the requests in the pool, then stop its threads."""
        self._pool.shutdown(wait=True)
