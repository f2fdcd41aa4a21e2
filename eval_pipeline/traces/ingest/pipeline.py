"""Ingestion: files or request bodies -> decode -> normalise -> redact -> trace store.

Policy on bad input (OTLP ``partial_success`` semantics): a bad span is rejected with an error
naming file, span and field; a file that cannot be read at all is one error; every good span,
of the same file or of other files, is stored. The report lists both, and callers (the CLI)
turn any error into exit code 2 after the good data is stored.

Formats (``fmt``; auto-detected when None): ``otlp`` (JSON or protobuf request bodies, told
apart by content), ``tau2`` (tau2-bench results), ``taubench`` (tau-bench trajectories) and
``spans`` (flat span lists). Directories are expanded to their ``*.json`` / ``*.pb`` /
``*.protobuf`` / ``*.bin`` files, skipping names that start with ``_`` or ``.``.
"""

import gc
import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from operator import itemgetter
from pathlib import Path
from typing import Any

from eval_pipeline.importers import tau2, taubench
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.decode.errors import (
    MAX_ATTRIBUTE_BYTES,
    DecodeError,
    DecodeResult,
    FieldError,
)
from eval_pipeline.traces.decode.flat_spans import decode_flat, is_flat
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF, PROTOBUF_MEDIA_TYPES, decode_otlp
from eval_pipeline.traces.ingest.fast_path import decode_json_rows, decode_rows
from eval_pipeline.traces.normalise.normaliser import normalise_batch
from eval_pipeline.traces.redact.redactor import RedactionPolicy, Redactor, load_policy
from eval_pipeline.traces.store.span_table import TRACE_ID, Row, span_row
from eval_pipeline.traces.store.trace_store import UNASSIGNED, TraceStore

FORMATS = ("otlp", "tau2", "taubench", "spans")
_SUFFIXES = {".json", ".pb", ".protobuf", ".bin"}


@dataclass
class IngestReport:
    """What one ingestion did: counts, imported scores and every error."""

    files: int = 0
    spans_decoded: int = 0
    spans_stored: int = 0
    spans_rejected: int = 0
    traces: set[str] = field(default_factory=set)
    builds: set[str] = field(default_factory=set)
    scores: list[Score] = field(default_factory=list)
    errors: list[DecodeError] = field(default_factory=list)

    @property
    def spans_duplicate(self) -> int:
        """Decoded spans that were already stored (idempotent re-ingestion)."""
        return self.spans_decoded - self.spans_stored

    @property
    def ok(self) -> bool:
        """True when nothing was rejected."""
        return not self.errors

    def summary(self) -> dict[str, Any]:
        """A JSON-safe summary (for the CLI and the receiver's response)."""
        return {
            "files": self.files,
            "spans_decoded": self.spans_decoded,
            "spans_stored": self.spans_stored,
            "spans_duplicate": self.spans_duplicate,
            "spans_rejected": self.spans_rejected,
            "traces": len(self.traces),
            "builds": sorted(self.builds),
            "imported_scores": len(self.scores),
            "errors": [str(e) for e in self.errors],
        }


def expand(paths: Sequence[Path]) -> list[Path]:
    """Files named directly, and the trace files inside named directories (sorted)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file()
                    and p.suffix.lower() in _SUFFIXES
                    and not p.name.startswith(("_", "."))
                )
            )
        else:
            out.append(path)
    return out


def _otlp_media(payload: bytes, fmt: str | None) -> str | None:
    """The media type of an OTLP request file, when the file is one without a doubt.

    Protobuf when it does not look like JSON (and the format is OTLP or unknown), JSON when
    ``--format otlp`` says so; None leaves the file to ``_decode_file``'s detection.
    """
    looks_json = payload.lstrip()[:1] in (b"{", b"[")
    if fmt == "otlp":
        return JSON if looks_json else PROTOBUF
    return PROTOBUF if fmt is None and not looks_json else None


_OTLP_JSON = DecodeResult()
"""``_decode_file``'s answer for a JSON file detected as an OTLP request (decoded elsewhere)."""


def _decode_file(
    payload: bytes, source: str, fmt: str | None, build: str | None
) -> tuple[DecodeResult, list[Score]]:
    try:
        document = json.loads(payload)
    except UnicodeDecodeError as exc:
        return DecodeResult(
            errors=[DecodeError(source, f"byte {exc.start}", "invalid UTF-8 in a JSON file")]
        ), []
    except json.JSONDecodeError as exc:
        return DecodeResult(
            errors=[
                DecodeError(
                    source, f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}"
                )
            ]
        ), []
    try:
        if fmt == "tau2" or (fmt is None and tau2.is_tau2(document)):
            return (
                DecodeResult(spans=tau2.import_tau2(document, source=source, build=build)),
                tau2.imported_scores(document, source=source, build=build),
            )
        if fmt == "taubench" or (fmt is None and taubench.is_taubench(document)):
            return (
                DecodeResult(spans=taubench.import_taubench(document, source=source, build=build)),
                taubench.imported_scores(document, source=source, build=build),
            )
        if fmt == "spans" or (fmt is None and is_flat(document)):
            if not isinstance(document, list):
                raise FieldError("$", "a flat span file must be a JSON list")
            return decode_flat(document, source, MAX_ATTRIBUTE_BYTES), []
        if (
            fmt is None
            and isinstance(document, dict)
            and ("resourceSpans" in document or "resource_spans" in document)
        ):
            return _OTLP_JSON, []
    except FieldError as exc:
        return DecodeResult(errors=[DecodeError(source, exc.field_name, exc.message)]), []
    return DecodeResult(
        errors=[
            DecodeError(
                source,
                "$",
                "unrecognised format (expected OTLP JSON/protobuf, tau2-bench results, "
                "tau-bench trajectories or a flat span list); pass --format",
            )
        ]
    ), []


