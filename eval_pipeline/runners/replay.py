"""Replay recorded results (tau2, tau-bench, BFCL imports) as runs of a build.

Recorded traces already sit in the trace store under a source build (the importer's
``--build``). Replaying into the same build is resumption: every recorded run is ``skipped``
and only the (item, run index) pairs with no recording become failed runs ("not recorded"),
so the gate counts them as missing. Replaying into another build copies each recorded trace,
stamping the target build's eval context on its root; the copy is stored through the sink, so
its policy applies (stored tokens stay as they are: redacting twice changes nothing).

Recorded traces are matched to (item, run index) by their eval context; a trace with an item
id but no run index takes the next free index of its item, in start-time order.
"""

from collections import defaultdict

from eval_pipeline.runners import failure
from eval_pipeline.runners.base import RunFailure, Runner, RunSpec
from eval_pipeline.runners.sink import RunSink
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import Operation, Span


def recorded_runs(spans: list[Span]) -> dict[tuple[str, int], list[Span]]:
    """Group stored spans into runs keyed by (item id, run index) from their root's context.

    Failure records (``runners.failure``) are not recordings and are left out.
    """
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    unindexed: dict[str, list[tuple[int, str]]] = defaultdict(list)
    runs: dict[tuple[str, int], list[Span]] = {}
    for trace_id, group in by_trace.items():
        if failure.failure_reason(group) is not None:
            continue  # a run that failed is not a recording
        roots = [s for s in group if s.parent_span_id is None] or group
        root = min(
            roots, key=lambda s: (s.operation != Operation.INVOKE_AGENT, s.start_time_unix_nano)
        )
        context = eval_context.from_attributes(root.attributes)
        if context.item_id is None:
            continue
        if context.run_index is None:
            unindexed[context.item_id].append((root.start_time_unix_nano, trace_id))
        else:
            runs[(context.item_id, context.run_index)] = group
    for item_id, traces in unindexed.items():
        index = 0
        for _, trace_id in sorted(traces):
            while (item_id, index) in runs:
                index += 1
            runs[(item_id, index)] = by_trace[trace_id]
    return runs


class ReplayRunner(Runner):
    """Turns recorded traces of ``source_build`` into runs (no agent is executed)."""

    def __init__(
        self,
        source: RunSink,
        source_build: str,
        *,
        sink: RunSink | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        super().__init__(sink=sink if sink is not None else source, timeout_s=timeout_s)
        self.source = source
        self.source_build = source_build
        self._runs: dict[tuple[str, int], list[Span]] | None = None

    def persist(self, spans: list[Span], build: str) -> None:
        """Copy into the target build; replaying a build onto itself stores nothing twice."""
        if build == self.source_build and self.sink is self.source:
            return
        self.sink.write(spans, build=build)

    def execute(self, spec: RunSpec) -> list[Span]:
        """The recorded spans of this (item, run index), or a not-recorded failure."""
        if self._runs is None:
            self._runs = recorded_runs(self.source.spans(self.source_build))
        key = (spec.item.item_id, spec.context.run_index or 0)
        recorded = self._runs.get(key)
        if not recorded:
            raise RunFailure(
                failure.FailureKind.NOT_RECORDED,
                f"no recorded run of item {key[0]} (run {key[1]}) in build {self.source_build}",
            )
        return list(recorded)
