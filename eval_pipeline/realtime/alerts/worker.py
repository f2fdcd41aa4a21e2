"""The detector worker: consumes the span stream, runs the detectors, raises alerts.

Per fetched batch: span events go through the span-scope detectors and into the plane's
trace buffer, their alerts are stored and sent, then the spans are acknowledged (at least once: a
worker that dies before the acknowledgement gets them redelivered, and the alert ids make the
second pass raise nothing new). A trace-completed event is held, unacknowledged, for the quiet
period (late spans still arrive), then the trace is assembled from the buffer and judged by
the trace-scope detectors, its alerts stored, and only then acknowledged (while the worker is
behind, judging waits up to ``judge_lag_s`` more: span alerts first; and a step judges a
slice of the due traces, so a backlog of them never holds the next batch). A completion whose
named spans (those published with the root) are not all buffered yet is left unacknowledged:
they are in flight, fetched by a worker that died, and come back after the ack wait, as the
completion does, later than they (up to ``MAX_COMPLETION_DELIVERIES``; then it is judged on
what arrived).

With a ``SessionWatch`` (``sessions``), each judged trace of a conversation is recorded as a
turn, and every step runs the session detectors on the conversations that have ended (end
marker, or idle timeout past their last span), then forgets them (``session_watch``).

New alerts go to the webhook through the store's outbox (``delivery.AlertDelivery``: stored
already claimed for the delivery thread, which posts them once committed), and to the
JSON-lines sink at once.

N workers of one plane (threads here, or processes, or hosts) share the durable consumer.
``DetectorWorker.start`` runs one on a thread (in-process use, tests, ``serve``);
``eval-pipeline detectors run`` runs N in a process.
"""

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from eval_pipeline.realtime.alerts.alert import Alert
from eval_pipeline.realtime.alerts.delivery import AlertDelivery
from eval_pipeline.realtime.alerts.detector_runs import LIVE, DetectorRuns
from eval_pipeline.realtime.alerts.session_watch import SessionWatch
from eval_pipeline.realtime.alerts.sinks import AlertSink
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.alerts.trace_buffer import TraceBuffer
from eval_pipeline.realtime.detectors.config import DetectorConfig
from eval_pipeline.realtime.detectors.flag import Detector, Scope
from eval_pipeline.realtime.detectors.registry import default_detectors, detect_trace
from eval_pipeline.realtime.detectors.session_detectors import (
    SessionDetector,
    default_session_detectors,
)
from eval_pipeline.realtime.stream.events import SpanEvent, StreamUnavailable, TraceCompleted
from eval_pipeline.realtime.stream.protocol import REALTIME_PLANE, Delivery, SpanStream
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.runs.assemble import assemble_runs

_LOG = logging.getLogger(__name__)
MAX_COMPLETION_DELIVERIES = 5
"""A completion still missing spans on this delivery is judged on the spans buffered."""
SESSION_CHECK_S = 0.25
"""How often a worker looks for ended sessions (an alert comes this long after the end)."""


@dataclass
class WorkerStats:
    """What a worker has done so far (read by tests and ``bench serve``)."""

    spans: int = 0
    traces: int = 0
    alerts: int = 0
    redelivered: int = 0
    failures: int = 0
    deferred: int = 0
    """Completions left for redelivery because spans published with the root were missing."""
    cpu_s: float = 0.0
    """CPU seconds the worker's thread spent in ``step`` (``bench serve``: CPU per span)."""
    sessions: int = 0
    """Ended sessions judged by the session detectors (with ``DetectorWorker.sessions``)."""


@dataclass
class _Held:
    delivery: Delivery
    event: TraceCompleted
    due: float


