"""One judge trace per scoring job, stored in the build's judge partition of the trace store.

``judge_trace(judge, build, store, policy)`` opens a job: it gives the judge a ``CallRecorder``
(``call_spans``) for the block, so every request the judge sends meanwhile (judged metrics,
library adapters, calibration; from any thread) is recorded in memory, and when the block ends,
however it ends, stores the job's spans in one ingest batch: the product's own path (normalise,
redact with the suite's policy, store). The spans go to the build ``judge:<build>``, never to the
build's own partition, so judge calls never mix with the agent runs they judged (``traces list``
leaves judge partitions out unless asked for one). A job that made no call stores nothing.

A judge records calls when it can (``RecordsCalls``: the HTTP judge; the cache and an aligned
judge pass the recorder on). The offline judge runs in process and makes no call: nothing is
recorded and its rows name no call.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

from eval_pipeline.judges.call_spans import CallRecorder
from eval_pipeline.traces.decode.errors import DecodeResult
from eval_pipeline.traces.ingest.ingest import RowStore, ingest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.model import Operation, Span
from eval_pipeline.traces.redact.policy import RedactionPolicy

JUDGE_BUILD_PREFIX = "judge:"


def judge_build(build: str) -> str:
    """The trace-store build holding the judge calls made scoring ``build``."""
    return f"{JUDGE_BUILD_PREFIX}{build}"


def is_judge_build(build: str) -> bool:
    """Whether a trace-store build holds judge calls (``judge_build``)."""
    return build.startswith(JUDGE_BUILD_PREFIX)


@runtime_checkable
class RecordsCalls(Protocol):
    """A judge that can record the requests it sends (the HTTP judge, and wrappers of it)."""

    def record_calls(self, recorder: CallRecorder | None) -> None:
        """Record every request into ``recorder`` from now on (None: stop recording)."""
        ...


def store_calls(
    recorder: CallRecorder, store: RowStore, policy: RedactionPolicy | None = None
) -> IngestReport | None:
    """Ingest the job's spans into ``judge_build(build)`` in one batch (None: no call made)."""
    if recorder.calls == 0:
        return None
    return ingest(
        [DecodeResult(recorder.spans())],
        store=store,
        build=judge_build(recorder.build),
        policy=policy,
    )


@contextmanager
def judge_trace(
    judge: object, build: str, store: RowStore, policy: RedactionPolicy | None = None
) -> Iterator[CallRecorder]:
    """Record the judge's calls while the block runs, then store them (module docstring)."""
    recorder = CallRecorder(build)
    recording = judge if isinstance(judge, RecordsCalls) else None
    if recording is not None:
        recording.record_calls(recorder)
    try:
        yield recorder
    finally:
        if recording is not None:
            recording.record_calls(None)
        store_calls(recorder, store, policy)


def chat_spans(spans: list[Span]) -> list[Span]:
    """The chat spans (the calls) among a judge partition's spans."""
    return [s for s in spans if s.operation == Operation.CHAT]
