"""Hostile OTLP requests for the property tests and the fuzz target, in both encodings.

``request(choices)`` builds an OTLP trace request from a seed of two GenAI spans with
mutations chosen by ``choices`` (a hypothesis draw or atheris' data provider): any slot of the
request (ids, names, times, status, attribute values of every kind and their keys, scope,
resource, events, message JSON, trace state, links and their ids, trace states and
attributes) may get an edge value (beyond int64, non-finite or
non-numeric doubles, lone surrogates, wrong types, deep nesting, long runs that made patterns
backtrack, personal data). ``encodings`` gives it as OTLP/JSON and, when it converts, protobuf.
``MemoryStore`` builds each batch's Arrow table as the trace store would, without disk.
"""

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.ingest.report import IngestReport
from eval_pipeline.traces.redact.redactor import RedactionPolicy
from eval_pipeline.traces.store.span_table import Row, rows_table

EDGE_VALUES: list[Any] = [
    2**63,
    2**64 - 1,
    -(2**63) - 1,
    "9" * 400,
    "Infinity",
    "-Infinity",
    "NaN",
    "abc",
    "\ud800",
    "\udfff x",
    5,
    None,
    True,
    [],
    {},
    "%" * 20_000,
    "a." * 10_000 + "@",
    "1 " * 10_000,
    "ada.lovelace@example.com",
    "call 415 555 2671",
    "4111.1111.1111.1111",
    "[" * 3000 + "]" * 3000,
    "0" * 32,
    "",
]
SLOTS = (
    "traceId",
    "spanId",
    "parentSpanId",
    "name",
    "kind",
    "startTimeUnixNano",
    "endTimeUnixNano",
    "status",
    "attr",
    "attr_key",
    "scope",
    "resource",
    "events",
    "messages",
    "nesting",
    "traceState",
    "links",
)
KINDS = ("stringValue", "intValue", "doubleValue", "boolValue", "bytesValue", "arrayValue")


class Choices:
    """What a mutation source must answer: an index below ``n``, or a free value."""

    def __init__(self, index: Callable[[int], int], text: Callable[[], str]) -> None:
        self.index = index
        self.text = text

    def value(self) -> Any:
        return EDGE_VALUES[self.index(len(EDGE_VALUES))] if self.index(3) else self.text()


def _seed() -> dict[str, Any]:
    def attr(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    messages = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}])
    spans = [
        {
            "traceId": "a" * 32,
            "spanId": f"{i}" * 16,
            "name": "chat m",
            "kind": 3,
            "startTimeUnixNano": "1",
            "endTimeUnixNano": "2",
            "attributes": [
                attr("gen_ai.operation.name", "chat"),
                attr("gen_ai.input.messages", messages),
            ],
        }
        for i in (1, 2)
    ]
    scope = {"scope": {"name": "s"}, "spans": spans}
    return {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [scope]}]}


def seed_request() -> dict[str, Any]:
    """The seed request, unmutated (to warm up lazy imports and caches before timing)."""
    return _seed()


def request(choices: Choices, mutations: int) -> dict[str, Any]:
    """The seed request with ``mutations`` mutations drawn from ``choices``."""
    document = _seed()
    scope = document["resourceSpans"][0]["scopeSpans"][0]
    for _ in range(mutations):
        span = scope["spans"][choices.index(2)]
        slot = SLOTS[choices.index(len(SLOTS))]
        value = choices.value()
        if slot == "attr":
            kind = KINDS[choices.index(len(KINDS))]
            wrapped = {"values": [{"stringValue": str(value)}]} if kind == "arrayValue" else value
            span["attributes"].append({"key": "x", "value": {kind: wrapped}})
        elif slot == "attr_key":
            span["attributes"].append({"key": value, "value": {"stringValue": "v"}})
        elif slot == "scope":
            scope["scope"] = {"name": value}
        elif slot == "resource":
            document["resourceSpans"][0]["resource"]["attributes"].append(
                {"key": str(value), "value": {"stringValue": str(value)}}
            )
        elif slot == "events":
            span["events"] = [
                {"name": value, "attributes": [{"key": "m", "value": {"stringValue": str(value)}}]}
            ]
        elif slot == "messages":
            span["attributes"].append(
                {
                    "key": "gen_ai.output.messages",
                    "value": {
                        "stringValue": json.dumps(
                            [
                                {
                                    "role": "assistant",
                                    "name": value,
                                    "parts": [{"type": "text", "content": value}],
                                }
                            ]
                        )
                    },
                }
            )
        elif slot == "nesting":
            depth = 1 + choices.index(5000)
            span["attributes"].append(
                {
                    "key": "gen_ai.input.messages",
                    "value": {"stringValue": "[" * depth + "]" * depth},
                }
            )
        elif slot == "links":
            link: dict[str, Any] = {
                "traceId": "b" * 32,
                "spanId": "c" * 16,
                "traceState": "k=v",
                "attributes": [{"key": "m", "value": {"stringValue": "v"}}],
            }
            field = ("traceId", "spanId", "traceState", "attributes", "key", "value")[
                choices.index(6)
            ]
            if field == "key":
                link["attributes"][0]["key"] = value
            elif field == "value":
                link["attributes"][0]["value"] = {KINDS[choices.index(len(KINDS))]: value}
            else:
                link[field] = value
            span["links"] = [link]
        elif slot == "status":
            span["status"] = {"code": value, "message": value}
        else:
            span[slot] = value
    return document


def encodings(document: dict[str, Any]) -> list[OtlpRequest]:
    """The request as OTLP/JSON and, when the JSON converts, as protobuf."""
    text = json.dumps(document)  # ASCII: lone surrogates become \\ud800 escapes
    out = [OtlpRequest(text.encode(), "application/json", "fuzz.json")]
    try:
        message = ParseDict(json.loads(text), ExportTraceServiceRequest())
        out.append(OtlpRequest(message.SerializeToString(), "application/x-protobuf", "fuzz.pb"))
    except Exception:
        pass
    return out


class MemoryStore:
    """A ``RowStore`` that builds each batch's Arrow table (where int64 and UTF-8 fail)."""

    def __init__(self) -> None:
        self.rows = 0

    def builds_for_rows(
        self, rows: Sequence[Row], build: str | None = None, default: str = "unassigned"
    ) -> list[str]:
        return [build or default] * len(rows)

    def write_rows(
        self,
        rows: Sequence[Row],
        *,
        build: str | None = None,
        day: str | None = None,
        targets: Sequence[str] | None = None,
    ) -> int:
        rows_table(rows, list(targets or ["unassigned"] * len(rows)), day)
        self.rows += len(rows)
        return len(rows)


def timed_ingest(batch: OtlpRequest, policy: RedactionPolicy) -> tuple[IngestReport, float]:
    """Ingest one request into a ``MemoryStore``; the report and the CPU seconds it took.

    CPU time of this process, not wall time: on a shared machine other processes' load would
    otherwise be counted against the input.
    """
    began = time.process_time()
    report = ingest([batch], store=MemoryStore(), policy=policy)
    return report, time.process_time() - began
