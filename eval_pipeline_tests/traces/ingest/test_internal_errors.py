"""Internal errors are not bad input: a bug in ingest surfaces, it is not a rejected span.

Contract (``guard.BAD_INPUT``): a span is rejected only for what decoding or normalising raises
for bad input (a field the decoders name, nesting deeper than Python can walk); any other
exception is a bug and propagates out of ``ingest``: the CLI exits 3 with one ``internal
error`` line, the receiver answers 500, nothing is stored as if the span were bad. Hostile
input still never reaches that path: each hostile case maps to a named field.

The bug is injected into the tokeniser (a raise on one marker text), the one way to have a
real bug on every ingest path without changing the code under test.
"""

import json
import sys
from pathlib import Path

import pytest

from eval_pipeline.cli import main
from eval_pipeline.home import current_home
from eval_pipeline.traces.decode.otlp import JSON, decode_otlp
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.redact import pii
from eval_pipeline.traces.store.trace_store import UNASSIGNED, TraceStore
from eval_pipeline_tests.traces.ingest.test_hostile_input import BAD_SPANS, _request, _span

MARKER = "trips the injected bug"


class InjectedBug(Exception):
    """Stands for any programming error inside ingest."""


@pytest.fixture
def buggy_tokeniser(monkeypatch: pytest.MonkeyPatch) -> None:
    original = pii.Tokeniser.redact

    def redact(self: pii.Tokeniser, text: str) -> tuple[str, tuple[str, ...]]:
        if MARKER in text:
            raise InjectedBug("a bug, not bad input")
        return original(self, text)

    monkeypatch.setattr(pii.Tokeniser, "redact", redact)


def _document(*, events: bool = False) -> str:
    bug = _span("2" * 16)
    bug["attributes"].append({"key": "note", "value": {"stringValue": MARKER}})
    if events:  # a span with events: the lift reads them too
        bug["events"] = [{"name": "e", "timeUnixNano": "1"}]
    return _request([_span("1" * 16), bug])


@pytest.mark.parametrize("events", [False, True], ids=["plain span", "span with events"])
def test_a_bug_propagates_out_of_ingest_instead_of_rejecting_the_span(
    buggy_tokeniser: None, events: bool, tmp_path: Path
) -> None:
    batch = OtlpRequest(_document(events=events).encode(), "application/json", "req.json")
    with pytest.raises(InjectedBug):
        ingest([batch], store=TraceStore(tmp_path))


def test_a_bug_on_the_decoded_spans_path_propagates(buggy_tokeniser: None, tmp_path: Path) -> None:
    # Spans handed in decoded (importers, runners) take the general normalise/redact path.
    decoded = decode_otlp(_document().encode(), content_type=JSON, source="req")
    with pytest.raises(InjectedBug):
        ingest([decoded], store=TraceStore(tmp_path))


def test_the_cli_exits_3_on_a_bug(
    buggy_tokeniser: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    path = tmp_path / "bug.json"
    path.write_text(_document())
    monkeypatch.setattr(sys, "argv", ["eval-pipeline", "ingest", str(path)])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 3
    assert "internal error: InjectedBug" in capsys.readouterr().err


def test_the_receiver_answers_500_on_a_bug(buggy_tokeniser: None) -> None:
    from starlette.testclient import TestClient

    from eval_pipeline.realtime.receiver.http_receiver import make_app

    app = make_app(current_home().ensure().store)
    with TestClient(app, raise_server_exceptions=False) as client:
        reply = client.post("/v1/traces", json=json.loads(_document()))
    assert reply.status_code == 500


@pytest.mark.parametrize("case", sorted(BAD_SPANS))
def test_hostile_spans_map_to_a_named_field_not_an_exception_name(
    case: str, tmp_path: Path
) -> None:
    span, field = BAD_SPANS[case]
    good = _span("1" * 16)
    report = ingest(
        [OtlpRequest(_request([good, span]).encode(), "application/json", "req.json")],
        store=TraceStore(tmp_path),
    )
    (error,) = report.errors
    assert field in error.field and error.field != "span"
    assert [s.span_id for s in TraceStore(tmp_path).read_spans(UNASSIGNED)] == ["1" * 16]