@contextmanager
def bulk_allocation() -> Iterator[None]:
    """Pause cyclic GC while a batch is processed.

    A batch allocates many long-lived, acyclic objects (spans, messages, dicts); the cyclic
    collector's repeated passes over them cost about as much as the processing itself.
    Reference counting still frees everything; the collector resumes afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Pipeline:
    def __init__(
        self, store: TraceStore, policy: RedactionPolicy | None, default_build: str = UNASSIGNED
    ) -> None:
        self.store = store
        self.default_build = default_build
        self.redactor = Redactor(policy or load_policy())
        self.report = IngestReport()

    def add(self, result: DecodeResult, build: str | None, day: str | None) -> None:
        with bulk_allocation():
            report = self.report
            report.errors.extend(result.errors)
            report.spans_rejected += sum(1 for e in result.errors if e.span_id is not None)
            # The decoded batch belongs to this call alone: normalise and redact it in place.
            spans = self.redactor.redact_batch(normalise_batch(list(result.spans)))
            self._store(list(map(span_row, spans)), build, day)

    def add_request(
        self, payload: bytes, media: str, source: str, build: str | None, day: str | None
    ) -> None:
        """An OTLP request (``media``: PROTOBUF or JSON) through the fast path.

        See ``traces.fast_path``; a request it declines as a whole (it does not parse, or its
        structure is off) goes to the general decoder, which salvages and reports it.
        """
        with bulk_allocation():
            decode = decode_rows if media == PROTOBUF else decode_json_rows
            batch = decode(payload, source, MAX_ATTRIBUTE_BYTES, self.redactor)
            if batch is None:
                self.add(decode_otlp(payload, content_type=media, source=source), build, day)
                return
            self.report.errors.extend(batch.errors)
            self.report.spans_rejected += len(batch.errors)
            self._store(batch.rows, build, day)
            del batch  # freed before the collector resumes (see ``bulk_allocation``)

    def _store(self, rows: list[Row], build: str | None, day: str | None) -> None:
        report = self.report
        report.spans_decoded += len(rows)
        if rows:
            targets = self.store.builds_for_rows(rows, build, self.default_build)
            report.spans_stored += self.store.write_rows(
                rows, build=build, day=day, targets=targets
            )
            report.traces.update(map(itemgetter(TRACE_ID), rows))
            report.builds.update(targets)


def ingest_paths(
    paths: Sequence[Path],
    *,
    store: TraceStore,
    build: str | None = None,
    fmt: str | None = None,
    policy: RedactionPolicy | None = None,
) -> IngestReport:
    """Ingest files and directories; per-file errors are collected, good data is stored."""
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    pipeline = _Pipeline(store, policy)
    for path in expand([Path(p) for p in paths]):
        pipeline.report.files += 1
        try:
            payload = path.read_bytes()
        except OSError as exc:
            pipeline.report.errors.append(DecodeError(str(path), "$", f"cannot read: {exc}"))
            continue
        media = _otlp_media(payload, fmt)
        if media is not None:
            pipeline.add_request(payload, media, str(path), build, None)
            continue
        with bulk_allocation():
            result, scores = _decode_file(payload, str(path), fmt, build)
            if result is _OTLP_JSON:
                pipeline.add_request(payload, JSON, str(path), build, None)
            else:
                pipeline.add(result, build, None)
            del result  # freed before the collector resumes (see ``ingest_payload``)
        pipeline.report.scores.extend(scores)
    return pipeline.report


def ingest_payload(
    payload: bytes,
    *,
    content_type: str,
    store: TraceStore,
    build: str | None = None,
    policy: RedactionPolicy | None = None,
    source: str = "request",
    day: str | None = None,
    default_build: str = UNASSIGNED,
) -> IngestReport:
    """Ingest one OTLP request body (the receiver's path); stored under today's UTC day.

    Traces whose root names no build are stored under ``default_build``.
    """
    day = day or datetime.now(UTC).strftime("%Y-%m-%d")
    media = content_type.split(";", 1)[0].strip().lower()
    with bulk_allocation():
        pipeline = _Pipeline(store, policy, default_build)
        report = pipeline.report
        report.files = 1
        if media in PROTOBUF_MEDIA_TYPES:
            pipeline.add_request(payload, PROTOBUF, source, build, day)
        elif media == JSON or media.endswith("+json"):
            pipeline.add_request(payload, JSON, source, build, day)
        else:  # the decoder answers with the error naming the media type
            pipeline.add(decode_otlp(payload, content_type=content_type, source=source), build, day)
        # Everything the request allocated, the redactor's caches included, is freed before
        # the collector resumes, so the collection that follows does not walk it.
        del pipeline
    return report
