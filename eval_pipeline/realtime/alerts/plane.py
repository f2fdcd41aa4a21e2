"""The real-time plane of one home, assembled in one place: stream, workers, store, sinks.

``RealtimePlane.start`` is how the plane runs in-process (tests); ``eval-pipeline detectors
run`` starts the same thing in its own process, which is how ``serve`` runs it, as a child
beside the receiver (``plane_process``). Workers are
threads, each with its own handle on the plane's durable consumer, so they share the load
the way separate processes or hosts do.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from eval_pipeline.home import Home
from eval_pipeline.realtime.alerts.delivery import AlertDelivery
from eval_pipeline.realtime.alerts.session_watch import SessionWatch
from eval_pipeline.realtime.alerts.sinks import AlertSink, JsonLinesSink, WebhookSink
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.alerts.trace_buffer import TraceBuffer
from eval_pipeline.realtime.alerts.worker import DetectorWorker, WorkerStats
from eval_pipeline.realtime.detectors.config import DetectorConfig
from eval_pipeline.realtime.detectors.registry import default_detectors
from eval_pipeline.realtime.detectors.session_detectors import default_session_detectors
from eval_pipeline.realtime.stream.events import DEFAULT_PREFIX
from eval_pipeline.realtime.stream.open import open_stream
from eval_pipeline.realtime.stream.protocol import REALTIME_PLANE, SpanStream


@dataclass
class RealtimePlane:
    """Running detector workers and the webhook delivery of one home."""

    stream: SpanStream
    store: AlertStore
    workers: list[DetectorWorker]
    delivery: AlertDelivery | None = None
    owns_stream: bool = True
    _stopped: bool = field(default=False, repr=False)

    @classmethod
    def start(
        cls,
        home: Home | Path,
        *,
        stream_url: str | None = None,
        stream: SpanStream | None = None,
        prefix: str = DEFAULT_PREFIX,
        workers: int = 1,
        webhook: str | None = None,
        json_lines: IO[str] | None = None,
        config: DetectorConfig | None = None,
        plane: str = REALTIME_PLANE,
        ack_wait_s: float = 30.0,
        batch: int = 1000,
    ) -> "RealtimePlane":
        """Open the stream (unless given), start ``workers`` workers and the webhook sender.

        Args:
            home: The embedded home (state database, default stream).
            stream_url: None for the embedded stream, ``nats://...`` for JetStream.
            stream: An open stream to share (the receiver's); ``stream_url`` is then unused.
            prefix: Subject prefix / stream name.
            workers: Worker threads sharing the plane's durable consumer.
            webhook: URL each new alert is POSTed to (retried with backoff), or None.
            json_lines: Where to write each new alert as a JSON line (None: nowhere).
            config: Detector settings (patterns, budgets, quiet period, sessions' idle timeout).
            plane: The durable consumer's name.
            ack_wait_s: Redelivery delay of an unacknowledged event.
            batch: Most events one worker fetches at a time.
        """
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        state = home if isinstance(home, Home) else Home(Path(home))
        config = config or DetectorConfig()
        owns = stream is None
        opened = stream if stream is not None else open_stream(state, stream_url, prefix=prefix)
        store = AlertStore(state.state_url)
        delivery = AlertDelivery(store, WebhookSink(webhook)).start() if webhook else None
        sinks: list[AlertSink] = [JsonLinesSink(json_lines)] if json_lines is not None else []
        detectors = default_detectors(config)
        running = [
            DetectorWorker(
                opened,
                store,
                TraceBuffer(state.state_url, plane),
                detectors,
                sinks,
                delivery,
                plane,
                config.quiet_period_s,
                ack_wait_s,
                batch,
                sessions=SessionWatch(state.state_url, plane, config.sessions.idle_timeout_s),
                session_detectors=default_session_detectors(config),
            ).start()
            for _ in range(workers)
        ]
        return cls(opened, store, running, delivery, owns)

    @property
    def stats(self) -> WorkerStats:
        """The workers' counts, summed."""
        total = WorkerStats()
        for worker in self.workers:
            total.spans += worker.stats.spans
            total.traces += worker.stats.traces
            total.alerts += worker.stats.alerts
            total.redelivered += worker.stats.redelivered
            total.failures += worker.stats.failures
            total.cpu_s += worker.stats.cpu_s
            total.sessions += worker.stats.sessions
        return total

    def stop(self) -> None:
        """Stop the workers and the sender; close the stream if this plane opened it."""
        if self._stopped:
            return
        self._stopped = True
        for worker in self.workers:
            worker.stop()
        if self.delivery is not None:
            self.delivery.stop()
        if self.owns_stream:
            self.stream.close()
