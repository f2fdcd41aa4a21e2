"""A span posted with a build's trace id never changes that build's runs (issue 30).

Trace ids of evaluation runs are not secret. Before the fix, one span posted under a production
token with a baseline's trace id and a ``delete_account`` tool call was stored under
``production`` (right), but the read path stitched that rootless fragment into the baseline's
trace: the pinned run showed ``[delete_account, lookup]`` and was no longer complete.

Contract (the stitching rule, ``trace_store``): a rootless fragment stored under another build
joins a trace only when its writer could have written that trace's build (local ingestion, or
an evaluation token whose build the receiver honoured); children an evaluation token sent
before their root still join it (``test_arrival_order``).
"""

import json

import pytest

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import current_home
from eval_pipeline.importers.traces.files import ingest_files
from eval_pipeline.realtime.receiver.auth import Grant, Scope
from eval_pipeline.realtime.receiver.writer import Writer
from eval_pipeline.traces.ingest.ingest import OtlpRequest
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.traces.store.test_arrival_order import BUILD, _agent_run, _payload


def _tool_span(trace_id: str, parent: str) -> bytes:
    span = {
        "traceId": trace_id,
        "spanId": "d" * 16,
        "parentSpanId": parent,
        "name": "execute_tool delete_account",
        "kind": 1,
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "delete_account"}},
        ],
    }
    document = {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "x"}, "spans": [span]}]}]}
    return json.dumps(document).encode()


@pytest.mark.parametrize("scope", [Scope.PRODUCTION, Scope.EVALUATION])
def test_a_span_posted_with_a_pinned_builds_trace_id_does_not_join_its_run(
    scope: Scope, tmp_path
) -> None:
    home = current_home().ensure()
    store = TraceStore(home.store)
    path = tmp_path / "run.pb"
    path.write_bytes(_payload(_agent_run()))
    ingest_files([path], store=store)
    (before,) = store.runs(BUILD)
    assert before.tool_names == ("lookup",) and before.complete
    registry = BuildRegistry(home.state_url)
    registry.register(BUILD, suite="support")
    registry.pin_baseline("support", BUILD)

    writer = Writer(store, registry=registry)
    body = _tool_span(before.trace_id, str(before.root_span_id))
    accepted = writer.write(OtlpRequest(body, "application/json", "attack"), Grant(scope))
    assert accepted.report.spans_stored == 1

    (after,) = store.runs(BUILD)
    assert after.tool_names == ("lookup",)
    assert after.complete and after.completeness_reasons == before.completeness_reasons
    assert len(after.spans) == len(before.spans)
    found = store.find_trace(before.trace_id)
    assert found is not None and found[0] == BUILD and len(found[1]) == len(before.spans)
    # The span is kept where it was written, and shown there.
    assert "d" * 16 in {s.span_id for s in store.read_spans(PRODUCTION)}


def test_compaction_keeps_untrusted_parts_apart(tmp_path) -> None:
    from eval_pipeline.traces.store.maintenance import compact

    home = current_home().ensure()
    store = TraceStore(home.store)
    path = tmp_path / "run.pb"
    path.write_bytes(_payload(_agent_run()))
    ingest_files([path], store=store)
    (before,) = store.runs(BUILD)
    writer = Writer(store, registry=BuildRegistry(home.state_url))
    for index in (1, 2):  # two untrusted parts under production, one trusted
        body = _tool_span(before.trace_id, str(before.root_span_id)).replace(
            b"d" * 16, str(index).encode() * 16
        )
        writer.write(OtlpRequest(body, "application/json", "p"), Grant(Scope.PRODUCTION))
    writer.write(
        OtlpRequest(_tool_span("e" * 32, "f" * 16), "application/json", "e"),
        Grant(Scope.EVALUATION),
    )
    assert len(store.ledger.parts(PRODUCTION)) == 3
    compact(store)
    assert len(store.ledger.parts(PRODUCTION, trusted=False)) == 1
    assert len(store.ledger.parts(PRODUCTION, trusted=True)) == 1
    (after,) = store.runs(BUILD)
    assert after.tool_names == ("lookup",) and len(after.spans) == len(before.spans)
