"""The Runner interface (docs/DESIGN.md section 7): run a build over items x runs, capture traces.

``Runner.run_items`` owns everything common to the runner kinds: the (item, run index) plan,
resumption (runs already in the sink for the build are skipped), a thread pool bounded by
``concurrency``, progress told to a callback, the per-run timeout, and turning faults into
failed runs with a reason (``failure``). Subclasses implement only ``execute`` (one run). A
multi-turn item's run is a conversation: ``runners.conversation`` calls ``execute`` once per
turn and stamps the turns, which are stored together as the run's session.

A run that hangs past its timeout is abandoned: Python cannot kill a thread, so the agent's
thread is left to finish (it is a daemon) and its late spans are dropped; ``context.cancelled``
is set so cooperative agents stop early.
"""

import dataclasses
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.runners import failure
from eval_pipeline.runners.context import derive_seed
from eval_pipeline.runners.conversation import (
    ConversationFailure,
    UserFactory,
    drive_conversation,
    turn_root,
)
from eval_pipeline.runners.outcome import RunBatchResult, RunOutcome, RunRequest, RunStatus
from eval_pipeline.runners.sink import MemorySink, RunSink
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.model import EvalContext, Span


class RunFailure(Exception):
    """Raised by ``execute`` for a fault it diagnosed itself (e.g. an HTTP error status)."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


@dataclass(frozen=True)
class RunSpec:
    """One run as ``execute`` sees it."""

    item: DatasetItem
    build: str
    context: EvalContext
    seed: int
    timeout_s: float
    cancelled: threading.Event
    conversation_id: str | None = None
    """Set for one turn of a multi-turn item: the session's conversation id."""
    turn: int | None = None
    """Set for one turn of a multi-turn item: its number (1-based)."""


