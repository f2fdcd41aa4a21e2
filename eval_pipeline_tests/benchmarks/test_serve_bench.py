"""``bench serve``'s load is what it claims: fresh traces per request, 1% failed tool calls.

Contract: every request of the load holds its own trace ids (so each acknowledgement is new
spans, never duplicates), complete traces (no alert but the failed calls'), and the failed
share of tool calls asked for.
"""

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from benchmarks.serve import FAILED_TOOL_SHARE, failed_traces, payloads, spans_in


def _spans(body: bytes) -> list:
    request = ExportTraceServiceRequest.FromString(body)
    return [s for r in request.resource_spans for scope in r.scope_spans for s in scope.spans]


def test_requests_have_fresh_traces_and_one_percent_failed_tool_calls() -> None:
    bodies = payloads(800, 5, FAILED_TOOL_SHARE)
    trace_sets = [{span.trace_id for span in _spans(body)} for body in bodies]
    assert all(not (a & b) for i, a in enumerate(trace_sets) for b in trace_sets[i + 1 :])
    tools = [s for body in bodies for s in _spans(body) if s.name.startswith("execute_tool")]
    failed = sum(s.status.code == s.status.STATUS_CODE_ERROR for s in tools)
    assert failed == len(tools) // 100
    assert sum(len(failed_traces(body)) for body in bodies) == failed
    assert spans_in(bodies[0]) == len(_spans(bodies[0]))
    assert not any(s.name.startswith("chat") for s in _spans(bodies[0])[-1:])  # complete runs
