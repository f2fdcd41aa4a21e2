"""The one ingest function: decode -> normalise -> redact -> completeness -> trace store.

Every way in goes through ``ingest``: trace files and the OTLP receiver hand it request
bodies (``OtlpRequest``, protobuf or JSON), importers of recorded results and the runners hand
it spans they decoded or built themselves (``DecodeResult``, with any errors they found). Both
kinds go through the same normalisation (a no-op on spans already normalised), the same
redaction policy, the same completeness judgement and the same store.

A request is decoded to ``RawSpan`` records (``decode.otlp.decode_raw``), each of which
``rows.record_row`` lifts, redacts and turns into its store row; spans handed in take
``rows.span_row_redacted``. Format detection for files (OTLP, tau2-bench, tau-bench, flat span
lists, BFCL) lives above ``traces``, in ``importers.files``.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import Protocol

from eval_pipeline.traces.decode.errors import DecodeError, DecodeResult
from eval_pipeline.traces.decode.otlp import decode_raw
from eval_pipeline.traces.decode.otlp_json import TOO_DEEP
from eval_pipeline.traces.eval_context import BUILD_ID
from eval_pipeline.traces.ingest.completeness import incomplete_traces
from eval_pipeline.traces.ingest.guard import (
    BAD_INPUT,
    STORE_FAILURES,
    all_storable,
    build_problem,
    cheap_problem,
    rejection,
    unstorable,
)
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.ingest.rows import record_row, span_row_redacted
from eval_pipeline.traces.redact.fields import RowScrubber
from eval_pipeline.traces.redact.redactor import RedactionPolicy, Redactor, load_policy
from eval_pipeline.traces.store.span_table import TRACE_ID, Row
from eval_pipeline.traces.store.trace_store import UNASSIGNED


@dataclass(frozen=True)
class OtlpRequest:
    """An OTLP trace request body as it arrived (over HTTP, or in a file).

    ``content_type``: protobuf (``application/x-protobuf`` and its aliases) or JSON; any other
    type is rejected with an error naming it. ``source`` names the request in errors.
    """

    payload: bytes
    content_type: str
    source: str


Batch = OtlpRequest | DecodeResult
"""One input of ``ingest``: a request body, or spans already decoded (and their errors)."""


class RowStore(Protocol):
    """Where ingest stores rows: ``TraceStore``, or a runner's in-memory sink."""

    def builds_for_rows(
        self, rows: Sequence[Row], build: str | None = None, default: str = UNASSIGNED
    ) -> list[str]:
        """The build each row goes to (``TraceStore.builds_for_rows``)."""
        ...

    def write_rows(
        self,
        rows: Sequence[Row],
        *,
        build: str | None = None,
        day: str | None = None,
        targets: Sequence[str] | None = None,
    ) -> int:
        """Store the rows not stored yet; how many were new (``TraceStore.write_rows``)."""
        ...


def ingest(
    batches: Iterable[Batch],
    *,
    store: RowStore,
    build: str | None = None,
    policy: RedactionPolicy | None = None,
    day: str | None = None,
    default_build: str = UNASSIGNED,
) -> IngestReport:
    """Decode, normalise, redact, judge and store every batch; the report says what happened.

    Args:
        batches: Request bodies and decoded spans, stored one batch after the other.
        store: Where the rows go.
        build: The build of every span; None takes it from the eval context on each
            trace's root (in the batch, or already stored), else ``default_build``.
        policy: The redaction policy (the project's default, ``load_policy()``, when None).
        day: The UTC day partition (the receiver's); None for the undated partition.
        default_build: The build of traces that name none (the receiver: ``production``).
    """
    report = IngestReport()
    redactor = Redactor(policy or load_policy())
    scrub_rows = RowScrubber(redactor).scrub_rows
    for batch in batches:
        report.batches += 1
        rows = scrub_rows(_guarded_rows(batch, redactor, report))
        rows = _storable(rows, _source(batch), report)
        if rows:
            report.incomplete.update(incomplete_traces(rows))
            _store(rows, store, build, day, default_build, report, _source(batch))
    return report


def _source(batch: Batch) -> str:
    if isinstance(batch, OtlpRequest):
        return batch.source
    for error in batch.errors:
        return error.source
    return "spans"