@dataclass
class DetectorWorker:
    """One consumer of ``plane`` running ``detectors`` and recording alerts in ``store``."""

    stream: SpanStream
    store: AlertStore
    buffer: TraceBuffer
    detectors: Sequence[Detector] = field(default_factory=default_detectors)
    sinks: Sequence[AlertSink] = ()
    delivery: AlertDelivery | None = None
    plane: str = REALTIME_PLANE
    quiet_period_s: float = DetectorConfig().quiet_period_s
    ack_wait_s: float = 30.0
    batch: int = 1000
    stats: WorkerStats = field(default_factory=WorkerStats)
    judge_lag_s: float = 5.0
    """How long past due a trace may wait to be judged while the worker is behind (a full
    fetch, or more waiting): span alerts first, as a trace alert waits for the quiet period
    anyway."""

    judge_slice: int = 256
    """Most due traces a step judges, unless it fetched more than half as many completions."""

    sessions: SessionWatch | None = None
    """Watch conversations (in the store's state database): each judged trace with a
    conversation id is a turn, and ended sessions go to ``session_detectors`` (none: off)."""
    session_detectors: Sequence[SessionDetector] = field(default_factory=default_session_detectors)

    def __post_init__(self) -> None:
        self._consumer = self.stream.consumer(self.plane, ack_wait_s=self.ack_wait_s)
        self._held: dict[tuple[str, str], _Held] = {}
        self._span_detectors = tuple(d for d in self.detectors if d.scope == Scope.SPAN)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Recorded, so that "0 alerts" can be told from "no detector ever ran" (alerts list).
        self._runs = DetectorRuns(self.store.engine)
        self._run_id = self._runs.start(LIVE)
        self._next_session_check = 0.0

    def step(self, timeout_s: float = 0.5) -> int:
        """Fetch and process one batch, then judge the traces now due; deliveries processed."""
        wait = min(timeout_s, max(0.0, self._next_due() - time.monotonic()))
        deliveries = self._consumer.fetch(self.batch, timeout_s=max(wait, 0.01))
        self.stats.redelivered += sum(1 for d in deliveries if d.deliveries > 1)
        spans = [d for d in deliveries if isinstance(d.event, SpanEvent)]
        if spans:
            self._on_spans(spans)
        now = time.monotonic()
        completions = 0
        for delivery in deliveries:
            event = delivery.event
            if isinstance(event, TraceCompleted):
                completions += 1
                self._held[(event.build, event.trace_id)] = _Held(
                    delivery, event, now + self.quiet_period_s
                )
        behind = len(deliveries) >= self.batch or any(d.waiting for d in deliveries[-1:])
        # A step judges a slice of the due traces (at least twice the completions it fetched,
        # so judging gains on a backlog); the next fetch does not wait while more are due.
        # Judging a backlog of thousands of traces at once held span alerts for a second.
        self._judge_due(
            time.monotonic() - (self.judge_lag_s if behind else 0.0),
            max(self.judge_slice, 2 * completions),
        )
        self._judge_sessions()
        return len(deliveries)

    def _next_due(self) -> float:
        return min((held.due for held in self._held.values()), default=float("inf"))

    def _on_spans(self, deliveries: Sequence[Delivery]) -> None:
        alerts = []
        detectors = self._span_detectors
        for delivery in deliveries:
            event = delivery.event
            if isinstance(event, SpanEvent):
                for detector in detectors:  # as ``detect_span``, its scope filter done once
                    if flags := detector.detect_span(event.span):
                        alerts += [Alert.from_flag(flag, event.build) for flag in flags]
        with self.store.engine.begin() as connection:
            self.buffer.add(deliveries, connection)
            new = self.store.record(alerts, connection=connection, claim_s=self._claim_s)
            self._runs.checked(self._run_id, spans=len(deliveries), connection=connection)
        self._send(new)
        self._consumer.ack(deliveries)
        self.stats.spans += len(deliveries)

    def _judge_due(self, now: float, limit: int | None = None) -> None:
        """Judge the completions due by ``now``: at most ``limit``, the first held first."""
        keys = []
        for key, held in self._held.items():  # in the order held: by due time, but for a
            if held.due <= now:  # completion delivered again while held (due later)
                keys.append(key)
                if limit is not None and len(keys) >= limit:
                    break
        due = [self._held.pop(key) for key in keys]
        if not due:
            return
        spans = self.buffer.spans(held.event.trace_id for held in due)
        due = [held for held in due if self._whole(held, spans)]
        if not due:
            return
        completed = [held.event for held in due]
        judged = [
            (event.build, run)
            for event in completed
            for run in assemble_runs(spans.get(event.trace_id, []))
        ]
        alerts = [
            Alert.from_flag(flag, build)
            for build, run in judged
            for flag in detect_trace(run, self.detectors)
        ]
        with self.store.engine.begin() as connection:
            new = self.store.record(alerts, connection=connection, claim_s=self._claim_s)
            if self.sessions is not None:
                self.sessions.observe(judged, connection)
            self.buffer.forget((e.trace_id for e in completed), connection)
            self._runs.checked(self._run_id, traces=len(completed), connection=connection)
        self._send(new)
        self._consumer.ack([held.delivery for held in due])
        self.stats.traces += len(due)

    def _judge_sessions(self) -> None:
        """Run the session detectors on the watched sessions that have ended by now.

        At most every ``SESSION_CHECK_S``: a query of the state database per fetched batch
        would cost the busy worker more than the check is worth.
        """
        if self.sessions is None or time.monotonic() < self._next_session_check:
            return
        self._next_session_check = time.monotonic() + SESSION_CHECK_S
        with self.store.engine.begin() as connection:
            ended = self.sessions.ended(time.time_ns(), connection)
            if not ended:
                return
            alerts = [
                Alert.from_flag(flag, session.build or "")
                for session in ended
                for detector in self.session_detectors
                for flag in detector.detect_session(session)
            ]
            new = self.store.record(alerts, connection=connection, claim_s=self._claim_s)
            self.sessions.forget(ended, connection)
        self._send(new)
        self.stats.sessions += len(ended)

    def _whole(self, held: _Held, spans: dict[str, list[Span]]) -> bool:
        """Judge ``held`` now? Not while spans published with its root are in flight."""
        buffered = {span.span_id for span in spans.get(held.event.trace_id, [])}
        if buffered.issuperset(held.event.span_ids):
            return True
        if held.delivery.deliveries >= MAX_COMPLETION_DELIVERIES:
            _LOG.warning(
                "trace %s judged without %d of its spans after %d deliveries",
                held.event.trace_id,
                len(set(held.event.span_ids) - buffered),
                held.delivery.deliveries,
            )
            return True
        self.stats.deferred += 1  # unacknowledged: delivered again after the ack wait
        return False

    @property
    def _claim_s(self) -> float | None:
        """How long new alerts are stored claimed for the webhook sender (None: no webhook)."""
        return None if self.delivery is None else self.delivery.lease_s

    def _send(self, new: Sequence[Alert]) -> None:
        """Hand newly stored (and committed) alerts to the webhook sender and the sinks."""
        if not new:
            return
        self.stats.alerts += len(new)
        if self.delivery is not None:
            self.delivery.send(new)
        for sink in self.sinks:
            for alert in new:
                sink.send(alert)

    def run(self) -> None:
        """Process batches until ``stop``; a stream outage or a failed batch is not fatal.

        A batch that failed is not acknowledged, so its events come back after the ack wait
        (the state database briefly locked, a detector tripping on a span): logged, retried.
        """
        while not self._stop.is_set():
            started = time.thread_time()
            try:
                self.step()
            except StreamUnavailable:
                self._stop.wait(0.5)
            except Exception:
                _LOG.exception("detector worker %s: batch failed; retrying", self.plane)
                self.stats.failures += 1
                self._stop.wait(0.5)
            finally:
                self.stats.cpu_s += time.thread_time() - started

    def start(self) -> "DetectorWorker":
        """Run on a daemon thread (``stop`` ends it)."""
        self._thread = threading.Thread(target=self.run, name=f"detector-{self.plane}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop after the current batch; held completions stay unacknowledged (redelivered)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self._consumer.close()