class Runner(ABC):
    """Executes a build over dataset items, several runs each, and records their traces."""

    def __init__(self, *, sink: RunSink | None = None, timeout_s: float = 60.0) -> None:
        self.sink: RunSink = sink if sink is not None else MemorySink()
        self.timeout_s = timeout_s
        self.simulated_user: UserFactory | None = None
        """Who plays a multi-turn item's user: None for its script (``scripted_user``), else
        a factory of (item, run seed), e.g. ``model_user.model_users`` (a model)."""

    @abstractmethod
    def execute(self, spec: RunSpec) -> list[Span]:
        """Run one item once and return its spans (may raise; see ``RunFailure``)."""

    def persist(self, spans: list[Span], build: str) -> None:
        """Store one completed run's spans (as soon as the run ends, so a crash keeps them).

        The sink redacts what it stores; the outcome keeps the spans as captured.
        """
        self.sink.write(spans, build=build)

    def agent_name(self) -> str | None:
        """The root agent's name, for failure spans (None when unknown)."""
        return None

    def run_items(
        self,
        items: Sequence[DatasetItem],
        *,
        build: str,
        runs_per_item: int = 1,
        concurrency: int = 4,
        base_context: EvalContext | None = None,
        seed_base: str | None = None,
        retry_failed: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> RunBatchResult:
        """Run every item ``runs_per_item`` times; skip runs already stored for ``build``.

        Args:
            items: The dataset items (ids must be unique).
            build: The build id, written into every root span's eval context.
            runs_per_item: Runs per item (indices 0..runs_per_item-1).
            concurrency: Maximum runs in flight.
            base_context: Suite / dataset / prompt fields of the eval context.
            seed_base: Seeds derive from (seed_base, item, run); defaults to ``build``.
            retry_failed: Also redo runs stored as failed (their old failure trace stays).
            progress: Called with (runs finished, runs to do) before the first run and as
                each run ends (the CLI draws it; skipped runs are not counted).
        """
        if runs_per_item < 1 or concurrency < 1:
            raise ValueError("runs_per_item and concurrency must be at least 1")
        by_id = {item.item_id: item for item in items}
        if len(by_id) != len(items):
            raise ValueError(f"build {build}: dataset item ids are not unique")
        stored = self.sink.stored_runs(build)
        if retry_failed and stored:
            stored -= self._failed_keys(build)
        requests = [
            RunRequest(item.item_id, index) for item in items for index in range(runs_per_item)
        ]
        base = base_context or EvalContext()
        outcomes: dict[RunRequest, RunOutcome] = {
            r: RunOutcome(build, r.item_id, r.run_index, RunStatus.SKIPPED)
            for r in requests
            if (r.item_id, r.run_index) in stored
        }
        todo = [r for r in requests if r not in outcomes]
        report = progress or (lambda done, total: None)
        report(0, len(todo))
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            futures = {
                pool.submit(
                    self._one, by_id[request.item_id], request, build, base, seed_base or build
                ): request
                for request in todo
            }
            for done, future in enumerate(as_completed(futures), start=1):
                outcomes[futures[future]] = future.result()
                report(done, len(todo))
        return RunBatchResult(build, tuple(outcomes[r] for r in requests))

    def _failed_keys(self, build: str) -> set[tuple[str, int]]:
        keys: set[tuple[str, int]] = set()
        for span in self.sink.spans(build):
            if failure.FAILURE_REASON in span.attributes:
                ctx = eval_context.from_attributes(span.attributes)
                keys.add((ctx.item_id or "", ctx.run_index or 0))
        return keys

    def _one(
        self, item: DatasetItem, request: RunRequest, build: str, base: EvalContext, seed_base: str
    ) -> RunOutcome:
        context = dataclasses.replace(
            base, build_id=build, item_id=item.item_id, run_index=request.run_index
        )
        spec = RunSpec(
            item,
            build,
            context,
            derive_seed(seed_base, item.item_id, request.run_index),
            self.timeout_s,
            threading.Event(),
        )
        started_ns, started = time.time_ns(), time.perf_counter()
        box: dict[str, object] = {}

        def target() -> None:
            try:
                box["spans"] = self._execute_item(spec)
            except BaseException as exc:
                box["error"] = exc

        thread = threading.Thread(
            target=target, name=f"run-{item.item_id}-{request.run_index}", daemon=True
        )
        thread.start()
        thread.join(self.timeout_s)
        if thread.is_alive():
            spec.cancelled.set()
            return self._fail(
                spec,
                failure.FailureKind.TIMEOUT,
                f"timed out after {self.timeout_s:g} s",
                started_ns,
                started,
            )
        error = box.get("error")
        if isinstance(error, RunFailure | ConversationFailure):
            return self._fail(spec, error.kind, error.reason, started_ns, started)
        if isinstance(error, BaseException):
            return self._fail(
                spec,
                failure.FailureKind.RAISED,
                f"agent raised {type(error).__name__}: {error}",
                started_ns,
                started,
            )
        spans = list(box.get("spans") or [])  # type: ignore[call-overload]
        if not spans:
            return self._fail(
                spec, failure.FailureKind.NO_SPANS, "agent emitted no spans", started_ns, started
            )
        if item.multi_turn:  # every turn is stamped already (runners.conversation)
            self.persist(spans, build)
            return RunOutcome(
                build,
                item.item_id,
                request.run_index,
                RunStatus.COMPLETED,
                trace_id=spans[-1].trace_id,
                spans=tuple(spans),
                wall_s=time.perf_counter() - started,
            )
        root = turn_root(spans)
        if root is None:
            return self._fail(
                spec,
                failure.FailureKind.NO_ROOT,
                f"none of the {len(spans)} spans is an invoke_agent root",
                started_ns,
                started,
            )
        spans = _stamp_context(spans, root, context)
        self.persist(spans, build)
        return RunOutcome(
            build,
            item.item_id,
            request.run_index,
            RunStatus.COMPLETED,
            trace_id=root.trace_id,
            spans=tuple(spans),
            wall_s=time.perf_counter() - started,
        )

    def _execute_item(self, spec: RunSpec) -> list[Span]:
        """One run: ``execute`` once, or once per turn for a multi-turn item."""
        if spec.item.multi_turn:
            return drive_conversation(self.execute, spec, self.simulated_user)
        return self.execute(spec)

    def _fail(
        self, spec: RunSpec, kind: str, reason: str, started_ns: int, started: float
    ) -> RunOutcome:
        span = failure.failure_root_span(
            spec.context,
            kind=kind,
            reason=reason,
            started_ns=started_ns,
            agent_name=self.agent_name(),
        )
        self.sink.write([span], build=spec.build)
        return RunOutcome(
            spec.build,
            spec.item.item_id,
            spec.context.run_index or 0,
            RunStatus.FAILED,
            trace_id=span.trace_id,
            spans=(span,),
            failure_reason=reason,
            wall_s=time.perf_counter() - started,
        )


def _stamp_context(spans: list[Span], root: Span, context: EvalContext) -> list[Span]:
    """Put the runner's eval context on the root span (the runner's values win)."""
    attributes = {**root.attributes, **eval_context.to_attributes(context)}
    stamped = dataclasses.replace(root, attributes=attributes)
    return [stamped if span is root else span for span in spans]
