"""Evaluation events received over OTLP (the receiver's logs endpoint) -> imported scores.

The receiver (``POST /v1/logs`` and the gRPC ``LogsService``) hands each decoded
``ExportLogsServiceRequest`` to an injected ``on_logs`` handler; ``EvaluationEventHandler`` is
that handler. Every ``gen_ai.evaluation.result`` record becomes a score row
(``evaluation_event.score_from_record``: ours come back exactly, another tool's with the standard
fields only, as ``imported:otel``) and the rows are stored before the handler returns, so an
acknowledged event is kept. A record that is not an evaluation event, or one whose attributes
cannot be a score, is rejected alone with a message naming the record and the attribute; the
others are stored (``EventsRejected``, a ``ValueError``: the receiver's 400 for bad data).
"""

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from eval_pipeline.backends.evaluation_event import (
    EVENT_NAME,
    EventError,
    is_evaluation_event,
    score_from_record,
)
from eval_pipeline.backends.imported_scores import IMPORTED_PREFIX, store_imported_scores
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.store import ScoreStore

DEFAULT_SCORER = f"{IMPORTED_PREFIX}otel"
"""Scorer id of an evaluation event that names no evaluator (another tool sent it)."""
SHOWN_ERRORS = 5
"""Problems named in one response's ``error_message`` (the count covers them all)."""


class Grant(Protocol):
    """What the handler asks of the receiver's sender (``realtime.receiver.auth.Grant`` is one).

    A protocol, not an import: the receiver calls this handler, so the handler must not depend
    on the receiver (dependencies run from the real-time plane down to the importers' back ends).
    """

    @property
    def writes_evaluation_builds(self) -> bool:
        """Whether the sender may write a build other than the default (never a pinned one)."""
        ...


@dataclass
class LogsOutcome:
    """What one logs request gave: the scores stored and the records rejected (with why)."""

    scores: list[Score] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def scores_from_request(request: ExportLogsServiceRequest, *, source: str) -> LogsOutcome:
    """The score rows of a logs request and, per rejected record, its problem."""
    outcome = LogsOutcome()
    for r, resource_logs in enumerate(request.resource_logs):
        for s, scope_logs in enumerate(resource_logs.scope_logs):
            for i, record in enumerate(scope_logs.log_records):
                where = f"{source}: resource_logs[{r}].scope_logs[{s}].log_records[{i}]"
                if not is_evaluation_event(record):
                    name = record.event_name or "(no event_name)"
                    outcome.errors.append(f"{where}: event_name: {name!r} is not {EVENT_NAME}")
                    continue
                try:
                    outcome.scores.append(score_from_record(record, default_scorer=DEFAULT_SCORER))
                except (EventError, ValueError) as exc:
                    outcome.errors.append(f"{where}: {exc}")
    return outcome


class EventsRejected(ValueError):
    """Some records of a logs request were not evaluation events we can store (bad input).

    Raised after the good events are stored; the receiver answers it as a 400 naming them.
    """


class EvaluationEventHandler:
    """``on_logs`` for the receiver: store a request's evaluation events as imported scores.

    Events naming no build (``eval_pipeline.build.id``) are stored under ``default_build``
    (``production``, as live spans are). A request with records that cannot be stored has the
    good ones stored and raises ``EventsRejected`` naming the others (the first few; the count
    covers them all), which the receiver turns into a 400 with that message.
    """

    def __init__(
        self,
        store_root: Path,
        *,
        default_build: str = "production",
        pinned: Callable[[], Collection[str]] = frozenset,
    ) -> None:
        self.scores = ScoreStore(store_root)
        self.default_build = default_build
        self.pinned = pinned

    def __call__(self, request: ExportLogsServiceRequest, grant: Grant | None = None) -> None:
        """Store the request's evaluation events; raises ``EventsRejected`` for bad records.

        With a ``grant`` (the receiver's sender), an event naming a build other than
        ``default_build`` is stored only when the token may write evaluation builds, and never
        into a pinned baseline (as for spans): otherwise it is rejected, naming the build.
        """
        outcome = scores_from_request(request, source="logs request")
        if grant is not None:
            outcome = self._guarded(outcome, grant)
        try:
            store_imported_scores(self.scores, outcome.scores, default_build=self.default_build)
        except ValueError as exc:  # a build name no partition can hold: nothing was written
            raise EventsRejected(f"logs request: {exc}") from None
        if outcome.errors:
            shown = "; ".join(outcome.errors[:SHOWN_ERRORS])
            raise EventsRejected(
                f"{len(outcome.errors)} log record(s) rejected, "
                f"{len(outcome.scores)} evaluation event(s) stored: {shown}"
            )

    def _guarded(self, outcome: LogsOutcome, grant: Grant) -> LogsOutcome:
        """The outcome without the events this sender may not write (each named as an error)."""
        pinned = frozenset(self.pinned())
        kept = LogsOutcome(errors=list(outcome.errors))
        for score in outcome.scores:
            build = score.build or self.default_build
            if build != self.default_build and not grant.writes_evaluation_builds:
                reason = "the token may not write evaluation builds"
            elif build in pinned:
                reason = "it is a pinned baseline"
            else:
                kept.scores.append(score)
                continue
            kept.errors.append(f"score for build {build!r} refused ({reason})")
        return kept
