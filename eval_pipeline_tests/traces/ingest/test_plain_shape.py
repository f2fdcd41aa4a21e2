"""The native completeness pass (``_plain_shape.pending``) equals its Python reference.

Contract: ``pending`` hands back every trace of the rows, grouped and ordered as ``_grouped``
groups them, except those ``_plain_reasons`` judges complete; a trace it hands back with
unmatched requests is one ``_plain_reasons`` gives exactly those ``unexecuted`` reasons. So
``incomplete_traces`` is the same with and without it. Hypothesis draws traces of every shape
the rules care about: duplicate ids, self-parents, cycles, missing parents, several tops,
unended spans, missing token usage, error status, hand-offs, several (named) agents, tool calls
matched by call id, by name and arguments, or not at all, as text the fast path parsed
(``known``) or did not, and as ``Message`` objects (the general path).
"""

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.benchmarks.ingest import make_payload
from eval_pipeline.traces.decode.errors import MAX_ATTRIBUTE_BYTES
from eval_pipeline.traces.ingest import completeness
from eval_pipeline.traces.ingest.fast_path import decode_rows
from eval_pipeline.traces.model import Operation, StatusCode
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.runs.completeness import unexecuted
from eval_pipeline.traces.runs.views import Request
from eval_pipeline.traces.store.span_table import ROW_FIELDS, span_row
from eval_pipeline_tests.traces.builders import assistant, make_span
from eval_pipeline_tests.traces.builders import tool_call as call

pytestmark = pytest.mark.skipif(completeness._native is None, reason="_plain_shape not built")

_OUTPUTS = ROW_FIELDS.index("output_messages")
_IDS = ["1", "2", "3", "4", "5", "6", "7"]
_OPERATIONS = [
    Operation.INVOKE_AGENT,
    Operation.CHAT,
    Operation.EXECUTE_TOOL,
    Operation.CHAT,
    Operation.CHAT,
    Operation.TEXT_COMPLETION,
    Operation.EXECUTE_TOOL,
    Operation.EXECUTE_TOOL,
    Operation.HANDOFF,
    Operation.INVOKE_WORKFLOW,
    Operation.UNKNOWN,
]
_TOOLS = st.sampled_from(["get_weather", "send_mail"])
_CALL_IDS = st.sampled_from(["c1", "c2", "c3"])
_OTHER_PARTS = st.sampled_from(
    [
        {"type": "text", "content": "hi"},
        {"content": "x"},
        {"type": 3},
        {"type": "tool_call_response", "id": "c1", "name": "get_weather", "response": "ok"},
    ]
)
_ARGUMENTS = st.sampled_from([None, '{"city":"x"}', {"city": "x"}, '{"city":"y"}'])


def _rare(draw: st.DrawFn) -> bool:
    """A flaw, drawn now and then: most traces are plain, as in real batches."""
    return draw(st.integers(0, 29)) == 0


@st.composite
def _part(draw: st.DrawFn) -> dict[str, Any]:
    part = call(draw(_CALL_IDS), draw(_TOOLS), draw(_ARGUMENTS))
    if _rare(draw):
        part["id"] = draw(st.sampled_from(["", None, 7]))
    if _rare(draw):
        del part["arguments"]
    return part


@st.composite
def _span(draw: st.DrawFn, trace_id: str, index: int) -> tuple[Any, ...]:
    if index == 0:
        operation = draw(st.sampled_from([Operation.INVOKE_AGENT] * 12 + _OPERATIONS))
        parent = None
    else:
        operation = draw(st.sampled_from(_OPERATIONS))
        parent = str(draw(st.integers(1, index)))  # a tree, now and then a deeper one
    if _rare(draw):
        parent = draw(st.sampled_from([None, "9", str(index + 1), str(index + 2)]))
    span_id = str(index + 1) if not _rare(draw) else draw(st.sampled_from(_IDS))
    start = draw(st.integers(0, 5))
    fields: dict[str, Any] = {
        "end": 0 if _rare(draw) else start + 10,
        "status_code": draw(st.sampled_from([StatusCode.UNSET, StatusCode.OK, StatusCode.ERROR])),
    }
    if _rare(draw):
        fields["attributes"] = {"error.type": "boom"}
    if operation == Operation.INVOKE_AGENT:
        fields["agent_name"] = draw(st.sampled_from([None, "A", "B"]))
    elif operation in Operation.INFERENCE:
        fields["input_tokens"] = None if _rare(draw) else 5
        fields["output_tokens"] = None if _rare(draw) else 3
        parts = draw(st.lists(st.one_of(_part(), _part(), _OTHER_PARTS), max_size=3))
        if parts or draw(st.booleans()):
            fields["output_messages"] = (assistant(*parts),)
    elif operation == Operation.EXECUTE_TOOL:
        fields["tool_name"] = draw(
            st.sampled_from([None, "get_weather", "get_weather", "send_mail"])
        )
        fields["tool_call_id"] = draw(st.sampled_from([None, None, "", "c1", "c2", "c3"]))
        fields["tool_arguments"] = draw(_ARGUMENTS)
    span = make_span(span_id, parent, trace_id=trace_id, operation=operation, start=start, **fields)
    return span_row(span)


