"""In-process span capture through the real OpenTelemetry SDK, one collector per run.

One ``RoutingSpanProcessor`` sits on the runner's ``TracerProvider`` and, when the process has
an SDK provider installed globally (or none at all), on the global one too, so agents may use
the tracer they are given or ``opentelemetry.trace.get_tracer``. When a span starts inside a
run (a context variable names the run's collector), its trace id is bound to that collector;
every span of that trace, from any thread, is routed there when it ends. Concurrent runs thus
never see each other's spans.
"""

import contextvars
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace import Span as SdkSpan

_CURRENT: contextvars.ContextVar["SpanCollector | None"] = contextvars.ContextVar(
    "eval_pipeline_span_collector", default=None
)


class SpanCollector:
    """The finished SDK spans of one run."""

    def __init__(self) -> None:
        self._spans: list[ReadableSpan] = []
        self._lock = threading.Lock()
        self.trace_ids: set[int] = set()
        self.closed = False

    def add(self, span: ReadableSpan) -> None:
        """Keep a finished span (dropped once the collector is closed)."""
        with self._lock:
            if not self.closed:
                self._spans.append(span)

    def spans(self) -> list[ReadableSpan]:
        """The spans collected so far."""
        with self._lock:
            return list(self._spans)


class RoutingSpanProcessor(SpanProcessor):
    """Routes finished spans to the collector of the run that started their trace."""

    def __init__(self) -> None:
        self._by_trace: dict[int, SpanCollector] = {}
        self._lock = threading.Lock()

    def on_start(self, span: SdkSpan, parent_context: otel_context.Context | None = None) -> None:
        """Bind the span's trace to the current run's collector (first binding wins)."""
        collector = _CURRENT.get()
        trace_id = span.get_span_context().trace_id
        if collector is not None and not collector.closed:
            with self._lock:
                if trace_id not in self._by_trace:
                    self._by_trace[trace_id] = collector
                    collector.trace_ids.add(trace_id)

    def on_end(self, span: ReadableSpan) -> None:
        """Hand the span to its run's collector, if any."""
        context = span.get_span_context()
        if context is None:
            return
        with self._lock:
            collector = self._by_trace.get(context.trace_id)
        if collector is not None:
            collector.add(span)

    def release(self, collector: SpanCollector) -> None:
        """Forget the collector's traces; later spans of them are dropped."""
        collector.closed = True
        with self._lock:
            for trace_id in collector.trace_ids:
                self._by_trace.pop(trace_id, None)

    def shutdown(self) -> None:
        """Nothing to flush: spans are routed synchronously."""

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Nothing buffered."""
        return True


_ROUTER = RoutingSpanProcessor()
_PROVIDER: TracerProvider | None = None
_SETUP = threading.Lock()


def runner_provider() -> TracerProvider:
    """The runners' tracer provider, also attached to the global provider when possible."""
    global _PROVIDER
    with _SETUP:
        if _PROVIDER is None:
            _PROVIDER = TracerProvider(resource=Resource.create({"service.name": "eval-runner"}))
            _PROVIDER.add_span_processor(_ROUTER)
            current = trace.get_tracer_provider()
            if isinstance(current, TracerProvider):
                current.add_span_processor(_ROUTER)
            elif type(current).__name__ == "ProxyTracerProvider":
                trace.set_tracer_provider(_PROVIDER)
        return _PROVIDER


@contextmanager
def capture() -> Iterator[SpanCollector]:
    """Collect every span whose trace starts inside the ``with`` block (in this context)."""
    runner_provider()
    collector = SpanCollector()
    token = _CURRENT.set(collector)
    try:
        yield collector
    finally:
        _CURRENT.reset(token)


def release(collector: SpanCollector) -> None:
    """Stop routing to ``collector`` (after its run ended or was abandoned)."""
    _ROUTER.release(collector)