def _guarded_rows(batch: Batch, redactor: Redactor, report: IngestReport) -> list[Row]:
    """``_rows``, with anything a payload makes the decoders raise turned into its error.

    The decoders reject bad spans one by one; bad input that escapes them (a document nested
    deeper than Python can walk, ``guard.BAD_INPUT``) makes the whole payload one error. Any
    other exception is a bug and propagates: an internal error, not a rejected payload.
    """
    try:
        return _rows(batch, redactor, report)
    except BAD_INPUT as exc:
        report.errors.append(
            DecodeError(_source(batch), "$", f"cannot be read: {type(exc).__name__}: {exc!s:.200}")
        )
        return []


def _storable(rows: list[Row], source: str, report: IngestReport) -> list[Row]:
    """The rows that pass ``guard.cheap_problem``; each other row is rejected with its error."""
    if all_storable(rows):  # the usual batch, decided column by column
        return rows
    kept = []
    for row in rows:
        problem = cheap_problem(row)
        if problem is None:
            kept.append(row)
        else:
            report.errors.append(rejection(row, source, problem))
            report.spans_rejected += 1
    return kept


def _rows(batch: Batch, redactor: Redactor, report: IngestReport) -> list[Row]:
    """The redacted store rows of one batch; the batch's errors go to ``report``."""
    if not isinstance(batch, OtlpRequest):
        _rejected(report, batch.errors)
        # Spans handed in may be shared with the caller (a runner keeps them): never changed.
        return [span_row_redacted(span, redactor) for span in batch.spans]
    decoded = decode_raw(batch.payload, content_type=batch.content_type, source=batch.source)
    report.errors.extend(decoded.errors)
    report.spans_rejected += decoded.rejected
    rows = []
    # Each record is let go once its row is built (taken off the end of the reversed list),
    # so a big request does not hold every record until its last row: less for the garbage
    # collector to walk over and over.
    pending = decoded.spans
    pending.reverse()
    while pending:
        raw = pending.pop()
        try:
            rows.append(record_row(raw, redactor))
        except RecursionError:  # a value nested too deep: bad input, this span only
            report.errors.append(
                DecodeError(
                    batch.source, TOO_DEEP.field_name, TOO_DEEP.message, raw.span_id, raw.trace_id
                )
            )
            report.spans_rejected += 1
    return rows


def _rejected(report: IngestReport, errors: Sequence[DecodeError]) -> None:
    """Record errors; those naming a span count as rejected spans (the rest: whole payloads)."""
    report.errors.extend(errors)
    report.spans_rejected += sum(1 for e in errors if e.span_id is not None)


def _store(
    rows: list[Row],
    store: RowStore,
    build: str | None,
    day: str | None,
    default_build: str,
    report: IngestReport,
    source: str,
) -> None:
    """Store the rows; a row the store cannot hold (or its build name) is rejected alone."""
    targets = store.builds_for_rows(rows, build, default_build)
    problems = {target: build_problem(target) for target in set(targets)}
    if any(problems.values()):
        field = "build" if build is not None else BUILD_ID
        keep = [problems[t] is None for t in targets]
        for row, target, ok in zip(rows, targets, keep, strict=True):
            if not ok:
                report.errors.append(rejection(row, source, (field, str(problems[target]))))
                report.spans_rejected += 1
        rows = [row for row, ok in zip(rows, keep, strict=True) if ok]
        targets = [t for t, ok in zip(targets, keep, strict=True) if ok]
    try:
        stored = store.write_rows(rows, build=build, day=day, targets=targets)
    except STORE_FAILURES:
        # Some row holds a value no column takes: find it (column by column, ``unstorable``),
        # reject it, store the others (rows written before the failure are recognised as
        # stored: no duplicates).
        bad_rows = unstorable(rows)
        if not bad_rows:
            raise  # the columns convert one by one but not as a table: a bug, not bad input
        for number, problem in sorted(bad_rows.items()):
            report.errors.append(rejection(rows[number], source, problem))
            report.spans_rejected += 1
        kept = [number not in bad_rows for number in range(len(rows))]
        rows = list(compress(rows, kept))
        targets = list(compress(targets, kept))
        stored = store.write_rows(rows, build=build, day=day, targets=targets)
    report.spans_decoded += len(rows)
    report.spans_stored += stored
    report.traces.update(map(itemgetter(TRACE_ID), rows))
    report.builds.update(targets)