def _as_text(row: tuple[Any, ...], known: dict[str, Any], in_known: bool) -> tuple[Any, ...]:
    """The row as the fast path writes it: output messages as JSON text (parts handed on)."""
    messages = row[_OUTPUTS]
    if not messages:
        return row
    parts = [dict(p) for m in messages for p in m.parts]
    text = json.dumps([{"role": "assistant", "parts": parts}], separators=(",", ":"))
    calls = [p for p in parts if p.get("type") == "tool_call"]
    if in_known and calls:
        known[text] = calls
    return (*row[:_OUTPUTS], text, *row[_OUTPUTS + 1 :])


@st.composite
def _batches(draw: st.DrawFn) -> tuple[list[tuple[Any, ...]], dict[str, Any] | None]:
    traces = [f"{i:032x}" for i in range(1, draw(st.integers(1, 3)) + 1)]
    rows = [
        draw(_span(trace_id, index))
        for trace_id in traces
        for index in range(draw(st.integers(1, 7)))
    ]
    if draw(st.booleans()):
        rows = draw(st.permutations(rows))  # a trace's spans in several runs
    if draw(st.integers(0, 4)) == 0:
        return rows, None  # the general path: Message objects
    known: dict[str, Any] = {}
    # Per row: 0 keeps Message objects, 1 JSON text the fast path did not parse, else parsed.
    flags = draw(st.lists(st.integers(0, 9), min_size=len(rows), max_size=len(rows)))
    text = [
        _as_text(row, known, flag > 1) if flag else row
        for row, flag in zip(rows, flags, strict=True)
    ]
    return text, known


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(_batches())
def test_pending_equals_the_python_reference(batch: tuple[list[Any], dict[str, Any] | None]):
    rows, known = batch
    assert completeness._native is not None
    got = completeness._native(
        rows, known or {}, completeness._NATIVE_FIELDS, completeness._NATIVE_CONSTS
    )
    assert got is not None
    grouped = completeness._grouped(rows)
    handed = {trace_id: (members, unmatched) for trace_id, members, unmatched in got}
    assert list(handed) == [t for t in grouped if t in handed]  # first-seen order
    for trace_id, members in grouped.items():
        reasons = completeness._plain_reasons(members, known or {})
        if trace_id not in handed:
            assert reasons == (), trace_id  # dropped only when complete
            continue
        assert handed[trace_id][0] == members
        unmatched = handed[trace_id][1]
        if unmatched is not None:
            made = tuple(unexecuted(Request(c, n, None, s, 0)) for c, n, s in unmatched)
            assert made == reasons


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=_batches())
def test_incomplete_traces_is_the_same_without_the_native_pass(
    batch: tuple[list[Any], dict[str, Any] | None], monkeypatch: pytest.MonkeyPatch
):
    rows, known = batch
    with_native = completeness.incomplete_traces(rows, known)
    with monkeypatch.context() as patch:
        patch.setattr(completeness, "_native", None)
        assert completeness.incomplete_traces(rows, known) == with_native


def test_the_benchmark_traces_are_judged_natively():
    batch = decode_rows(
        make_payload(400), "t", MAX_ATTRIBUTE_BYTES, Redactor(load_policy("default"))
    )
    assert batch is not None and completeness._native is not None
    got = completeness._native(
        batch.rows, batch.tool_calls, completeness._NATIVE_FIELDS, completeness._NATIVE_CONSTS
    )
    assert got is not None and len(got) == 50
    assert all(unmatched is not None for _, _, unmatched in got)


def test_rows_it_cannot_read_are_left_to_python():
    row = span_row(make_span("1", operation=Operation.INVOKE_AGENT))
    fields, consts = completeness._NATIVE_FIELDS, completeness._NATIVE_CONSTS
    assert completeness._native is not None
    assert completeness._native([list(row)], {}, fields, consts) is None
    assert completeness._native([row], {}, fields, consts) == []
