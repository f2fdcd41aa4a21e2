"""Trace files -> the one ingest function: the format of each file, told or detected.

Formats (``fmt``; detected per file when None): ``otlp`` (OTLP request bodies, JSON or
protobuf, told apart by content), ``tau2`` (tau2-bench results), ``taubench`` (tau-bench
trajectories) and ``spans`` (flat span lists). A file of JSON Lines (the Collector's file
exporter: one OTLP/JSON request per line) is one batch per line; a gzip file is read
decompressed. Directories are expanded to their ``*.json`` / ``*.jsonl`` / ``*.ndjson`` /
``*.pb`` / ``*.protobuf`` / ``*.bin`` files (and those ending ``.gz``), skipping names that
start with ``_`` or ``.``.
BFCL model results need their questions and answers as well: ``bfcl_results``.

A file that cannot be read or parsed is one error in the report; a bad span in a good file is
rejected alone; every good span of every file is stored (see ``traces.ingest.report``). The
rewards tau2-bench and tau-bench recorded come back as imported scores.
"""

import gzip
import json
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from eval_pipeline import json_input
from eval_pipeline.importers.benchmarks import tau2, taubench
from eval_pipeline.importers.report import ImportReport, Recorded
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.decode.errors import (
    MAX_ATTRIBUTE_BYTES,
    DecodeError,
    DecodeResult,
    FieldError,
)
from eval_pipeline.traces.decode.flat_spans import decode_flat, is_flat
from eval_pipeline.traces.decode.otlp import JSON, PROTOBUF
from eval_pipeline.traces.ingest.ingest import Batch, OtlpRequest, RowStore, ingest
from eval_pipeline.traces.redact.redactor import RedactionPolicy

FORMATS = ("otlp", "tau2", "taubench", "spans")
_SUFFIXES = {".json", ".jsonl", ".ndjson", ".pb", ".protobuf", ".bin"}
_JSON_LINES = {".jsonl", ".ndjson"}
_GZIP_MAGIC = b"\x1f\x8b"
_UNRECOGNISED = (
    "unrecognised format (expected OTLP JSON/protobuf, tau2-bench results, "
    "tau-bench trajectories or a flat span list); pass --format"
)


def expand(paths: Sequence[Path]) -> list[Path]:
    """Files named directly, and the trace files inside named directories (sorted)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and _suffix(p) in _SUFFIXES and not p.name.startswith(("_", "."))
                )
            )
        else:
            out.append(path)
    return out


def _suffix(path: Path) -> str:
    """The suffix naming the format (``traces.jsonl.gz``: ``.jsonl``)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _is_json_lines(path: Path, payload: bytes) -> bool:
    """JSON Lines by name, or by content: the first line a whole object, more lines after it."""
    if _suffix(path) in _JSON_LINES:
        return True
    first, _, rest = payload.lstrip().partition(b"\n")
    if not rest.strip() or not first.rstrip().endswith(b"}"):
        return False
    try:
        return isinstance(json_input.loads(first), dict)
    except ValueError:
        return False


def ingest_files(
    paths: Sequence[Path],
    *,
    store: RowStore,
    build: str | None = None,
    fmt: str | None = None,
    policy: RedactionPolicy | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Ingest files and directories; per-file errors are collected, good data is stored.

    ``progress`` gets (files ingested, files in all) as the ingest function takes each file.
    """
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")
    scores: list[Score] = []
    report = ingest(
        _batches(expand([Path(p) for p in paths]), fmt, build, scores, progress),
        store=store,
        build=build,
        policy=policy,
    )
    return ImportReport(report, scores)


def _batches(
    paths: list[Path],
    fmt: str | None,
    build: str | None,
    scores: list[Score],
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[Batch]:
    """One batch per file, read as it is reached; imported scores are added to ``scores``."""
    report = progress or (lambda done, total: None)
    for done, path in enumerate(paths):
        # Reached again only once the ingest function has taken the previous file's batches.
        report(done, len(paths))
        source = str(path)
        try:
            payload = path.read_bytes()
        except OSError as exc:
            yield DecodeResult(errors=[DecodeError(source, "$", f"cannot read: {exc}")])
            continue
        if payload[:2] == _GZIP_MAGIC:
            try:
                payload = gzip.decompress(payload)
            except (OSError, EOFError, zlib.error) as exc:
                yield DecodeResult(
                    errors=[DecodeError(source, "$", f"not a valid gzip file: {exc}")]
                )
                continue
        looks_json = payload.lstrip()[:1] in (b"{", b"[")
        if looks_json and _is_json_lines(path, payload):
            for number, line in enumerate(payload.split(b"\n"), start=1):
                if line.strip():
                    yield from _one(line, f"{source}:{number}", fmt, build, scores)
            continue
        yield from _one(payload, source, fmt, build, scores)
    report(len(paths), len(paths))


def _one(
    payload: bytes, source: str, fmt: str | None, build: str | None, scores: list[Score]
) -> Iterator[Batch]:
    """The batch of one document (a file, or a line of a JSON Lines file)."""
    looks_json = payload.lstrip()[:1] in (b"{", b"[")
    if fmt == "otlp" or (fmt is None and not looks_json):
        yield OtlpRequest(payload, JSON if looks_json else PROTOBUF, source)
        return
    try:
        batch, recorded = _json_file(payload, source, fmt, build)
    except Exception as exc:
        message = f"cannot be read: {type(exc).__name__}: {exc!s:.200}"
        batch, recorded = _error(source, "$", message), None
    if recorded is not None:
        scores.extend(recorded.scores)
    yield batch


def _json_file(
    payload: bytes, source: str, fmt: str | None, build: str | None
) -> tuple[Batch, Recorded | None]:
    """The batch of a JSON file in ``fmt`` (detected when None), and what it recorded."""
    try:
        document = json_input.loads(payload)
    except UnicodeDecodeError as exc:
        return _error(source, f"byte {exc.start}", "invalid UTF-8 in a JSON file"), None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        return _error(source, where, f"invalid JSON: {exc.msg}"), None
    except RecursionError:
        return _error(source, "$", "JSON nested deeper than the parser takes"), None
    try:
        recorded = _recorded(document, source, fmt, build)
        if recorded is not None:
            return DecodeResult(spans=recorded.spans), recorded
        if fmt == "spans" or (fmt is None and is_flat(document)):
            if not isinstance(document, list):
                raise FieldError("$", "a flat span file must be a JSON list")
            return decode_flat(document, source, MAX_ATTRIBUTE_BYTES), None
        if fmt is None and _is_otlp(document):
            # Decoded again from the bytes: ingest reads the request its own way.
            return OtlpRequest(payload, JSON, source), None
    except FieldError as exc:
        return _error(source, exc.field_name, exc.message), None
    return _error(source, "$", _UNRECOGNISED), None


def _recorded(document: Any, source: str, fmt: str | None, build: str | None) -> Recorded | None:
    if fmt == "tau2" or (fmt is None and tau2.is_tau2(document)):
        return tau2.read_tau2(document, source=source, build=build)
    if fmt == "taubench" or (fmt is None and taubench.is_taubench(document)):
        return taubench.read_taubench(document, source=source, build=build)
    return None


def _is_otlp(document: Any) -> bool:
    return isinstance(document, dict) and (
        "resourceSpans" in document or "resource_spans" in document
    )


def _error(source: str, where: str, message: str) -> DecodeResult:
    return DecodeResult(errors=[DecodeError(source, where, message)])
